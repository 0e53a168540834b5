// Chunked and Blelloch-scan schedules on N x D matrix states (N = 2, D = 3,
// one batch element, T = 7): a diagonal transition shared by the D columns
// with factored inputs b_t = k_t v_t^T, as states and as readouts y_t = c_t^T
// h_t (from init); then a dense transition on a full N x D input, reversed
// from init, with a readout. Each op also returns its final state.
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

func.func @print_1x7x2x3(%t: tensor<1x7x2x3xf32>) {
  %u = tensor.cast %t : tensor<1x7x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_1x2x3(%t: tensor<1x2x3xf32>) {
  %u = tensor.cast %t : tensor<1x2x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @print_1x7x3(%t: tensor<1x7x3xf32>) {
  %u = tensor.cast %t : tensor<1x7x3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %a = arith.constant dense<[[[0.5, 1.0], [1.0, 0.5], [2.0, 1.0], [0.5, 0.5], [1.0, 2.0], [1.0, -1.0], [0.5, 1.0]]]> : tensor<1x7x2xf32>
  %k = arith.constant dense<[[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [0.0, 0.5], [1.0, 0.0], [0.0, 1.0], [1.0, -1.0]]]> : tensor<1x7x2xf32>
  %v = arith.constant dense<[[[1.0, 0.0, 0.5], [0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [2.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.5, 0.0]]]> : tensor<1x7x3xf32>
  %init = arith.constant dense<[[[1.0, 0.0, -1.0], [0.5, 2.0, 0.0]]]> : tensor<1x2x3xf32>
  %c = arith.constant dense<[[[1.0, 1.0], [0.5, 0.0], [0.0, 1.0], [1.0, -1.0], [1.0, 0.5], [0.0, 1.0], [1.0, 1.0]]]> : tensor<1x7x2xf32>
  %a2 = arith.constant dense<[[[[0.0, 1.0], [1.0, 0.0]],
                              [[1.0, 0.0], [0.5, 1.0]],
                              [[1.0, 1.0], [0.0, 1.0]],
                              [[0.5, 0.0], [0.0, 1.0]],
                              [[1.0, 0.0], [-1.0, 1.0]],
                              [[0.0, 1.0], [1.0, 0.0]],
                              [[1.0, 0.0], [0.0, 0.5]]]]> : tensor<1x7x2x2xf32>
  %b = arith.constant dense<[[[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
                             [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
                             [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
                             [[1.0, 1.0, 0.0], [0.0, 0.0, 0.0]],
                             [[0.0, 0.5, 0.0], [0.0, 0.0, 0.0]],
                             [[0.0, 0.0, 0.0], [1.0, 0.0, -1.0]],
                             [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]]]> : tensor<1x7x2x3xf32>

  %h0_chunked3_dest = tensor.empty() : tensor<1x7x2x3xf32>
  %last0_chunked3_dest = tensor.empty() : tensor<1x2x3xf32>
  // h_0 = 0; h_t = diag(a_t) h_{t-1} + k_t v_t^T, e.g. h_1 = [1, 0]^T [1, 0, 0.5]:
  // h_1 = [[1, 0, 0.5], [0, 0, 0]], h_2 = [[1, 0, 0.5], [0, 1, 0]]
  // h_3 = [[3, 1, 1], [1, 2, 0]], h_4 = [[1.5, 0.5, 0.5], [1.5, 1, 0.5]]
  // h_5 = [[1.5, 0.5, 1.5], [3, 2, 1]], h_6 = [[1.5, 0.5, 1.5], [-2, -2, -1]]
  // h_7 = [[0.75, 0.75, 0.75], [-2, -2.5, -1]]
  // The final state is h_7.
  %h0_chunked3, %last0_chunked3 = recurrence.scan diagonal schedule chunked<3> matrix transition(%a : tensor<1x7x2xf32>) factored_input(%k, %v : tensor<1x7x2xf32>, tensor<1x7x3xf32>) outs(%h0_chunked3_dest, %last0_chunked3_dest : tensor<1x7x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x2x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x2x3(%h0_chunked3) : (tensor<1x7x2x3xf32>) -> ()
  call @print_1x2x3(%last0_chunked3) : (tensor<1x2x3xf32>) -> ()
  %h0_chunked8_dest = tensor.empty() : tensor<1x7x2x3xf32>
  %last0_chunked8_dest = tensor.empty() : tensor<1x2x3xf32>
  // CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 7, 2, 3] strides = [42, 6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[1, 0, 0.5],
  // CHECK-NEXT{LITERAL}: [0, 0, 0]],
  // CHECK-NEXT{LITERAL}: [[1, 0, 0.5],
  // CHECK-NEXT{LITERAL}: [0, 1, 0]],
  // CHECK-NEXT{LITERAL}: [[3, 1, 1],
  // CHECK-NEXT{LITERAL}: [1, 2, 0]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 0.5],
  // CHECK-NEXT{LITERAL}: [1.5, 1, 0.5]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [3, 2, 1]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [-2, -2, -1]],
  // CHECK-NEXT{LITERAL}: [[0.75, 0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2, -2.5, -1]]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[0.75, 0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2, -2.5, -1]]]
  %h0_chunked8, %last0_chunked8 = recurrence.scan diagonal schedule chunked<8> matrix transition(%a : tensor<1x7x2xf32>) factored_input(%k, %v : tensor<1x7x2xf32>, tensor<1x7x3xf32>) outs(%h0_chunked8_dest, %last0_chunked8_dest : tensor<1x7x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x2x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x2x3(%h0_chunked8) : (tensor<1x7x2x3xf32>) -> ()
  call @print_1x2x3(%last0_chunked8) : (tensor<1x2x3xf32>) -> ()
  %h0_scan_dest = tensor.empty() : tensor<1x7x2x3xf32>
  %last0_scan_dest = tensor.empty() : tensor<1x2x3xf32>
  // CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 7, 2, 3] strides = [42, 6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[1, 0, 0.5],
  // CHECK-NEXT{LITERAL}: [0, 0, 0]],
  // CHECK-NEXT{LITERAL}: [[1, 0, 0.5],
  // CHECK-NEXT{LITERAL}: [0, 1, 0]],
  // CHECK-NEXT{LITERAL}: [[3, 1, 1],
  // CHECK-NEXT{LITERAL}: [1, 2, 0]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 0.5],
  // CHECK-NEXT{LITERAL}: [1.5, 1, 0.5]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [3, 2, 1]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [-2, -2, -1]],
  // CHECK-NEXT{LITERAL}: [[0.75, 0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2, -2.5, -1]]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[0.75, 0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2, -2.5, -1]]]
  %h0_scan, %last0_scan = recurrence.scan diagonal schedule scan matrix transition(%a : tensor<1x7x2xf32>) factored_input(%k, %v : tensor<1x7x2xf32>, tensor<1x7x3xf32>) outs(%h0_scan_dest, %last0_scan_dest : tensor<1x7x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x2x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x2x3(%h0_scan) : (tensor<1x7x2x3xf32>) -> ()
  call @print_1x2x3(%last0_scan) : (tensor<1x2x3xf32>) -> ()
  // CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 7, 2, 3] strides = [42, 6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[1, 0, 0.5],
  // CHECK-NEXT{LITERAL}: [0, 0, 0]],
  // CHECK-NEXT{LITERAL}: [[1, 0, 0.5],
  // CHECK-NEXT{LITERAL}: [0, 1, 0]],
  // CHECK-NEXT{LITERAL}: [[3, 1, 1],
  // CHECK-NEXT{LITERAL}: [1, 2, 0]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 0.5],
  // CHECK-NEXT{LITERAL}: [1.5, 1, 0.5]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [3, 2, 1]],
  // CHECK-NEXT{LITERAL}: [[1.5, 0.5, 1.5],
  // CHECK-NEXT{LITERAL}: [-2, -2, -1]],
  // CHECK-NEXT{LITERAL}: [[0.75, 0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2, -2.5, -1]]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[0.75, 0.75, 0.75],
  // CHECK-NEXT{LITERAL}: [-2, -2.5, -1]]]

  %h1_chunked3_dest = tensor.empty() : tensor<1x7x3xf32>
  %last1_chunked3_dest = tensor.empty() : tensor<1x2x3xf32>
  // From h_0 = init = [[1, 0, -1], [0.5, 2, 0]], the states are
  // h_1 = [[1.5, 0, 0], [0.5, 2, 0]], h_2 = [[1.5, 0, 0], [0.25, 2, 0]]
  // h_3 = [[4, 1, 0], [1.25, 3, 0]], h_4 = [[2, 0.5, 0], [1.625, 1.5, 0.5]]
  // h_5 = [[2, 0.5, 1], [3.25, 3, 1]], h_6 = [[2, 0.5, 1], [-2.25, -3, -1]]
  // h_7 = [[1, 0.75, 0.5], [-2.25, -3.5, -1]]
  // and the outputs y_t = c_t^T h_t, e.g. y_1 = [1, 1] h_1:
  // y_1 = [2, 2, 0], y_2 = [0.75, 0, 0], y_3 = [1.25, 3, 0]
  // y_4 = [0.375, -1, -0.5], y_5 = [3.625, 2, 1.5], y_6 = [-2.25, -3, -1]
  // y_7 = [-1.25, -2.75, -0.5]
  // The final state is h_7.
  %h1_chunked3, %last1_chunked3 = recurrence.scan diagonal schedule chunked<3> matrix transition(%a : tensor<1x7x2xf32>) factored_input(%k, %v : tensor<1x7x2xf32>, tensor<1x7x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x7x2xf32>) outs(%h1_chunked3_dest, %last1_chunked3_dest : tensor<1x7x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x3(%h1_chunked3) : (tensor<1x7x3xf32>) -> ()
  call @print_1x2x3(%last1_chunked3) : (tensor<1x2x3xf32>) -> ()
  %h1_chunked8_dest = tensor.empty() : tensor<1x7x3xf32>
  %last1_chunked8_dest = tensor.empty() : tensor<1x2x3xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 3] strides = [21, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, 2, 0],
  // CHECK-NEXT{LITERAL}: [0.75, 0, 0],
  // CHECK-NEXT{LITERAL}: [1.25, 3, 0],
  // CHECK-NEXT{LITERAL}: [0.375, -1, -0.5],
  // CHECK-NEXT{LITERAL}: [3.625, 2, 1.5],
  // CHECK-NEXT{LITERAL}: [-2.25, -3, -1],
  // CHECK-NEXT{LITERAL}: [-1.25, -2.75, -0.5]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0.75, 0.5],
  // CHECK-NEXT{LITERAL}: [-2.25, -3.5, -1]]]
  %h1_chunked8, %last1_chunked8 = recurrence.scan diagonal schedule chunked<8> matrix transition(%a : tensor<1x7x2xf32>) factored_input(%k, %v : tensor<1x7x2xf32>, tensor<1x7x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x7x2xf32>) outs(%h1_chunked8_dest, %last1_chunked8_dest : tensor<1x7x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x3(%h1_chunked8) : (tensor<1x7x3xf32>) -> ()
  call @print_1x2x3(%last1_chunked8) : (tensor<1x2x3xf32>) -> ()
  %h1_scan_dest = tensor.empty() : tensor<1x7x3xf32>
  %last1_scan_dest = tensor.empty() : tensor<1x2x3xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 3] strides = [21, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, 2, 0],
  // CHECK-NEXT{LITERAL}: [0.75, 0, 0],
  // CHECK-NEXT{LITERAL}: [1.25, 3, 0],
  // CHECK-NEXT{LITERAL}: [0.375, -1, -0.5],
  // CHECK-NEXT{LITERAL}: [3.625, 2, 1.5],
  // CHECK-NEXT{LITERAL}: [-2.25, -3, -1],
  // CHECK-NEXT{LITERAL}: [-1.25, -2.75, -0.5]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0.75, 0.5],
  // CHECK-NEXT{LITERAL}: [-2.25, -3.5, -1]]]
  %h1_scan, %last1_scan = recurrence.scan diagonal schedule scan matrix transition(%a : tensor<1x7x2xf32>) factored_input(%k, %v : tensor<1x7x2xf32>, tensor<1x7x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x7x2xf32>) outs(%h1_scan_dest, %last1_scan_dest : tensor<1x7x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x3(%h1_scan) : (tensor<1x7x3xf32>) -> ()
  call @print_1x2x3(%last1_scan) : (tensor<1x2x3xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 3] strides = [21, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[2, 2, 0],
  // CHECK-NEXT{LITERAL}: [0.75, 0, 0],
  // CHECK-NEXT{LITERAL}: [1.25, 3, 0],
  // CHECK-NEXT{LITERAL}: [0.375, -1, -0.5],
  // CHECK-NEXT{LITERAL}: [3.625, 2, 1.5],
  // CHECK-NEXT{LITERAL}: [-2.25, -3, -1],
  // CHECK-NEXT{LITERAL}: [-1.25, -2.75, -0.5]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1, 0.75, 0.5],
  // CHECK-NEXT{LITERAL}: [-2.25, -3.5, -1]]]

  %h2_chunked3_dest = tensor.empty() : tensor<1x7x3xf32>
  %last2_chunked3_dest = tensor.empty() : tensor<1x2x3xf32>
  // Dense, reverse from h_8 = init, evaluated t = 7..1, h_t = A_t h_{t+1} + b_t:
  // h_7 = [[1, 0, 0], [0.25, 2, 0]], h_6 = [[0.25, 2, 0], [2, 0, -1]]
  // h_5 = [[0.25, 2.5, 0], [1.75, -2, -1]], h_4 = [[1.125, 2.25, 0], [1.75, -2, -1]]
  // h_3 = [[2.875, 0.25, -1], [1.75, -2, 0]], h_2 = [[2.875, 0.25, 0], [4.1875, -1.875, -0.5]]
  // h_1 = [[5.1875, -1.875, -0.5], [2.875, 1.25, 0]]
  // with y_t = c_t^T h_t:
  // y_7 = [1.25, 2, 0], y_6 = [2, 0, -1], y_5 = [1.125, 1.5, -0.5]
  // y_4 = [-0.625, 4.25, 1], y_3 = [1.75, -2, 0], y_2 = [1.4375, 0.125, 0]
  // y_1 = [8.0625, -0.625, -0.5]
  // The final state is h_1.
  %h2_chunked3, %last2_chunked3 = recurrence.scan dense schedule chunked<3> matrix reverse transition(%a2 : tensor<1x7x2x2xf32>) input(%b : tensor<1x7x2x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x7x2xf32>) outs(%h2_chunked3_dest, %last2_chunked3_dest : tensor<1x7x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x3(%h2_chunked3) : (tensor<1x7x3xf32>) -> ()
  call @print_1x2x3(%last2_chunked3) : (tensor<1x2x3xf32>) -> ()
  %h2_scan_dest = tensor.empty() : tensor<1x7x3xf32>
  %last2_scan_dest = tensor.empty() : tensor<1x2x3xf32>
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 3] strides = [21, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[8.0625, -0.625, -0.5],
  // CHECK-NEXT{LITERAL}: [1.4375, 0.125, 0],
  // CHECK-NEXT{LITERAL}: [1.75, -2, 0],
  // CHECK-NEXT{LITERAL}: [-0.625, 4.25, 1],
  // CHECK-NEXT{LITERAL}: [1.125, 1.5, -0.5],
  // CHECK-NEXT{LITERAL}: [2, 0, -1],
  // CHECK-NEXT{LITERAL}: [1.25, 2, 0]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[5.1875, -1.875, -0.5],
  // CHECK-NEXT{LITERAL}: [2.875, 1.25, 0]]]
  %h2_scan, %last2_scan = recurrence.scan dense schedule scan matrix reverse transition(%a2 : tensor<1x7x2x2xf32>) input(%b : tensor<1x7x2x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x7x2xf32>) outs(%h2_scan_dest, %last2_scan_dest : tensor<1x7x3xf32>, tensor<1x2x3xf32>) -> tensor<1x7x3xf32>, tensor<1x2x3xf32>
  call @print_1x7x3(%h2_scan) : (tensor<1x7x3xf32>) -> ()
  call @print_1x2x3(%last2_scan) : (tensor<1x2x3xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 7, 3] strides = [21, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[8.0625, -0.625, -0.5],
  // CHECK-NEXT{LITERAL}: [1.4375, 0.125, 0],
  // CHECK-NEXT{LITERAL}: [1.75, -2, 0],
  // CHECK-NEXT{LITERAL}: [-0.625, 4.25, 1],
  // CHECK-NEXT{LITERAL}: [1.125, 1.5, -0.5],
  // CHECK-NEXT{LITERAL}: [2, 0, -1],
  // CHECK-NEXT{LITERAL}: [1.25, 2, 0]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 2, 3] strides = [6, 3, 1] data =
  // CHECK-NEXT{LITERAL}: [[[5.1875, -1.875, -0.5],
  // CHECK-NEXT{LITERAL}: [2.875, 1.25, 0]]]
  return
}
