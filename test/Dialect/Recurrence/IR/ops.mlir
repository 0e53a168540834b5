// Round trip of recurrence.scan and the recurrence attributes through the
// custom assembly format, and through the generic op form.
//
// RUN: recurrence-opt %s | recurrence-opt | FileCheck %s
// RUN: recurrence-opt %s --mlir-print-op-generic | recurrence-opt | FileCheck %s
// RUN: recurrence-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC

//===----------------------------------------------------------------------===//
// Structures: each fixes its transition operands ([..., T] then the step).
//===----------------------------------------------------------------------===//

// identity: A_t = I, no transition operand.
// CHECK-LABEL: func.func @identity(
// CHECK-SAME:    %[[B:.*]]: tensor<2x8x4xf32>)
// CHECK:         %[[H:.*]] = recurrence.scan identity input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    return %[[H]]
// GENERIC-LABEL: sym_name = "identity"
// GENERIC:       "recurrence.scan"(%{{.*}}) <{operandSegmentSizes = array<i32: 0, 1, 0, 0, 0, 0, 0, 1>, structure = #recurrence.identity}>
func.func @identity(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan identity input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// scalar: A_t = a_t I, a: [..., T].
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<2x8x4xf32>)
// CHECK:         recurrence.scan scalar transition(%[[A]] : tensor<2x8xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// GENERIC-LABEL: sym_name = "scalar"
// GENERIC:       "recurrence.scan"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 1>, structure = #recurrence.scalar}>
func.func @scalar(%a: tensor<2x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan scalar transition(%a : tensor<2x8xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// diagonal: A_t = diag(a_t), a: [..., T, N].
// CHECK-LABEL: func.func @diagonal(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4xf32>, %[[B:.*]]: tensor<2x8x4xf32>)
// CHECK:         recurrence.scan diagonal transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
func.func @diagonal(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// block_diagonal<m>: N/m blocks of m x m, A: [..., T, N/m, m, m].
// CHECK-LABEL: func.func @block_diagonal(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4x4x4xf32>, %[[B:.*]]: tensor<2x8x16xf32>)
// CHECK:         recurrence.scan block_diagonal<4> transition(%[[A]] : tensor<2x8x4x4x4xf32>) input(%[[B]] : tensor<2x8x16xf32>) outs(%{{.*}} : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
// GENERIC-LABEL: sym_name = "block_diagonal"
// GENERIC:       structure = #recurrence.block_diagonal<4>
func.func @block_diagonal(%A: tensor<2x8x4x4x4xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x8x16xf32> {
  %h_dest = tensor.empty() : tensor<2x8x16xf32>
  %h = recurrence.scan block_diagonal<4> transition(%A : tensor<2x8x4x4x4xf32>) input(%b : tensor<2x8x16xf32>) outs(%h_dest : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %h : tensor<2x8x16xf32>
}

// dplr<r>: A_t = diag(d_t) + U_t V_t^T, three transition operands.
// CHECK-LABEL: func.func @dplr(
// CHECK-SAME:    %[[D:.*]]: tensor<2x8x4xf32>, %[[U:.*]]: tensor<2x8x4x2xf32>, %[[V:.*]]: tensor<2x8x4x2xf32>, %[[B:.*]]: tensor<2x8x4xf32>)
// CHECK:         recurrence.scan dplr<2> transition(%[[D]], %[[U]], %[[V]] : tensor<2x8x4xf32>, tensor<2x8x4x2xf32>, tensor<2x8x4x2xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// GENERIC-LABEL: sym_name = "dplr"
// GENERIC:       operandSegmentSizes = array<i32: 3, 1, 0, 0, 0, 0, 0, 1>, structure = #recurrence.dplr<2>
func.func @dplr(%d: tensor<2x8x4xf32>, %u: tensor<2x8x4x2xf32>, %v: tensor<2x8x4x2xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan dplr<2> transition(%d, %u, %v : tensor<2x8x4xf32>, tensor<2x8x4x2xf32>, tensor<2x8x4x2xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// dense: A: [..., T, N, N].
// CHECK-LABEL: func.func @dense(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4x4xf32>, %[[B:.*]]: tensor<2x8x4xf32>)
// CHECK:         recurrence.scan dense transition(%[[A]] : tensor<2x8x4x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
func.func @dense(%A: tensor<2x8x4x4xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan dense transition(%A : tensor<2x8x4x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// higher_order<m>: a: [..., T, m, N]; init and final state are the m most
// recent states [..., m, N], newest first.
// CHECK-LABEL: func.func @higher_order(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x3x4xf32>, %[[B:.*]]: tensor<2x8x4xf32>, %[[I:.*]]: tensor<2x3x4xf32>)
// CHECK:         %[[H:.*]], %[[LAST:.*]] = recurrence.scan higher_order<3> transition(%[[A]] : tensor<2x8x3x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) init(%[[I]] : tensor<2x3x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x8x4xf32>, tensor<2x3x4xf32>) -> tensor<2x8x4xf32>, tensor<2x3x4xf32>
// CHECK-NEXT:    return %[[H]], %[[LAST]]
func.func @higher_order(%a: tensor<2x8x3x4xf32>, %b: tensor<2x8x4xf32>, %init: tensor<2x3x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x3x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x3x4xf32>
  %h, %last = recurrence.scan higher_order<3> transition(%a : tensor<2x8x3x4xf32>) input(%b : tensor<2x8x4xf32>) init(%init : tensor<2x3x4xf32>) outs(%h_dest, %last_dest : tensor<2x8x4xf32>, tensor<2x3x4xf32>) -> tensor<2x8x4xf32>, tensor<2x3x4xf32>
  return %h, %last : tensor<2x8x4xf32>, tensor<2x3x4xf32>
}

//===----------------------------------------------------------------------===//
// Matrix states, factored input and readout.
//===----------------------------------------------------------------------===//

// An N x D state whose D columns share the diagonal A_t.
// CHECK-LABEL: func.func @matrix(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4xf32>, %[[B:.*]]: tensor<2x8x4x3xf32>)
// CHECK:         recurrence.scan diagonal matrix transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4x3xf32>) outs(%{{.*}} : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
// GENERIC-LABEL: sym_name = "matrix"
// GENERIC:       <{matrix, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 0, 0, 1>, structure = #recurrence.diagonal}>
func.func @matrix(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return %h : tensor<2x8x4x3xf32>
}

// A diagonal given per state element: a: [..., T, N, D].
// CHECK-LABEL: func.func @per_element_diagonal(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4x3xf32>, %[[B:.*]]: tensor<2x8x4x3xf32>)
// CHECK:         recurrence.scan diagonal matrix transition(%[[A]] : tensor<2x8x4x3xf32>) input(%[[B]] : tensor<2x8x4x3xf32>) outs(%{{.*}} : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
func.func @per_element_diagonal(%a: tensor<2x8x4x3xf32>, %b: tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4x3xf32>) input(%b : tensor<2x8x4x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return %h : tensor<2x8x4x3xf32>
}

// b_t = k_t v_t^T with k: [..., T, N] and v: [..., T, D].
// CHECK-LABEL: func.func @factored_input(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4xf32>, %[[K:.*]]: tensor<2x8x4xf32>, %[[V:.*]]: tensor<2x8x3xf32>)
// CHECK:         recurrence.scan diagonal matrix transition(%[[A]] : tensor<2x8x4xf32>) factored_input(%[[K]], %[[V]] : tensor<2x8x4xf32>, tensor<2x8x3xf32>) outs(%{{.*}} : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
// GENERIC-LABEL: sym_name = "factored_input"
// GENERIC:       operandSegmentSizes = array<i32: 1, 0, 1, 1, 0, 0, 0, 1>
func.func @factored_input(%a: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>) -> tensor<2x8x4x3xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) factored_input(%k, %v : tensor<2x8x4xf32>, tensor<2x8x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return %h : tensor<2x8x4x3xf32>
}

// Packed sequences: `offsets` ([S + 1]) after the readout; init and the final
// state hold one state per sequence, [..., S, N].
// CHECK-LABEL: func.func @offsets(
// CHECK:         recurrence.scan diagonal transition(%{{.*}} : tensor<2x8x4xf32>) input(%{{.*}} : tensor<2x8x4xf32>) init(%{{.*}} : tensor<2x3x4xf32>) offsets(%{{.*}} : tensor<4xi32>) outs(%{{.*}}, %{{.*}} : tensor<2x8x4xf32>, tensor<2x3x4xf32>) -> tensor<2x8x4xf32>, tensor<2x3x4xf32>
// GENERIC-LABEL: sym_name = "offsets"
// GENERIC:       operandSegmentSizes = array<i32: 1, 1, 0, 0, 1, 0, 1, 2>
func.func @offsets(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %h0: tensor<2x3x4xf32>, %o: tensor<4xi32>) -> (tensor<2x8x4xf32>, tensor<2x3x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %l_dest = tensor.empty() : tensor<2x3x4xf32>
  %h, %l = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) init(%h0 : tensor<2x3x4xf32>) offsets(%o : tensor<4xi32>) outs(%h_dest, %l_dest : tensor<2x8x4xf32>, tensor<2x3x4xf32>) -> tensor<2x8x4xf32>, tensor<2x3x4xf32>
  return %h, %l : tensor<2x8x4xf32>, tensor<2x3x4xf32>
}

// A readout on a vector state gives y_t = c_t^T h_t: [..., T].
// CHECK-LABEL: func.func @readout(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4xf32>, %[[B:.*]]: tensor<2x8x4xf32>, %[[C:.*]]: tensor<2x8x4xf32>)
// CHECK:         recurrence.scan diagonal transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) readout(%[[C]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC-LABEL: sym_name = "readout"
// GENERIC:       operandSegmentSizes = array<i32: 1, 1, 0, 0, 0, 1, 0, 1>
func.func @readout(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x8x4xf32>) -> tensor<2x8xf32> {
  %y_dest = tensor.empty() : tensor<2x8xf32>
  %y = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) readout(%c : tensor<2x8x4xf32>) outs(%y_dest : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %y : tensor<2x8xf32>
}

// Everything at once (the Mamba-style selective SSM of the op's docs), with
// init and the final state: the output is [..., T, D].
// CHECK-LABEL: func.func @matrix_everything(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8x4xf32>, %[[K:[^:]*]]: tensor<2x8x4xf32>, %[[V:[^:]*]]: tensor<2x8x3xf32>, %[[I:[^:]*]]: tensor<2x4x3xf32>, %[[C:[^:]*]]: tensor<2x8x4xf32>)
// CHECK:         %{{.*}}, %{{.*}} = recurrence.scan diagonal matrix reverse transition(%[[A]] : tensor<2x8x4xf32>) factored_input(%[[K]], %[[V]] : tensor<2x8x4xf32>, tensor<2x8x3xf32>) init(%[[I]] : tensor<2x4x3xf32>) readout(%[[C]] : tensor<2x8x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x8x3xf32>, tensor<2x4x3xf32>) -> tensor<2x8x3xf32>, tensor<2x4x3xf32>
// GENERIC-LABEL: sym_name = "matrix_everything"
// GENERIC:       <{matrix, operandSegmentSizes = array<i32: 1, 0, 1, 1, 1, 1, 0, 2>, reverse, structure = #recurrence.diagonal}>
func.func @matrix_everything(%a: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>, %init: tensor<2x4x3xf32>, %c: tensor<2x8x4xf32>) -> (tensor<2x8x3xf32>, tensor<2x4x3xf32>) {
  %y_dest = tensor.empty() : tensor<2x8x3xf32>
  %last_dest = tensor.empty() : tensor<2x4x3xf32>
  %y, %last = recurrence.scan diagonal matrix reverse transition(%a : tensor<2x8x4xf32>) factored_input(%k, %v : tensor<2x8x4xf32>, tensor<2x8x3xf32>) init(%init : tensor<2x4x3xf32>) readout(%c : tensor<2x8x4xf32>) outs(%y_dest, %last_dest : tensor<2x8x3xf32>, tensor<2x4x3xf32>) -> tensor<2x8x3xf32>, tensor<2x4x3xf32>
  return %y, %last : tensor<2x8x3xf32>, tensor<2x4x3xf32>
}

//===----------------------------------------------------------------------===//
// Direction, init and final state.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reverse_init_final(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8x4xf32>, %[[B:.*]]: tensor<2x8x4xf32>, %[[I:.*]]: tensor<2x4xf32>)
// CHECK:         %[[H:.*]], %[[LAST:.*]] = recurrence.scan diagonal reverse transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) init(%[[I]] : tensor<2x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x8x4xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:    return %[[H]], %[[LAST]]
// GENERIC-LABEL: sym_name = "reverse_init_final"
// GENERIC:       "recurrence.scan"({{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 1, 0, 0, 2>, reverse, structure = #recurrence.diagonal}> : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x4xf32>, tensor<2x8x4xf32>, tensor<2x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x4xf32>)
func.func @reverse_init_final(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %init: tensor<2x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x4xf32>
  %h, %last = recurrence.scan diagonal reverse transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) init(%init : tensor<2x4xf32>) outs(%h_dest, %last_dest : tensor<2x8x4xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>, tensor<2x4xf32>
  return %h, %last : tensor<2x8x4xf32>, tensor<2x4xf32>
}

//===----------------------------------------------------------------------===//
// Destinations: `outs(...)` names one tensor per result, of its type.
//===----------------------------------------------------------------------===//

// Both results, after init and before the attribute dictionary.
// CHECK-LABEL: func.func @outs_output_and_final_state(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8x4xf32>, %[[B:[^:]*]]: tensor<2x8x4xf32>, %[[I:[^:]*]]: tensor<2x4xf32>, %[[D0:[^:]*]]: tensor<2x8x4xf32>, %[[D1:[^:]*]]: tensor<2x4xf32>)
// CHECK:         %[[H:.*]], %[[LAST:.*]] = recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) init(%[[I]] : tensor<2x4xf32>) outs(%[[D0]], %[[D1]] : tensor<2x8x4xf32>, tensor<2x4xf32>) {note} -> tensor<2x8x4xf32>, tensor<2x4xf32>
// CHECK-NEXT:    return %[[H]], %[[LAST]]
// GENERIC-LABEL: sym_name = "outs_output_and_final_state"
// GENERIC:       "recurrence.scan"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 1, 0, 0, 2>, schedule = #recurrence.schedule<sequential>, structure = #recurrence.diagonal}> {note} : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x4xf32>, tensor<2x8x4xf32>, tensor<2x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x4xf32>)
func.func @outs_output_and_final_state(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %init: tensor<2x4xf32>, %d0: tensor<2x8x4xf32>, %d1: tensor<2x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x4xf32>) {
  %h, %last = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) init(%init : tensor<2x4xf32>) outs(%d0, %d1 : tensor<2x8x4xf32>, tensor<2x4xf32>) {note} -> tensor<2x8x4xf32>, tensor<2x4xf32>
  return %h, %last : tensor<2x8x4xf32>, tensor<2x4xf32>
}

// A readout's destination has the readout's type; dynamic dims stay dynamic.
// CHECK-LABEL: func.func @outs_readout_dynamic(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<?x?x4xf32>, %[[B:[^:]*]]: tensor<?x?x4xf32>, %[[C:[^:]*]]: tensor<?x?x4xf32>, %[[D:[^:]*]]: tensor<?x?xf32>, %[[U:[^:]*]]: tensor<?x?x4x1xf32>)
// CHECK:         %[[Y:.*]] = recurrence.scan dplr<1> transition(%[[A]], %[[U]], %[[U]] : tensor<?x?x4xf32>, tensor<?x?x4x1xf32>, tensor<?x?x4x1xf32>) input(%[[B]] : tensor<?x?x4xf32>) readout(%[[C]] : tensor<?x?x4xf32>) outs(%[[D]] : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[Y]]
// GENERIC-LABEL: sym_name = "outs_readout_dynamic"
// GENERIC:       operandSegmentSizes = array<i32: 3, 1, 0, 0, 0, 1, 0, 1>, structure = #recurrence.dplr<1>
func.func @outs_readout_dynamic(%a: tensor<?x?x4xf32>, %b: tensor<?x?x4xf32>, %c: tensor<?x?x4xf32>, %d: tensor<?x?xf32>, %u: tensor<?x?x4x1xf32>) -> tensor<?x?xf32> {
  %y = recurrence.scan dplr<1> transition(%a, %u, %u : tensor<?x?x4xf32>, tensor<?x?x4x1xf32>, tensor<?x?x4x1xf32>) input(%b : tensor<?x?x4xf32>) readout(%c : tensor<?x?x4xf32>) outs(%d : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// A destination may be any value of the right type, e.g. a tensor.empty.
// CHECK-LABEL: func.func @outs_empty(
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<8x4x3xf32>
// CHECK:         recurrence.scan identity matrix factored_input(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<8x3xf32>) outs(%[[E]] : tensor<8x4x3xf32>) -> tensor<8x4x3xf32>
// GENERIC-LABEL: sym_name = "outs_empty"
// GENERIC:       <{matrix, operandSegmentSizes = array<i32: 0, 0, 1, 1, 0, 0, 0, 1>, structure = #recurrence.identity}>
func.func @outs_empty(%k: tensor<8x4xf32>, %v: tensor<8x3xf32>) -> tensor<8x4x3xf32> {
  %e = tensor.empty() : tensor<8x4x3xf32>
  %h = recurrence.scan identity matrix factored_input(%k, %v : tensor<8x4xf32>, tensor<8x3xf32>) outs(%e : tensor<8x4x3xf32>) -> tensor<8x4x3xf32>
  return %h : tensor<8x4x3xf32>
}

//===----------------------------------------------------------------------===//
// Schedules: written right after the structure; `auto` is the default and is
// only printed when spelled out.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @schedules(
// CHECK:         recurrence.scan diagonal schedule sequential transition(
// CHECK:         recurrence.scan diagonal schedule chunked<64> transition(
// CHECK:         recurrence.scan diagonal schedule scan transition(
// CHECK:         recurrence.scan diagonal schedule auto transition(
// CHECK:         recurrence.scan diagonal transition(
// CHECK:         recurrence.scan block_diagonal<2> schedule chunked<8> matrix reverse transition(
// GENERIC-LABEL: sym_name = "schedules"
// GENERIC:       schedule = #recurrence.schedule<sequential>
// GENERIC:       schedule = #recurrence.schedule<chunked<64>>
// GENERIC:       schedule = #recurrence.schedule<scan>
// GENERIC:       schedule = #recurrence.schedule<auto>
// GENERIC-NOT:   schedule =
// GENERIC:       schedule = #recurrence.schedule<chunked<8>>, structure = #recurrence.block_diagonal<2>
func.func @schedules(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %A: tensor<2x8x2x2x2xf32>, %bm: tensor<2x8x4x3xf32>) {
  %dest0 = tensor.empty() : tensor<2x8x4xf32>
  %0 = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest0 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest1 = tensor.empty() : tensor<2x8x4xf32>
  %1 = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest1 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest2 = tensor.empty() : tensor<2x8x4xf32>
  %2 = recurrence.scan diagonal schedule scan transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest2 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest3 = tensor.empty() : tensor<2x8x4xf32>
  %3 = recurrence.scan diagonal schedule auto transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest3 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest4 = tensor.empty() : tensor<2x8x4xf32>
  %4 = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest4 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest5 = tensor.empty() : tensor<2x8x4x3xf32>
  %5 = recurrence.scan block_diagonal<2> schedule chunked<8> matrix reverse transition(%A : tensor<2x8x2x2x2xf32>) input(%bm : tensor<2x8x4x3xf32>) outs(%dest5 : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

//===----------------------------------------------------------------------===//
// Batch dims: none, several, and dynamic sizes anywhere.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @no_batch_dims(
// CHECK:         recurrence.scan dense transition(%{{.*}} : tensor<8x4x4xf32>) input(%{{.*}} : tensor<8x4xf32>) init(%{{.*}} : tensor<4xf32>) readout(%{{.*}} : tensor<8x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>, tensor<4xf32>
func.func @no_batch_dims(%A: tensor<8x4x4xf32>, %b: tensor<8x4xf32>, %init: tensor<4xf32>, %c: tensor<8x4xf32>) -> (tensor<8xf32>, tensor<4xf32>) {
  %y_dest = tensor.empty() : tensor<8xf32>
  %last_dest = tensor.empty() : tensor<4xf32>
  %y, %last = recurrence.scan dense transition(%A : tensor<8x4x4xf32>) input(%b : tensor<8x4xf32>) init(%init : tensor<4xf32>) readout(%c : tensor<8x4xf32>) outs(%y_dest, %last_dest : tensor<8xf32>, tensor<4xf32>) -> tensor<8xf32>, tensor<4xf32>
  return %y, %last : tensor<8xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @several_batch_dims(
// CHECK:         recurrence.scan scalar transition(%{{.*}} : tensor<2x3x5x8xf32>) input(%{{.*}} : tensor<2x3x5x8x4xf32>) init(%{{.*}} : tensor<2x3x5x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x3x5x8x4xf32>, tensor<2x3x5x4xf32>) -> tensor<2x3x5x8x4xf32>, tensor<2x3x5x4xf32>
func.func @several_batch_dims(%a: tensor<2x3x5x8xf32>, %b: tensor<2x3x5x8x4xf32>, %init: tensor<2x3x5x4xf32>) -> (tensor<2x3x5x8x4xf32>, tensor<2x3x5x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x3x5x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x3x5x4xf32>
  %h, %last = recurrence.scan scalar transition(%a : tensor<2x3x5x8xf32>) input(%b : tensor<2x3x5x8x4xf32>) init(%init : tensor<2x3x5x4xf32>) outs(%h_dest, %last_dest : tensor<2x3x5x8x4xf32>, tensor<2x3x5x4xf32>) -> tensor<2x3x5x8x4xf32>, tensor<2x3x5x4xf32>
  return %h, %last : tensor<2x3x5x8x4xf32>, tensor<2x3x5x4xf32>
}

// Dynamic sizes are compatible with any size, also across operands.
// CHECK-LABEL: func.func @dynamic_dims(
// CHECK:         recurrence.scan block_diagonal<4> transition(%{{.*}} : tensor<?x?x?x4x4xf32>) input(%{{.*}} : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
// CHECK:         recurrence.scan dplr<1> transition(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x8xf32>, tensor<4x?x8x1xf32>, tensor<?x16x?x?xf32>) input(%{{.*}} : tensor<4x16x?xf32>) outs(%{{.*}}, %{{.*}} : tensor<?x16x8xf32>, tensor<4x?xf32>) -> tensor<?x16x8xf32>, tensor<4x?xf32>
// CHECK:         recurrence.scan diagonal matrix transition(%{{.*}} : tensor<?x?x?xf32>) factored_input(%{{.*}}, %{{.*}} : tensor<?x?x?xf32>, tensor<?x?x?xf32>) readout(%{{.*}} : tensor<?x?x?xf32>) outs(%{{.*}} : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
func.func @dynamic_dims(%A: tensor<?x?x?x4x4xf32>, %b: tensor<?x?x?xf32>,
                        %d: tensor<?x?x8xf32>, %u: tensor<4x?x8x1xf32>, %v: tensor<?x16x?x?xf32>, %b2: tensor<4x16x?xf32>,
                        %x: tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %dest0 = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %0 = recurrence.scan block_diagonal<4> transition(%A : tensor<?x?x?x4x4xf32>) input(%b : tensor<?x?x?xf32>) outs(%dest0 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %d3 = tensor.dim %b2, %c0 : tensor<4x16x?xf32>
  %dest1 = tensor.empty(%d3) : tensor<?x16x8xf32>
  %d4 = tensor.dim %b2, %c2 : tensor<4x16x?xf32>
  %dest2 = tensor.empty(%d4) : tensor<4x?xf32>
  %1, %2 = recurrence.scan dplr<1> transition(%d, %u, %v : tensor<?x?x8xf32>, tensor<4x?x8x1xf32>, tensor<?x16x?x?xf32>) input(%b2 : tensor<4x16x?xf32>) outs(%dest1, %dest2 : tensor<?x16x8xf32>, tensor<4x?xf32>) -> tensor<?x16x8xf32>, tensor<4x?xf32>
  %d5 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d6 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d7 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %dest3 = tensor.empty(%d5, %d6, %d7) : tensor<?x?x?xf32>
  %3 = recurrence.scan diagonal matrix transition(%x : tensor<?x?x?xf32>) factored_input(%x, %x : tensor<?x?x?xf32>, tensor<?x?x?xf32>) readout(%x : tensor<?x?x?xf32>) outs(%dest3 : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return
}

// Other float element types are accepted as long as they all agree.
// CHECK-LABEL: func.func @f16(
// CHECK:         recurrence.scan scalar transition(%{{.*}} : tensor<8xf16>) input(%{{.*}} : tensor<8x4xf16>) outs(%{{.*}} : tensor<8x4xf16>) -> tensor<8x4xf16>
func.func @f16(%a: tensor<8xf16>, %b: tensor<8x4xf16>) -> tensor<8x4xf16> {
  %h_dest = tensor.empty() : tensor<8x4xf16>
  %h = recurrence.scan scalar transition(%a : tensor<8xf16>) input(%b : tensor<8x4xf16>) outs(%h_dest : tensor<8x4xf16>) -> tensor<8x4xf16>
  return %h : tensor<8x4xf16>
}

//===----------------------------------------------------------------------===//
// Standalone attributes.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @standalone_attributes()
// CHECK-SAME:    attributes {schedule = #recurrence.schedule<chunked<8>>, schedules = [#recurrence.schedule<sequential>, #recurrence.schedule<scan>, #recurrence.schedule<auto>], structure = #recurrence.block_diagonal<4>, structures = [#recurrence.identity, #recurrence.scalar, #recurrence.diagonal, #recurrence.dplr<2>, #recurrence.dense, #recurrence.higher_order<3>]}
func.func @standalone_attributes() attributes {
    structure = #recurrence.block_diagonal<4>,
    schedule = #recurrence.schedule<chunked<8>>,
    structures = [#recurrence.identity, #recurrence.scalar,
                  #recurrence.diagonal, #recurrence.dplr<2>,
                  #recurrence.dense, #recurrence.higher_order<3>],
    schedules = [#recurrence.schedule<sequential>, #recurrence.schedule<scan>,
                 #recurrence.schedule<auto>]} {
  return
}

// The attributes also survive in the attribute dictionary of a scan.
// CHECK-LABEL: func.func @attributes_on_scan(
// CHECK:         recurrence.scan identity input(%{{.*}} : tensor<8x4xf32>) outs(%{{.*}} : tensor<8x4xf32>) {note = #recurrence.block_diagonal<4>, plan = #recurrence.schedule<chunked<8>>} -> tensor<8x4xf32>
func.func @attributes_on_scan(%b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %h_dest = tensor.empty() : tensor<8x4xf32>
  %h = recurrence.scan identity input(%b : tensor<8x4xf32>) outs(%h_dest : tensor<8x4xf32>) {note = #recurrence.block_diagonal<4>, plan = #recurrence.schedule<chunked<8>>} -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}
