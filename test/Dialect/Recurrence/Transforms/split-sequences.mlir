// RUN: recurrence-opt %s -recurrence-split-sequences -canonicalize -cse | FileCheck %s

// Packed sequences become one plain scan whose transition is zero where a
// sequence starts; each init enters through a one-step scan over the
// sequences, added to the input at its sequence's first step; the final
// states are read off the states (an empty sequence's is its init). Each
// step finds the sequence starting there by a binary search of the offsets,
// in a [T] generic that the gates read along T: once per step where a
// lowering fuses them into its steps, not once per element.
// CHECK: #[[ALONG_T:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @diagonal_init_final
//  CHECK-SAME:   (%[[A:[a-z0-9]+]]: tensor<2x10x4xf32>, %[[B:[a-z0-9]+]]: tensor<2x10x4xf32>, %[[H0:[a-z0-9]+]]: tensor<2x3x4xf32>, %[[O:[a-z0-9]+]]: tensor<4xi32>)
//       CHECK:   %[[STARTING:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<10xi64>)
//       CHECK:     scf.while
//       CHECK:       tensor.extract %[[O]]
//       CHECK:   %[[ZEROED:.*]] = linalg.generic {indexing_maps = [#[[ALONG_T]], #{{.*}}, #{{.*}}]{{.*}} ins(%[[STARTING]], %[[A]] : tensor<10xi64>, tensor<2x10x4xf32>)
//   CHECK-NOT:     scf.while
//       CHECK:     arith.cmpi sge
//       CHECK:     arith.select
//       CHECK:   %[[FIRST_A:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x1x4xf32>)
//       CHECK:     tensor.extract %[[A]]
//       CHECK:   %[[FIRST:.*]] = recurrence.scan diagonal schedule sequential transition(%[[FIRST_A]] : tensor<2x3x1x4xf32>) input(%{{.*}} : tensor<2x3x1x4xf32>) init(%[[H0]] : tensor<2x3x4xf32>)
//       CHECK:   %[[INPUT:.*]] = linalg.generic {{.*}} ins(%[[STARTING]], %[[B]] :
//   CHECK-NOT:     scf.while
//       CHECK:     tensor.extract %[[FIRST]]
//       CHECK:   %[[H:.*]] = recurrence.scan diagonal schedule chunked<4> transition(%[[ZEROED]] : tensor<2x10x4xf32>) input(%[[INPUT]] : tensor<2x10x4xf32>) outs(%{{.*}} : tensor<2x10x4xf32>) {recurrence.packed}
//   CHECK-NOT:     offsets
//       CHECK:   %[[LAST:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x4xf32>)
//       CHECK:     tensor.extract %[[H]]
//       CHECK:     tensor.extract %[[H0]]
//       CHECK:   return %[[H]], %[[LAST]]
func.func @diagonal_init_final(%a: tensor<2x10x4xf32>, %b: tensor<2x10x4xf32>, %h0: tensor<2x3x4xf32>, %o: tensor<4xi32>) -> (tensor<2x10x4xf32>, tensor<2x3x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x10x4xf32>
  %l_dest = tensor.empty() : tensor<2x3x4xf32>
  %h, %l = recurrence.scan diagonal schedule chunked<4> transition(%a : tensor<2x10x4xf32>) input(%b : tensor<2x10x4xf32>) init(%h0 : tensor<2x3x4xf32>) offsets(%o : tensor<4xi32>) outs(%h_dest, %l_dest : tensor<2x10x4xf32>, tensor<2x3x4xf32>) -> tensor<2x10x4xf32>, tensor<2x3x4xf32>
  return %h, %l : tensor<2x10x4xf32>, tensor<2x3x4xf32>
}

// Linear attention over packed sequences: identity restarts as scalar (1
// inside a sequence, 0 at its start); the factored input and the readout
// stay fused when no final state is asked for.
// CHECK-LABEL: func.func @linear_attention
//       CHECK:   %[[STARTING:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?xi64>)
//       CHECK:     scf.while
//       CHECK:   %[[GATES:.*]] = linalg.generic {{.*}} ins(%[[STARTING]] : tensor<?xi64>) outs(%{{.*}} : tensor<?x?xf32>)
//   CHECK-NOT:     scf.while
//       CHECK:     %[[START:.*]] = arith.cmpi sge
//       CHECK:     arith.select %[[START]], %[[ZERO:.*]], %[[ONE:.*]] : f32
//       CHECK:   recurrence.scan scalar matrix transition(%[[GATES]] : tensor<?x?xf32>) factored_input(%arg0, %arg1 : tensor<?x?x4xf32>, tensor<?x?x3xf32>) readout(%arg2 : tensor<?x?x4xf32>)
func.func @linear_attention(%k: tensor<?x?x4xf32>, %v: tensor<?x?x3xf32>, %c: tensor<?x?x4xf32>, %o: tensor<?xi64>) -> tensor<?x?x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %k, %c0 : tensor<?x?x4xf32>
  %d1 = tensor.dim %k, %c1 : tensor<?x?x4xf32>
  %y_dest = tensor.empty(%d0, %d1) : tensor<?x?x3xf32>
  %y = recurrence.scan identity matrix factored_input(%k, %v : tensor<?x?x4xf32>, tensor<?x?x3xf32>) readout(%c : tensor<?x?x4xf32>) offsets(%o : tensor<?xi64>) outs(%y_dest : tensor<?x?x3xf32>) -> tensor<?x?x3xf32>
  return %y : tensor<?x?x3xf32>
}

// With a final state and a readout, the scan keeps its states and the
// readout (a reduction over N) follows it.
// CHECK-LABEL: func.func @readout_and_final
//       CHECK:   %[[H:.*]] = recurrence.scan diagonal transition(%{{.*}} : tensor<1x6x5xf32>) input(%{{.*}} : tensor<1x6x5xf32>) outs(%{{.*}} : tensor<1x6x5xf32>) {recurrence.packed} -> tensor<1x6x5xf32>
//       CHECK:   %[[Y:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%{{.*}}, %[[H]] : tensor<1x6x5xf32>, tensor<1x6x5xf32>)
//       CHECK:   return %[[Y]], %{{.*}} : tensor<1x6xf32>, tensor<1x2x5xf32>
func.func @readout_and_final(%a: tensor<1x6x5xf32>, %b: tensor<1x6x5xf32>, %c: tensor<1x6x5xf32>, %o: tensor<3xi64>) -> (tensor<1x6xf32>, tensor<1x2x5xf32>) {
  %y_dest = tensor.empty() : tensor<1x6xf32>
  %l_dest = tensor.empty() : tensor<1x2x5xf32>
  %y, %l = recurrence.scan diagonal transition(%a : tensor<1x6x5xf32>) input(%b : tensor<1x6x5xf32>) readout(%c : tensor<1x6x5xf32>) offsets(%o : tensor<3xi64>) outs(%y_dest, %l_dest : tensor<1x6xf32>, tensor<1x2x5xf32>) -> tensor<1x6xf32>, tensor<1x2x5xf32>
  return %y, %l : tensor<1x6xf32>, tensor<1x2x5xf32>
}
