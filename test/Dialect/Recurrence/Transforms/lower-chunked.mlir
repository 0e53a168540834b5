// -recurrence-lower-chunked rewrites chunked scans in three phases over the
// K = ceil(T / C) chunks of C steps (the last one shorter):
//   1. scf.forall over batch x chunks: each chunk runs its steps from a zero
//      state (its local end state e_c) and composes its transitions (its
//      product P_c); identity has no products;
//   2. scf.forall over the batch around an scf.for over chunks: the carry
//      H_c = P_c H_{c-1} + e_c from H_0 = init, recording every chunk's start
//      state (and the final state);
//   3. scf.forall over batch x chunks: each chunk reruns its steps from its
//      true start state and writes its rows of the output.
// Only chunked scans are lowered: `auto` is left for -recurrence-select-schedule
// and sequential and scan schedules for their own passes.
//
// RUN: recurrence-opt %s -recurrence-lower-chunked | FileCheck %s

// CHECK-DAG: #[[$N_OF_ND:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ND:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$N:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$BLK_A:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BLK_H:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$BLK_OUT:.+]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>

//===----------------------------------------------------------------------===//
// Diagonal over one batch dim, T = 10, C = 4: K = 3 chunks of 4, 4 and 2.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @diagonal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x10x4xf32>, %[[B:[^:]*]]: tensor<2x10x4xf32>)
// CHECK:         %[[OUT0:[^ ]*]] = tensor.empty() : tensor<2x10x4xf32>
// CHECK-DAG:     %[[T:[^ ]*]] = arith.constant 10 : index
// CHECK-DAG:     %[[C:[^ ]*]] = arith.constant 4 : index
// CHECK-DAG:     %[[ONE:[^ ]*]] = arith.constant 1 : index
// K = (T + C - 1) / C.
// CHECK:         %[[CM1:[^ ]*]] = arith.subi %[[C]], %[[ONE]] : index
// CHECK:         %[[TC:[^ ]*]] = arith.addi %[[T]], %[[CM1]] : index
// CHECK:         %[[K:[^ ]*]] = arith.divui %[[TC]], %[[C]] : index

