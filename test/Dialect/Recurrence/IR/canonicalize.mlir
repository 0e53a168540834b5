// Canonicalization patterns of recurrence.scan (RecurrenceFolds.cpp):
//  * ScalarOneToIdentity: a `scalar` transition that is the constant 1
//    becomes `identity` (A_t = 1 * I = I).
//  * SingleStepIsInput: a scan over T = 1 with no init, readout or final
//    state is its input (h_1 = A_1 h_0 + b_1 = A_1 0 + b_1 = b_1).
//
// RUN: recurrence-opt %s -canonicalize -split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// ScalarOneToIdentity
//===----------------------------------------------------------------------===//

// The structure changes, the transition operand goes away, and the schedule,
// the direction and the other operands stay.
// CHECK-LABEL: func.func @scalar_one_is_identity(
// CHECK-SAME:    %[[B:[^:]*]]: tensor<2x8x4xf32>, %[[I:[^:]*]]: tensor<2x4xf32>)
// CHECK-NOT:     arith.constant
// CHECK:         %[[H:.*]], %[[LAST:.*]] = recurrence.scan identity schedule sequential reverse input(%[[B]] : tensor<2x8x4xf32>) init(%[[I]] : tensor<2x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x8x4xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:    return %[[H]], %[[LAST]]
func.func @scalar_one_is_identity(%b: tensor<2x8x4xf32>, %init: tensor<2x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x4xf32>) {
  %one = arith.constant dense<1.0> : tensor<2x8xf32>
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x4xf32>
  %h, %last = recurrence.scan scalar schedule sequential reverse transition(%one : tensor<2x8xf32>) input(%b : tensor<2x8x4xf32>) init(%init : tensor<2x4xf32>) outs(%h_dest, %last_dest : tensor<2x8x4xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>, tensor<2x4xf32>
  return %h, %last : tensor<2x8x4xf32>, tensor<2x4xf32>
}

// -----

// Also with a matrix state and a factored input (the input segment sizes
// must be kept consistent when the transition is dropped).
// CHECK-LABEL: func.func @scalar_one_factored(
// CHECK-SAME:    %[[K:[^:]*]]: tensor<8x4xf32>, %[[V:[^:]*]]: tensor<8x3xf32>, %[[C:[^:]*]]: tensor<8x4xf32>)
// CHECK:         %[[Y:.*]] = recurrence.scan identity matrix factored_input(%[[K]], %[[V]] : tensor<8x4xf32>, tensor<8x3xf32>) readout(%[[C]] : tensor<8x4xf32>) outs(%{{.*}} : tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT:    return %[[Y]]
func.func @scalar_one_factored(%k: tensor<8x4xf32>, %v: tensor<8x3xf32>, %c: tensor<8x4xf32>) -> tensor<8x3xf32> {
  %one = arith.constant dense<1.0> : tensor<8xf32>
  %y_dest = tensor.empty() : tensor<8x3xf32>
  %y = recurrence.scan scalar matrix transition(%one : tensor<8xf32>) factored_input(%k, %v : tensor<8x4xf32>, tensor<8x3xf32>) readout(%c : tensor<8x4xf32>) outs(%y_dest : tensor<8x3xf32>) -> tensor<8x3xf32>
  return %y : tensor<8x3xf32>
}

// -----

// Not a constant 1: a splat of another value.
// CHECK-LABEL: func.func @scalar_half_stays(
// CHECK:         %[[A:.*]] = arith.constant dense<5.000000e-01> : tensor<2x8xf32>
// CHECK:         recurrence.scan scalar transition(%[[A]] : tensor<2x8xf32>)
func.func @scalar_half_stays(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %a = arith.constant dense<0.5> : tensor<2x8xf32>
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan scalar transition(%a : tensor<2x8xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// -----

// Not a constant 1: ones everywhere but one step.
// CHECK-LABEL: func.func @scalar_non_splat_stays(
// CHECK:         %[[A:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+00], [1.000000e+00, 5.000000e-01]]> : tensor<2x2xf32>
// CHECK:         recurrence.scan scalar transition(%[[A]] : tensor<2x2xf32>)
func.func @scalar_non_splat_stays(%b: tensor<2x2x4xf32>) -> tensor<2x2x4xf32> {
  %a = arith.constant dense<[[1.0, 1.0], [1.0, 0.5]]> : tensor<2x2xf32>
  %h_dest = tensor.empty() : tensor<2x2x4xf32>
  %h = recurrence.scan scalar transition(%a : tensor<2x2xf32>) input(%b : tensor<2x2x4xf32>) outs(%h_dest : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  return %h : tensor<2x2x4xf32>
}

// -----

// Not a constant at all.
// CHECK-LABEL: func.func @scalar_argument_stays(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8xf32>
// CHECK:         recurrence.scan scalar transition(%[[A]] : tensor<2x8xf32>)
func.func @scalar_argument_stays(%a: tensor<2x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan scalar transition(%a : tensor<2x8xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// -----

// A diagonal of ones is the identity too (the structure says so).
// CHECK-LABEL: func.func @diagonal_ones_is_identity(
// CHECK-NOT:     arith.constant
// CHECK:         recurrence.scan identity input(%{{.*}} : tensor<2x8x4xf32>)
func.func @diagonal_ones_is_identity(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %a = arith.constant dense<1.0> : tensor<2x8x4xf32>
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// -----

// A dense matrix of ones is not the identity: it stays.
// CHECK-LABEL: func.func @dense_ones_stays(
// CHECK:         recurrence.scan dense transition(
func.func @dense_ones_stays(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %a = arith.constant dense<1.0> : tensor<2x8x4x4xf32>
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan dense transition(%a : tensor<2x8x4x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// SingleStepIsInput
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @single_step_is_input(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x1x4x4xf32>, %[[B:[^:]*]]: tensor<2x1x4xf32>)
// CHECK-NOT:     recurrence.scan
// CHECK:         return %[[B]] : tensor<2x1x4xf32>
func.func @single_step_is_input(%A: tensor<2x1x4x4xf32>, %b: tensor<2x1x4xf32>) -> tensor<2x1x4xf32> {
  %h_dest = tensor.empty() : tensor<2x1x4xf32>
  %h = recurrence.scan dense transition(%A : tensor<2x1x4x4xf32>) input(%b : tensor<2x1x4xf32>) outs(%h_dest : tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  return %h : tensor<2x1x4xf32>
}

// -----

// Reverse, matrix states, no batch dims and higher orders do not matter.
// CHECK-LABEL: func.func @single_step_matrix_reverse(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<1x2x4xf32>, %[[B:[^:]*]]: tensor<1x4x3xf32>)
// CHECK-NEXT:    return %[[B]] : tensor<1x4x3xf32>
func.func @single_step_matrix_reverse(%a: tensor<1x2x4xf32>, %b: tensor<1x4x3xf32>) -> tensor<1x4x3xf32> {
  %h_dest = tensor.empty() : tensor<1x4x3xf32>
  %h = recurrence.scan higher_order<2> matrix reverse transition(%a : tensor<1x2x4xf32>) input(%b : tensor<1x4x3xf32>) outs(%h_dest : tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  return %h : tensor<1x4x3xf32>
}

// -----

// Both patterns: scalar 1 becomes identity, then the single step folds.
// CHECK-LABEL: func.func @both_patterns(
// CHECK-SAME:    %[[B:[^:]*]]: tensor<3x1x4xf32>)
// CHECK-NEXT:    return %[[B]] : tensor<3x1x4xf32>
func.func @both_patterns(%b: tensor<3x1x4xf32>) -> tensor<3x1x4xf32> {
  %one = arith.constant dense<1.0> : tensor<3x1xf32>
  %h_dest = tensor.empty() : tensor<3x1x4xf32>
  %h = recurrence.scan scalar transition(%one : tensor<3x1xf32>) input(%b : tensor<3x1x4xf32>) outs(%h_dest : tensor<3x1x4xf32>) -> tensor<3x1x4xf32>
  return %h : tensor<3x1x4xf32>
}

// -----

// h_1 = A_1 init + b_1 depends on init.
// CHECK-LABEL: func.func @single_step_with_init_stays(
// CHECK:         recurrence.scan diagonal transition(%{{.*}} : tensor<2x1x4xf32>) input(%{{.*}} : tensor<2x1x4xf32>) init(%{{.*}} : tensor<2x4xf32>)
func.func @single_step_with_init_stays(%a: tensor<2x1x4xf32>, %b: tensor<2x1x4xf32>, %init: tensor<2x4xf32>) -> tensor<2x1x4xf32> {
  %h_dest = tensor.empty() : tensor<2x1x4xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x1x4xf32>) input(%b : tensor<2x1x4xf32>) init(%init : tensor<2x4xf32>) outs(%h_dest : tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  return %h : tensor<2x1x4xf32>
}

// -----

// The output of a readout is y_1 = c_1^T b_1, not b_1.
// CHECK-LABEL: func.func @single_step_with_readout_stays(
// CHECK:         recurrence.scan identity input(%{{.*}} : tensor<2x1x4xf32>) readout(%{{.*}} : tensor<2x1x4xf32>) outs(%{{.*}} : tensor<2x1xf32>) -> tensor<2x1xf32>
func.func @single_step_with_readout_stays(%b: tensor<2x1x4xf32>, %c: tensor<2x1x4xf32>) -> tensor<2x1xf32> {
  %y_dest = tensor.empty() : tensor<2x1xf32>
  %y = recurrence.scan identity input(%b : tensor<2x1x4xf32>) readout(%c : tensor<2x1x4xf32>) outs(%y_dest : tensor<2x1xf32>) -> tensor<2x1xf32>
  return %y : tensor<2x1xf32>
}

// -----

// A final state is a second result the fold does not provide.
// CHECK-LABEL: func.func @single_step_with_final_state_stays(
// CHECK:         %[[H:.*]], %{{.*}} = recurrence.scan identity input(%{{.*}} : tensor<2x1x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x1x4xf32>, tensor<2x4xf32>) -> tensor<2x1x4xf32>, tensor<2x4xf32>
// CHECK:         return %[[H]]
func.func @single_step_with_final_state_stays(%b: tensor<2x1x4xf32>) -> tensor<2x1x4xf32> {
  %h_dest = tensor.empty() : tensor<2x1x4xf32>
  %last_dest = tensor.empty() : tensor<2x4xf32>
  %h, %last = recurrence.scan identity input(%b : tensor<2x1x4xf32>) outs(%h_dest, %last_dest : tensor<2x1x4xf32>, tensor<2x4xf32>) -> tensor<2x1x4xf32>, tensor<2x4xf32>
  return %h : tensor<2x1x4xf32>
}

// -----

// A factored input has no single tensor to forward.
// CHECK-LABEL: func.func @single_step_factored_stays(
// CHECK:         recurrence.scan identity matrix factored_input(
func.func @single_step_factored_stays(%k: tensor<1x4xf32>, %v: tensor<1x3xf32>) -> tensor<1x4x3xf32> {
  %h_dest = tensor.empty() : tensor<1x4x3xf32>
  %h = recurrence.scan identity matrix factored_input(%k, %v : tensor<1x4xf32>, tensor<1x3xf32>) outs(%h_dest : tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  return %h : tensor<1x4x3xf32>
}

// -----

// T must be statically 1.
// CHECK-LABEL: func.func @dynamic_steps_stays(
// CHECK:         recurrence.scan identity input(%{{.*}} : tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
func.func @dynamic_steps_stays(%b: tensor<2x?x4xf32>) -> tensor<2x?x4xf32> {
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %b, %c1 : tensor<2x?x4xf32>
  %h_dest = tensor.empty(%d0) : tensor<2x?x4xf32>
  %h = recurrence.scan identity input(%b : tensor<2x?x4xf32>) outs(%h_dest : tensor<2x?x4xf32>) -> tensor<2x?x4xf32>
  return %h : tensor<2x?x4xf32>
}

// -----

// CHECK-LABEL: func.func @two_steps_stays(
// CHECK:         recurrence.scan identity input(%{{.*}} : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
func.func @two_steps_stays(%b: tensor<2x2x4xf32>) -> tensor<2x2x4xf32> {
  %h_dest = tensor.empty() : tensor<2x2x4xf32>
  %h = recurrence.scan identity input(%b : tensor<2x2x4xf32>) outs(%h_dest : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  return %h : tensor<2x2x4xf32>
}

// -----

// The output type must be the input type for a plain replacement.
// CHECK-LABEL: func.func @single_step_other_type_stays(
// CHECK:         recurrence.scan identity input(%{{.*}} : tensor<2x1x4xf32>) outs(%{{.*}} : tensor<?x1x4xf32>) -> tensor<?x1x4xf32>
func.func @single_step_other_type_stays(%b: tensor<2x1x4xf32>, %h_dest: tensor<?x1x4xf32>) -> tensor<?x1x4xf32> {
  %h = recurrence.scan identity input(%b : tensor<2x1x4xf32>) outs(%h_dest : tensor<?x1x4xf32>) -> tensor<?x1x4xf32>
  return %h : tensor<?x1x4xf32>
}

// -----

// A destination whose size folds to a constant makes the result static (the
// op is in destination style, so upstream folds the cast into it); the one
// step is then the input, cast back to the function's result type.
// CHECK-LABEL: func.func @single_step_static_destination(
// CHECK-SAME:    %[[B:.*]]: tensor<2x1x4xf32>
// CHECK-NOT:     recurrence.scan
// CHECK:         %[[CAST:.*]] = tensor.cast %[[B]] : tensor<2x1x4xf32> to tensor<?x1x4xf32>
// CHECK:         return %[[CAST]]
func.func @single_step_static_destination(%b: tensor<2x1x4xf32>) -> tensor<?x1x4xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<2x1x4xf32>
  %h_dest = tensor.empty(%d0) : tensor<?x1x4xf32>
  %h = recurrence.scan identity input(%b : tensor<2x1x4xf32>) outs(%h_dest : tensor<?x1x4xf32>) -> tensor<?x1x4xf32>
  return %h : tensor<?x1x4xf32>
}
