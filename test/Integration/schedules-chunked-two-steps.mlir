// The chunked schedule on a chunk of exactly two steps: T = 2 with chunked<2>
// (one chunk; any C >= 2 lowers alike), a diagonal transition on an N x D
// matrix state (N = D = 2, no batch dims) from init, with the final state. The
// states come out of phase 3; the final state is the carry P_1 h_0 + e_1 with
// P_1 = diag(a_2) diag(a_1).
//
// Expected values: test/Integration/Inputs/schedules_reference.py (float64
// model of the equations; it also checks that each case catches a missing
// carry, missing products, a missing down-sweep, an ignored init or an ignored
// reverse).
//
// A regression test for a miscompile by -recurrence-to-llvm, when the
// pipeline ran -linalg-fuse-elementwise-ops (upstream MLIR 22): with T = 2
// the chunk's step loop has a single iteration and folds away, so the
// elementwise linalg.generic composing P_1 = a_2 * a_1 (in place: it reads its
// `outs`) lands next to the carry's linalg.generic P_1 h_0 + e_1, and the
// fusion merged them: the fused op recomputed the product for every column d
// of the state and accumulated into the same `outs` element, so column d was
// scaled by a_2^(d+1) a_1 in P_1. The final state printed [[2, 1.5], [-1,
// -0.5]] instead of [[2, 1], [-1, -1.5]]; the states were right. The pipeline
// no longer runs that fusion.
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s
// The second run lowers the chunked scans per channel block as the GPU
// pipeline does (tile-channels), where channels are independent.
// RUN: recurrence-opt %s -recurrence-lower-chunked=tile-channels=1 -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print_2x2x2(%t: tensor<2x2x2xf32>) {
  %u = tensor.cast %t : tensor<2x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_2x2(%t: tensor<2x2xf32>) {
  %u = tensor.cast %t : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %a = arith.constant dense<[[2.0, 1.0], [0.5, -1.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[[1.0, 2.0], [0.0, 1.0]],
                            [[0.5, 1.0], [1.0, 0.0]]]> : tensor<2x2x2xf32>
  %init = arith.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>

  %h0_chunked2_dest = tensor.empty() : tensor<2x2x2xf32>
  %last0_chunked2_dest = tensor.empty() : tensor<2x2xf32>
  // From h_0 = init = [[1, -1], [2, 0.5]]:
  // h_1 = diag(2, 1) h_0 + b_1 = [[2, -2], [2, 0.5]] + [[1, 2], [0, 1]] = [[3, 0], [2, 1.5]]
  // h_2 = diag(0.5, -1) h_1 + b_2 = [[1.5, 0], [-2, -1.5]] + [[0.5, 1], [1, 0]] = [[2, 1], [-1,
  //     -1.5]]
  // The final state is h_2.
  %h0_chunked2, %last0_chunked2 = recurrence.scan diagonal schedule chunked<2> matrix transition(%a : tensor<2x2xf32>) input(%b : tensor<2x2x2xf32>) init(%init : tensor<2x2xf32>) outs(%h0_chunked2_dest, %last0_chunked2_dest : tensor<2x2x2xf32>, tensor<2x2xf32>) -> tensor<2x2x2xf32>, tensor<2x2xf32>
  call @print_2x2x2(%h0_chunked2) : (tensor<2x2x2xf32>) -> ()
  call @print_2x2(%last0_chunked2) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 0],
  // CHECK-NEXT{LITERAL}: [2, 1.5]],
  // CHECK-NEXT{LITERAL}: [[2, 1],
  // CHECK-NEXT{LITERAL}: [-1, -1.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2, 1],
  // CHECK-NEXT{LITERAL}: [-1, -1.5]]
  return
}
