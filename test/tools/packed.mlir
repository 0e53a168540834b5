// recurrence-run on scans over packed sequences: it draws valid offsets (the
// first sequence empty, the second of one step, the rest at random),
// evaluates the float64 reference one sequence at a time on the slices
// between them, each from its own init, and checks the compiled function
// against it; the gradient that -recurrence-differentiate derives is
// checked against central differences, with the offsets held fixed.
//
// RUN: recurrence-run %s --entry packed | FileCheck %s
// RUN: recurrence-run %s --entry packed_chunked --seed 7 | FileCheck %s --check-prefix=CHUNKED
// RUN: recurrence-opt %s -recurrence-differentiate | recurrence-run - --entry packed_grad | FileCheck %s --check-prefixes=GRAD,OFFSETS
// RUN: recurrence-opt %s -recurrence-differentiate | recurrence-run - --entry packed_chunked_grad | FileCheck %s --check-prefix=GRAD

// CHECK: example {{.*}} @packed
// CHECK: result #0 ok
// CHECK: result #1 ok
func.func @packed(%a: tensor<2x13x5xf64>, %b: tensor<2x13x5xf64>, %h0: tensor<2x4x5xf64>, %o: tensor<5xi64>) -> (tensor<2x13x5xf64>, tensor<2x4x5xf64>) {
  %h_dest = tensor.empty() : tensor<2x13x5xf64>
  %f_dest = tensor.empty() : tensor<2x4x5xf64>
  %h, %f = recurrence.scan diagonal reverse transition(%a : tensor<2x13x5xf64>) input(%b : tensor<2x13x5xf64>) init(%h0 : tensor<2x4x5xf64>) offsets(%o : tensor<5xi64>) outs(%h_dest, %f_dest : tensor<2x13x5xf64>, tensor<2x4x5xf64>) -> tensor<2x13x5xf64>, tensor<2x4x5xf64>
  return %h, %f : tensor<2x13x5xf64>, tensor<2x4x5xf64>
}

// Chunks of 4 steps over sequences that cross chunk boundaries; a matrix
// state through a factored input and a readout.
// CHUNKED: example {{.*}} @packed_chunked
// CHUNKED: result #0 ok
// CHUNKED: result #1 ok
func.func @packed_chunked(%a: tensor<19x3xf64>, %k: tensor<19x3xf64>, %v: tensor<19x2xf64>, %c: tensor<19x3xf64>, %o: tensor<6xi32>) -> (tensor<19x2xf64>, tensor<5x3x2xf64>) {
  %y_dest = tensor.empty() : tensor<19x2xf64>
  %f_dest = tensor.empty() : tensor<5x3x2xf64>
  %y, %f = recurrence.scan diagonal schedule chunked<4> matrix transition(%a : tensor<19x3xf64>) factored_input(%k, %v : tensor<19x3xf64>, tensor<19x2xf64>) readout(%c : tensor<19x3xf64>) offsets(%o : tensor<6xi32>) outs(%y_dest, %f_dest : tensor<19x2xf64>, tensor<5x3x2xf64>) -> tensor<19x2xf64>, tensor<5x3x2xf64>
  return %y, %f : tensor<19x2xf64>, tensor<5x3x2xf64>
}

// The offsets (@packed's argument #3) are not differentiated.
// GRAD: gradient
// GRAD: argument #0 ok
// GRAD-NOT: FAIL
// OFFSETS: argument #2 ok
// OFFSETS-NOT: argument #3
// GRAD: all arguments ok
