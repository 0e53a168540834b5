// -recurrence-lower-sequential rewrites sequential scans (never `auto` ones,
// which -recurrence-select-schedule resolves first) into
// an scf.forall over the batch dims around an scf.for over time, whose body
// slices out step t, applies A_t with linalg.generic and writes row t of the
// output: identity, scalar and diagonal steps write it in the same loop as
// the state, others with a linalg.copy into that row's slice (a readout is computed
// straight into it). States are carried as [N, 1] (vector) or [N, D] (matrix)
// tensors. Results are written into the op's `outs` destinations when it has
// them, else into new empty tensors. Channel tiles (the `cores` option) are
// tested in lower-sequential-tiled.mlir.
//
// RUN: recurrence-opt %s -recurrence-lower-sequential | FileCheck %s

// The indexing maps the structure algebra uses, named by what they index.
// CHECK-DAG: #[[$ND:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$N_OF_ND:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$D_OF_ND:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$H_DN:.+]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[$A_NK:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$H_KD:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT_ND:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$A_IN:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$STACK_IND:.+]] = affine_map<(d0, d1, d2) -> (d2, d0, d1)>
// CHECK-DAG: #[[$BLK_A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BLK_H:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$BLK_OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

//===----------------------------------------------------------------------===//
// Diagonal over one batch dim: the whole skeleton.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @diagonal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<4x16x8xf32>, %[[B:[^:]*]]: tensor<4x16x8xf32>)
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[EMPTY:.*]] = tensor.empty() : tensor<4x16x8xf32>
// CHECK:         %[[FORALL:.*]] = scf.forall (%[[I:.*]]) in (4) shared_outs(%[[OUT:.*]] = %[[EMPTY]]) -> (tensor<4x16x8xf32>) {
// The output block of batch element i, written one row per step.
// CHECK:           %[[BLOCK:.*]] = tensor.extract_slice %[[OUT]][%[[I]], 0, 0] [1, 16, 8] [1, 1, 1] : tensor<4x16x8xf32> to tensor<16x8xf32>
// CHECK-DAG:       %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:       %[[C1:.*]] = arith.constant 1 : index
// h_0 = 0, carried as an N x 1 matrix.
// CHECK-DAG:       %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:           %[[H0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8x1xf32>) -> tensor<8x1xf32>
// CHECK:           %[[LOOP:.*]]:2 = scf.for %[[T:.*]] = %[[C0]] to %[[C16]] step %[[C1]] iter_args(%[[H:.*]] = %[[H0]], %[[ROWS:.*]] = %[[BLOCK]]) -> (tensor<8x1xf32>, tensor<16x8xf32>) {
// Row t of the block, viewed as N x 1, is the second output of the step.
// CHECK:             %[[SLOT:.*]] = tensor.extract_slice %[[ROWS]][%[[T]], 0] [1, 8] [1, 1] : tensor<16x8xf32> to tensor<8xf32>
// CHECK:             %[[SLOT2:.*]] = tensor.expand_shape %[[SLOT]] {{\[}}[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK:             %[[AT:.*]] = tensor.extract_slice %[[A]][%[[I]], %[[T]], 0] [1, 1, 8] [1, 1, 1] : tensor<4x16x8xf32> to tensor<8xf32>
// CHECK:             %[[BT:.*]] = tensor.extract_slice %[[B]][%[[I]], %[[T]], 0] [1, 1, 8] [1, 1, 1] : tensor<4x16x8xf32> to tensor<8xf32>
// CHECK:             %[[BT2:.*]] = tensor.expand_shape %[[BT]] {{\[}}[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// h = a_t * h + b_t, elementwise and in place on h, written to the output
// row by the same loop.
// CHECK:             %[[NEW:.*]]:2 = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[AT]], %[[BT2]] : tensor<8xf32>, tensor<8x1xf32>) outs(%[[H]], %[[SLOT2]] : tensor<8x1xf32>, tensor<8x1xf32>) {
// CHECK-NEXT:        ^bb0(%[[EA:.*]]: f32, %[[EB:.*]]: f32, %[[EH:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:          %[[MUL:.*]] = arith.mulf %[[EA]], %[[EH]] : f32
// CHECK-NEXT:          %[[ADD:.*]] = arith.addf %[[MUL]], %[[EB]] : f32
// CHECK-NEXT:          linalg.yield %[[ADD]], %[[ADD]] : f32, f32
// CHECK:             %[[ROW:.*]] = tensor.collapse_shape %[[NEW]]#1 {{\[}}[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// CHECK:             %[[NEWROWS:.*]] = tensor.insert_slice %[[ROW]] into %[[ROWS]][%[[T]], 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<16x8xf32>
// CHECK:             scf.yield %[[NEW]]#0, %[[NEWROWS]] : tensor<8x1xf32>, tensor<16x8xf32>
// CHECK-NEXT:      } {recurrence.steps}
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP]]#1 into %[[OUT]][%[[I]], 0, 0] [1, 16, 8] [1, 1, 1] : tensor<16x8xf32> into tensor<4x16x8xf32>
// CHECK-NEXT:      }
// CHECK:         return %[[FORALL]] : tensor<4x16x8xf32>
// CHECK-NOT:     recurrence.scan
func.func @diagonal(%a: tensor<4x16x8xf32>, %b: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %h_dest = tensor.empty() : tensor<4x16x8xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<4x16x8xf32>) input(%b : tensor<4x16x8xf32>) outs(%h_dest : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %h : tensor<4x16x8xf32>
}

