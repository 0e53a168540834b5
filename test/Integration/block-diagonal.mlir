// block_diagonal<2>: a state of N = 4 in two blocks of 2, each with its own
// 2 x 2 matrix per step, h_t = blockdiag(B1_t, B2_t) h_{t-1} + b_t.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // One batch element, T = 2.
  //   t = 1: B1 = [[0, 1], [1, 0]] (swap)   B2 = [[0.5, 0], [0.25, 1]]   b = [1, 0, 0, 1]
  //   t = 2: B1 = [[2, 0], [0, 0.5]]        B2 = [[1, 1], [0, 1]]        b = [0, 0, 1, 0]
  %A = arith.constant dense<[[[[[0.0, 1.0], [1.0, 0.0]], [[0.5, 0.0], [0.25, 1.0]]],
                              [[[2.0, 0.0], [0.0, 0.5]], [[1.0, 1.0], [0.0, 1.0]]]]]> : tensor<1x2x2x2x2xf32>
  %b = arith.constant dense<[[[1.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 0.0]]]> : tensor<1x2x4xf32>
  %init = arith.constant dense<[[1.0, 2.0, 3.0, 4.0]]> : tensor<1x4xf32>

  %h_dest = tensor.empty() : tensor<1x2x4xf32>
  %last_dest = tensor.empty() : tensor<1x4xf32>
  // Forward from h_0 = [1, 2, 3, 4]:
  //   h_1 = [swap([1, 2]) + [1, 0],  [0.5*3, 0.25*3 + 4] + [0, 1]] = [3, 1, 1.5, 5.75]
  //   h_2 = [[2*3, 0.5*1] + [0, 0],  [1.5 + 5.75, 5.75] + [1, 0]]  = [6, 0.5, 8.25, 5.75]
  %h, %last = recurrence.scan block_diagonal<2> transition(%A : tensor<1x2x2x2x2xf32>) input(%b : tensor<1x2x4xf32>) init(%init : tensor<1x4xf32>) outs(%h_dest, %last_dest : tensor<1x2x4xf32>, tensor<1x4xf32>) -> tensor<1x2x4xf32>, tensor<1x4xf32>
  %hu = tensor.cast %h : tensor<1x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  %lu = tensor.cast %last : tensor<1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 4] strides = [8, 4, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 1, 1.5, 5.75],
  // CHECK-NEXT{LITERAL}: [6, 0.5, 8.25, 5.75]]]
  // CHECK: rank = 2 offset = 0 sizes = [1, 4] strides = [4, 1] data =
  // CHECK-NEXT{LITERAL}: [[6, 0.5, 8.25, 5.75]]

  %r_dest = tensor.empty() : tensor<1x2x4xf32>
  %first_dest = tensor.empty() : tensor<1x4xf32>
  // Reverse from h_3 = [1, 2, 3, 4]:
  //   h_2 = [[2*1, 0.5*2] + [0, 0],  [3 + 4, 4] + [1, 0]]             = [2, 1, 8, 4]
  //   h_1 = [swap([2, 1]) + [1, 0],  [0.5*8, 0.25*8 + 4] + [0, 1]]    = [2, 2, 4, 7]
  %r, %first = recurrence.scan block_diagonal<2> reverse transition(%A : tensor<1x2x2x2x2xf32>) input(%b : tensor<1x2x4xf32>) init(%init : tensor<1x4xf32>) outs(%r_dest, %first_dest : tensor<1x2x4xf32>, tensor<1x4xf32>) -> tensor<1x2x4xf32>, tensor<1x4xf32>
  %ru = tensor.cast %r : tensor<1x2x4xf32> to tensor<*xf32>
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  %fu = tensor.cast %first : tensor<1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%fu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 4] strides = [8, 4, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, 2, 4, 7],
  // CHECK-NEXT{LITERAL}: [2, 1, 8, 4]]]
  // CHECK: rank = 2 offset = 0 sizes = [1, 4] strides = [4, 1] data =
  // CHECK-NEXT{LITERAL}: [[2, 2, 4, 7]]
  return
}
