// recurrence.scan implements TilingInterface: its loops are the batch dims,
// the channels when they are independent (in blocks of m for
// block_diagonal<m>), and the columns D of a matrix state; time stays
// sequential inside the op. Upstream tiling (here
// transform.structured.tile_using_forall) makes an scf.forall of smaller
// scans on slices; their results are inserted into the full results.
//
// RUN: recurrence-opt %s -transform-interpreter -split-input-file | FileCheck %s

// Diagonal with init and final state, tiles of 1 batch element x 64
// channels: every operand and both results are sliced alike.
// CHECK-DAG:   #[[$X64:.+]] = affine_map<(d0) -> (d0 * 64)>
// CHECK-LABEL: func.func @diagonal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x16x256xf32>, %[[B:[^:]*]]: tensor<4x16x256xf32>, %[[I:[^:]*]]: tensor<4x256xf32>)
// CHECK:         %[[H0:.*]] = tensor.empty() : tensor<4x16x256xf32>
// CHECK:         %[[L0:.*]] = tensor.empty() : tensor<4x256xf32>
// CHECK-NOT:     tensor.empty
// CHECK:         %[[R:.*]]:2 = scf.forall (%[[E:.*]], %[[C:.*]]) in (4, 4) shared_outs(%[[H:.*]] = %[[H0]], %[[L:.*]] = %[[L0]])
// CHECK:           %[[N:.*]] = affine.apply #[[$X64]](%[[C]])
// CHECK:           %[[AS:.*]] = tensor.extract_slice %[[A]][%[[E]], 0, %[[N]]] [1, 16, 64] [1, 1, 1]
// CHECK:           %[[BS:.*]] = tensor.extract_slice %[[B]][%[[E]], 0, %[[N]]] [1, 16, 64] [1, 1, 1]
// CHECK:           %[[IS:.*]] = tensor.extract_slice %[[I]][%[[E]], %[[N]]] [1, 64] [1, 1]
// CHECK:           %[[HS:.*]] = tensor.extract_slice %[[H]][%[[E]], 0, %[[N]]] [1, 16, 64] [1, 1, 1]
// CHECK:           %[[LS:.*]] = tensor.extract_slice %[[L]][%[[E]], %[[N]]] [1, 64] [1, 1]
// CHECK:           %[[OUT:.*]], %[[LAST:.*]] = recurrence.scan diagonal schedule sequential reverse transition(%[[AS]] : tensor<1x16x64xf32>) input(%[[BS]] : tensor<1x16x64xf32>) init(%[[IS]] : tensor<1x64xf32>) outs(%[[HS]], %[[LS]] : tensor<1x16x64xf32>, tensor<1x64xf32>) -> tensor<1x16x64xf32>, tensor<1x64xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[OUT]] into %[[H]][%[[E]], 0, %[[N]]] [1, 16, 64] [1, 1, 1]
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LAST]] into %[[L]][%[[E]], %[[N]]] [1, 64] [1, 1]
// CHECK:         return %[[R]]#0, %[[R]]#1
func.func @diagonal(%a: tensor<4x16x256xf32>, %b: tensor<4x16x256xf32>, %i: tensor<4x256xf32>) -> (tensor<4x16x256xf32>, tensor<4x256xf32>) {
  %h_dest = tensor.empty() : tensor<4x16x256xf32>
  %l_dest = tensor.empty() : tensor<4x256xf32>
  %h, %l = recurrence.scan diagonal schedule sequential reverse transition(%a : tensor<4x16x256xf32>) input(%b : tensor<4x16x256xf32>) init(%i : tensor<4x256xf32>) outs(%h_dest, %l_dest : tensor<4x16x256xf32>, tensor<4x256xf32>) -> tensor<4x16x256xf32>, tensor<4x256xf32>
  return %h, %l : tensor<4x16x256xf32>, tensor<4x256xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %scan = transform.structured.match ops{["recurrence.scan"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %scan tile_sizes [1, 64] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// block_diagonal<4>: the channel loop counts blocks, so a tile of 4 is 4
// blocks of the transition and 16 channels of the input and output.
// CHECK-DAG:   #[[$X4:.+]] = affine_map<(d0) -> (d0 * 4)>
// CHECK-DAG:   #[[$S4:.+]] = affine_map<()[s0] -> (s0 * 4)>
// CHECK-LABEL: func.func @blocks(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8x16x4x4xf32>, %[[B:[^:]*]]: tensor<2x8x64xf32>)
// CHECK:         scf.forall (%[[E:.*]], %[[C:.*]]) in (2, 4) shared_outs(%[[H:.*]] = %{{.*}})
// CHECK:           %[[G:.*]] = affine.apply #[[$X4]](%[[C]])
// CHECK:           %[[N:.*]] = affine.apply #[[$S4]]()[%[[G]]]
// CHECK:           %[[AS:.*]] = tensor.extract_slice %[[A]][%[[E]], 0, %[[G]], 0, 0] [1, 8, 4, 4, 4] [1, 1, 1, 1, 1]
// CHECK:           %[[BS:.*]] = tensor.extract_slice %[[B]][%[[E]], 0, %[[N]]] [1, 8, 16] [1, 1, 1]
// CHECK:           %[[OUT:.*]] = recurrence.scan block_diagonal<4> schedule sequential transition(%[[AS]] : tensor<1x8x4x4x4xf32>) input(%[[BS]] : tensor<1x8x16xf32>) outs(%{{.*}} : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
// CHECK:           tensor.parallel_insert_slice %[[OUT]] into %[[H]][%[[E]], 0, %{{.*}}] [1, 8, 16] [1, 1, 1]
func.func @blocks(%a: tensor<2x8x16x4x4xf32>, %b: tensor<2x8x64xf32>) -> tensor<2x8x64xf32> {
  %h_dest = tensor.empty() : tensor<2x8x64xf32>
  %h = recurrence.scan block_diagonal<4> schedule sequential transition(%a : tensor<2x8x16x4x4xf32>) input(%b : tensor<2x8x64xf32>) outs(%h_dest : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return %h : tensor<2x8x64xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %scan = transform.structured.match ops{["recurrence.scan"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %scan tile_sizes [1, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// dense mixes channels, and a readout sums over them: the loops are the
// batch and the columns only, and every channel of a tile stays in it.
// CHECK-DAG:   #[[$X2:.+]] = affine_map<(d0) -> (d0 * 2)>
// CHECK-LABEL: func.func @dense_columns(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8x6x6xf32>, %[[B:[^:]*]]: tensor<2x8x6x4xf32>, %[[C:[^:]*]]: tensor<2x8x6xf32>)
// CHECK:         scf.forall (%[[E:.*]], %[[D:.*]]) in (2, 2) shared_outs(%[[Y:.*]] = %{{.*}})
// CHECK:           %[[DO:.*]] = affine.apply #[[$X2]](%[[D]])
// CHECK:           %[[AS:.*]] = tensor.extract_slice %[[A]][%[[E]], 0, 0, 0] [1, 8, 6, 6] [1, 1, 1, 1]
// CHECK:           %[[BS:.*]] = tensor.extract_slice %[[B]][%[[E]], 0, 0, %[[DO]]] [1, 8, 6, 2] [1, 1, 1, 1]
// CHECK:           %[[CS:.*]] = tensor.extract_slice %[[C]][%[[E]], 0, 0] [1, 8, 6] [1, 1, 1]
// CHECK:           %[[OUT:.*]] = recurrence.scan dense schedule sequential matrix transition(%[[AS]] : tensor<1x8x6x6xf32>) input(%[[BS]] : tensor<1x8x6x2xf32>) readout(%[[CS]] : tensor<1x8x6xf32>) outs(%{{.*}} : tensor<1x8x2xf32>) -> tensor<1x8x2xf32>
// CHECK:           tensor.parallel_insert_slice %[[OUT]] into %[[Y]][%[[E]], 0, %[[DO]]] [1, 8, 2] [1, 1, 1]
func.func @dense_columns(%a: tensor<2x8x6x6xf32>, %b: tensor<2x8x6x4xf32>, %c: tensor<2x8x6xf32>) -> tensor<2x8x4xf32> {
  %y_dest = tensor.empty() : tensor<2x8x4xf32>
  %y = recurrence.scan dense schedule sequential matrix transition(%a : tensor<2x8x6x6xf32>) input(%b : tensor<2x8x6x4xf32>) readout(%c : tensor<2x8x6xf32>) outs(%y_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %scan = transform.structured.match ops{["recurrence.scan"]} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %forall = transform.structured.tile_using_forall %scan tile_sizes [1, 2] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