//===----------------------------------------------------------------------===//
// Several batch dims and a final state: one forall over all of them, and a
// second shared output.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @scalar_two_batch_dims(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x3x8xf32>, %[[B:[^:]*]]: tensor<2x3x8x4xf32>)
// CHECK-DAG:     %[[OUT0:.*]] = tensor.empty() : tensor<2x3x8x4xf32>
// CHECK-DAG:     %[[LAST0:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK:         %[[FORALL:.*]]:2 = scf.forall (%[[I:.*]], %[[J:.*]]) in (2, 3) shared_outs(%[[OUT:.*]] = %[[OUT0]], %[[LAST:.*]] = %[[LAST0]])
// CHECK:           %[[LOOP:.*]]:2 = scf.for %[[T:.*]] = {{.*}} iter_args(
// A scalar transition is read as one element.
// CHECK:             %[[AT:.*]] = tensor.extract %[[A]][%[[I]], %[[J]], %[[T]]] : tensor<2x3x8xf32>
// CHECK:             tensor.extract_slice %[[B]][%[[I]], %[[J]], %[[T]], 0] [1, 1, 1, 4] [1, 1, 1, 1] : tensor<2x3x8x4xf32> to tensor<4xf32>
// CHECK:             linalg.generic {indexing_maps = [#[[$ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]}
// CHECK:               arith.mulf %[[AT]], %{{.*}} : f32
// CHECK-NOT:         linalg.copy
// CHECK:             tensor.insert_slice %{{.*}} : tensor<4xf32> into tensor<8x4xf32>
// CHECK:           %[[FINAL:.*]] = tensor.collapse_shape %[[LOOP]]#0 {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP]]#1 into %[[OUT]][%[[I]], %[[J]], 0, 0] [1, 1, 8, 4] [1, 1, 1, 1] : tensor<8x4xf32> into tensor<2x3x8x4xf32>
// CHECK-NEXT:        tensor.parallel_insert_slice %[[FINAL]] into %[[LAST]][%[[I]], %[[J]], 0] [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<2x3x4xf32>
// CHECK-NEXT:      }
// CHECK:         return %[[FORALL]]#0, %[[FORALL]]#1
func.func @scalar_two_batch_dims(%a: tensor<2x3x8xf32>, %b: tensor<2x3x8x4xf32>) -> (tensor<2x3x8x4xf32>, tensor<2x3x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x3x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x3x4xf32>
  %h, %last = recurrence.scan scalar schedule sequential transition(%a : tensor<2x3x8xf32>) input(%b : tensor<2x3x8x4xf32>) outs(%h_dest, %last_dest : tensor<2x3x8x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x8x4xf32>, tensor<2x3x4xf32>
  return %h, %last : tensor<2x3x8x4xf32>, tensor<2x3x4xf32>
}

//===----------------------------------------------------------------------===//
// Reverse without batch dims: no forall, t = T - 1 - iv, h starts at init.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reverse_no_batch(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<16xf32>, %[[B:[^:]*]]: tensor<16x8xf32>, %[[INIT:[^:]*]]: tensor<8xf32>)
// CHECK-NOT:     = scf.forall
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG:     %[[OUT0:.*]] = tensor.empty() : tensor<16x8xf32>
// CHECK:         %[[H0:.*]] = tensor.expand_shape %[[INIT]] {{\[}}[0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[IV:.*]] = %{{.*}} to %[[C16]] step %{{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[ROWS:.*]] = %[[OUT0]])
// CHECK:           %[[C1:.*]] = arith.constant 1 : index
// CHECK:           %[[LASTT:.*]] = arith.subi %[[C16]], %[[C1]] : index
// CHECK:           %[[T:.*]] = arith.subi %[[LASTT]], %[[IV]] : index
// CHECK:           tensor.extract %[[A]][%[[T]]] : tensor<16xf32>
// CHECK:           tensor.extract_slice %[[B]][%[[T]], 0] [1, 8] [1, 1]
// CHECK:           %[[NEW:.*]]:2 = linalg.generic
// CHECK-SAME:        outs(%[[H]], %{{.*}} : tensor<8x1xf32>, tensor<8x1xf32>)
// CHECK:           %[[ROW:.*]] = tensor.collapse_shape %[[NEW]]#1
// CHECK:           %[[NEWROWS:.*]] = tensor.insert_slice %[[ROW]] into %[[ROWS]][%[[T]], 0] [1, 8] [1, 1]
// CHECK:           scf.yield %[[NEW]]#0, %[[NEWROWS]]
// CHECK:         %[[FINAL:.*]] = tensor.collapse_shape %[[LOOP]]#0 {{\[}}[0, 1]] : tensor<8x1xf32> into tensor<8xf32>
// CHECK:         return %[[LOOP]]#1, %[[FINAL]] : tensor<16x8xf32>, tensor<8xf32>
func.func @reverse_no_batch(%a: tensor<16xf32>, %b: tensor<16x8xf32>, %init: tensor<8xf32>) -> (tensor<16x8xf32>, tensor<8xf32>) {
  %h_dest = tensor.empty() : tensor<16x8xf32>
  %first_dest = tensor.empty() : tensor<8xf32>
  %h, %first = recurrence.scan scalar schedule sequential reverse transition(%a : tensor<16xf32>) input(%b : tensor<16x8xf32>) init(%init : tensor<8xf32>) outs(%h_dest, %first_dest : tensor<16x8xf32>, tensor<8xf32>) -> tensor<16x8xf32>, tensor<8xf32>
  return %h, %first : tensor<16x8xf32>, tensor<8xf32>
}

//===----------------------------------------------------------------------===//
// A dynamic T is read off the input with tensor.dim.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dynamic_steps(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<?x4xf32>, %[[B:[^:]*]]: tensor<?x4xf32>)
// CHECK:         %[[OUT0:.*]] = tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK:         %[[STEPS:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<?x4xf32>
// CHECK:         scf.for %[[IV:.*]] = %{{.*}} to %[[STEPS]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[OUT0]]) -> (tensor<4x1xf32>, tensor<?x4xf32>)
// CHECK:           %[[LASTT:.*]] = arith.subi %[[STEPS]], %{{.*}} : index
// CHECK:           %[[T:.*]] = arith.subi %[[LASTT]], %[[IV]] : index
// CHECK:           tensor.extract_slice %[[A]][%[[T]], 0] [1, 4] [1, 1] : tensor<?x4xf32> to tensor<4xf32>
func.func @dynamic_steps(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x4xf32>
  %h_dest = tensor.empty(%d0) : tensor<?x4xf32>
  %h = recurrence.scan diagonal schedule sequential reverse transition(%a : tensor<?x4xf32>) input(%b : tensor<?x4xf32>) outs(%h_dest : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %h : tensor<?x4xf32>
}

//===----------------------------------------------------------------------===//
// Structures that mix lanes: contractions with a reduction loop.
//===----------------------------------------------------------------------===//

// Dense: out[n, d] = b[n, d] + sum_k A[n, k] h[k, d]; readout y = sum_n c[n] h[n].
// CHECK-LABEL: func.func @dense_readout(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<8x4x4xf32>, %[[B:[^:]*]]: tensor<8x4xf32>, %[[C:[^:]*]]: tensor<8x4xf32>)
// CHECK:         %[[OUT0:.*]] = tensor.empty() : tensor<8xf32>
// CHECK:         scf.for %[[T:.*]] = {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[YS:.*]] = %[[OUT0]]) -> (tensor<4x1xf32>, tensor<8xf32>)
// CHECK:           %[[AT:.*]] = tensor.extract_slice %[[A]][%[[T]], 0, 0] [1, 4, 4] [1, 1, 1] : tensor<8x4x4xf32> to tensor<4x4xf32>
// CHECK:           %[[BT:.*]] = tensor.expand_shape
// CHECK:           %[[NEW:.*]] = linalg.generic {indexing_maps = [#[[$A_NK]], #[[$H_KD]], #[[$OUT_ND]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[AT]], %[[H]] : tensor<4x4xf32>, tensor<4x1xf32>) outs(%[[BT]] : tensor<4x1xf32>)
// CHECK:           %[[CT:.*]] = tensor.extract_slice %[[C]][%[[T]], 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
// CHECK:           %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$D_OF_ND]], #[[$H_DN]], #[[$N_OF_ND]]], iterator_types = ["parallel", "reduction"]} ins(%[[CT]], %[[NEW]] : tensor<4xf32>, tensor<4x1xf32>) outs(%{{.*}} : tensor<1xf32>)
// A vector readout is one number per step.
// CHECK:           %[[Y0:.*]] = tensor.extract %[[Y]][%{{.*}}] : tensor<1xf32>
// CHECK:           %[[NEWYS:.*]] = tensor.insert %[[Y0]] into %[[YS]][%[[T]]] : tensor<8xf32>
// The new state is copied over the carried one (one buffer for the loop).
// CHECK:           %[[NEXT:.*]] = linalg.copy ins(%[[NEW]] : tensor<4x1xf32>) outs(%[[H]] : tensor<4x1xf32>)
// CHECK:           scf.yield %[[NEXT]], %[[NEWYS]] : tensor<4x1xf32>, tensor<8xf32>
func.func @dense_readout(%A: tensor<8x4x4xf32>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>) -> tensor<8xf32> {
  %y_dest = tensor.empty() : tensor<8xf32>
  %y = recurrence.scan dense schedule sequential transition(%A : tensor<8x4x4xf32>) input(%b : tensor<8x4xf32>) readout(%c : tensor<8x4xf32>) outs(%y_dest : tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// Block-diagonal: the [N, 1] state is viewed as [N/m, m, 1] blocks. b_t is
// copied into the output row, A_t h is added there, and the row is copied
// into the carried state, which stays one buffer for the whole loop.
// CHECK-LABEL: func.func @block_diagonal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<8x2x2x2xf32>, %[[B:[^:]*]]: tensor<8x4xf32>
// CHECK:         scf.for %[[T:.*]] = {{.*}} iter_args(%[[H:.*]] = %{{.*}}, %[[OUT:.*]] = %{{.*}})
// CHECK:           %[[BROW:.*]] = tensor.extract_slice %[[B]][%[[T]], 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
// CHECK:           %[[BT:.*]] = tensor.expand_shape %[[BROW]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:           %[[ROW:.*]] = tensor.extract_slice %[[OUT]][%[[T]], 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
// CHECK:           %[[SLOT:.*]] = tensor.expand_shape %[[ROW]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:           %[[AT:.*]] = tensor.extract_slice %[[A]][%[[T]], 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<8x2x2x2xf32> to tensor<2x2x2xf32>
// CHECK:           %[[ACC:.*]] = linalg.copy ins(%[[BT]] : tensor<4x1xf32>) outs(%[[SLOT]] : tensor<4x1xf32>)
// CHECK:           %[[HB:.*]] = tensor.expand_shape %[[H]] {{\[}}[0, 1], [2]] output_shape [2, 2, 1] : tensor<4x1xf32> into tensor<2x2x1xf32>
// CHECK:           %[[BB:.*]] = tensor.expand_shape %[[ACC]] {{\[}}[0, 1], [2]] output_shape [2, 2, 1] : tensor<4x1xf32> into tensor<2x2x1xf32>
// CHECK:           %[[NEW:.*]] = linalg.generic {indexing_maps = [#[[$BLK_A]], #[[$BLK_H]], #[[$BLK_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[AT]], %[[HB]] : tensor<2x2x2xf32>, tensor<2x2x1xf32>) outs(%[[BB]] : tensor<2x2x1xf32>)
// CHECK:           %[[NEWH:.*]] = tensor.collapse_shape %[[NEW]] {{\[}}[0, 1], [2]] : tensor<2x2x1xf32> into tensor<4x1xf32>
// CHECK:           %[[NEXT:.*]] = linalg.copy ins(%[[NEWH]] : tensor<4x1xf32>) outs(%[[H]] : tensor<4x1xf32>)
// CHECK:           %[[NEWROW:.*]] = tensor.collapse_shape %[[NEWH]] {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK:           %[[NEWOUT:.*]] = tensor.insert_slice %[[NEWROW]] into %[[OUT]][%[[T]], 0] [1, 4] [1, 1]
// CHECK:           scf.yield %[[NEXT]], %[[NEWOUT]] : tensor<4x1xf32>, tensor<8x4xf32>
func.func @block_diagonal(%A: tensor<8x2x2x2xf32>, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %h_dest = tensor.empty() : tensor<8x4xf32>
  %h = recurrence.scan block_diagonal<2> schedule sequential transition(%A : tensor<8x2x2x2xf32>) input(%b : tensor<8x4xf32>) outs(%h_dest : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %h : tensor<8x4xf32>
}

// higher_order<3>: the state is the stack [h_{t-1}, h_{t-2}, h_{t-3}] and each
// step pushes the newest state and drops the oldest.
// CHECK-LABEL: func.func @higher_order(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<8x3x4xf32>, %[[B:[^:]*]]: tensor<8x4xf32>, %[[INIT:[^:]*]]: tensor<3x4xf32>)
// CHECK:         %[[S0:.*]] = tensor.expand_shape %[[INIT]] {{\[}}[0], [1, 2]] output_shape [3, 4, 1] : tensor<3x4xf32> into tensor<3x4x1xf32>
// CHECK:         %[[LOOP:.*]]:2 = scf.for %[[T:.*]] = {{.*}} iter_args(%[[STACK:.*]] = %[[S0]], %{{.*}} = %{{.*}}) -> (tensor<3x4x1xf32>, tensor<8x4xf32>)
// CHECK:           %[[AT:.*]] = tensor.extract_slice %[[A]][%[[T]], 0, 0] [1, 3, 4] [1, 1, 1] : tensor<8x3x4xf32> to tensor<3x4xf32>
// CHECK:           %[[NEW:.*]] = linalg.generic {indexing_maps = [#[[$A_IN]], #[[$STACK_IND]], #[[$OUT_ND]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[AT]], %[[STACK]] : tensor<3x4xf32>, tensor<3x4x1xf32>)
// CHECK:           %[[FRESH:.*]] = tensor.empty() : tensor<3x4x1xf32>
// CHECK:           %[[PUSHED:.*]] = tensor.insert_slice %[[NEW]] into %[[FRESH]][0, 0, 0] [1, 4, 1] [1, 1, 1] : tensor<4x1xf32> into tensor<3x4x1xf32>
// CHECK:           %[[OLDER:.*]] = tensor.extract_slice %[[STACK]][0, 0, 0] [2, 4, 1] [1, 1, 1] : tensor<3x4x1xf32> to tensor<2x4x1xf32>
// CHECK:           %[[PUSHED2:.*]] = tensor.insert_slice %[[OLDER]] into %[[PUSHED]][1, 0, 0] [2, 4, 1] [1, 1, 1] : tensor<2x4x1xf32> into tensor<3x4x1xf32>
// CHECK:           %[[NEXT:.*]] = linalg.copy ins(%[[PUSHED2]] : tensor<3x4x1xf32>) outs(%[[STACK]] : tensor<3x4x1xf32>)
// CHECK:           scf.yield %[[NEXT]], %{{.*}} : tensor<3x4x1xf32>, tensor<8x4xf32>
// CHECK:         %[[FINAL:.*]] = tensor.collapse_shape %[[LOOP]]#0 {{\[}}[0], [1, 2]] : tensor<3x4x1xf32> into tensor<3x4xf32>
// CHECK:         return %[[LOOP]]#1, %[[FINAL]]
func.func @higher_order(%a: tensor<8x3x4xf32>, %b: tensor<8x4xf32>, %init: tensor<3x4xf32>) -> (tensor<8x4xf32>, tensor<3x4xf32>) {
  %h_dest = tensor.empty() : tensor<8x4xf32>
  %last_dest = tensor.empty() : tensor<3x4xf32>
  %h, %last = recurrence.scan higher_order<3> schedule sequential transition(%a : tensor<8x3x4xf32>) input(%b : tensor<8x4xf32>) init(%init : tensor<3x4xf32>) outs(%h_dest, %last_dest : tensor<8x4xf32>, tensor<3x4xf32>) -> tensor<8x4xf32>, tensor<3x4xf32>
  return %h, %last : tensor<8x4xf32>, tensor<3x4xf32>
}

//===----------------------------------------------------------------------===//
// Matrix states
//===----------------------------------------------------------------------===//

// The factored input k_t v_t^T is fused into the elementwise update, and the
// readout gives a [D] row per step.
// CHECK-LABEL: func.func @factored_readout(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8x4xf32>, %[[K:[^:]*]]: tensor<2x8x4xf32>, %[[V:[^:]*]]: tensor<2x8x3xf32>, %[[C:[^:]*]]: tensor<2x8x4xf32>)
// CHECK:         scf.forall (%[[I:.*]]) in (2)
// CHECK:           %[[H0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x3xf32>) -> tensor<4x3xf32>
// CHECK:           scf.for %[[T:.*]] = {{.*}} iter_args(%[[H:.*]] = %[[H0]], %[[YS:.*]] = %{{.*}}) -> (tensor<4x3xf32>, tensor<8x3xf32>)
// CHECK:             %[[AT:.*]] = tensor.extract_slice %[[A]][%[[I]], %[[T]], 0] [1, 1, 4]
// CHECK:             %[[KT:.*]] = tensor.extract_slice %[[K]][%[[I]], %[[T]], 0] [1, 1, 4]
// CHECK:             %[[VT:.*]] = tensor.extract_slice %[[V]][%[[I]], %[[T]], 0] [1, 1, 3]
// CHECK:             %[[NEW:.*]] = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$N_OF_ND]], #[[$D_OF_ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[AT]], %[[KT]], %[[VT]] : tensor<4xf32>, tensor<4xf32>, tensor<3xf32>) outs(%[[H]] : tensor<4x3xf32>)
// CHECK-NEXT:        ^bb0(%[[EA:.*]]: f32, %[[EK:.*]]: f32, %[[EV:.*]]: f32, %[[EH:.*]]: f32):
// CHECK-NEXT:          %[[DECAY:.*]] = arith.mulf %[[EA]], %[[EH]] : f32
// CHECK-NEXT:          %[[KV:.*]] = arith.mulf %[[EK]], %[[EV]] : f32
// CHECK-NEXT:          %[[SUM:.*]] = arith.addf %[[DECAY]], %[[KV]] : f32
// CHECK-NEXT:          linalg.yield %[[SUM]] : f32
// y_t is zeroed and accumulated in its own output row: no copy.
// CHECK:             %[[CT:.*]] = tensor.extract_slice %[[C]][%[[I]], %[[T]], 0] [1, 1, 4]
// CHECK:             %[[SLOT:.*]] = tensor.extract_slice %[[YS]][%[[T]], 0] [1, 3] [1, 1] : tensor<8x3xf32> to tensor<3xf32>
// CHECK:             %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:             %[[Y0:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[SLOT]] : tensor<3xf32>) -> tensor<3xf32>
// CHECK:             %[[Y:.*]] = linalg.generic {indexing_maps = [#[[$D_OF_ND]], #[[$H_DN]], #[[$N_OF_ND]]], iterator_types = ["parallel", "reduction"]} ins(%[[CT]], %[[NEW]] : tensor<4xf32>, tensor<4x3xf32>) outs(%[[Y0]] : tensor<3xf32>)
// CHECK-NOT:         linalg.copy
// CHECK:             %[[NEWYS:.*]] = tensor.insert_slice %[[Y]] into %[[YS]][%[[T]], 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<8x3xf32>
// CHECK:             scf.yield %{{.*}}, %[[NEWYS]] : tensor<4x3xf32>, tensor<8x3xf32>
func.func @factored_readout(%a: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>, %c: tensor<2x8x4xf32>) -> tensor<2x8x3xf32> {
  %y_dest = tensor.empty() : tensor<2x8x3xf32>
  %y = recurrence.scan diagonal schedule sequential matrix transition(%a : tensor<2x8x4xf32>) factored_input(%k, %v : tensor<2x8x4xf32>, tensor<2x8x3xf32>) readout(%c : tensor<2x8x4xf32>) outs(%y_dest : tensor<2x8x3xf32>) -> tensor<2x8x3xf32>
  return %y : tensor<2x8x3xf32>
}

// A per-element diagonal is indexed like the state; no unit column here.
// CHECK-LABEL: func.func @per_element_diagonal(
// CHECK-NOT:     tensor.expand_shape
// CHECK:         %[[SLOT:.*]] = tensor.extract_slice %[[ROWS:.*]][%[[T:.*]], 0, 0] [1, 4, 3] [1, 1, 1] : tensor<8x4x3xf32> to tensor<4x3xf32>
// CHECK:         %[[NEW:.*]]:2 = linalg.generic {indexing_maps = [#[[$ND]], #[[$ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x3xf32>) outs(%{{.*}}, %[[SLOT]] : tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK:         tensor.insert_slice %[[NEW]]#1 into %[[ROWS]][%[[T]], 0, 0] [1, 4, 3] [1, 1, 1] : tensor<4x3xf32> into tensor<8x4x3xf32>
func.func @per_element_diagonal(%a: tensor<8x4x3xf32>, %b: tensor<8x4x3xf32>) -> tensor<8x4x3xf32> {
  %h_dest = tensor.empty() : tensor<8x4x3xf32>
  %h = recurrence.scan diagonal schedule sequential matrix transition(%a : tensor<8x4x3xf32>) input(%b : tensor<8x4x3xf32>) outs(%h_dest : tensor<8x4x3xf32>) -> tensor<8x4x3xf32>
  return %h : tensor<8x4x3xf32>
}

//===----------------------------------------------------------------------===//
// Schedules: only `sequential` is lowered; `auto` (explicit or by default)
// waits for the cost model, `chunked` and `scan` for their own passes.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @schedules(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8x4xf32>, %[[B:[^:]*]]: tensor<2x8x4xf32>)
// CHECK:         %[[SEQ:[^ ]*]] = scf.forall
// CHECK-NOT:     = scf.forall
// CHECK:         %[[AUTO:[^ ]*]] = recurrence.scan diagonal schedule auto transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x8x4xf32>
// CHECK-NEXT:    %[[IMPLICIT:[^ ]*]] = recurrence.scan diagonal transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x8x4xf32>
// CHECK-NEXT:    %[[CHUNKED:[^ ]*]] = recurrence.scan diagonal schedule chunked<64> transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x8x4xf32>
// CHECK-NEXT:    %[[SCAN:[^ ]*]] = recurrence.scan diagonal schedule scan transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    return %[[SEQ]], %[[AUTO]], %[[IMPLICIT]], %[[CHUNKED]], %[[SCAN]]
func.func @schedules(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) {
  %dest0 = tensor.empty() : tensor<2x8x4xf32>
  %0 = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest0 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest1 = tensor.empty() : tensor<2x8x4xf32>
  %1 = recurrence.scan diagonal schedule auto transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest1 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest2 = tensor.empty() : tensor<2x8x4xf32>
  %2 = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest2 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest3 = tensor.empty() : tensor<2x8x4xf32>
  %3 = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest3 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest4 = tensor.empty() : tensor<2x8x4xf32>
  %4 = recurrence.scan diagonal schedule scan transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest4 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
}
