// A dense constant is a global in host memory, which a GPU kernel cannot
// read: -recurrence-to-nvvm says so instead of emitting a kernel that would
// fault. (The splat is folded into a smaller constant, which has lost its
// location; the error points at the scan that reads it.)
//
// RUN: not recurrence-opt %s -recurrence-to-nvvm 2>&1 | FileCheck %s

func.func @constant_input(%a: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
  %b = arith.constant dense<1.0> : tensor<2x64x8xf32>
  %h_dest = tensor.empty() : tensor<2x64x8xf32>
  // CHECK: [[@LINE+1]]:8: error: a GPU kernel would read the dense constant @__constant_1x1xf32 from host memory; constants are not supported on the GPU yet
  %h = recurrence.scan diagonal transition(%a : tensor<2x64x8xf32>) input(%b : tensor<2x64x8xf32>) outs(%h_dest : tensor<2x64x8xf32>) -> tensor<2x64x8xf32>
  return %h : tensor<2x64x8xf32>
}
