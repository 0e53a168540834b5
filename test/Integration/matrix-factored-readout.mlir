// Matrix states (N x D): a diagonal transition shared by the D columns,
// factored inputs b_t = k_t v_t^T and readouts y_t = c_t^T h_t (the
// Mamba-style selective SSM); then a dense transition on a full matrix
// input with init, readout and reverse. The second run tiles the loops as
// the GPU lowering does (a tile per thread): every column of a matrix state
// is a tile of its own, even where a readout sums over the channels or a
// dense transition mixes them.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s
// RUN: recurrence-opt %s -recurrence-select-schedule -recurrence-lower-sequential=fixed-channel-tile=1 -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // One batch element, T = 2, N = 2, D = 3.
  //   a_1 = [0.5, 2]   k_1 = [1, 2]   v_1 = [1, 0, 0.5]   c_1 = [1, 1]
  //   a_2 = [1, 0.5]   k_2 = [1, 0]   v_2 = [2, 1, 0]     c_2 = [0.5, 1]
  %a = arith.constant dense<[[[0.5, 2.0], [1.0, 0.5]]]> : tensor<1x2x2xf32>
  %k = arith.constant dense<[[[1.0, 2.0], [1.0, 0.0]]]> : tensor<1x2x2xf32>
  %v = arith.constant dense<[[[1.0, 0.0, 0.5], [2.0, 1.0, 0.0]]]> : tensor<1x2x3xf32>
  %c = arith.constant dense<[[[1.0, 1.0], [0.5, 1.0]]]> : tensor<1x2x2xf32>

  %h_dest = tensor.empty() : tensor<1x2x2x3xf32>
  %last_dest = tensor.empty() : tensor<1x2x3xf32>
  // h_1 = k_1 v_1^T                     = [[1, 0, 0.5], [2, 0, 1]]
  // h_2 = diag(1, 0.5) h_1 + k_2 v_2^T  = [[1, 0, 0.5], [1, 0, 0.5]] + [[2, 1, 0], [0, 0, 0]]
  //                                     = [[3, 1, 0.5], [1, 0, 0.5]]
  %h, %last = recurrence.scan diagonal matrix transition(%a : tensor<1x2x2xf32>) factored_input(%k, %v : tensor<1x2x2xf32>, tensor<1x2x3xf32>) outs(%h_dest, %last_dest : tensor<1x2x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x2x3xf32>, tensor<1x2x3xf32>
  %hu = tensor.cast %h : tensor<1x2x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  %lu = tensor.cast %last : tensor<1x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 2, 2, 3] strides = [12, 6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[1, 0, 0.5],
  // CHECK-NEXT{LITERAL}: [2, 0, 1]],
  // CHECK-NEXT{LITERAL}: [[3, 1, 0.5],
  // CHECK-NEXT{LITERAL}: [1, 0, 0.5]]]]
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 1, 0.5],
  // CHECK-NEXT{LITERAL}: [1, 0, 0.5]]]

  %y_dest = tensor.empty() : tensor<1x2x3xf32>
  // y_1 = c_1^T h_1 = [1, 0, 0.5] + [2, 0, 1]          = [3, 0, 1.5]
  // y_2 = c_2^T h_2 = 0.5*[3, 1, 0.5] + [1, 0, 0.5]    = [2.5, 0.5, 0.75]
  %y = recurrence.scan diagonal matrix transition(%a : tensor<1x2x2xf32>) factored_input(%k, %v : tensor<1x2x2xf32>, tensor<1x2x3xf32>) readout(%c : tensor<1x2x2xf32>) outs(%y_dest : tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  %yu = tensor.cast %y : tensor<1x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%yu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 0, 1.5],
  // CHECK-NEXT{LITERAL}: [2.5, 0.5, 0.75]]]

  // Dense, reverse, full input, from h_3 = init:
  //   A_1 = [[0, 1], [1, 0]] (swap rows)   b_1 = [[1, 0, 0], [0, 1, 0]]
  //   A_2 = [[1, 0], [0.5, 1]]             b_2 = [[0, 0, 1], [1, 0, 0]]
  //   init = [[1, 2, 3], [0, 0, 0.5]]
  // h_2 = A_2 init + b_2 = [[1, 2, 3], [0.5, 1, 2]] + b_2  = [[1, 2, 4], [1.5, 1, 2]]
  // h_1 = A_1 h_2 + b_1  = [[1.5, 1, 2], [1, 2, 4]] + b_1  = [[2.5, 1, 2], [1, 3, 4]]
  // y_1 = [1, 1] h_1   = [3.5, 4, 6]
  // y_2 = [0.5, 1] h_2 = [0.5 + 1.5, 1 + 1, 2 + 2]       = [2, 2, 4]
  %A = arith.constant dense<[[[[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.5, 1.0]]]]> : tensor<1x2x2x2xf32>
  %b = arith.constant dense<[[[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]]]> : tensor<1x2x2x3xf32>
  %init = arith.constant dense<[[[1.0, 2.0, 3.0], [0.0, 0.0, 0.5]]]> : tensor<1x2x3xf32>
  %r_dest = tensor.empty() : tensor<1x2x3xf32>
  %first_dest = tensor.empty() : tensor<1x2x3xf32>
  %r, %first = recurrence.scan dense matrix reverse transition(%A : tensor<1x2x2x2xf32>) input(%b : tensor<1x2x2x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x2x2xf32>) outs(%r_dest, %first_dest : tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x3xf32>, tensor<1x2x3xf32>
  %ru = tensor.cast %r : tensor<1x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%ru) : (tensor<*xf32>) -> ()
  %fu = tensor.cast %first : tensor<1x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%fu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3.5, 4, 6],
  // CHECK-NEXT{LITERAL}: [2, 2, 4]]]
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2.5, 1, 2],
  // CHECK-NEXT{LITERAL}: [1, 3, 4]]]
  return
}