// Phase 1: local end states [2, K, N, 1] and diagonal products [2, K, N].
// CHECK:         %[[ENDS0:[^ ]*]] = tensor.empty(%[[K]]) : tensor<2x?x4x1xf32>
// CHECK:         %[[PRODS0:[^ ]*]] = tensor.empty(%[[K]]) : tensor<2x?x4xf32>
// CHECK:         %[[LOCAL:[^ ]*]]:2 = scf.forall (%[[I:[^ ]*]], %[[CH:[^ ]*]]) in (2, %[[K]]) shared_outs(%[[ENDS:[^ ]*]] = %[[ENDS0]], %[[PRODS:[^ ]*]] = %[[PRODS0]]) -> (tensor<2x?x4x1xf32>, tensor<2x?x4xf32>) {
// The chunk's steps: [c * C, c * C + min(T - c * C, C)).
// CHECK:           %[[START:[^ ]*]] = arith.muli %[[CH]], %[[C]] : index
// CHECK:           %[[LEFT:[^ ]*]] = arith.subi %[[T]], %[[START]] : index
// CHECK:           %[[LEN:[^ ]*]] = arith.minui %[[LEFT]], %[[C]] : index
// CHECK:           %[[END:[^ ]*]] = arith.addi %[[START]], %[[LEN]] : index
// Its first step runs from zeros, and the product starts as a_start.
// CHECK:           %[[ZERO:[^ ]*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK:           %[[A0:[^ ]*]] = tensor.extract_slice %[[A]][%[[I]], %[[START]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<4xf32>
// CHECK:           tensor.extract_slice %[[B]][%[[I]], %[[START]], 0] [1, 1, 4] [1, 1, 1]
// CHECK:           %[[E0:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[A0]], %{{.*}} : tensor<4xf32>, tensor<4x1xf32>) outs(%[[ZERO]] : tensor<4x1xf32>)
// CHECK:           %[[P0:[^ ]*]] = tensor.extract_slice %[[A]][%[[I]], %[[START]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<4xf32>
// CHECK:           %[[SECOND:[^ ]*]] = arith.addi %[[START]], %{{.*}} : index
// CHECK:           %[[LOOP1:[^ ]*]]:2 = scf.for %[[S1:[^ ]*]] = %[[SECOND]] to %[[END]] step %{{.*}} iter_args(%[[H1:[^ ]*]] = %[[E0]], %[[P1:[^ ]*]] = %[[P0]]) -> (tensor<4x1xf32>, tensor<4xf32>) {
// CHECK:             %[[AT1:[^ ]*]] = tensor.extract_slice %[[A]][%[[I]], %[[S1]], 0] [1, 1, 4] [1, 1, 1]
// CHECK:             %[[HN1:[^ ]*]] = linalg.generic {{.*}} ins(%[[AT1]], %{{.*}} : tensor<4xf32>, tensor<4x1xf32>) outs(%[[H1]] : tensor<4x1xf32>)
// P := a_t * P, elementwise and in place on P.
// CHECK:             %[[AT1B:[^ ]*]] = tensor.extract_slice %[[A]][%[[I]], %[[S1]], 0] [1, 1, 4] [1, 1, 1]
// CHECK:             %[[PN1:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N]], #[[$N]]], iterator_types = ["parallel"]} ins(%[[AT1B]] : tensor<4xf32>) outs(%[[P1]] : tensor<4xf32>) {
// CHECK-NEXT:        ^bb0(%[[X:[^ ]*]]: f32, %[[Y:[^ ]*]]: f32):
// CHECK-NEXT:          %[[XY:[^ ]*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT:          linalg.yield %[[XY]] : f32
// CHECK:             scf.yield %[[HN1]], %[[PN1]] : tensor<4x1xf32>, tensor<4xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP1]]#0 into %[[ENDS]][%[[I]], %[[CH]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<4x1xf32> into tensor<2x?x4x1xf32>
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP1]]#1 into %[[PRODS]][%[[I]], %[[CH]], 0] [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<2x?x4xf32>
// CHECK-NEXT:      }

// Phase 2: per batch element, a loop over the K chunks from H_0 = 0 that
// records each chunk's start state.
// CHECK:         %[[STARTS0:[^ ]*]] = tensor.empty(%[[K]]) : tensor<2x?x4x1xf32>
// CHECK:         %[[CARRIED:[^ ]*]] = scf.forall (%[[I2:[^ ]*]]) in (2) shared_outs(%[[STARTS:[^ ]*]] = %[[STARTS0]]) -> (tensor<2x?x4x1xf32>) {
// CHECK:           %[[ROWS2:[^ ]*]] = tensor.extract_slice %[[STARTS]][%[[I2]], 0, 0, 0] [1, %{{.*}}, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<?x4x1xf32>
// CHECK:           %[[HZ:[^ ]*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK:           %[[LOOP2:[^ ]*]]:2 = scf.for %[[CC:[^ ]*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[HC:[^ ]*]] = %[[HZ]], %[[REC:[^ ]*]] = %[[ROWS2]]) -> (tensor<4x1xf32>, tensor<?x4x1xf32>) {
// CHECK:             %[[RECN:[^ ]*]] = tensor.insert_slice %[[HC]] into %[[REC]][%[[CC]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<4x1xf32> into tensor<?x4x1xf32>
// CHECK:             %[[PC:[^ ]*]] = tensor.extract_slice %[[LOCAL]]#1[%[[I2]], %[[CC]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<4xf32>
// CHECK:             %[[EC:[^ ]*]] = tensor.extract_slice %[[LOCAL]]#0[%[[I2]], %[[CC]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<4x1xf32>
// H_c = P_c H_{c-1} + e_c, in a copy of e_c, then copied over H_{c-1} (one
// buffer for the carried state).
// CHECK:             %[[TMP:[^ ]*]] = tensor.empty() : tensor<4x1xf32>
// CHECK-NEXT:        %[[ECOPY:[^ ]*]] = linalg.copy ins(%[[EC]] : tensor<4x1xf32>) outs(%[[TMP]] : tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:        %[[SUM:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[PC]], %[[HC]] : tensor<4xf32>, tensor<4x1xf32>) outs(%[[ECOPY]] : tensor<4x1xf32>) {
// CHECK-NEXT:        ^bb0(%[[PP:[^ ]*]]: f32, %[[HH:[^ ]*]]: f32, %[[EE:[^ ]*]]: f32):
// CHECK-NEXT:          %[[PH:[^ ]*]] = arith.mulf %[[PP]], %[[HH]] : f32
// CHECK-NEXT:          %[[PHE:[^ ]*]] = arith.addf %[[EE]], %[[PH]] : f32
// CHECK-NEXT:          linalg.yield %[[PHE]] : f32
// CHECK:             %[[HCN:[^ ]*]] = linalg.copy ins(%[[SUM]] : tensor<4x1xf32>) outs(%[[HC]] : tensor<4x1xf32>) -> tensor<4x1xf32>
// CHECK-NEXT:        scf.yield %[[HCN]], %[[RECN]] : tensor<4x1xf32>, tensor<?x4x1xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP2]]#1 into %[[STARTS]][%[[I2]], 0, 0, 0] [1, %{{.*}}, 4, 1] [1, 1, 1, 1] : tensor<?x4x1xf32> into tensor<2x?x4x1xf32>
// CHECK-NEXT:      }

