// Diagonal transitions, h_t = a_t * h_{t-1} + b_t elementwise, forward and
// reverse, with and without init, with the final state.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print2(%t: tensor<2x2xf32>) {
  %u = tensor.cast %t : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print3(%t: tensor<2x3x2xf32>) {
  %u = tensor.cast %t : tensor<2x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // Two batch elements, T = 3 steps, N = 2 lanes.
  //   batch 0: a_t = [0.5, 2]           b_t = [1, 0.5], [2, 0], [0.5, 1]
  //   batch 1: a_t = [1, 0.5], [0.5, 1], [0, 0.25]      b_t = [1, 1] every step
  %a = arith.constant dense<[[[0.5, 2.0], [0.5, 2.0], [0.5, 2.0]],
                             [[1.0, 0.5], [0.5, 1.0], [0.0, 0.25]]]> : tensor<2x3x2xf32>
  %b = arith.constant dense<[[[1.0, 0.5], [2.0, 0.0], [0.5, 1.0]],
                             [[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]]> : tensor<2x3x2xf32>
  %init = arith.constant dense<[[2.0, -1.0], [0.0, 4.0]]> : tensor<2x2xf32>

  %h0_dest = tensor.empty() : tensor<2x3x2xf32>
  // Forward from h_0 = 0.
  //   batch 0, lane 0: h = 0.5*0+1 = 1,    0.5*1+2 = 2.5,  0.5*2.5+0.5 = 1.75
  //   batch 0, lane 1: h = 2*0+0.5 = 0.5,  2*0.5+0 = 1,    2*1+1 = 3
  //   batch 1, lane 0: h = 1*0+1 = 1,      0.5*1+1 = 1.5,  0*1.5+1 = 1
  //   batch 1, lane 1: h = 0.5*0+1 = 1,    1*1+1 = 2,      0.25*2+1 = 1.5
  %h0 = recurrence.scan diagonal transition(%a : tensor<2x3x2xf32>) input(%b : tensor<2x3x2xf32>) outs(%h0_dest : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  call @print3(%h0) : (tensor<2x3x2xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 3, 2] strides = [6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0.5],
  // CHECK-NEXT{LITERAL}: [2.5, 1],
  // CHECK-NEXT{LITERAL}: [1.75, 3]],
  // CHECK-NEXT{LITERAL}: [[1, 1],
  // CHECK-NEXT{LITERAL}: [1.5, 2],
  // CHECK-NEXT{LITERAL}: [1, 1.5]]]

  %h1_dest = tensor.empty() : tensor<2x3x2xf32>
  %last1_dest = tensor.empty() : tensor<2x2xf32>
  // Forward from h_0 = init; the final state is h_3.
  //   batch 0, lane 0: h = 0.5*2+1 = 2,      0.5*2+2 = 3,    0.5*3+0.5 = 2
  //   batch 0, lane 1: h = 2*-1+0.5 = -1.5,  2*-1.5+0 = -3,  2*-3+1 = -5
  //   batch 1, lane 0: h = 1*0+1 = 1,        0.5*1+1 = 1.5,  0*1.5+1 = 1
  //   batch 1, lane 1: h = 0.5*4+1 = 3,      1*3+1 = 4,      0.25*4+1 = 2
  %h1, %last1 = recurrence.scan diagonal transition(%a : tensor<2x3x2xf32>) input(%b : tensor<2x3x2xf32>) init(%init : tensor<2x2xf32>) outs(%h1_dest, %last1_dest : tensor<2x3x2xf32>, tensor<2x2xf32>) -> tensor<2x3x2xf32>, tensor<2x2xf32>
  call @print3(%h1) : (tensor<2x3x2xf32>) -> ()
  call @print2(%last1) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 3, 2] strides = [6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, -1.5],
  // CHECK-NEXT{LITERAL}: [3, -3],
  // CHECK-NEXT{LITERAL}: [2, -5]],
  // CHECK-NEXT{LITERAL}: [[1, 3],
  // CHECK-NEXT{LITERAL}: [1.5, 4],
  // CHECK-NEXT{LITERAL}: [1, 2]]]
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2, -5],
  // CHECK-NEXT{LITERAL}: [1, 2]]

  %h2_dest = tensor.empty() : tensor<2x3x2xf32>
  %last2_dest = tensor.empty() : tensor<2x2xf32>
  // Reverse from h_4 = init, t = 3, 2, 1; the final state is h_1.
  //   batch 0, lane 0: h_3 = 0.5*2+0.5 = 1.5,  h_2 = 0.5*1.5+2 = 2.75,  h_1 = 0.5*2.75+1 = 2.375
  //   batch 0, lane 1: h_3 = 2*-1+1 = -1,      h_2 = 2*-1+0 = -2,       h_1 = 2*-2+0.5 = -3.5
  //   batch 1, lane 0: h_3 = 0*0+1 = 1,        h_2 = 0.5*1+1 = 1.5,     h_1 = 1*1.5+1 = 2.5
  //   batch 1, lane 1: h_3 = 0.25*4+1 = 2,     h_2 = 1*2+1 = 3,         h_1 = 0.5*3+1 = 2.5
  %h2, %last2 = recurrence.scan diagonal reverse transition(%a : tensor<2x3x2xf32>) input(%b : tensor<2x3x2xf32>) init(%init : tensor<2x2xf32>) outs(%h2_dest, %last2_dest : tensor<2x3x2xf32>, tensor<2x2xf32>) -> tensor<2x3x2xf32>, tensor<2x2xf32>
  call @print3(%h2) : (tensor<2x3x2xf32>) -> ()
  call @print2(%last2) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [2, 3, 2] strides = [6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2.375, -3.5],
  // CHECK-NEXT{LITERAL}: [2.75, -2],
  // CHECK-NEXT{LITERAL}: [1.5, -1]],
  // CHECK-NEXT{LITERAL}: [[2.5, 2.5],
  // CHECK-NEXT{LITERAL}: [1.5, 3],
  // CHECK-NEXT{LITERAL}: [1, 2]]]
  // CHECK: rank = 2 offset = 0 sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2.375, -3.5],
  // CHECK-NEXT{LITERAL}: [2.5, 2.5]]
  return
}
