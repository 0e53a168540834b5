// A diagonal transition given per state element on a matrix state:
// a: [..., T, N, D], h_t[n, d] = a_t[n, d] * h_{t-1}[n, d] + b_t[n, d].
// No batch dims.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print(%t: tensor<2x3xf32>) {
  %u = tensor.cast %t : tensor<2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // T = 2, N = 2, D = 3.
  //   a_1 = [[0.5, 1, 2], [0, 0.25, 1]]   b_1 = [[1, 1, 1], [2, 2, 2]]
  //   a_2 = [[2, 0.5, 1], [1, 1, 0.5]]    b_2 = [[0, 1, 0], [1, 0, 1]]
  //   init = [[4, 4, 4], [1, 2, 3]]
  %a = arith.constant dense<[[[0.5, 1.0, 2.0], [0.0, 0.25, 1.0]], [[2.0, 0.5, 1.0], [1.0, 1.0, 0.5]]]> : tensor<2x2x3xf32>
  %b = arith.constant dense<[[[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]], [[0.0, 1.0, 0.0], [1.0, 0.0, 1.0]]]> : tensor<2x2x3xf32>
  %init = arith.constant dense<[[4.0, 4.0, 4.0], [1.0, 2.0, 3.0]]> : tensor<2x3xf32>
  %c = arith.constant dense<[[1.0, 1.0], [0.5, 1.0]]> : tensor<2x2xf32>

  %h_dest = tensor.empty() : tensor<2x2x3xf32>
  %last_dest = tensor.empty() : tensor<2x3xf32>
  // Forward from init:
  //   h_1 = [[2, 4, 8], [0, 0.5, 3]] + b_1    = [[3, 5, 9], [2, 2.5, 5]]
  //   h_2 = [[6, 2.5, 9], [2, 2.5, 2.5]] + b_2 = [[6, 3.5, 9], [3, 2.5, 3.5]]
  %h, %last = recurrence.scan diagonal matrix transition(%a : tensor<2x2x3xf32>) input(%b : tensor<2x2x3xf32>) init(%init : tensor<2x3xf32>) outs(%h_dest, %last_dest : tensor<2x2x3xf32>, tensor<2x3xf32>) -> tensor<2x2x3xf32>, tensor<2x3xf32>
  %hu = tensor.cast %h : tensor<2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  call @print(%last) : (tensor<2x3xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 5, 9],
  // CHECK-NEXT{LITERAL}: [2, 2.5, 5]],
  // CHECK-NEXT{LITERAL}: [[6, 3.5, 9],
  // CHECK-NEXT{LITERAL}: [3, 2.5, 3.5]]]
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT{LITERAL}: [[6, 3.5, 9],
  // CHECK-NEXT{LITERAL}: [3, 2.5, 3.5]]

  %y_dest = tensor.empty() : tensor<2x3xf32>
  %first_dest = tensor.empty() : tensor<2x3xf32>
  // Reverse from h_3 = init, with a readout:
  //   h_2 = [[8, 2, 4], [1, 2, 1.5]] + b_2      = [[8, 3, 4], [2, 2, 2.5]]
  //   h_1 = [[4, 3, 8], [0, 0.5, 2.5]] + b_1    = [[5, 4, 9], [2, 2.5, 4.5]]
  //   y_1 = [1, 1] h_1   = [7, 6.5, 13.5]
  //   y_2 = [0.5, 1] h_2 = [4 + 2, 1.5 + 2, 2 + 2.5] = [6, 3.5, 4.5]
  %y, %first = recurrence.scan diagonal matrix reverse transition(%a : tensor<2x2x3xf32>) input(%b : tensor<2x2x3xf32>) init(%init : tensor<2x3xf32>) readout(%c : tensor<2x2xf32>) outs(%y_dest, %first_dest : tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>, tensor<2x3xf32>
  call @print(%y) : (tensor<2x3xf32>) -> ()
  call @print(%first) : (tensor<2x3xf32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT{LITERAL}: [[7, 6.5, 13.5],
  // CHECK-NEXT{LITERAL}: [6, 3.5, 4.5]]
  // CHECK: rank = 2 offset = 0 sizes = [2, 3] strides = [3, 1] data =
  // CHECK-NEXT{LITERAL}: [[5, 4, 9],
  // CHECK-NEXT{LITERAL}: [2, 2.5, 4.5]]
  return
}
