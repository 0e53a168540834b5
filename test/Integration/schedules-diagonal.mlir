// Chunked and Blelloch-scan schedules on diagonal transitions, h_t = a_t *
// h_{t-1} + b_t elementwise: two batch elements, T = 7, N = 2; forward from
// zeros, forward from init and reverse (t = 7..1, h_8 = init), each with its
// final state (h_7, or h_1 when reversed). Every schedule must print the
// numbers of the sequential recurrence.
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

func.func @main() {
  %a = arith.constant dense<[[[0.5, 1.0], [2.0, -1.0], [1.0, 0.5], [0.5, 2.0], [2.0, 1.0], [-1.0, 0.5], [0.5, 1.0]],
                            [[2.0, 0.5], [0.5, 0.5], [1.0, 2.0], [1.0, 0.0], [-1.0, 1.0], [2.0, 1.0], [0.5, -1.0]]]> : tensor<2x7x2xf32>
  %b = arith.constant dense<[[[1.0, 0.5], [0.0, 1.0], [2.0, 0.0], [-1.0, 1.0], [0.5, -2.0], [1.0, 0.0], [0.0, 1.0]],
                            [[1.0, 2.0], [1.0, 0.0], [0.0, 1.0], [0.5, 0.0], [0.0, 0.5], [1.0, -1.0], [-1.0, 0.0]]]> : tensor<2x7x2xf32>
  %init = arith.constant dense<[[2.0, -1.0], [0.5, 4.0]]> : tensor<2x2xf32>

  %h0_chunked3_dest = tensor.empty() : tensor<2x7x2xf32>
  %last0_chunked3_dest = tensor.empty() : tensor<2x2xf32>
  // Forward from h_0 = 0 (a*h + b = h per step, t = 1..7):
  // batch 0, lane 0: 0.5*0 + 1 = 1, 2*1 + 0 = 2, 1*2 + 2 = 4, 0.5*4 - 1 = 1, 2*1 + 0.5 = 2.5,
  //                  -1*2.5 + 1 = -1.5, 0.5*(-1.5) + 0 = -0.75
  // batch 0, lane 1: 1*0 + 0.5 = 0.5, -1*0.5 + 1 = 0.5, 0.5*0.5 + 0 = 0.25, 2*0.25 + 1 = 1.5,
  //                  1*1.5 - 2 = -0.5, 0.5*(-0.5) + 0 = -0.25, 1*(-0.25) + 1 = 0.75
  // batch 1, lane 0: 2*0 + 1 = 1, 0.5*1 + 1 = 1.5, 1*1.5 + 0 = 1.5, 1*1.5 + 0.5 = 2,
  //                  -1*2 + 0 = -2, 2*(-2) + 1 = -3, 0.5*(-3) - 1 = -2.5
  // batch 1, lane 1: 0.5*0 + 2 = 2, 0.5*2 + 0 = 1, 2*1 + 1 = 3, 0*3 + 0 = 0, 1*0 + 0.5 = 0.5,
  //                  1*0.5 - 1 = -0.5, -1*(-0.5) + 0 = 0.5
  // The final state is h_7.
  %h0_chunked3, %last0_chunked3 = recurrence.scan diagonal schedule chunked<3> transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) outs(%h0_chunked3_dest, %last0_chunked3_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h0_chunked3) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last0_chunked3) : (tensor<2x2xf32>) -> ()
  %h0_chunked8_dest = tensor.empty() : tensor<2x7x2xf32>
  %last0_chunked8_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0.5],
  // CHECK-NEXT{LITERAL}: [2, 0.5],
  // CHECK-NEXT{LITERAL}: [4, 0.25],
  // CHECK-NEXT{LITERAL}: [1, 1.5],
  // CHECK-NEXT{LITERAL}: [2.5, -0.5],
  // CHECK-NEXT{LITERAL}: [-1.5, -0.25],
  // CHECK-NEXT{LITERAL}: [-0.75, 0.75]],
  // CHECK-NEXT{LITERAL}: [[1, 2],
  // CHECK-NEXT{LITERAL}: [1.5, 1],
  // CHECK-NEXT{LITERAL}: [1.5, 3],
  // CHECK-NEXT{LITERAL}: [2, 0],
  // CHECK-NEXT{LITERAL}: [-2, 0.5],
  // CHECK-NEXT{LITERAL}: [-3, -0.5],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5]]
  %h0_chunked8, %last0_chunked8 = recurrence.scan diagonal schedule chunked<8> transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) outs(%h0_chunked8_dest, %last0_chunked8_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h0_chunked8) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last0_chunked8) : (tensor<2x2xf32>) -> ()
  %h0_scan_dest = tensor.empty() : tensor<2x7x2xf32>
  %last0_scan_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0.5],
  // CHECK-NEXT{LITERAL}: [2, 0.5],
  // CHECK-NEXT{LITERAL}: [4, 0.25],
  // CHECK-NEXT{LITERAL}: [1, 1.5],
  // CHECK-NEXT{LITERAL}: [2.5, -0.5],
  // CHECK-NEXT{LITERAL}: [-1.5, -0.25],
  // CHECK-NEXT{LITERAL}: [-0.75, 0.75]],
  // CHECK-NEXT{LITERAL}: [[1, 2],
  // CHECK-NEXT{LITERAL}: [1.5, 1],
  // CHECK-NEXT{LITERAL}: [1.5, 3],
  // CHECK-NEXT{LITERAL}: [2, 0],
  // CHECK-NEXT{LITERAL}: [-2, 0.5],
  // CHECK-NEXT{LITERAL}: [-3, -0.5],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5]]
  %h0_scan, %last0_scan = recurrence.scan diagonal schedule scan transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) outs(%h0_scan_dest, %last0_scan_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h0_scan) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last0_scan) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0.5],
  // CHECK-NEXT{LITERAL}: [2, 0.5],
  // CHECK-NEXT{LITERAL}: [4, 0.25],
  // CHECK-NEXT{LITERAL}: [1, 1.5],
  // CHECK-NEXT{LITERAL}: [2.5, -0.5],
  // CHECK-NEXT{LITERAL}: [-1.5, -0.25],
  // CHECK-NEXT{LITERAL}: [-0.75, 0.75]],
  // CHECK-NEXT{LITERAL}: [[1, 2],
  // CHECK-NEXT{LITERAL}: [1.5, 1],
  // CHECK-NEXT{LITERAL}: [1.5, 3],
  // CHECK-NEXT{LITERAL}: [2, 0],
  // CHECK-NEXT{LITERAL}: [-2, 0.5],
  // CHECK-NEXT{LITERAL}: [-3, -0.5],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5]]

  %h1_chunked3_dest = tensor.empty() : tensor<2x7x2xf32>
  %last1_chunked3_dest = tensor.empty() : tensor<2x2xf32>
  // Forward from h_0 = init = [[2, -1], [0.5, 4]]:
  // batch 0, lane 0: 0.5*2 + 1 = 2, 2*2 + 0 = 4, 1*4 + 2 = 6, 0.5*6 - 1 = 2, 2*2 + 0.5 = 4.5,
  //                  -1*4.5 + 1 = -3.5, 0.5*(-3.5) + 0 = -1.75
  // batch 0, lane 1: 1*(-1) + 0.5 = -0.5, -1*(-0.5) + 1 = 1.5, 0.5*1.5 + 0 = 0.75,
  //                  2*0.75 + 1 = 2.5, 1*2.5 - 2 = 0.5, 0.5*0.5 + 0 = 0.25, 1*0.25 + 1 = 1.25
  // batch 1, lane 0: 2*0.5 + 1 = 2, 0.5*2 + 1 = 2, 1*2 + 0 = 2, 1*2 + 0.5 = 2.5,
  //                  -1*2.5 + 0 = -2.5, 2*(-2.5) + 1 = -4, 0.5*(-4) - 1 = -3
  // batch 1, lane 1: 0.5*4 + 2 = 4, 0.5*4 + 0 = 2, 2*2 + 1 = 5, 0*5 + 0 = 0, 1*0 + 0.5 = 0.5,
  //                  1*0.5 - 1 = -0.5, -1*(-0.5) + 0 = 0.5
  // The final state is h_7.
  %h1_chunked3, %last1_chunked3 = recurrence.scan diagonal schedule chunked<3> transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h1_chunked3_dest, %last1_chunked3_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h1_chunked3) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last1_chunked3) : (tensor<2x2xf32>) -> ()
  %h1_scan_dest = tensor.empty() : tensor<2x7x2xf32>
  %last1_scan_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, -0.5],
  // CHECK-NEXT{LITERAL}: [4, 1.5],
  // CHECK-NEXT{LITERAL}: [6, 0.75],
  // CHECK-NEXT{LITERAL}: [2, 2.5],
  // CHECK-NEXT{LITERAL}: [4.5, 0.5],
  // CHECK-NEXT{LITERAL}: [-3.5, 0.25],
  // CHECK-NEXT{LITERAL}: [-1.75, 1.25]],
  // CHECK-NEXT{LITERAL}: [[2, 4],
  // CHECK-NEXT{LITERAL}: [2, 2],
  // CHECK-NEXT{LITERAL}: [2, 5],
  // CHECK-NEXT{LITERAL}: [2.5, 0],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5],
  // CHECK-NEXT{LITERAL}: [-4, -0.5],
  // CHECK-NEXT{LITERAL}: [-3, 0.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-1.75, 1.25],
  // CHECK-NEXT{LITERAL}: [-3, 0.5]]
  %h1_scan, %last1_scan = recurrence.scan diagonal schedule scan transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h1_scan_dest, %last1_scan_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h1_scan) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last1_scan) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, -0.5],
  // CHECK-NEXT{LITERAL}: [4, 1.5],
  // CHECK-NEXT{LITERAL}: [6, 0.75],
  // CHECK-NEXT{LITERAL}: [2, 2.5],
  // CHECK-NEXT{LITERAL}: [4.5, 0.5],
  // CHECK-NEXT{LITERAL}: [-3.5, 0.25],
  // CHECK-NEXT{LITERAL}: [-1.75, 1.25]],
  // CHECK-NEXT{LITERAL}: [[2, 4],
  // CHECK-NEXT{LITERAL}: [2, 2],
  // CHECK-NEXT{LITERAL}: [2, 5],
  // CHECK-NEXT{LITERAL}: [2.5, 0],
  // CHECK-NEXT{LITERAL}: [-2.5, 0.5],
  // CHECK-NEXT{LITERAL}: [-4, -0.5],
  // CHECK-NEXT{LITERAL}: [-3, 0.5]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[-1.75, 1.25],
  // CHECK-NEXT{LITERAL}: [-3, 0.5]]

  %h2_chunked3_dest = tensor.empty() : tensor<2x7x2xf32>
  %last2_chunked3_dest = tensor.empty() : tensor<2x2xf32>
  // Reverse from h_8 = init, evaluated t = 7, 6, ..., 1:
  // batch 0, lane 0: 0.5*2 + 0 = 1, -1*1 + 1 = 0, 2*0 + 0.5 = 0.5, 0.5*0.5 - 1 = -0.75,
  //                  1*(-0.75) + 2 = 1.25, 2*1.25 + 0 = 2.5, 0.5*2.5 + 1 = 2.25
  // batch 0, lane 1: 1*(-1) + 1 = 0, 0.5*0 + 0 = 0, 1*0 - 2 = -2, 2*(-2) + 1 = -3,
  //                  0.5*(-3) + 0 = -1.5, -1*(-1.5) + 1 = 2.5, 1*2.5 + 0.5 = 3
  // batch 1, lane 0: 0.5*0.5 - 1 = -0.75, 2*(-0.75) + 1 = -0.5, -1*(-0.5) + 0 = 0.5,
  //                  1*0.5 + 0.5 = 1, 1*1 + 0 = 1, 0.5*1 + 1 = 1.5, 2*1.5 + 1 = 4
  // batch 1, lane 1: -1*4 + 0 = -4, 1*(-4) - 1 = -5, 1*(-5) + 0.5 = -4.5, 0*(-4.5) + 0 = 0,
  //                  2*0 + 1 = 1, 0.5*1 + 0 = 0.5, 0.5*0.5 + 2 = 2.25
  // The final state is h_1.
  %h2_chunked3, %last2_chunked3 = recurrence.scan diagonal schedule chunked<3> reverse transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h2_chunked3_dest, %last2_chunked3_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h2_chunked3) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last2_chunked3) : (tensor<2x2xf32>) -> ()
  %h2_chunked8_dest = tensor.empty() : tensor<2x7x2xf32>
  %last2_chunked8_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2.25, 3],
  // CHECK-NEXT{LITERAL}: [2.5, 2.5],
  // CHECK-NEXT{LITERAL}: [1.25, -1.5],
  // CHECK-NEXT{LITERAL}: [-0.75, -3],
  // CHECK-NEXT{LITERAL}: [0.5, -2],
  // CHECK-NEXT{LITERAL}: [0, 0],
  // CHECK-NEXT{LITERAL}: [1, 0]],
  // CHECK-NEXT{LITERAL}: [[4, 2.25],
  // CHECK-NEXT{LITERAL}: [1.5, 0.5],
  // CHECK-NEXT{LITERAL}: [1, 1],
  // CHECK-NEXT{LITERAL}: [1, 0],
  // CHECK-NEXT{LITERAL}: [0.5, -4.5],
  // CHECK-NEXT{LITERAL}: [-0.5, -5],
  // CHECK-NEXT{LITERAL}: [-0.75, -4]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2.25, 3],
  // CHECK-NEXT{LITERAL}: [4, 2.25]]
  %h2_chunked8, %last2_chunked8 = recurrence.scan diagonal schedule chunked<8> reverse transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h2_chunked8_dest, %last2_chunked8_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h2_chunked8) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last2_chunked8) : (tensor<2x2xf32>) -> ()
  %h2_scan_dest = tensor.empty() : tensor<2x7x2xf32>
  %last2_scan_dest = tensor.empty() : tensor<2x2xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2.25, 3],
  // CHECK-NEXT{LITERAL}: [2.5, 2.5],
  // CHECK-NEXT{LITERAL}: [1.25, -1.5],
  // CHECK-NEXT{LITERAL}: [-0.75, -3],
  // CHECK-NEXT{LITERAL}: [0.5, -2],
  // CHECK-NEXT{LITERAL}: [0, 0],
  // CHECK-NEXT{LITERAL}: [1, 0]],
  // CHECK-NEXT{LITERAL}: [[4, 2.25],
  // CHECK-NEXT{LITERAL}: [1.5, 0.5],
  // CHECK-NEXT{LITERAL}: [1, 1],
  // CHECK-NEXT{LITERAL}: [1, 0],
  // CHECK-NEXT{LITERAL}: [0.5, -4.5],
  // CHECK-NEXT{LITERAL}: [-0.5, -5],
  // CHECK-NEXT{LITERAL}: [-0.75, -4]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2.25, 3],
  // CHECK-NEXT{LITERAL}: [4, 2.25]]
  %h2_scan, %last2_scan = recurrence.scan diagonal schedule scan reverse transition(%a : tensor<2x7x2xf32>) input(%b : tensor<2x7x2xf32>) init(%init : tensor<2x2xf32>) outs(%h2_scan_dest, %last2_scan_dest : tensor<2x7x2xf32>, tensor<2x2xf32>) -> tensor<2x7x2xf32>, tensor<2x2xf32>
  call @print_2x7x2(%h2_scan) : (tensor<2x7x2xf32>) -> ()
  call @print_2x2(%last2_scan) : (tensor<2x2xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [2, 7, 2] strides = [14, 2, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2.25, 3],
  // CHECK-NEXT{LITERAL}: [2.5, 2.5],
  // CHECK-NEXT{LITERAL}: [1.25, -1.5],
  // CHECK-NEXT{LITERAL}: [-0.75, -3],
  // CHECK-NEXT{LITERAL}: [0.5, -2],
  // CHECK-NEXT{LITERAL}: [0, 0],
  // CHECK-NEXT{LITERAL}: [1, 0]],
  // CHECK-NEXT{LITERAL}: [[4, 2.25],
  // CHECK-NEXT{LITERAL}: [1.5, 0.5],
  // CHECK-NEXT{LITERAL}: [1, 1],
  // CHECK-NEXT{LITERAL}: [1, 0],
  // CHECK-NEXT{LITERAL}: [0.5, -4.5],
  // CHECK-NEXT{LITERAL}: [-0.5, -5],
  // CHECK-NEXT{LITERAL}: [-0.75, -4]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [2, 2] strides = [2, 1] data =
  // CHECK-NEXT{LITERAL}: [[2.25, 3],
  // CHECK-NEXT{LITERAL}: [4, 2.25]]
  return
}