// Phase 3: per chunk, the steps again from the carried start state, writing
// the chunk's rows [start, start + len) of the output.
// CHECK:         %[[RESULT:[^ ]*]] = scf.forall (%[[I3:[^ ]*]], %[[CH3:[^ ]*]]) in (2, %[[K]]) shared_outs(%[[OUT:[^ ]*]] = %[[OUT0]]) -> (tensor<2x10x4xf32>) {
// CHECK:           %[[HS:[^ ]*]] = tensor.extract_slice %[[CARRIED]][%[[I3]], %[[CH3]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<4x1xf32>
// CHECK:           %[[START3:[^ ]*]] = arith.muli %[[CH3]], %[[C]] : index
// CHECK:           %[[LEFT3:[^ ]*]] = arith.subi %[[T]], %[[START3]] : index
// CHECK:           %[[LEN3:[^ ]*]] = arith.minui %[[LEFT3]], %[[C]] : index
// CHECK:           %[[BLOCK:[^ ]*]] = tensor.extract_slice %[[OUT]][%[[I3]], %[[START3]], 0] [1, %[[LEN3]], 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<?x4xf32>
// CHECK:           %[[END3:[^ ]*]] = arith.addi %[[START3]], %[[LEN3]] : index
// CHECK:           %[[LOOP3:[^ ]*]]:2 = scf.for %[[S3:[^ ]*]] = %[[START3]] to %[[END3]] step %{{.*}} iter_args(%[[H3:[^ ]*]] = %[[HS]], %[[ROWS3:[^ ]*]] = %[[BLOCK]]) -> (tensor<4x1xf32>, tensor<?x4xf32>) {
// CHECK:             %[[ROW:[^ ]*]] = arith.subi %[[S3]], %[[START3]] : index
// CHECK:             tensor.extract_slice %[[A]][%[[I3]], %[[S3]], 0] [1, 1, 4] [1, 1, 1]
// CHECK:             tensor.extract_slice %[[B]][%[[I3]], %[[S3]], 0] [1, 1, 4] [1, 1, 1]
// The state update also writes the output row, in one loop.
// CHECK:             %[[HN3:[^ ]*]]:2 = linalg.generic {{.*}} outs(%[[H3]], %{{.*}} : tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK:             %[[ROWS3N:[^ ]*]] = tensor.insert_slice %{{.*}} into %[[ROWS3]][%[[ROW]], 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<?x4xf32>
// CHECK:             scf.yield %[[HN3]]#0, %[[ROWS3N]] : tensor<4x1xf32>, tensor<?x4xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP3]]#1 into %[[OUT]][%[[I3]], %[[START3]], 0] [1, %[[LEN3]], 4] [1, 1, 1] : tensor<?x4xf32> into tensor<2x10x4xf32>
// CHECK-NEXT:      }
// CHECK:         return %[[RESULT]] : tensor<2x10x4xf32>
// CHECK-NOT:     recurrence.scan
func.func @diagonal(%a: tensor<2x10x4xf32>, %b: tensor<2x10x4xf32>) -> tensor<2x10x4xf32> {
  %h_dest = tensor.empty() : tensor<2x10x4xf32>
  %h = recurrence.scan diagonal schedule chunked<4> transition(%a : tensor<2x10x4xf32>) input(%b : tensor<2x10x4xf32>) outs(%h_dest : tensor<2x10x4xf32>) -> tensor<2x10x4xf32>
  return %h : tensor<2x10x4xf32>
}

