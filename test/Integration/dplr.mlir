// dplr<1>: A_t = diag(d_t) + U_t V_t^T, h_t = A_t h_{t-1} + b_t, with a
// rank-1 correction, no batch dims.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @main() {
  // T = 2, N = 2, r = 1.
  //   t = 1: d = [0.5, 0.5], U = [1, 0]^T,     V = [0, 1]^T      A = [[0.5, 1], [0, 0.5]]
  //   t = 2: d = [1, 0],     U = [1, 1]^T,     V = [0.5, 0.5]^T  A = [[1.5, 0.5], [0.5, 0.5]]
  %d = arith.constant dense<[[0.5, 0.5], [1.0, 0.0]]> : tensor<2x2xf32>
  %u = arith.constant dense<[[[1.0], [0.0]], [[1.0], [1.0]]]> : tensor<2x2x1xf32>
  %v = arith.constant dense<[[[0.0], [1.0]], [[0.5], [0.5]]]> : tensor<2x2x1xf32>
  %b = arith.constant dense<[[1.0, 2.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %init = arith.constant dense<[2.0, 4.0]> : tensor<2xf32>

  %h_dest = tensor.empty() : tensor<2x2xf32>
  %last_dest = tensor.empty() : tensor<2xf32>
  // From h_0 = [2, 4]:
  //   h_1 = [0.5*2 + 1*4, 0.5*4] + [1, 2]      = [6, 4]
  //   h_2 = [1.5*6 + 0.5*4, 0.5*6 + 0.5*4] + [0, 1] = [11, 6]
  %h, %last = recurrence.scan dplr<1> transition(%d, %u, %v : tensor<2x2xf32>, tensor<2x2x1xf32>, tensor<2x2x1xf32>) input(%b : tensor<2x2xf32>) init(%init : tensor<2xf32>) outs(%h_dest, %last_dest : tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>, tensor<2xf32>
  %hu = tensor.cast %h : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%hu) : (tensor<*xf32>) -> ()
  %lu = tensor.cast %last : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%lu) : (tensor<*xf32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[6, 4],
  // CHECK-NEXT{LITERAL}: [11, 6]]
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [11, 6]
  return
}
