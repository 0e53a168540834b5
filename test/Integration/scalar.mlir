// Scalar transitions, h_t = a_t * h_{t-1} + b_t with one a_t for the whole
// state, on a scan with no batch dims (the lowering's scf.forall-free path).
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print1(%t: tensor<2xf32>) {
  %u = tensor.cast %t : tensor<2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print2(%t: tensor<4x2xf32>) {
  %u = tensor.cast %t : tensor<4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // T = 4 steps, N = 2: a = [0.5, 2, 0, 1], b_t = [1, 2], [1, 2], [3, 4], [0.5, 0.5].
  %a = arith.constant dense<[0.5, 2.0, 0.0, 1.0]> : tensor<4xf32>
  %b = arith.constant dense<[[1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [0.5, 0.5]]> : tensor<4x2xf32>
  %init = arith.constant dense<[4.0, -2.0]> : tensor<2xf32>

  %h_dest = tensor.empty() : tensor<4x2xf32>
  %last_dest = tensor.empty() : tensor<2xf32>
  // Forward from zeros:
  //   h_1 = 0.5*[0, 0] + [1, 2] = [1, 2]
  //   h_2 = 2*[1, 2] + [1, 2] = [3, 6]
  //   h_3 = 0*[3, 6] + [3, 4] = [3, 4]
  //   h_4 = 1*[3, 4] + [0.5, 0.5] = [3.5, 4.5]   (also the final state)
  %h, %last = recurrence.scan scalar schedule sequential transition(%a : tensor<4xf32>) input(%b : tensor<4x2xf32>) outs(%h_dest, %last_dest : tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>, tensor<2xf32>
  call @print2(%h) : (tensor<4x2xf32>) -> ()
  call @print1(%last) : (tensor<2xf32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [4, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[1, 2],
  // CHECK-NEXT{LITERAL}: [3, 6],
  // CHECK-NEXT{LITERAL}: [3, 4],
  // CHECK-NEXT{LITERAL}: [3.5, 4.5]]
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [3.5, 4.5]

  %r_dest = tensor.empty() : tensor<4x2xf32>
  %first_dest = tensor.empty() : tensor<2xf32>
  // Reverse from h_5 = init = [4, -2]:
  //   h_4 = 1*[4, -2] + [0.5, 0.5] = [4.5, -1.5]
  //   h_3 = 0*[4.5, -1.5] + [3, 4] = [3, 4]
  //   h_2 = 2*[3, 4] + [1, 2] = [7, 10]
  //   h_1 = 0.5*[7, 10] + [1, 2] = [4.5, 7]       (the final state)
  %r, %first = recurrence.scan scalar reverse transition(%a : tensor<4xf32>) input(%b : tensor<4x2xf32>) init(%init : tensor<2xf32>) outs(%r_dest, %first_dest : tensor<4x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>, tensor<2xf32>
  call @print2(%r) : (tensor<4x2xf32>) -> ()
  call @print1(%first) : (tensor<2xf32>) -> ()
  // CHECK: rank = 2 offset = 0 sizes = [4, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[4.5, 7],
  // CHECK-NEXT{LITERAL}: [7, 10],
  // CHECK-NEXT{LITERAL}: [3, 4],
  // CHECK-NEXT{LITERAL}: [4.5, -1.5]]
  // CHECK: rank = 1 offset = 0 sizes = [2] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [4.5, 7]
  return
}
