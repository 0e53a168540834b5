// Chunked and Blelloch-scan schedules on block_diagonal<2>: a state of N = 4
// in two blocks of 2, h_t = blockdiag(B1_t, B2_t) h_{t-1} + b_t (row-major
// blocks: (B h)_i = sum_j B[i][j] h_j), one batch element, T = 7; forward from
// init and reverse from zeros, with the final state. The chunk products and
// scan pairs are 2 x 2 block products.
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
// The second run lowers the chunked scans per channel block as the GPU
// pipeline does (tile-channels), where channels are independent.
// RUN: recurrence-opt %s -recurrence-lower-chunked=tile-channels=1 -recurrence-to-llvm | %run | FileCheck %s

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print_1x7x4(%t: tensor<1x7x4xf32>) {
  %u = tensor.cast %t : tensor<1x7x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_1x4(%t: tensor<1x4xf32>) {
  %u = tensor.cast %t : tensor<1x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %a = arith.constant dense<[[[[[0.0, 1.0], [1.0, 0.0]], [[0.5, 0.0], [0.25, 1.0]]],
                             [[[1.0, 0.0], [0.0, 0.5]], [[1.0, 1.0], [0.0, 1.0]]],
                             [[[1.0, 1.0], [0.0, 1.0]], [[0.0, -1.0], [1.0, 0.0]]],
                             [[[0.5, 0.0], [0.0, 2.0]], [[1.0, 0.0], [0.5, 0.5]]],
                             [[[0.0, 1.0], [-1.0, 0.0]], [[2.0, 0.0], [0.0, 0.5]]],
                             [[[1.0, 0.0], [1.0, 1.0]], [[0.5, 0.5], [0.0, 1.0]]],
                             [[[2.0, 0.0], [0.0, 1.0]], [[0.0, 1.0], [1.0, 0.0]]]]]> : tensor<1x7x2x2x2xf32>
  %b = arith.constant dense<[[[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 0.0], [0.5, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0], [1.0, 1.0, 0.0, 0.0], [0.0, -1.0, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]]]> : tensor<1x7x4xf32>
  %init = arith.constant dense<[[1.0, 2.0, -1.0, 0.5]]> : tensor<1x4xf32>

  %h0_chunked3_dest = tensor.empty() : tensor<1x7x4xf32>
  %last0_chunked3_dest = tensor.empty() : tensor<1x4xf32>
  // Forward from h_0 = init = [1, 2, -1, 0.5]; e.g. h_1 = [swap([1, 2]),
  // [[0.5, 0], [0.25, 1]] [-1, 0.5]] + b_1 = [2, 1, -0.5, 0.25] + [1, 0, 0, 1]:
  // h_1 = [3, 1, -0.5, 1.25], h_2 = [3, 1.5, 1.75, 1.25], h_3 = [5, 1.5, -1.25, 1.75]
  // h_4 = [2.5, 3, -0.25, -0.75], h_5 = [4, -1.5, -0.5, -0.375], h_6 = [4, 1.5, 0.0625, -0.375]
  // h_7 = [8, 1.5, -0.375, 1.0625]
  // The final state is h_7.
  %h0_chunked3, %last0_chunked3 = recurrence.scan block_diagonal<2> schedule chunked<3> transition(%a : tensor<1x7x2x2x2xf32>) input(%b : tensor<1x7x4xf32>) init(%init : tensor<1x4xf32>) outs(%h0_chunked3_dest, %last0_chunked3_dest : tensor<1x7x4xf32>, tensor<1x4xf32>) -> tensor<1x7x4xf32>, tensor<1x4xf32>
  call @print_1x7x4(%h0_chunked3) : (tensor<1x7x4xf32>) -> ()
  call @print_1x4(%last0_chunked3) : (tensor<1x4xf32>) -> ()
  %h0_chunked8_dest = tensor.empty() : tensor<1x7x4xf32>
  %last0_chunked8_dest = tensor.empty() : tensor<1x4xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 4] strides = [28, 4, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 1, -0.5, 1.25],
  // CHECK-NEXT{LITERAL}: [3, 1.5, 1.75, 1.25],
  // CHECK-NEXT{LITERAL}: [5, 1.5, -1.25, 1.75],
  // CHECK-NEXT{LITERAL}: [2.5, 3, -0.25, -0.75],
  // CHECK-NEXT{LITERAL}: [4, -1.5, -0.5, -0.375],
  // CHECK-NEXT{LITERAL}: [4, 1.5, 0.0625, -0.375],
  // CHECK-NEXT{LITERAL}: [8, 1.5, -0.375, 1.0625]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 4] strides = [4, 1] data =
  // CHECK-NEXT{LITERAL}: [[8, 1.5, -0.375, 1.0625]]
  %h0_chunked8, %last0_chunked8 = recurrence.scan block_diagonal<2> schedule chunked<8> transition(%a : tensor<1x7x2x2x2xf32>) input(%b : tensor<1x7x4xf32>) init(%init : tensor<1x4xf32>) outs(%h0_chunked8_dest, %last0_chunked8_dest : tensor<1x7x4xf32>, tensor<1x4xf32>) -> tensor<1x7x4xf32>, tensor<1x4xf32>
  call @print_1x7x4(%h0_chunked8) : (tensor<1x7x4xf32>) -> ()
  call @print_1x4(%last0_chunked8) : (tensor<1x4xf32>) -> ()
  %h0_scan_dest = tensor.empty() : tensor<1x7x4xf32>
  %last0_scan_dest = tensor.empty() : tensor<1x4xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 4] strides = [28, 4, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 1, -0.5, 1.25],
  // CHECK-NEXT{LITERAL}: [3, 1.5, 1.75, 1.25],
  // CHECK-NEXT{LITERAL}: [5, 1.5, -1.25, 1.75],
  // CHECK-NEXT{LITERAL}: [2.5, 3, -0.25, -0.75],
  // CHECK-NEXT{LITERAL}: [4, -1.5, -0.5, -0.375],
  // CHECK-NEXT{LITERAL}: [4, 1.5, 0.0625, -0.375],
  // CHECK-NEXT{LITERAL}: [8, 1.5, -0.375, 1.0625]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 4] strides = [4, 1] data =
  // CHECK-NEXT{LITERAL}: [[8, 1.5, -0.375, 1.0625]]
  %h0_scan, %last0_scan = recurrence.scan block_diagonal<2> schedule scan transition(%a : tensor<1x7x2x2x2xf32>) input(%b : tensor<1x7x4xf32>) init(%init : tensor<1x4xf32>) outs(%h0_scan_dest, %last0_scan_dest : tensor<1x7x4xf32>, tensor<1x4xf32>) -> tensor<1x7x4xf32>, tensor<1x4xf32>
  call @print_1x7x4(%h0_scan) : (tensor<1x7x4xf32>) -> ()
  call @print_1x4(%last0_scan) : (tensor<1x4xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 4] strides = [28, 4, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 1, -0.5, 1.25],
  // CHECK-NEXT{LITERAL}: [3, 1.5, 1.75, 1.25],
  // CHECK-NEXT{LITERAL}: [5, 1.5, -1.25, 1.75],
  // CHECK-NEXT{LITERAL}: [2.5, 3, -0.25, -0.75],
  // CHECK-NEXT{LITERAL}: [4, -1.5, -0.5, -0.375],
  // CHECK-NEXT{LITERAL}: [4, 1.5, 0.0625, -0.375],
  // CHECK-NEXT{LITERAL}: [8, 1.5, -0.375, 1.0625]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 4] strides = [4, 1] data =
  // CHECK-NEXT{LITERAL}: [[8, 1.5, -0.375, 1.0625]]

  %h1_chunked3_dest = tensor.empty() : tensor<1x7x4xf32>
  %last1_chunked3_dest = tensor.empty() : tensor<1x4xf32>
  // Reverse from h_8 = 0, evaluated t = 7..1; e.g. h_7 = b_7 = [0, 0, 0, 1],
  // h_6 = [[1, 0], [1, 1]] [0, 0] + [0, -1], [[0.5, 0.5], [0, 1]] [0, 1] + [0.5, 0]:
  // h_7 = [0, 0, 0, 1], h_6 = [0, -1, 1, 1], h_5 = [0, 1, 2, 0.5]
  // h_4 = [0, 2, 3, 0.25], h_3 = [2.5, 2, -0.25, 3], h_2 = [2.5, 2, 3.75, 3]
  // h_1 = [3, 2.5, 1.875, 4.9375]
  // The final state is h_1.
  %h1_chunked3, %last1_chunked3 = recurrence.scan block_diagonal<2> schedule chunked<3> reverse transition(%a : tensor<1x7x2x2x2xf32>) input(%b : tensor<1x7x4xf32>) outs(%h1_chunked3_dest, %last1_chunked3_dest : tensor<1x7x4xf32>, tensor<1x4xf32>) -> tensor<1x7x4xf32>, tensor<1x4xf32>
  call @print_1x7x4(%h1_chunked3) : (tensor<1x7x4xf32>) -> ()
  call @print_1x4(%last1_chunked3) : (tensor<1x4xf32>) -> ()
  %h1_scan_dest = tensor.empty() : tensor<1x7x4xf32>
  %last1_scan_dest = tensor.empty() : tensor<1x4xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 4] strides = [28, 4, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 2.5, 1.875, 4.9375],
  // CHECK-NEXT{LITERAL}: [2.5, 2, 3.75, 3],
  // CHECK-NEXT{LITERAL}: [2.5, 2, -0.25, 3],
  // CHECK-NEXT{LITERAL}: [0, 2, 3, 0.25],
  // CHECK-NEXT{LITERAL}: [0, 1, 2, 0.5],
  // CHECK-NEXT{LITERAL}: [0, -1, 1, 1],
  // CHECK-NEXT{LITERAL}: [0, 0, 0, 1]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 4] strides = [4, 1] data =
  // CHECK-NEXT{LITERAL}: [[3, 2.5, 1.875, 4.9375]]
  %h1_scan, %last1_scan = recurrence.scan block_diagonal<2> schedule scan reverse transition(%a : tensor<1x7x2x2x2xf32>) input(%b : tensor<1x7x4xf32>) outs(%h1_scan_dest, %last1_scan_dest : tensor<1x7x4xf32>, tensor<1x4xf32>) -> tensor<1x7x4xf32>, tensor<1x4xf32>
  call @print_1x7x4(%h1_scan) : (tensor<1x7x4xf32>) -> ()
  call @print_1x4(%last1_scan) : (tensor<1x4xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 4] strides = [28, 4, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3, 2.5, 1.875, 4.9375],
  // CHECK-NEXT{LITERAL}: [2.5, 2, 3.75, 3],
  // CHECK-NEXT{LITERAL}: [2.5, 2, -0.25, 3],
  // CHECK-NEXT{LITERAL}: [0, 2, 3, 0.25],
  // CHECK-NEXT{LITERAL}: [0, 1, 2, 0.5],
  // CHECK-NEXT{LITERAL}: [0, -1, 1, 1],
  // CHECK-NEXT{LITERAL}: [0, 0, 0, 1]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 4] strides = [4, 1] data =
  // CHECK-NEXT{LITERAL}: [[3, 2.5, 1.875, 4.9375]]
  return
}
