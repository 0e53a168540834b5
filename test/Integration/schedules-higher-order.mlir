// Chunked and Blelloch-scan schedules on higher_order<2>: h_t = a_{1,t} *
// h_{t-1} + a_{2,t} * h_{t-2} + b_t elementwise, one batch element, T = 7, N =
// 2. init and the final state hold the two most recent states, newest first:
// init = [h_0, h_{-1}], final = [h_7, h_6] (reverse: init = [h_8, h_9], final
// = [h_1, h_2]). Chunks and pairs compose 2 x 2 companion blocks per lane.
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

func.func @print_1x7x2(%t: tensor<1x7x2xf32>) {
  %u = tensor.cast %t : tensor<1x7x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_1x2x2(%t: tensor<1x2x2xf32>) {
  %u = tensor.cast %t : tensor<1x2x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %a = arith.constant dense<[[[[1.0, 0.5], [1.0, 0.5]],
                             [[0.5, 1.0], [0.5, 0.0]],
                             [[1.0, 0.0], [0.0, 1.0]],
                             [[0.5, 1.0], [1.0, -0.5]],
                             [[1.0, 0.5], [-1.0, 0.5]],
                             [[0.0, 1.0], [1.0, 1.0]],
                             [[1.0, 0.5], [0.5, 0.0]]]]> : tensor<1x7x2x2xf32>
  %b = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0], [0.5, 0.0], [0.0, 0.0], [1.0, -1.0], [0.0, 0.5], [-1.0, 0.0]]]> : tensor<1x7x2xf32>
  %init = arith.constant dense<[[[2.0, 1.0], [-1.0, 0.5]]]> : tensor<1x2x2xf32>

  %h0_chunked3_dest = tensor.empty() : tensor<1x7x2xf32>
  %last0_chunked3_dest = tensor.empty() : tensor<1x2x2xf32>
  // Forward from h_0 = [2, 1], h_{-1} = [-1, 0.5]; per step a_t = [a_1, a_2]
  // per lane, e.g. h_1 = [1*2 + 1*(-1) + 1, 0.5*1 + 0.5*0.5 + 0] = [2, 0.75]:
  // h_1 = [2, 0.75], h_2 = [2, 1.75], h_3 = [2.5, 0.75]
  // h_4 = [3.25, -0.125], h_5 = [1.75, -0.6875], h_6 = [3.25, -0.3125]
  // h_7 = [3.125, -0.15625]
  // The final state is [h_7, h_6].
  %h0_chunked3, %last0_chunked3 = recurrence.scan higher_order<2> schedule chunked<3> transition(%a : tensor<1x7x2x2xf32>) input(%b : tensor<1x7x2xf32>) init(%init : tensor<1x2x2xf32>) outs(%h0_chunked3_dest, %last0_chunked3_dest : tensor<1x7x2xf32>, tensor<1x2x2xf32>) -> tensor<1x7x2xf32>, tensor<1x2x2xf32>
  call @print_1x7x2(%h0_chunked3) : (tensor<1x7x2xf32>) -> ()
  call @print_1x2x2(%last0_chunked3) : (tensor<1x2x2xf32>) -> ()
  %h0_chunked8_dest = tensor.empty() : tensor<1x7x2xf32>
  %last0_chunked8_dest = tensor.empty() : tensor<1x2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, 0.75],
  // CHECK-NEXT{LITERAL}: [2, 1.75],
  // CHECK-NEXT{LITERAL}: [2.5, 0.75],
  // CHECK-NEXT{LITERAL}: [3.25, -0.125],
  // CHECK-NEXT{LITERAL}: [1.75, -0.6875],
  // CHECK-NEXT{LITERAL}: [3.25, -0.3125],
  // CHECK-NEXT{LITERAL}: [3.125, -0.15625]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3.125, -0.15625],
  // CHECK-NEXT{LITERAL}: [3.25, -0.3125]]]
  %h0_chunked8, %last0_chunked8 = recurrence.scan higher_order<2> schedule chunked<8> transition(%a : tensor<1x7x2x2xf32>) input(%b : tensor<1x7x2xf32>) init(%init : tensor<1x2x2xf32>) outs(%h0_chunked8_dest, %last0_chunked8_dest : tensor<1x7x2xf32>, tensor<1x2x2xf32>) -> tensor<1x7x2xf32>, tensor<1x2x2xf32>
  call @print_1x7x2(%h0_chunked8) : (tensor<1x7x2xf32>) -> ()
  call @print_1x2x2(%last0_chunked8) : (tensor<1x2x2xf32>) -> ()
  %h0_scan_dest = tensor.empty() : tensor<1x7x2xf32>
  %last0_scan_dest = tensor.empty() : tensor<1x2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, 0.75],
  // CHECK-NEXT{LITERAL}: [2, 1.75],
  // CHECK-NEXT{LITERAL}: [2.5, 0.75],
  // CHECK-NEXT{LITERAL}: [3.25, -0.125],
  // CHECK-NEXT{LITERAL}: [1.75, -0.6875],
  // CHECK-NEXT{LITERAL}: [3.25, -0.3125],
  // CHECK-NEXT{LITERAL}: [3.125, -0.15625]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3.125, -0.15625],
  // CHECK-NEXT{LITERAL}: [3.25, -0.3125]]]
  %h0_scan, %last0_scan = recurrence.scan higher_order<2> schedule scan transition(%a : tensor<1x7x2x2xf32>) input(%b : tensor<1x7x2xf32>) init(%init : tensor<1x2x2xf32>) outs(%h0_scan_dest, %last0_scan_dest : tensor<1x7x2xf32>, tensor<1x2x2xf32>) -> tensor<1x7x2xf32>, tensor<1x2x2xf32>
  call @print_1x7x2(%h0_scan) : (tensor<1x7x2xf32>) -> ()
  call @print_1x2x2(%last0_scan) : (tensor<1x2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, 0.75],
  // CHECK-NEXT{LITERAL}: [2, 1.75],
  // CHECK-NEXT{LITERAL}: [2.5, 0.75],
  // CHECK-NEXT{LITERAL}: [3.25, -0.125],
  // CHECK-NEXT{LITERAL}: [1.75, -0.6875],
  // CHECK-NEXT{LITERAL}: [3.25, -0.3125],
  // CHECK-NEXT{LITERAL}: [3.125, -0.15625]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[3.125, -0.15625],
  // CHECK-NEXT{LITERAL}: [3.25, -0.3125]]]

  %h1_chunked3_dest = tensor.empty() : tensor<1x7x2xf32>
  %last1_chunked3_dest = tensor.empty() : tensor<1x2x2xf32>
  // Reverse from h_8 = [2, 1], h_9 = [-1, 0.5], evaluated t = 7..1,
  // h_t = a_{1,t} h_{t+1} + a_{2,t} h_{t+2} + b_t; e.g. h_7 = [1*2 + 0.5*(-1) - 1,
  //     0.5*1 + 0] = [0.5, 0.5]:
  // h_7 = [0.5, 0.5], h_6 = [2, 2], h_5 = [2.5, 0.25]
  // h_4 = [3.25, -0.75], h_3 = [3.75, 0.25], h_2 = [3.5, 1.25]
  // h_1 = [8.25, 0.75]
  // The final state is [h_1, h_2].
  %h1_chunked3, %last1_chunked3 = recurrence.scan higher_order<2> schedule chunked<3> reverse transition(%a : tensor<1x7x2x2xf32>) input(%b : tensor<1x7x2xf32>) init(%init : tensor<1x2x2xf32>) outs(%h1_chunked3_dest, %last1_chunked3_dest : tensor<1x7x2xf32>, tensor<1x2x2xf32>) -> tensor<1x7x2xf32>, tensor<1x2x2xf32>
  call @print_1x7x2(%h1_chunked3) : (tensor<1x7x2xf32>) -> ()
  call @print_1x2x2(%last1_chunked3) : (tensor<1x2x2xf32>) -> ()
  %h1_scan_dest = tensor.empty() : tensor<1x7x2xf32>
  %last1_scan_dest = tensor.empty() : tensor<1x2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[8.25, 0.75],
  // CHECK-NEXT{LITERAL}: [3.5, 1.25],
  // CHECK-NEXT{LITERAL}: [3.75, 0.25],
  // CHECK-NEXT{LITERAL}: [3.25, -0.75],
  // CHECK-NEXT{LITERAL}: [2.5, 0.25],
  // CHECK-NEXT{LITERAL}: [2, 2],
  // CHECK-NEXT{LITERAL}: [0.5, 0.5]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[8.25, 0.75],
  // CHECK-NEXT{LITERAL}: [3.5, 1.25]]]
  %h1_scan, %last1_scan = recurrence.scan higher_order<2> schedule scan reverse transition(%a : tensor<1x7x2x2xf32>) input(%b : tensor<1x7x2xf32>) init(%init : tensor<1x2x2xf32>) outs(%h1_scan_dest, %last1_scan_dest : tensor<1x7x2xf32>, tensor<1x2x2xf32>) -> tensor<1x7x2xf32>, tensor<1x2x2xf32>
  call @print_1x7x2(%h1_scan) : (tensor<1x7x2xf32>) -> ()
  call @print_1x2x2(%last1_scan) : (tensor<1x2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[8.25, 0.75],
  // CHECK-NEXT{LITERAL}: [3.5, 1.25],
  // CHECK-NEXT{LITERAL}: [3.75, 0.25],
  // CHECK-NEXT{LITERAL}: [3.25, -0.75],
  // CHECK-NEXT{LITERAL}: [2.5, 0.25],
  // CHECK-NEXT{LITERAL}: [2, 2],
  // CHECK-NEXT{LITERAL}: [0.5, 0.5]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 2] strides = [4, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[8.25, 0.75],
  // CHECK-NEXT{LITERAL}: [3.5, 1.25]]]
  return
}
