// higher_order<2>: h_t = a_{1,t} * h_{t-1} + a_{2,t} * h_{t-2} + b_t
// elementwise. init and the final state hold the 2 most recent states,
// newest first: init = [h_0, h_{-1}], final = [h_T, h_{T-1}] (reverse:
// init = [h_{T+1}, h_{T+2}], final = [h_1, h_2]).
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print_states(%t: tensor<1x3x2xf32>) {
  %u = tensor.cast %t : tensor<1x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_stack(%t: tensor<1x2x2xf32>) {
  %u = tensor.cast %t : tensor<1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // One batch element, T = 3, N = 2. Per step a_t = [[a_1 per lane], [a_2 per lane]]:
  //   t = 1, 2: a_1 = [1, 0.5], a_2 = [1, 2]
  //   t = 3:    a_1 = [2, 0.5], a_2 = [0, 2]
  // b_1 = [0, 1], b_2 = b_3 = 0.
  %a = arith.constant dense<[[[[1.0, 0.5], [1.0, 2.0]],
                              [[1.0, 0.5], [1.0, 2.0]],
                              [[2.0, 0.5], [0.0, 2.0]]]]> : tensor<1x3x2x2xf32>
  %b = arith.constant dense<[[[0.0, 1.0], [0.0, 0.0], [0.0, 0.0]]]> : tensor<1x3x2xf32>
  // Lane 0 starts from h_0 = 1, h_{-1} = 0; lane 1 from h_0 = 2, h_{-1} = 4.
  %init = arith.constant dense<[[[1.0, 2.0], [0.0, 4.0]]]> : tensor<1x2x2xf32>

  %h_dest = tensor.empty() : tensor<1x3x2xf32>
  %last_dest = tensor.empty() : tensor<1x2x2xf32>
  // Forward:
  //   lane 0: h_1 = 1*1 + 1*0 + 0 = 1,      h_2 = 1*1 + 1*1 = 2,     h_3 = 2*2 + 0*1 = 4
  //   lane 1: h_1 = 0.5*2 + 2*4 + 1 = 10,   h_2 = 0.5*10 + 2*2 = 9,  h_3 = 0.5*9 + 2*10 = 24.5
  //   final = [h_3, h_2] = [[4, 24.5], [2, 9]]
  %h, %last = recurrence.scan higher_order<2> transition(%a : tensor<1x3x2x2xf32>) input(%b : tensor<1x3x2xf32>) init(%init : tensor<1x2x2xf32>) outs(%h_dest, %last_dest : tensor<1x3x2xf32>, tensor<1x2x2xf32>) -> tensor<1x3x2xf32>, tensor<1x2x2xf32>
  call @print_states(%h) : (tensor<1x3x2xf32>) -> ()
  call @print_stack(%last) : (tensor<1x2x2xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 3, 2] strides = [6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 10],
  // CHECK-NEXT{LITERAL}: [2, 9],
  // CHECK-NEXT{LITERAL}: [4, 24.5]]]
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[4, 24.5],
  // CHECK-NEXT{LITERAL}: [2, 9]]]

  %r_dest = tensor.empty() : tensor<1x3x2xf32>
  %first_dest = tensor.empty() : tensor<1x2x2xf32>
  // Reverse, with init = [h_4, h_5]:
  //   lane 0: h_3 = 2*1 + 0*0 = 2,    h_2 = 1*2 + 1*1 = 3,     h_1 = 1*3 + 1*2 + 0 = 5
  //   lane 1: h_3 = 0.5*2 + 2*4 = 9,  h_2 = 0.5*9 + 2*2 = 8.5, h_1 = 0.5*8.5 + 2*9 + 1 = 23.25
  //   final = [h_1, h_2] = [[5, 23.25], [3, 8.5]]
  %r, %first = recurrence.scan higher_order<2> reverse transition(%a : tensor<1x3x2x2xf32>) input(%b : tensor<1x3x2xf32>) init(%init : tensor<1x2x2xf32>) outs(%r_dest, %first_dest : tensor<1x3x2xf32>, tensor<1x2x2xf32>) -> tensor<1x3x2xf32>, tensor<1x2x2xf32>
  call @print_states(%r) : (tensor<1x3x2xf32>) -> ()
  call @print_stack(%first) : (tensor<1x2x2xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 3, 2] strides = [6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[5, 23.25],
  // CHECK-NEXT{LITERAL}: [3, 8.5],
  // CHECK-NEXT{LITERAL}: [2, 9]]]
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[5, 23.25],
  // CHECK-NEXT{LITERAL}: [3, 8.5]]]

  %z_dest = tensor.empty() : tensor<1x3x2xf32>
  %zlast_dest = tensor.empty() : tensor<1x2x2xf32>
  // Forward from zeros (h_0 = h_{-1} = 0):
  //   lane 0: 0, 0, 0
  //   lane 1: h_1 = 1,  h_2 = 0.5*1 = 0.5,  h_3 = 0.5*0.5 + 2*1 = 2.25
  %z, %zlast = recurrence.scan higher_order<2> transition(%a : tensor<1x3x2x2xf32>) input(%b : tensor<1x3x2xf32>) outs(%z_dest, %zlast_dest : tensor<1x3x2xf32>, tensor<1x2x2xf32>) -> tensor<1x3x2xf32>, tensor<1x2x2xf32>
  call @print_states(%z) : (tensor<1x3x2xf32>) -> ()
  call @print_stack(%zlast) : (tensor<1x2x2xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 3, 2] strides = [6, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[0, 1],
  // CHECK-NEXT{LITERAL}: [0, 0.5],
  // CHECK-NEXT{LITERAL}: [0, 2.25]]]
  // CHECK: rank = 3 offset = 0 sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[0, 2.25],
  // CHECK-NEXT{LITERAL}: [0, 0.5]]]
  return
}
