// Chunked and Blelloch-scan schedules on dense transitions, h_t = A_t h_{t-1}
// + b_t with a full 2 x 2 matrix (row-major: (A h)_i = sum_j A[i][j] h_j), two
// batch elements, T = 7; forward from init and reverse from zeros, with the
// final state.
//
// chunked<3>: chunks t = {1,2,3} {4,5,6} {7}, carried across 2 boundaries.
// chunked<8>: one chunk (C > T); only the final state goes through the carry.
// scan: up-sweep 2<-1, 4<-3, 6<-5 then 4<-2; down-sweep 6<-4 then 3<-2, 5<-4,
//       7<-6 (t<-u: pair t absorbs pair u).
// Reversed ops run the same chunks and pairs over t = 7..1.
//
// Expected values: test/Integration/Inputs/schedules_reference.py (float64
// model of the equations; it also checks that each case catches a missing
// carry, missing products, a missing down-sweep, an ignored init or an ignored
// reverse).
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print_2x7x2(%t: tensor<2x7x2xf32>) {
  %u = tensor.cast %t : tensor<2x7x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_2x2(%t: tensor<2x2xf32>) {
  %u = tensor.cast %t : tensor<2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %a = arith.constant dense<[[[[1.0, 1.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]], [[0.5, 0.0], [0.5, 1.0]], [[1.0, 0.0], [1.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]], [[1.0, 0.5], [0.0, 0.5]], [[2.0, 0.0], [0.0, 1.0]]],
                            [[[0.0, 1.0], [-1.0, 0.0]], [[1.0, 0.0], [0.5, 0.5]], [[1.0, 1.0], [0.0, 1.0]], [[0.5, 0.0], [0.0, 2.0]], [[1.0, 0.0], [1.0, 0.0]], [[0.0, 1.0], [1.0, 1.0]], [[1.0, -1.0], [0.0, 1.0]]]]> : tensor<2x7x2x2xf32>
  %b = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 0.0], [0.5, 0.0], [0.0, 1.0], [1.0, 1.0]],
                            [[0.0, 1.0], [1.0, 0.0], [0.0, 0.0], [1.0, 1.0], [0.0, -1.0], [0.5, 0.0], [0.0, 0.0]]]> : tensor<2x7x2xf32>
  %init = arith.constant dense<[[1.0, -1.0], [0.0, 2.0]]> : tensor<2x2xf32>

  %h0_chunked3_dest = tensor.empty() : tensor<2x7x2xf32>
  %last0_chunked3_dest = tensor.empty() : tensor<2x2xf32>
  // Forward from h_0 = init = [[1, -1], [0, 2]]; e.g. batch 0:
  // h_1 = [[1, 1], [0, 1]] [1, -1] + [1, 0] = [1, -1]:
  // batch 0: h_1 = [1, -1], h_2 = [-1, 2], h_3 = [0.5, 1.5]
  //          h_4 = [0.5, 2], h_5 = [-1.5, 0.5], h_6 = [-1.25, 1.25]
  //          h_7 = [-1.5, 2.25]
  // batch 1: h_1 = [2, 1], h_2 = [3, 1.5], h_3 = [4.5, 1.5]
  //          h_4 = [3.25, 4], h_5 = [3.25, 2.25], h_6 = [2.75, 5.5]
  //          h_7 = [-2.75, 5.5]
  // The final state is h_7.
  %h0_chunked3, %last0_chunked3 = recurrence.scan dense schedule chunked<3> transition(%a : tensor<2x7x2x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h0_chunked3_dest, %last0_chunked3_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h0_chunked3) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last0_chunked3) : (tensor<2x2xf32>) -> ()
  %h0_chunked8_dest = tensor.empty() : tensor<2x7x2xf32>
  %last0_chunked8_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, -1],
  // CHECK-NEXT{LITERAL}: [-1, 2],
  // CHECK-NEXT{LITERAL}: [0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [0.5, 2],
  // CHECK-NEXT{LITERAL}: [-1.5, 0.5],
  // CHECK-NEXT{LITERAL}: [-1.25, 1.25],
  // CHECK-NEXT{LITERAL}: [-1.5, 2.25]],
  // CHECK-NEXT{LITERAL}: [[2, 1],
  // CHECK-NEXT{LITERAL}: [3, 1.5],
  // CHECK-NEXT{LITERAL}: [4.5, 1.5],
  // CHECK-NEXT{LITERAL}: [3.25, 4],
  // CHECK-NEXT{LITERAL}: [3.25, 2.25],
  // CHECK-NEXT{LITERAL}: [2.75, 5.5],
  // CHECK-NEXT{LITERAL}: [-2.75, 5.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-1.5, 2.25],
  // CHECK-NEXT{LITERAL}: [-2.75, 5.5]]
  %h0_chunked8, %last0_chunked8 = recurrence.scan dense schedule chunked<8> transition(%a : tensor<2x7x2x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h0_chunked8_dest, %last0_chunked8_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h0_chunked8) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last0_chunked8) : (tensor<2x2xf32>) -> ()
  %h0_scan_dest = tensor.empty() : tensor<2x7x2xf32>
  %last0_scan_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, -1],
  // CHECK-NEXT{LITERAL}: [-1, 2],
  // CHECK-NEXT{LITERAL}: [0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [0.5, 2],
  // CHECK-NEXT{LITERAL}: [-1.5, 0.5],
  // CHECK-NEXT{LITERAL}: [-1.25, 1.25],
  // CHECK-NEXT{LITERAL}: [-1.5, 2.25]],
  // CHECK-NEXT{LITERAL}: [[2, 1],
  // CHECK-NEXT{LITERAL}: [3, 1.5],
  // CHECK-NEXT{LITERAL}: [4.5, 1.5],
  // CHECK-NEXT{LITERAL}: [3.25, 4],
  // CHECK-NEXT{LITERAL}: [3.25, 2.25],
  // CHECK-NEXT{LITERAL}: [2.75, 5.5],
  // CHECK-NEXT{LITERAL}: [-2.75, 5.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-1.5, 2.25],
  // CHECK-NEXT{LITERAL}: [-2.75, 5.5]]
  %h0_scan, %last0_scan = recurrence.scan dense schedule scan transition(%a : tensor<2x7x2x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h0_scan_dest, %last0_scan_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h0_scan) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last0_scan) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, -1],
  // CHECK-NEXT{LITERAL}: [-1, 2],
  // CHECK-NEXT{LITERAL}: [0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [0.5, 2],
  // CHECK-NEXT{LITERAL}: [-1.5, 0.5],
  // CHECK-NEXT{LITERAL}: [-1.25, 1.25],
  // CHECK-NEXT{LITERAL}: [-1.5, 2.25]],
  // CHECK-NEXT{LITERAL}: [[2, 1],
  // CHECK-NEXT{LITERAL}: [3, 1.5],
  // CHECK-NEXT{LITERAL}: [4.5, 1.5],
  // CHECK-NEXT{LITERAL}: [3.25, 4],
  // CHECK-NEXT{LITERAL}: [3.25, 2.25],
  // CHECK-NEXT{LITERAL}: [2.75, 5.5],
  // CHECK-NEXT{LITERAL}: [-2.75, 5.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-1.5, 2.25],
  // CHECK-NEXT{LITERAL}: [-2.75, 5.5]]

  %h1_chunked3_dest = tensor.empty() : tensor<2x7x2xf32>
  %last1_chunked3_dest = tensor.empty() : tensor<2x2xf32>
  // Reverse from h_8 = 0, evaluated t = 7..1 (h_7 = b_7, h_6 = A_6 h_7 + b_6, ...):
  // batch 0: h_7 = [1, 1], h_6 = [1.5, 1.5], h_5 = [-1, 1.5]
  //          h_4 = [-1, 0.5], h_3 = [0.5, 0], h_2 = [0, 1.5]
  //          h_1 = [2.5, 1.5]
  // batch 1: h_7 = [0, 0], h_6 = [0.5, 0], h_5 = [0.5, -0.5]
  //          h_4 = [1.25, 0], h_3 = [1.25, 0], h_2 = [2.25, 0.625]
  //          h_1 = [0.625, -1.25]
  // The final state is h_1.
  %h1_chunked3, %last1_chunked3 = recurrence.scan dense schedule chunked<3> reverse transition(%a : tensor<2x7x2x2xf32>) input(%b : tensor<2x7x2xf32>) outs(%h1_chunked3_dest, %last1_chunked3_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h1_chunked3) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last1_chunked3) : (tensor<2x2xf32>) -> ()
  %h1_scan_dest = tensor.empty() : tensor<2x7x2xf32>
  %last1_scan_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2.5, 1.5],
  // CHECK-NEXT{LITERAL}: [0, 1.5],
  // CHECK-NEXT{LITERAL}: [0.5, 0],
  // CHECK-NEXT{LITERAL}: [-1, 0.5],
  // CHECK-NEXT{LITERAL}: [-1, 1.5],
  // CHECK-NEXT{LITERAL}: [1.5, 1.5],
  // CHECK-NEXT{LITERAL}: [1, 1]],
  // CHECK-NEXT{LITERAL}: [[0.625, -1.25],
  // CHECK-NEXT{LITERAL}: [2.25, 0.625],
  // CHECK-NEXT{LITERAL}: [1.25, 0],
  // CHECK-NEXT{LITERAL}: [1.25, 0],
  // CHECK-NEXT{LITERAL}: [0.5, -0.5],
  // CHECK-NEXT{LITERAL}: [0.5, 0],
  // CHECK-NEXT{LITERAL}: [0, 0]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2.5, 1.5],
  // CHECK-NEXT{LITERAL}: [0.625, -1.25]]
  %h1_scan, %last1_scan = recurrence.scan dense schedule scan reverse transition(%a : tensor<2x7x2x2xf32>) input(%b : tensor<2x7x2xf32>) outs(%h1_scan_dest, %last1_scan_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h1_scan) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last1_scan) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2.5, 1.5],
  // CHECK-NEXT{LITERAL}: [0, 1.5],
  // CHECK-NEXT{LITERAL}: [0.5, 0],
  // CHECK-NEXT{LITERAL}: [-1, 0.5],
  // CHECK-NEXT{LITERAL}: [-1, 1.5],
  // CHECK-NEXT{LITERAL}: [1.5, 1.5],
  // CHECK-NEXT{LITERAL}: [1, 1]],
  // CHECK-NEXT{LITERAL}: [[0.625, -1.25],
  // CHECK-NEXT{LITERAL}: [2.25, 0.625],
  // CHECK-NEXT{LITERAL}: [1.25, 0],
  // CHECK-NEXT{LITERAL}: [1.25, 0],
  // CHECK-NEXT{LITERAL}: [0.5, -0.5],
  // CHECK-NEXT{LITERAL}: [0.5, 0],
  // CHECK-NEXT{LITERAL}: [0, 0]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2.5, 1.5],
  // CHECK-NEXT{LITERAL}: [0.625, -1.25]]
  return
}
