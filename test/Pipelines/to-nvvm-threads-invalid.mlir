// Threads per block outside what a GPU block takes (1 to 1024) are an error
// that names both options, not an empty or failing launch.
//
// RUN: not recurrence-opt %s -recurrence-to-nvvm=elementwise-threads=0 2>&1 | FileCheck %s
// RUN: not recurrence-opt %s -recurrence-to-nvvm=threads=2048 2>&1 | FileCheck %s

// CHECK: error: threads and elementwise-threads must be between 1 and 1024 (threads per block), got
func.func @diagonal(%a: tensor<2x64x8xf32>, %b: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
  %h_dest = tensor.empty() : tensor<2x64x8xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x64x8xf32>) input(%b : tensor<2x64x8xf32>) outs(%h_dest : tensor<2x64x8xf32>) -> tensor<2x64x8xf32>
  return %h : tensor<2x64x8xf32>
}
