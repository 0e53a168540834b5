// Dense transitions, h_t = A_t h_{t-1} + b_t with a full N x N matrix
// (row-major: (A h)_i = sum_j A[i][j] h_j), forward and reverse.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // Two batch elements, T = 4, N = 2, the same A at every step:
  //   batch 0: A = [[1, 1], [1, 0]]   (Fibonacci: [x, y] -> [x + y, x])
  //   batch 1: A = [[0, -1], [1, 0]]  (rotation by 90 degrees: [x, y] -> [-y, x])
  // and b_1 = [1, 0], b_2 = b_3 = b_4 = 0.
  %A = arith.constant dense<[[[[1.0, 1.0], [1.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]],
                              [[1.0, 1.0], [1.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]],
                             [[[0.0, -1.0], [1.0, 0.0]], [[0.0, -1.0], [1.0, 0.0]],
                              [[0.0, -1.0], [1.0, 0.0]], [[0.0, -1.0], [1.0, 0.0]]]]> : tensor<2x4x2x2xf32>
  %b = arith.constant dense<[[[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]],
                             [[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]> : tensor<2x4x2xf32>
  %init = arith.constant dense<[[0.0, 1.0], [0.0, 1.0]]> : tensor<2x2xf32>

  %h_dest = tensor.empty() : tensor<2x4x2xf32>
  %last_dest = tensor.empty() : tensor<2x2xf32>
  // Forward from zeros:
  //   batch 0: [1, 0] -> [1, 1] -> [2, 1] -> [3, 2]
  //   batch 1: [1, 0] -> [0, 1] -> [-1, 0] -> [0, -1]
  %h, %last = recurrence.scan dense transition(%A : tensor<2x4x2x2xf32>) input(%b : tensor<2x4x2xf32>) outs(%h_dest, %last_dest : tensor<2x4x2xf32>, tensor<2x2xf32>) -> tensor<2x4x2xf32>, tensor<2x2xf32>
  %hu = tensor.cast %h : tensor<2x4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  %lu = tensor.cast %last : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 4, 2] strides = [8, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0],
  // CHECK-NEXT{LITERAL}: [1, 1],
  // CHECK-NEXT{LITERAL}: [2, 1],
  // CHECK-NEXT{LITERAL}: [3, 2]],
  // CHECK-NEXT{LITERAL}: [[1, 0],
  // CHECK-NEXT{LITERAL}: [0, 1],
  // CHECK-NEXT{LITERAL}: [-1, 0],
  // CHECK-NEXT{LITERAL}: [0, -1]]]
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[3, 2],
  // CHECK-NEXT{LITERAL}: [0, -1]]

  %r_dest = tensor.empty() : tensor<2x4x2xf32>
  %first_dest = tensor.empty() : tensor<2x2xf32>
  // Reverse from h_5 = [0, 1], t = 4, 3, 2, 1 (b_1 = [1, 0] comes last):
  //   batch 0: h_4 = [1, 0], h_3 = [1, 1], h_2 = [2, 1], h_1 = [3, 2] + [1, 0] = [4, 2]
  //   batch 1: h_4 = [-1, 0], h_3 = [0, -1], h_2 = [1, 0], h_1 = [0, 1] + [1, 0] = [1, 1]
  %r, %first = recurrence.scan dense reverse transition(%A : tensor<2x4x2x2xf32>) input(%b : tensor<2x4x2xf32>) init(%init : tensor<2x2xf32>) outs(%r_dest, %first_dest : tensor<2x4x2xf32>, tensor<2x2xf32>) -> tensor<2x4x2xf32>, tensor<2x2xf32>
  %ru = tensor.cast %r : tensor<2x4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  %fu = tensor.cast %first : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%fu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 4, 2] strides = [8, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[4, 2],
  // CHECK-NEXT{LITERAL}: [2, 1],
  // CHECK-NEXT{LITERAL}: [1, 1],
  // CHECK-NEXT{LITERAL}: [1, 0]],
  // CHECK-NEXT{LITERAL}: [[1, 1],
  // CHECK-NEXT{LITERAL}: [1, 0],
  // CHECK-NEXT{LITERAL}: [0, -1],
  // CHECK-NEXT{LITERAL}: [-1, 0]]]
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[4, 2],
  // CHECK-NEXT{LITERAL}: [1, 1]]
  return
}