//===----------------------------------------------------------------------===//
// Block-diagonal without batch dims, with init and the final state: products
// are [K, N/m, m, m] blocks composed by a batched matmul; the carry is a
// plain scf.for from init and yields the final state.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @block_diagonal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<8x2x2x2xf32>, %[[B:[^:]*]]: tensor<8x4xf32>, %[[INIT:[^:]*]]: tensor<4xf32>)
// CHECK-DAG:     %[[C:[^ ]*]] = arith.constant 3 : index
// CHECK:         %[[K:[^ ]*]] = arith.divui %{{.*}}, %[[C]] : index
// CHECK:         %[[ENDS0:[^ ]*]] = tensor.empty(%[[K]]) : tensor<?x4x1xf32>
// CHECK:         %[[PRODS0:[^ ]*]] = tensor.empty(%[[K]]) : tensor<?x2x2x2xf32>
// CHECK:         %[[LOCAL:[^ ]*]]:2 = scf.forall (%[[CH:[^ ]*]]) in (%[[K]]) shared_outs(%[[ENDS:[^ ]*]] = %[[ENDS0]], %[[PRODS:[^ ]*]] = %[[PRODS0]]) -> (tensor<?x4x1xf32>, tensor<?x2x2x2xf32>) {
// CHECK:           %[[START:[^ ]*]] = arith.muli %[[CH]], %[[C]] : index
// The first step from zeros, then the product starts as A_start.
// CHECK:           tensor.extract_slice %[[A]][%[[START]], 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<8x2x2x2xf32> to tensor<2x2x2xf32>
// CHECK:           linalg.generic {indexing_maps = [#[[$BLK_A]], #[[$BLK_H]], #[[$BLK_OUT]]]
// CHECK:           %[[P0:[^ ]*]] = tensor.extract_slice %[[A]][%[[START]], 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<8x2x2x2xf32> to tensor<2x2x2xf32>
// CHECK:           %[[LOOP1:[^ ]*]]:2 = scf.for %[[S1:[^ ]*]] = {{.*}} iter_args(%{{.*}} = %{{.*}}, %[[P1:[^ ]*]] = %[[P0]]) -> (tensor<4x1xf32>, tensor<2x2x2xf32>) {
// CHECK:             tensor.extract_slice %[[A]][%[[S1]], 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<8x2x2x2xf32> to tensor<2x2x2xf32>
// CHECK:             linalg.generic {indexing_maps = [#[[$BLK_A]], #[[$BLK_H]], #[[$BLK_OUT]]]
// CHECK:             %[[AT:[^ ]*]] = tensor.extract_slice %[[A]][%[[S1]], 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<8x2x2x2xf32> to tensor<2x2x2xf32>
// P := A_t P, block by block: out[g, i, j] += A_t[g, i, k] * P[g, k, j].
// CHECK:             %[[ZEROS:[^ ]*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
// CHECK:             %[[PN:[^ ]*]] = linalg.generic {indexing_maps = [#[[$BLK_A]], #[[$BLK_H]], #[[$BLK_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[AT]], %[[P1]] : tensor<2x2x2xf32>, tensor<2x2x2xf32>) outs(%[[ZEROS]] : tensor<2x2x2xf32>)
// ... then copied over the carried product (one buffer for the loop).
// CHECK:             %[[PNC:[^ ]*]] = linalg.copy ins(%[[PN]] : tensor<2x2x2xf32>) outs(%[[P1]] : tensor<2x2x2xf32>)
// CHECK:             scf.yield %{{.*}}, %[[PNC]] : tensor<4x1xf32>, tensor<2x2x2xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP1]]#0 into %[[ENDS]][%[[CH]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<4x1xf32> into tensor<?x4x1xf32>
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP1]]#1 into %[[PRODS]][%[[CH]], 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<2x2x2xf32> into tensor<?x2x2x2xf32>
// CHECK-NEXT:      }
// Phase 2 has no batch to run over: a bare loop over chunks from H_0 = init.
// CHECK-NOT:     scf.forall
// CHECK:         %[[H0:[^ ]*]] = tensor.expand_shape %[[INIT]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:         %[[LOOP2:[^ ]*]]:2 = scf.for %[[CC:[^ ]*]] = %{{.*}} to %[[K]] step %{{.*}} iter_args(%[[HC:[^ ]*]] = %[[H0]], %[[REC:[^ ]*]] = %{{.*}}) -> (tensor<4x1xf32>, tensor<?x4x1xf32>) {
// CHECK:           %[[RECN:[^ ]*]] = tensor.insert_slice %[[HC]] into %[[REC]][%[[CC]], 0, 0] [1, 4, 1] [1, 1, 1]
// CHECK:           %[[PC:[^ ]*]] = tensor.extract_slice %[[LOCAL]]#1[%[[CC]], 0, 0, 0] [1, 2, 2, 2] [1, 1, 1, 1] : tensor<?x2x2x2xf32> to tensor<2x2x2xf32>
// CHECK:           %[[EC:[^ ]*]] = tensor.extract_slice %[[LOCAL]]#0[%[[CC]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<?x4x1xf32> to tensor<4x1xf32>
// CHECK:           %[[ECOPY:[^ ]*]] = linalg.copy ins(%[[EC]] : tensor<4x1xf32>)
// CHECK:           %[[HB:[^ ]*]] = tensor.expand_shape %[[HC]] {{\[}}[0, 1], [2]] output_shape [2, 2, 1] : tensor<4x1xf32> into tensor<2x2x1xf32>
// CHECK:           %[[EB:[^ ]*]] = tensor.expand_shape %[[ECOPY]] {{\[}}[0, 1], [2]] output_shape [2, 2, 1] : tensor<4x1xf32> into tensor<2x2x1xf32>
// CHECK:           %[[HCB:[^ ]*]] = linalg.generic {indexing_maps = [#[[$BLK_A]], #[[$BLK_H]], #[[$BLK_OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[PC]], %[[HB]] : tensor<2x2x2xf32>, tensor<2x2x1xf32>) outs(%[[EB]] : tensor<2x2x1xf32>)
// CHECK:           %[[SUM:[^ ]*]] = tensor.collapse_shape %[[HCB]] {{\[}}[0, 1], [2]] : tensor<2x2x1xf32> into tensor<4x1xf32>
// CHECK:           %[[HCN:[^ ]*]] = linalg.copy ins(%[[SUM]] : tensor<4x1xf32>) outs(%[[HC]] : tensor<4x1xf32>)
// CHECK:           scf.yield %[[HCN]], %[[RECN]] : tensor<4x1xf32>, tensor<?x4x1xf32>
// The final state is the carry past the last chunk.
// CHECK:         %[[FINAL:[^ ]*]] = tensor.collapse_shape %[[LOOP2]]#0 {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK:         %[[RESULT:[^ ]*]] = scf.forall (%[[CH3:[^ ]*]]) in (%[[K]]) shared_outs(%[[OUT:[^ ]*]] = %{{.*}}) -> (tensor<8x4xf32>) {
// CHECK:           tensor.extract_slice %[[LOOP2]]#1[%[[CH3]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<?x4x1xf32> to tensor<4x1xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%{{.*}}, 0] [%{{.*}}, 4] [1, 1] : tensor<?x4xf32> into tensor<8x4xf32>
// CHECK:         return %[[RESULT]], %[[FINAL]] : tensor<8x4xf32>, tensor<4xf32>
func.func @block_diagonal(%A: tensor<8x2x2x2xf32>, %b: tensor<8x4xf32>, %init: tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>) {
  %h_dest = tensor.empty() : tensor<8x4xf32>
  %last_dest = tensor.empty() : tensor<4xf32>
  %h, %last = recurrence.scan block_diagonal<2> schedule chunked<3> transition(%A : tensor<8x2x2x2xf32>) input(%b : tensor<8x4xf32>) init(%init : tensor<4xf32>) outs(%h_dest, %last_dest : tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>, tensor<4xf32>
  return %h, %last : tensor<8x4xf32>, tensor<4xf32>
}

//===----------------------------------------------------------------------===//
// Identity: no products. Phase 1 only sums each chunk's inputs, and the
// carry is H_c = H_{c-1} + e_c.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @identity(
// CHECK-SAME:    %[[B:[^:]*]]: tensor<3x10x4xf32>)
// CHECK:         %[[K:[^ ]*]] = arith.divui
// CHECK:         %[[ENDS0:[^ ]*]] = tensor.empty(%[[K]]) : tensor<3x?x4x1xf32>
// CHECK-NEXT:    %[[LOCAL:[^ ]*]] = scf.forall (%[[I:[^ ]*]], %[[CH:[^ ]*]]) in (3, %[[K]]) shared_outs(%[[ENDS:[^ ]*]] = %[[ENDS0]]) -> (tensor<3x?x4x1xf32>) {
// CHECK:           %[[LOOP1:[^ ]*]] = scf.for {{.*}} iter_args(%[[H1:[^ ]*]] = %{{.*}}) -> (tensor<4x1xf32>) {
// CHECK:             %[[HN1:[^ ]*]] = linalg.generic {indexing_maps = [#[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<4x1xf32>) outs(%[[H1]] : tensor<4x1xf32>)
// CHECK:             scf.yield %[[HN1]] : tensor<4x1xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP1]] into %[[ENDS]][%[[I]], %[[CH]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<4x1xf32> into tensor<3x?x4x1xf32>
// CHECK-NEXT:      }
// CHECK:         %[[CARRIED:[^ ]*]] = scf.forall (%[[I2:[^ ]*]]) in (3) shared_outs(
// CHECK:           scf.for %[[CC:[^ ]*]] = {{.*}} iter_args(%[[HC:[^ ]*]] = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<4x1xf32>, tensor<?x4x1xf32>) {
// CHECK:             %[[EC:[^ ]*]] = tensor.extract_slice %[[LOCAL]][%[[I2]], %[[CC]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<3x?x4x1xf32> to tensor<4x1xf32>
// CHECK:             %[[ECOPY:[^ ]*]] = linalg.copy ins(%[[EC]] : tensor<4x1xf32>)
// CHECK-NEXT:        linalg.generic {indexing_maps = [#[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[HC]] : tensor<4x1xf32>) outs(%[[ECOPY]] : tensor<4x1xf32>) {
// CHECK-NEXT:        ^bb0(%[[X:[^ ]*]]: f32, %[[Y:[^ ]*]]: f32):
// CHECK-NEXT:          %[[SUM:[^ ]*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT:          linalg.yield %[[SUM]] : f32
// CHECK:         scf.forall (%{{.*}}, %{{.*}}) in (3, %[[K]]) shared_outs(
// CHECK:           tensor.extract_slice %[[CARRIED]]
func.func @identity(%b: tensor<3x10x4xf32>) -> tensor<3x10x4xf32> {
  %h_dest = tensor.empty() : tensor<3x10x4xf32>
  %h = recurrence.scan identity schedule chunked<4> input(%b : tensor<3x10x4xf32>) outs(%h_dest : tensor<3x10x4xf32>) -> tensor<3x10x4xf32>
  return %h : tensor<3x10x4xf32>
}

//===----------------------------------------------------------------------===//
// Reverse: chunk c covers logical steps [c C, c C + len), which are times
// t = T - 1 - tau, so it writes the mirrored rows [T - (c C + len), ...).
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @reverse(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<10x4xf32>, %[[B:[^:]*]]: tensor<10x4xf32>)
// CHECK-DAG:     %[[T:[^ ]*]] = arith.constant 10 : index
// CHECK-DAG:     %[[C:[^ ]*]] = arith.constant 4 : index
// CHECK:         scf.forall (%[[CH:[^ ]*]]) in (%{{.*}}) shared_outs(
// CHECK:           %[[START:[^ ]*]] = arith.muli %[[CH]], %[[C]] : index
// CHECK:           %[[LEFT:[^ ]*]] = arith.subi %[[T]], %[[START]] : index
// CHECK:           arith.minui %[[LEFT]], %[[C]] : index
// The chunk's first step is at time T - 1 - start.
// CHECK:           %[[TM1:[^ ]*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK:           %[[T0:[^ ]*]] = arith.subi %[[TM1]], %[[START]] : index
// CHECK:           tensor.extract_slice %[[A]][%[[T0]], 0] [1, 4] [1, 1] : tensor<10x4xf32> to tensor<4xf32>
// CHECK:           scf.for %[[S1:[^ ]*]] =
// CHECK:             %[[TM1B:[^ ]*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK:             %[[T1:[^ ]*]] = arith.subi %[[TM1B]], %[[S1]] : index
// CHECK:             tensor.extract_slice %[[A]][%[[T1]], 0] [1, 4] [1, 1] : tensor<10x4xf32> to tensor<4xf32>
// CHECK:         scf.for
// CHECK:         scf.forall (%[[CH3:[^ ]*]]) in (%{{.*}}) shared_outs(%[[OUT:[^ ]*]] = %{{.*}}) -> (tensor<10x4xf32>) {
// CHECK:           %[[START3:[^ ]*]] = arith.muli %[[CH3]], %[[C]] : index
// CHECK:           %[[LEFT3:[^ ]*]] = arith.subi %[[T]], %[[START3]] : index
// CHECK:           %[[LEN3:[^ ]*]] = arith.minui %[[LEFT3]], %[[C]] : index
// CHECK:           %[[END3:[^ ]*]] = arith.addi %[[START3]], %[[LEN3]] : index
// CHECK:           %[[FIRSTROW:[^ ]*]] = arith.subi %[[T]], %[[END3]] : index
// CHECK:           %[[BLOCK:[^ ]*]] = tensor.extract_slice %[[OUT]][%[[FIRSTROW]], 0] [%[[LEN3]], 4] [1, 1] : tensor<10x4xf32> to tensor<?x4xf32>
// CHECK:           %[[LOOP3:[^ ]*]]:2 = scf.for %[[S3:[^ ]*]] = %[[START3]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[ROWS:[^ ]*]] = %[[BLOCK]])
// CHECK:             %[[TM1C:[^ ]*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK:             %[[T3:[^ ]*]] = arith.subi %[[TM1C]], %[[S3]] : index
// CHECK:             %[[ROW:[^ ]*]] = arith.subi %[[T3]], %[[FIRSTROW]] : index
// CHECK:             tensor.extract_slice %[[A]][%[[T3]], 0] [1, 4] [1, 1]
// CHECK:             tensor.insert_slice %{{.*}} into %[[ROWS]][%[[ROW]], 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<?x4xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[LOOP3]]#1 into %[[OUT]][%[[FIRSTROW]], 0] [%[[LEN3]], 4] [1, 1] : tensor<?x4xf32> into tensor<10x4xf32>
func.func @reverse(%a: tensor<10x4xf32>, %b: tensor<10x4xf32>) -> tensor<10x4xf32> {
  %h_dest = tensor.empty() : tensor<10x4xf32>
  %h = recurrence.scan diagonal schedule chunked<4> reverse transition(%a : tensor<10x4xf32>) input(%b : tensor<10x4xf32>) outs(%h_dest : tensor<10x4xf32>) -> tensor<10x4xf32>
  return %h : tensor<10x4xf32>
}

//===----------------------------------------------------------------------===//
// Schedules: only chunked scans are lowered, never `auto` (implicit or
// explicit), which the cost model resolves first.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @schedules(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x40x4xf32>, %[[B:[^:]*]]: tensor<2x40x4xf32>)
// CHECK-NEXT:    tensor.empty() : tensor<2x40x4xf32>
// CHECK-NEXT:    %[[IMPLICIT:[^ ]*]] = recurrence.scan diagonal transition(%[[A]] : tensor<2x40x4xf32>) input(%[[B]] : tensor<2x40x4xf32>) outs(%{{.*}} : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x40x4xf32>
// CHECK-NEXT:    %[[EXPLICIT:[^ ]*]] = recurrence.scan diagonal schedule auto transition(%[[A]] : tensor<2x40x4xf32>) input(%[[B]] : tensor<2x40x4xf32>) outs(%{{.*}} : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x40x4xf32>
// CHECK-NEXT:    %[[SEQ:[^ ]*]] = recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<2x40x4xf32>) input(%[[B]] : tensor<2x40x4xf32>) outs(%{{.*}} : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x40x4xf32>
// CHECK-NEXT:    %[[SCAN:[^ ]*]] = recurrence.scan diagonal schedule scan transition(%[[A]] : tensor<2x40x4xf32>) input(%[[B]] : tensor<2x40x4xf32>) outs(%{{.*}} : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
// CHECK-NOT:     recurrence.scan
// CHECK:         %[[C4:[^ ]*]] = arith.constant 4 : index
// CHECK:         arith.divui %{{.*}}, %[[C4]] : index
// CHECK-COUNT-3: scf.forall
// CHECK-NOT:     recurrence.scan
// CHECK:         return %[[IMPLICIT]], %[[EXPLICIT]], %[[SEQ]], %[[SCAN]], %{{.*}} :

func.func @schedules(%a: tensor<2x40x4xf32>, %b: tensor<2x40x4xf32>) -> (tensor<2x40x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>) {
  %dest0 = tensor.empty() : tensor<2x40x4xf32>
  %0 = recurrence.scan diagonal transition(%a : tensor<2x40x4xf32>) input(%b : tensor<2x40x4xf32>) outs(%dest0 : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
  %dest1 = tensor.empty() : tensor<2x40x4xf32>
  %1 = recurrence.scan diagonal schedule auto transition(%a : tensor<2x40x4xf32>) input(%b : tensor<2x40x4xf32>) outs(%dest1 : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
  %dest2 = tensor.empty() : tensor<2x40x4xf32>
  %2 = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x40x4xf32>) input(%b : tensor<2x40x4xf32>) outs(%dest2 : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
  %dest3 = tensor.empty() : tensor<2x40x4xf32>
  %3 = recurrence.scan diagonal schedule scan transition(%a : tensor<2x40x4xf32>) input(%b : tensor<2x40x4xf32>) outs(%dest3 : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
  %dest4 = tensor.empty() : tensor<2x40x4xf32>
  %4 = recurrence.scan diagonal schedule chunked<4> transition(%a : tensor<2x40x4xf32>) input(%b : tensor<2x40x4xf32>) outs(%dest4 : tensor<2x40x4xf32>) -> tensor<2x40x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x40x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>
}
