// The chunked schedule on dplr<1>: A_t = diag(d_t) + u_t w_t^T, h_t = A_t
// h_{t-1} + b_t, no batch dims, T = 7, N = 2, forward and reverse from init,
// with the final state. The schedule densifies A_t to N x N and composes
// matrices.
//
// Densified:
//   A_1 = [[0.5, 1], [0, 1]]
//   A_2 = [[1, 0], [1, 0]]
//   A_3 = [[0.5, 0], [0.5, 0.5]]
//   A_4 = [[1, 0.5], [0, 1]]
//   A_5 = [[1.5, 0], [-1, 0.5]]
//   A_6 = [[2, 0], [0.5, 0.5]]
//   A_7 = [[0, -1], [0, 1]]
//
// chunked<3>: chunks t = {1,2,3} {4,5,6} {7}, carried across 2 boundaries.
// chunked<8>: one chunk (C > T); only the final state goes through the carry.
// Reversed ops run the same chunks and pairs over t = 7..1.
//
// Expected values: test/Integration/Inputs/schedules_reference.py (float64
// model of the equations; it also checks that each case catches a missing
// carry, missing products, a missing down-sweep, an ignored init or an ignored
// reverse).
//
// A regression test for a miscompile by -recurrence-to-llvm, when the
// pipeline ran -linalg-fuse-elementwise-ops (upstream MLIR 22) after
// -recurrence-lower-chunked: it fused the elementwise linalg.generic that
// forms diag(d_t) I + U V^T I (it reads its `outs`) into the matmul that
// composes it with the chunk's running product. The fused op recomputed the
// producer for every column j of the product, accumulating into the same
// `outs` element each time, so column j saw diag(d_t) added j + 1 times: every
// chunk of 2 or more steps got a wrong product P_c, and the carry from it was
// wrong (h_4..h_7 and the final state with chunked<3>, the final state with
// chunked<8>, h_4..h_1 when reversed). The pipeline no longer runs that
// fusion. The same inputs run under `scan` in schedules-dplr.mlir.
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print_7x2(%t: tensor<7x2xf32>) {
  %u = tensor.cast %t : tensor<7x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_2(%t: tensor<2xf32>) {
  %u = tensor.cast %t : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %d = arith.constant dense<[[0.5, 1.0], [1.0, 0.0], [0.0, 0.5], [1.0, 1.0], [0.5, 0.5], [2.0, 0.0], [0.0, 1.0]]> : tensor<7x2xf32>
  %u = arith.constant dense<[[[1.0], [0.0]],
                            [[0.0], [1.0]],
                            [[1.0], [1.0]],
                            [[0.5], [0.0]],
                            [[1.0], [-1.0]],
                            [[0.0], [0.5]],
                            [[1.0], [0.0]]]> : tensor<7x2x1xf32>
  %w = arith.constant dense<[[[0.0], [1.0]],
                            [[1.0], [0.0]],
                            [[0.5], [0.0]],
                            [[0.0], [1.0]],
                            [[1.0], [0.0]],
                            [[1.0], [1.0]],
                            [[0.0], [-1.0]]]> : tensor<7x2x1xf32>
  %b = arith.constant dense<[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.0], [-1.0, 0.5], [0.0, 0.0], [1.0, 0.0]]> : tensor<7x2xf32>
  %init = arith.constant dense<[2.0, -1.0]> : tensor<2xf32>

  %h0_chunked3_dest = tensor.empty() : tensor<7x2xf32>
  %last0_chunked3_dest = tensor.empty() : tensor<2xf32>
  // Forward from h_0 = init = [2, -1]:
  // h_1 = [1, -1], h_2 = [1, 2], h_3 = [1.5, 2.5]
  // h_4 = [2.75, 2.5], h_5 = [3.125, -1], h_6 = [6.25, 1.0625]
  // h_7 = [-0.0625, 1.0625]
  // The final state is h_7.
  %h0_chunked3, %last0_chunked3 = recurrence.scan dplr<1> schedule chunked<3> transition(%d, %u, %w : tensor<7x2xf32>, tensor<7x2x1xf32>, tensor<7x2x1xf32>) input(%b : tensor<7x2xf32>) init(%init : tensor<2xf32>) outs(%h0_chunked3_dest, %last0_chunked3_dest : tensor<7x2xf32>, tensor<2xf32>) -> tensor<7x2xf32>, tensor<2xf32>
  call @print_7x2(%h0_chunked3) : (tensor<7x2xf32>) -> ()
  call @print_2(%last0_chunked3) : (tensor<2xf32>) -> ()
  %h0_chunked8_dest = tensor.empty() : tensor<7x2xf32>
  %last0_chunked8_dest = tensor.empty() : tensor<2xf32>
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [7, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[1, -1],
  // CHECK-NEXT{LITERAL}: [1, 2],
  // CHECK-NEXT{LITERAL}: [1.5, 2.5],
  // CHECK-NEXT{LITERAL}: [2.75, 2.5],
  // CHECK-NEXT{LITERAL}: [3.125, -1],
  // CHECK-NEXT{LITERAL}: [6.25, 1.0625],
  // CHECK-NEXT{LITERAL}: [-0.0625, 1.0625]]
  // CHECK: rank = 1 offset = {{[0-9]+}} sizes = [2] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [-0.0625, 1.0625]
  %h0_chunked8, %last0_chunked8 = recurrence.scan dplr<1> schedule chunked<8> transition(%d, %u, %w : tensor<7x2xf32>, tensor<7x2x1xf32>, tensor<7x2x1xf32>) input(%b : tensor<7x2xf32>) init(%init : tensor<2xf32>) outs(%h0_chunked8_dest, %last0_chunked8_dest : tensor<7x2xf32>, tensor<2xf32>) -> tensor<7x2xf32>, tensor<2xf32>
  call @print_7x2(%h0_chunked8) : (tensor<7x2xf32>) -> ()
  call @print_2(%last0_chunked8) : (tensor<2xf32>) -> ()
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [7, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[1, -1],
  // CHECK-NEXT{LITERAL}: [1, 2],
  // CHECK-NEXT{LITERAL}: [1.5, 2.5],
  // CHECK-NEXT{LITERAL}: [2.75, 2.5],
  // CHECK-NEXT{LITERAL}: [3.125, -1],
  // CHECK-NEXT{LITERAL}: [6.25, 1.0625],
  // CHECK-NEXT{LITERAL}: [-0.0625, 1.0625]]
  // CHECK: rank = 1 offset = {{[0-9]+}} sizes = [2] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [-0.0625, 1.0625]

  %h1_chunked3_dest = tensor.empty() : tensor<7x2xf32>
  %last1_chunked3_dest = tensor.empty() : tensor<2xf32>
  // Reverse from h_8 = init = [2, -1], evaluated t = 7..1:
  // h_7 = [2, -1], h_6 = [4, 0.5], h_5 = [5, -3.25]
  // h_4 = [3.375, -3.25], h_3 = [2.6875, 1.0625], h_2 = [2.6875, 3.6875]
  // h_1 = [6.03125, 3.6875]
  // The final state is h_1.
  %h1_chunked3, %last1_chunked3 = recurrence.scan dplr<1> schedule chunked<3> reverse transition(%d, %u, %w : tensor<7x2xf32>, tensor<7x2x1xf32>, tensor<7x2x1xf32>) input(%b : tensor<7x2xf32>) init(%init : tensor<2xf32>) outs(%h1_chunked3_dest, %last1_chunked3_dest : tensor<7x2xf32>, tensor<2xf32>) -> tensor<7x2xf32>, tensor<2xf32>
  call @print_7x2(%h1_chunked3) : (tensor<7x2xf32>) -> ()
  call @print_2(%last1_chunked3) : (tensor<2xf32>) -> ()
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [7, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[6.03125, 3.6875],
  // CHECK-NEXT{LITERAL}: [2.6875, 3.6875],
  // CHECK-NEXT{LITERAL}: [2.6875, 1.0625],
  // CHECK-NEXT{LITERAL}: [3.375, -3.25],
  // CHECK-NEXT{LITERAL}: [5, -3.25],
  // CHECK-NEXT{LITERAL}: [4, 0.5],
  // CHECK-NEXT{LITERAL}: [2, -1]]
  // CHECK: rank = 1 offset = {{[0-9]+}} sizes = [2] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [6.03125, 3.6875]
  return
}
