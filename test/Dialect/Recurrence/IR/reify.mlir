// recurrence.scan implements ReifyRankedShapedTypeOpInterface: the sizes of
// its results come from its operands, so `tensor.dim` of a result folds to
// a `tensor.dim` of an operand (or a constant), and the scan itself is no
// longer needed to know a shape.
//
// RUN: recurrence-opt %s -split-input-file -resolve-ranked-shaped-type-result-dims -cse | FileCheck %s

// The output [B, T, N, D] of a factored matrix scan: B, T and N from k,
// D from v.
// CHECK-LABEL: func.func @factored_output(
// CHECK-SAME:    %[[K:[^:]*]]: tensor<?x?x?xf32>, %[[V:[^:]*]]: tensor<?x?x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[B:.*]] = tensor.dim %[[K]], %[[C0]]
// CHECK-DAG:     %[[T:.*]] = tensor.dim %[[K]], %[[C1]]
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[K]], %[[C2]]
// CHECK-DAG:     %[[D:.*]] = tensor.dim %[[V]], %[[C2]]
// CHECK:         return %[[B]], %[[T]], %[[N]], %[[D]]
func.func @factored_output(%k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>) -> (index, index, index, index) {
  %c0_1 = arith.constant 0 : index
  %d0 = tensor.dim %k, %c0_1 : tensor<?x?x?xf32>
  %c1_1 = arith.constant 1 : index
  %d1 = tensor.dim %k, %c1_1 : tensor<?x?x?xf32>
  %c2_1 = arith.constant 2 : index
  %d2 = tensor.dim %k, %c2_1 : tensor<?x?x?xf32>
  %d3 = tensor.dim %v, %c2_1 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2, %d3) : tensor<?x?x?x?xf32>
  %h = recurrence.scan identity matrix factored_input(%k, %v : tensor<?x?x?xf32>, tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %b = tensor.dim %h, %c0 : tensor<?x?x?x?xf32>
  %t = tensor.dim %h, %c1 : tensor<?x?x?x?xf32>
  %n = tensor.dim %h, %c2 : tensor<?x?x?x?xf32>
  %d = tensor.dim %h, %c3 : tensor<?x?x?x?xf32>
  return %b, %t, %n, %d : index, index, index, index
}

// -----

// A vector readout [B, T] and higher_order<3>'s final state [B, 3, N].
// CHECK-LABEL: func.func @readout_and_final_state(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<?x?x3x?xf32>, %[[BIN:[^:]*]]: tensor<?x?x?xf32>, %{{[^:]*}}: tensor<?x?x?xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C3:.*]] = arith.constant 3 : index
// CHECK-DAG:     %[[B:.*]] = tensor.dim %[[BIN]], %[[C0]]
// CHECK-DAG:     %[[T:.*]] = tensor.dim %[[BIN]], %[[C1]]
// CHECK-DAG:     %[[N:.*]] = tensor.dim %[[BIN]], %[[C2]]
// CHECK:         return %[[B]], %[[T]], %[[B]], %[[C3]], %[[N]]
func.func @readout_and_final_state(%a: tensor<?x?x3x?xf32>, %b: tensor<?x?x?xf32>, %c: tensor<?x?x?xf32>) -> (index, index, index, index, index) {
  %c0_1 = arith.constant 0 : index
  %d4 = tensor.dim %b, %c0_1 : tensor<?x?x?xf32>
  %c1_1 = arith.constant 1 : index
  %d5 = tensor.dim %b, %c1_1 : tensor<?x?x?xf32>
  %y_dest = tensor.empty(%d4, %d5) : tensor<?x?xf32>
  %c2_1 = arith.constant 2 : index
  %d6 = tensor.dim %b, %c2_1 : tensor<?x?x?xf32>
  %last_dest = tensor.empty(%d4, %d6) : tensor<?x3x?xf32>
  %y, %last = recurrence.scan higher_order<3> transition(%a : tensor<?x?x3x?xf32>) input(%b : tensor<?x?x?xf32>) readout(%c : tensor<?x?x?xf32>) outs(%y_dest, %last_dest : tensor<?x?xf32>, tensor<?x3x?xf32>) -> tensor<?x?xf32>, tensor<?x3x?xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %yb = tensor.dim %y, %c0 : tensor<?x?xf32>
  %yt = tensor.dim %y, %c1 : tensor<?x?xf32>
  %lb = tensor.dim %last, %c0 : tensor<?x3x?xf32>
  %lm = tensor.dim %last, %c1 : tensor<?x3x?xf32>
  %ln = tensor.dim %last, %c2 : tensor<?x3x?xf32>
  return %yb, %yt, %lb, %lm, %ln : index, index, index, index, index
}
