// Chunked and Blelloch-scan schedules on identity transitions, h_t = h_{t-1} +
// b_t (running sums, no transition products), two batch elements, T = 7, N =
// 2: prefix sums, suffix sums (reverse) from init with the final state, and a
// readout y_t = c_t . h_t.
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

func.func @print_2x7(%t: tensor<2x7xf32>) {
  %u = tensor.cast %t : tensor<2x7xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %b = arith.constant dense<[[[1.0, 2.0], [3.0, 0.5], [0.0, 1.0], [-1.0, 0.0], [0.5, 0.5], [2.0, -1.0], [0.0, 4.0]],
                            [[0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, -2.0], [1.0, 0.5], [0.25, 0.0], [1.0, 1.0]]]> : tensor<2x7x2xf32>
  %init = arith.constant dense<[[1.0, 0.0], [-2.0, 0.5]]> : tensor<2x2xf32>
  %c = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.5, 0.0], [0.0, 2.0], [1.0, -1.0], [1.0, 0.0]],
                            [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 0.0], [1.0, 1.0], [0.5, 0.5]]]> : tensor<2x7x2xf32>

  %h0_chunked3_dest = tensor.empty() : tensor<2x7x2xf32>
  // Prefix sums (h + b = h per step, t = 1..7):
  // batch 0, lane 0: 0 + 1 = 1, 1 + 3 = 4, 4 + 0 = 4, 4 - 1 = 3, 3 + 0.5 = 3.5, 3.5 + 2 = 5.5,
  //                  5.5 + 0 = 5.5
  // batch 0, lane 1: 0 + 2 = 2, 2 + 0.5 = 2.5, 2.5 + 1 = 3.5, 3.5 + 0 = 3.5, 3.5 + 0.5 = 4,
  //                  4 - 1 = 3, 3 + 4 = 7
  // batch 1, lane 0: 0 + 0 = 0, 0 + 1 = 1, 1 + 2 = 3, 3 + 0 = 3, 3 + 1 = 4, 4 + 0.25 = 4.25,
  //                  4.25 + 1 = 5.25
  // batch 1, lane 1: 0 + 1 = 1, 1 + 1 = 2, 2 + 0 = 2, 2 - 2 = 0, 0 + 0.5 = 0.5, 0.5 + 0 = 0.5,
  //                  0.5 + 1 = 1.5
  %h0_chunked3 = recurrence.scan identity schedule chunked<3> input(%b : tensor<2x7x2xf32>) outs(%h0_chunked3_dest : tensor<2x7x2xf32>) -> tensor<2x7x2xf32>
  call @print_2x7x2(%h0_chunked3) : (tensor<2x7x2xf32>) -> ()
  %h0_chunked8_dest = tensor.empty() : tensor<2x7x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 2],
  // CHECK-NEXT{LITERAL}: [4, 2.5],
  // CHECK-NEXT{LITERAL}: [4, 3.5],
  // CHECK-NEXT{LITERAL}: [3, 3.5],
  // CHECK-NEXT{LITERAL}: [3.5, 4],
  // CHECK-NEXT{LITERAL}: [5.5, 3],
  // CHECK-NEXT{LITERAL}: [5.5, 7]],
  // CHECK-NEXT{LITERAL}: [[0, 1],
  // CHECK-NEXT{LITERAL}: [1, 2],
  // CHECK-NEXT{LITERAL}: [3, 2],
  // CHECK-NEXT{LITERAL}: [3, 0],
  // CHECK-NEXT{LITERAL}: [4, 0.5],
  // CHECK-NEXT{LITERAL}: [4.25, 0.5],
  // CHECK-NEXT{LITERAL}: [5.25, 1.5]]]
  %h0_chunked8 = recurrence.scan identity schedule chunked<8> input(%b : tensor<2x7x2xf32>) outs(%h0_chunked8_dest : tensor<2x7x2xf32>) -> tensor<2x7x2xf32>
  call @print_2x7x2(%h0_chunked8) : (tensor<2x7x2xf32>) -> ()
  %h0_scan_dest = tensor.empty() : tensor<2x7x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 2],
  // CHECK-NEXT{LITERAL}: [4, 2.5],
  // CHECK-NEXT{LITERAL}: [4, 3.5],
  // CHECK-NEXT{LITERAL}: [3, 3.5],
  // CHECK-NEXT{LITERAL}: [3.5, 4],
  // CHECK-NEXT{LITERAL}: [5.5, 3],
  // CHECK-NEXT{LITERAL}: [5.5, 7]],
  // CHECK-NEXT{LITERAL}: [[0, 1],
  // CHECK-NEXT{LITERAL}: [1, 2],
  // CHECK-NEXT{LITERAL}: [3, 2],
  // CHECK-NEXT{LITERAL}: [3, 0],
  // CHECK-NEXT{LITERAL}: [4, 0.5],
  // CHECK-NEXT{LITERAL}: [4.25, 0.5],
  // CHECK-NEXT{LITERAL}: [5.25, 1.5]]]
  %h0_scan = recurrence.scan identity schedule scan input(%b : tensor<2x7x2xf32>) outs(%h0_scan_dest : tensor<2x7x2xf32>) -> tensor<2x7x2xf32>
  call @print_2x7x2(%h0_scan) : (tensor<2x7x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 2],
  // CHECK-NEXT{LITERAL}: [4, 2.5],
  // CHECK-NEXT{LITERAL}: [4, 3.5],
  // CHECK-NEXT{LITERAL}: [3, 3.5],
  // CHECK-NEXT{LITERAL}: [3.5, 4],
  // CHECK-NEXT{LITERAL}: [5.5, 3],
  // CHECK-NEXT{LITERAL}: [5.5, 7]],
  // CHECK-NEXT{LITERAL}: [[0, 1],
  // CHECK-NEXT{LITERAL}: [1, 2],
  // CHECK-NEXT{LITERAL}: [3, 2],
  // CHECK-NEXT{LITERAL}: [3, 0],
  // CHECK-NEXT{LITERAL}: [4, 0.5],
  // CHECK-NEXT{LITERAL}: [4.25, 0.5],
  // CHECK-NEXT{LITERAL}: [5.25, 1.5]]]

  %h1_chunked3_dest = tensor.empty() : tensor<2x7x2xf32>
  %last1_chunked3_dest = tensor.empty() : tensor<2x2xf32>
  // Suffix sums from h_8 = init = [[1, 0], [-2, 0.5]], evaluated t = 7..1:
  // batch 0, lane 0: 1 + 0 = 1, 1 + 2 = 3, 3 + 0.5 = 3.5, 3.5 - 1 = 2.5, 2.5 + 0 = 2.5,
  //                  2.5 + 3 = 5.5, 5.5 + 1 = 6.5
  // batch 0, lane 1: 0 + 4 = 4, 4 - 1 = 3, 3 + 0.5 = 3.5, 3.5 + 0 = 3.5, 3.5 + 1 = 4.5,
  //                  4.5 + 0.5 = 5, 5 + 2 = 7
  // batch 1, lane 0: (-2) + 1 = -1, (-1) + 0.25 = -0.75, (-0.75) + 1 = 0.25, 0.25 + 0 = 0.25,
  //                  0.25 + 2 = 2.25, 2.25 + 1 = 3.25, 3.25 + 0 = 3.25
  // batch 1, lane 1: 0.5 + 1 = 1.5, 1.5 + 0 = 1.5, 1.5 + 0.5 = 2, 2 - 2 = 0, 0 + 0 = 0,
  //                  0 + 1 = 1, 1 + 1 = 2
  // The final state is h_1.
  %h1_chunked3, %last1_chunked3 = recurrence.scan identity schedule chunked<3> reverse input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h1_chunked3_dest, %last1_chunked3_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h1_chunked3) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last1_chunked3) : (tensor<2x2xf32>) -> ()
  %h1_scan_dest = tensor.empty() : tensor<2x7x2xf32>
  %last1_scan_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[6.5, 7],
  // CHECK-NEXT{LITERAL}: [5.5, 5],
  // CHECK-NEXT{LITERAL}: [2.5, 4.5],
  // CHECK-NEXT{LITERAL}: [2.5, 3.5],
  // CHECK-NEXT{LITERAL}: [3.5, 3.5],
  // CHECK-NEXT{LITERAL}: [3, 3],
  // CHECK-NEXT{LITERAL}: [1, 4]],
  // CHECK-NEXT{LITERAL}: [[3.25, 2],
  // CHECK-NEXT{LITERAL}: [3.25, 1],
  // CHECK-NEXT{LITERAL}: [2.25, 0],
  // CHECK-NEXT{LITERAL}: [0.25, 0],
  // CHECK-NEXT{LITERAL}: [0.25, 2],
  // CHECK-NEXT{LITERAL}: [-0.75, 1.5],
  // CHECK-NEXT{LITERAL}: [-1, 1.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[6.5, 7],
  // CHECK-NEXT{LITERAL}: [3.25, 2]]
  %h1_scan, %last1_scan = recurrence.scan identity schedule scan reverse input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h1_scan_dest, %last1_scan_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h1_scan) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last1_scan) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[6.5, 7],
  // CHECK-NEXT{LITERAL}: [5.5, 5],
  // CHECK-NEXT{LITERAL}: [2.5, 4.5],
  // CHECK-NEXT{LITERAL}: [2.5, 3.5],
  // CHECK-NEXT{LITERAL}: [3.5, 3.5],
  // CHECK-NEXT{LITERAL}: [3, 3],
  // CHECK-NEXT{LITERAL}: [1, 4]],
  // CHECK-NEXT{LITERAL}: [[3.25, 2],
  // CHECK-NEXT{LITERAL}: [3.25, 1],
  // CHECK-NEXT{LITERAL}: [2.25, 0],
  // CHECK-NEXT{LITERAL}: [0.25, 0],
  // CHECK-NEXT{LITERAL}: [0.25, 2],
  // CHECK-NEXT{LITERAL}: [-0.75, 1.5],
  // CHECK-NEXT{LITERAL}: [-1, 1.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[6.5, 7],
  // CHECK-NEXT{LITERAL}: [3.25, 2]]

  %h2_chunked3_dest = tensor.empty() : tensor<2x7xf32>
  // Readout of the prefix sums above, y_t = c_t . h_t:
  // batch 0: y_1 = 1, y_2 = 2.5, y_3 = 7.5
  //          y_4 = 1.5, y_5 = 8, y_6 = 2.5
  //          y_7 = 5.5
  // batch 1: y_1 = 1, y_2 = 1, y_3 = 5
  //          y_4 = 0, y_5 = 8, y_6 = 4.75
  //          y_7 = 3.375
  %h2_chunked3 = recurrence.scan identity schedule chunked<3> input(%b : tensor<2x7x2xf32>) readout(%c : tensor<2x7x2xf32>) outs(%h2_chunked3_dest : tensor<2x7xf32>) -> tensor<2x7xf32>
  call @print_2x7(%h2_chunked3) : (tensor<2x7xf32>) -> ()
  %h2_scan_dest = tensor.empty() : tensor<2x7xf32>
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 7] strides = [7, 1] data =
  // CHECK-NEXT{LITERAL}: [[1, 2.5, 7.5, 1.5, 8, 2.5, 5.5],
  // CHECK-NEXT{LITERAL}: [1, 1, 5, 0, 8, 4.75, 3.375]]
  %h2_scan = recurrence.scan identity schedule scan input(%b : tensor<2x7x2xf32>) readout(%c : tensor<2x7x2xf32>) outs(%h2_scan_dest : tensor<2x7xf32>) -> tensor<2x7xf32>
  call @print_2x7(%h2_scan) : (tensor<2x7xf32>) -> ()
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 7] strides = [7, 1] data =
  // CHECK-NEXT{LITERAL}: [[1, 2.5, 7.5, 1.5, 8, 2.5, 5.5],
  // CHECK-NEXT{LITERAL}: [1, 1, 5, 0, 8, 4.75, 3.375]]
  return
}
