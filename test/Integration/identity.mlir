// Identity transitions, h_t = h_{t-1} + b_t: running sums, over two batch
// dims, forward, reverse (suffix sums) and with a readout y_t = c_t . h_t.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // Batch dims [2, 1], T = 3, N = 2.
  %b = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0], [0.5, 0.25]]],
                             [[[-1.0, 1.0], [2.0, 2.0], [0.0, 1.0]]]]> : tensor<2x1x3x2xf32>
  %c = arith.constant dense<[[[[1.0, 0.0], [1.0, 1.0], [0.5, 2.0]]],
                             [[[2.0, 1.0], [0.0, 1.0], [1.0, -1.0]]]]> : tensor<2x1x3x2xf32>

  %h_dest = tensor.empty() : tensor<2x1x3x2xf32>
  // Prefix sums:
  //   batch 0: [1, 2], [1+3, 2+4] = [4, 6], [4+0.5, 6+0.25] = [4.5, 6.25]
  //   batch 1: [-1, 1], [-1+2, 1+2] = [1, 3], [1+0, 3+1] = [1, 4]
  %h = recurrence.scan identity input(%b : tensor<2x1x3x2xf32>) outs(%h_dest : tensor<2x1x3x2xf32>) -> tensor<2x1x3x2xf32>
  %hu = tensor.cast %h : tensor<2x1x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 3, 2] strides = [6, 6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[1, 2],
  // CHECK-NEXT{LITERAL}: [4, 6],
  // CHECK-NEXT{LITERAL}: [4.5, 6.25]]],
  // CHECK-NEXT{LITERAL}: [[[-1, 1],
  // CHECK-NEXT{LITERAL}: [1, 3],
  // CHECK-NEXT{LITERAL}: [1, 4]]]]

  %r_dest = tensor.empty() : tensor<2x1x3x2xf32>
  // Suffix sums (reverse):
  //   batch 0: h_3 = [0.5, 0.25], h_2 = [3.5, 4.25], h_1 = [4.5, 6.25]
  //   batch 1: h_3 = [0, 1],      h_2 = [2, 3],      h_1 = [1, 4]
  %r = recurrence.scan identity reverse input(%b : tensor<2x1x3x2xf32>) outs(%r_dest : tensor<2x1x3x2xf32>) -> tensor<2x1x3x2xf32>
  %ru = tensor.cast %r : tensor<2x1x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [2, 1, 3, 2] strides = [6, 6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[4.5, 6.25],
  // CHECK-NEXT{LITERAL}: [3.5, 4.25],
  // CHECK-NEXT{LITERAL}: [0.5, 0.25]]],
  // CHECK-NEXT{LITERAL}: [[[1, 4],
  // CHECK-NEXT{LITERAL}: [2, 3],
  // CHECK-NEXT{LITERAL}: [0, 1]]]]

  %y_dest = tensor.empty() : tensor<2x1x3xf32>
  // Readout of the prefix sums, y_t = c_t . h_t:
  //   batch 0: [1, 0].[1, 2] = 1,   [1, 1].[4, 6] = 10,  [0.5, 2].[4.5, 6.25] = 14.75
  //   batch 1: [2, 1].[-1, 1] = -1, [0, 1].[1, 3] = 3,   [1, -1].[1, 4] = -3
  %y = recurrence.scan identity input(%b : tensor<2x1x3x2xf32>) readout(%c : tensor<2x1x3x2xf32>) outs(%y_dest : tensor<2x1x3xf32>) -> tensor<2x1x3xf32>
  %yu = tensor.cast %y : tensor<2x1x3xf32> to tensor<*xf32>
  call @printMemrefF32(%yu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 1, 3] strides = [3, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 10, 14.75]],
  // CHECK-NEXT{LITERAL}: [[-1, 3, -3]]]
  return
}
