// -recurrence-lower-scan rewrites scan-scheduled ops into a Blelloch scan over
// the pairs (A_t, b_t), composed with (A2, b2) o (A1, b1) = (A2 A1, A2 b1 + b2):
//   * an scf.forall over batch x T builds the pairs (b_t as a state, A_t in
//     its composite form; identity has none), and a second one folds the
//     initial state into the first pair, b_1 := A_1 h_0 + b_1;
//   * the up-sweep, an scf.for over L = ceil(log2 T) levels s = 1, 2, 4,
//     ..., each an scf.forall combining pair j = 2s k + 2s - 1 with pair
//     j - s (L is a constant for a static T, 64 - ctlz(T - 1) otherwise);
//   * the down-sweep, over s = 2^(L-1), ..., 2, 1, combining
//     j = 2s k + 3s - 1 with j - s;
//   * an scf.forall over batch x T writing every scanned state (h_t) to its
//     output row, and one over the batch reading the final state.
// dplr is densified to N x N, which is refused for a static N > 256.
//
// RUN: recurrence-opt %s -split-input-file -verify-diagnostics -recurrence-lower-scan | FileCheck %s

// CHECK-DAG: #[[$N_OF_ND:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ND:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$N:.+]] = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @diagonal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x10x4xf32>, %[[B:[^:]*]]: tensor<2x10x4xf32>, %[[INIT:[^:]*]]: tensor<2x4xf32>)
// CHECK:         %[[OUT0:[^ ]*]] = tensor.empty() : tensor<2x10x4xf32>
// CHECK:         %[[LAST0:[^ ]*]] = tensor.empty() : tensor<2x4xf32>
// CHECK:         %[[T:[^ ]*]] = arith.constant 10 : index

// The pairs: states [2, T, N, 1] (b_t) and products [2, T, N] (a_t).
// CHECK:         %[[STATES0:[^ ]*]] = tensor.empty(%[[T]]) : tensor<2x?x4x1xf32>
// CHECK:         %[[PRODS0:[^ ]*]] = tensor.empty(%[[T]]) : tensor<2x?x4xf32>
// CHECK:         %[[PAIRS:[^ ]*]]:2 = scf.forall (%[[I:[^ ]*]], %[[S:[^ ]*]]) in (2, %[[T]]) shared_outs(%[[ST:[^ ]*]] = %[[STATES0]], %[[PR:[^ ]*]] = %[[PRODS0]]) -> (tensor<2x?x4x1xf32>, tensor<2x?x4xf32>) {
// CHECK:           %[[BT:[^ ]*]] = tensor.extract_slice %[[B]][%[[I]], %[[S]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<4xf32>
// CHECK:           %[[BT2:[^ ]*]] = tensor.expand_shape %[[BT]] {{\[}}[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
// CHECK:           %[[AT:[^ ]*]] = tensor.extract_slice %[[A]][%[[I]], %[[S]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<4xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[BT2]] into %[[ST]][%[[I]], %[[S]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<4x1xf32> into tensor<2x?x4x1xf32>
// CHECK-NEXT:        tensor.parallel_insert_slice %[[AT]] into %[[PR]][%[[I]], %[[S]], 0] [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<2x?x4xf32>
// CHECK-NEXT:      }

// h_0 folded into the first pair (for min(T, 1) steps): b_1 := a_1 * init + b_1.
// CHECK:         %[[FIRST:[^ ]*]] = arith.minui %[[T]], %{{.*}} : index
// CHECK:         %[[FOLDED:[^ ]*]] = scf.forall (%[[I0:[^ ]*]], %{{.*}}) in (2, %[[FIRST]]) shared_outs(%[[ST0:[^ ]*]] = %[[PAIRS]]#0) -> (tensor<2x?x4x1xf32>) {
// CHECK:           %[[H0:[^ ]*]] = tensor.extract_slice %[[INIT]][%[[I0]], 0] [1, 4] [1, 1] : tensor<2x4xf32> to tensor<4xf32>
// CHECK:           %[[H0E:[^ ]*]] = tensor.expand_shape %[[H0]]
// CHECK:           %[[A1:[^ ]*]] = tensor.extract_slice %[[A]][%[[I0]], %[[Z:[^ ]*]], 0] [1, 1, 4] [1, 1, 1]
// CHECK:           %[[B1:[^ ]*]] = tensor.extract_slice %[[B]][%[[I0]], %[[Z]], 0] [1, 1, 4] [1, 1, 1]
// CHECK:           %[[H1:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[A1]], %{{.*}} : tensor<4xf32>, tensor<4x1xf32>) outs(%[[H0E]] : tensor<4x1xf32>)
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[H1]] into %[[ST0]][%[[I0]], %[[Z]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<4x1xf32> into tensor<2x?x4x1xf32>
// CHECK-NEXT:      }

// Up-sweep: for level in [0, ceil(log2 10) = 4): s = 1 << level, j0 = 2s - 1, and
// count = j0 < T ? (T - 1 - j0) / 2s + 1 : 0 combines.
// CHECK-DAG:     %[[ZERO:[^ ]*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ONE:[^ ]*]] = arith.constant 1 : index
// CHECK-DAG:     %[[LEVELS:[^ ]*]] = arith.constant 4 : index
// CHECK:         %[[UP:[^ ]*]]:2 = scf.for %[[LVL:[^ ]*]] = %[[ZERO]] to %[[LEVELS]] step %[[ONE]] iter_args(%[[USTATES:[^ ]*]] = %[[FOLDED]], %[[UPRODS:[^ ]*]] = %[[PAIRS]]#1) -> (tensor<2x?x4x1xf32>, tensor<2x?x4xf32>) {
// CHECK-NEXT:      %[[US:[^ ]*]] = arith.shli %[[ONE]], %[[LVL]] : index
// CHECK-NEXT:      %[[U2S:[^ ]*]] = arith.addi %[[US]], %[[US]] : index
// CHECK-NEXT:      %[[UJ0:[^ ]*]] = arith.subi %[[U2S]], %[[ONE]] : index
// CHECK-NEXT:      %[[UFITS:[^ ]*]] = arith.cmpi ult, %[[UJ0]], %[[T]] : index
// CHECK-NEXT:      %[[ULAST:[^ ]*]] = arith.subi %[[T]], %[[ONE]] : index
// CHECK-NEXT:      %[[UROOM:[^ ]*]] = arith.subi %[[ULAST]], %[[UJ0]] : index
// CHECK-NEXT:      %[[UQ:[^ ]*]] = arith.divui %[[UROOM]], %[[U2S]] : index
// CHECK-NEXT:      %[[UQ1:[^ ]*]] = arith.addi %[[UQ]], %[[ONE]] : index
// CHECK-NEXT:      %[[UCOUNT:[^ ]*]] = arith.select %[[UFITS]], %[[UQ1]], %[[ZERO]] : index
// CHECK-NEXT:      %[[ULEVEL:[^ ]*]]:2 = scf.forall (%[[UI:[^ ]*]], %[[UK:[^ ]*]]) in (2, %[[UCOUNT]]) shared_outs(%[[UST:[^ ]*]] = %[[USTATES]], %[[UPR:[^ ]*]] = %[[UPRODS]]) -> (tensor<2x?x4x1xf32>, tensor<2x?x4xf32>) {
// j = 2s k + j0 and i = j - s.
// CHECK-NEXT:        %[[UK2S:[^ ]*]] = arith.muli %[[UK]], %[[U2S]] : index
// CHECK-NEXT:        %[[UJ:[^ ]*]] = arith.addi %[[UK2S]], %[[UJ0]] : index
// CHECK-NEXT:        %[[UIDX:[^ ]*]] = arith.subi %[[UJ]], %[[US]] : index
// CHECK-DAG:         %[[PJ:[^ ]*]] = tensor.extract_slice %[[UPR]][%[[UI]], %[[UJ]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<4xf32>
// CHECK-DAG:         %[[PI:[^ ]*]] = tensor.extract_slice %[[UPR]][%[[UI]], %[[UIDX]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<4xf32>
// CHECK-DAG:         %[[BI:[^ ]*]] = tensor.extract_slice %[[UST]][%[[UI]], %[[UIDX]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<4x1xf32>
// CHECK-DAG:         %[[BJ:[^ ]*]] = tensor.extract_slice %[[UST]][%[[UI]], %[[UJ]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<4x1xf32>
// b_j := P_j b_i + b_j and P_j := P_j P_i.
// CHECK:             %[[NB:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[PJ]], %[[BI]] : tensor<4xf32>, tensor<4x1xf32>) outs(%[[BJ]] : tensor<4x1xf32>) {
// CHECK-NEXT:        ^bb0(%[[UP_P:[^:]*]]: f32, %[[UP_X:[^:]*]]: f32, %[[UP_Y:[^:]*]]: f32):
// CHECK-NEXT:          %[[UP_PX:[^ ]*]] = arith.mulf %[[UP_P]], %[[UP_X]] : f32
// CHECK-NEXT:          %[[UP_SUM:[^ ]*]] = arith.addf %[[UP_Y]], %[[UP_PX]] : f32
// CHECK-NEXT:          linalg.yield %[[UP_SUM]] : f32
// CHECK:             %[[NP:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N]], #[[$N]], #[[$N]]], iterator_types = ["parallel"]} ins(%[[PJ]], %[[PI]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:        ^bb0(%[[UP_PJ:[^:]*]]: f32, %[[UP_PI:[^:]*]]: f32, %{{[^:]*}}: f32):
// CHECK-NEXT:          %[[UP_PP:[^ ]*]] = arith.mulf %[[UP_PJ]], %[[UP_PI]] : f32
// CHECK-NEXT:          linalg.yield %[[UP_PP]] : f32
// CHECK:             scf.forall.in_parallel {
// CHECK-NEXT:          tensor.parallel_insert_slice %[[NB]] into %[[UST]][%[[UI]], %[[UJ]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<4x1xf32> into tensor<2x?x4x1xf32>
// CHECK-NEXT:          tensor.parallel_insert_slice %[[NP]] into %[[UPR]][%[[UI]], %[[UJ]], 0] [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<2x?x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[ULEVEL]]#0, %[[ULEVEL]]#1 : tensor<2x?x4x1xf32>, tensor<2x?x4xf32>
// CHECK-NEXT:    }

// Down-sweep: s = 1 << (3 - level), j0 = 3s - 1.
// CHECK-DAG:     %[[DZERO:[^ ]*]] = arith.constant 0 : index
// CHECK-DAG:     %[[DONE:[^ ]*]] = arith.constant 1 : index
// CHECK-DAG:     %[[DLEVELS:[^ ]*]] = arith.constant 4 : index
// CHECK:         %[[DOWN:[^ ]*]]:2 = scf.for %[[DLVL:[^ ]*]] = %[[DZERO]] to %[[DLEVELS]] step %[[DONE]] iter_args(%[[DSTATES:[^ ]*]] = %[[UP]]#0, %[[DPRODS:[^ ]*]] = %[[UP]]#1) -> (tensor<2x?x4x1xf32>, tensor<2x?x4xf32>) {
// CHECK-NEXT:      %[[TOP:[^ ]*]] = arith.subi %[[DLEVELS]], %[[DONE]] : index
// CHECK-NEXT:      %[[EXP:[^ ]*]] = arith.subi %[[TOP]], %[[DLVL]] : index
// CHECK-NEXT:      %[[DS:[^ ]*]] = arith.shli %[[DONE]], %[[EXP]] : index
// CHECK-NEXT:      %[[D2S:[^ ]*]] = arith.addi %[[DS]], %[[DS]] : index
// CHECK-NEXT:      %[[D3S:[^ ]*]] = arith.addi %[[D2S]], %[[DS]] : index
// CHECK-NEXT:      %[[DJ0:[^ ]*]] = arith.subi %[[D3S]], %[[DONE]] : index
// CHECK-NEXT:      %[[DFITS:[^ ]*]] = arith.cmpi ult, %[[DJ0]], %[[T]] : index
// CHECK:           %[[DCOUNT:[^ ]*]] = arith.select %[[DFITS]], %{{.*}}, %[[DZERO]] : index
// CHECK-NEXT:      %[[DLEVEL:[^ ]*]]:2 = scf.forall (%[[DI:[^ ]*]], %[[DK:[^ ]*]]) in (2, %[[DCOUNT]]) shared_outs(%[[DST:[^ ]*]] = %[[DSTATES]], %[[DPR:[^ ]*]] = %[[DPRODS]]) -> (tensor<2x?x4x1xf32>, tensor<2x?x4xf32>) {
// CHECK-NEXT:        %[[DK2S:[^ ]*]] = arith.muli %[[DK]], %[[D2S]] : index
// CHECK-NEXT:        %[[DJ:[^ ]*]] = arith.addi %[[DK2S]], %[[DJ0]] : index
// CHECK-NEXT:        %[[DIDX:[^ ]*]] = arith.subi %[[DJ]], %[[DS]] : index
// The same combine as the up-sweep, of pair j = DJ with pair i = j - s:
// b_j := P_j b_i + b_j and P_j := P_j P_i.
// CHECK-DAG:         %[[DPJ:[^ ]*]] = tensor.extract_slice %[[DPR]][%[[DI]], %[[DJ]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<4xf32>
// CHECK-DAG:         %[[DPI:[^ ]*]] = tensor.extract_slice %[[DPR]][%[[DI]], %[[DIDX]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x?x4xf32> to tensor<4xf32>
// CHECK-DAG:         %[[DBI:[^ ]*]] = tensor.extract_slice %[[DST]][%[[DI]], %[[DIDX]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<4x1xf32>
// CHECK-DAG:         %[[DBJ:[^ ]*]] = tensor.extract_slice %[[DST]][%[[DI]], %[[DJ]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<4x1xf32>
// CHECK:             %[[DNB:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[DPJ]], %[[DBI]] : tensor<4xf32>, tensor<4x1xf32>) outs(%[[DBJ]] : tensor<4x1xf32>) {
// CHECK-NEXT:        ^bb0(%[[DN_P:[^:]*]]: f32, %[[DN_X:[^:]*]]: f32, %[[DN_Y:[^:]*]]: f32):
// CHECK-NEXT:          %[[DN_PX:[^ ]*]] = arith.mulf %[[DN_P]], %[[DN_X]] : f32
// CHECK-NEXT:          %[[DN_SUM:[^ ]*]] = arith.addf %[[DN_Y]], %[[DN_PX]] : f32
// CHECK-NEXT:          linalg.yield %[[DN_SUM]] : f32
// CHECK:             %[[DNP:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N]], #[[$N]], #[[$N]]], iterator_types = ["parallel"]} ins(%[[DPJ]], %[[DPI]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT:        ^bb0(%[[DN_PJ:[^:]*]]: f32, %[[DN_PI:[^:]*]]: f32, %{{[^:]*}}: f32):
// CHECK-NEXT:          %[[DN_PP:[^ ]*]] = arith.mulf %[[DN_PJ]], %[[DN_PI]] : f32
// CHECK-NEXT:          linalg.yield %[[DN_PP]] : f32
// CHECK:             scf.forall.in_parallel {
// CHECK-NEXT:          tensor.parallel_insert_slice %[[DNB]] into %[[DST]][%[[DI]], %[[DJ]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<4x1xf32> into tensor<2x?x4x1xf32>
// CHECK-NEXT:          tensor.parallel_insert_slice %[[DNP]] into %[[DPR]][%[[DI]], %[[DJ]], 0] [1, 1, 4] [1, 1, 1] : tensor<4xf32> into tensor<2x?x4xf32>
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield %[[DLEVEL]]#0, %[[DLEVEL]]#1 : tensor<2x?x4x1xf32>, tensor<2x?x4xf32>
// CHECK-NEXT:    }

// Outputs: the scanned state t is h_t, written to row t.
// CHECK:         %[[OUTPUT:[^ ]*]] = scf.forall (%[[OI:[^ ]*]], %[[OT:[^ ]*]]) in (2, %[[T]]) shared_outs(%[[OUT:[^ ]*]] = %[[OUT0]]) -> (tensor<2x10x4xf32>) {
// CHECK:           %[[HT:[^ ]*]] = tensor.extract_slice %[[DOWN]]#0[%[[OI]], %[[OT]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1] : tensor<2x?x4x1xf32> to tensor<4x1xf32>
// CHECK:           %[[ROW:[^ ]*]] = tensor.extract_slice %[[OUT]][%[[OI]], %[[OT]], 0] [1, 1, 4] [1, 1, 1] : tensor<2x10x4xf32> to tensor<1x4xf32>
// CHECK:           tensor.collapse_shape %[[HT]] {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK:           %[[NEWROW:[^ ]*]] = tensor.insert_slice %{{.*}} into %[[ROW]][%{{.*}}, 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<1x4xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[NEWROW]] into %[[OUT]][%[[OI]], %[[OT]], 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xf32> into tensor<2x10x4xf32>
// CHECK-NEXT:      }

// The final state: init when T = 0, else the last scanned state.
// CHECK:         %[[FINAL:[^ ]*]] = scf.forall (%[[FI:[^ ]*]]) in (2) shared_outs(%[[LAST:[^ ]*]] = %[[LAST0]]) -> (tensor<2x4xf32>) {
// CHECK:           %[[NONE:[^ ]*]] = arith.cmpi eq, %[[T]], %{{.*}} : index
// CHECK-NEXT:      %[[CHOICE:[^ ]*]] = scf.if %[[NONE]] -> (tensor<4x1xf32>) {
// CHECK:             tensor.extract_slice %[[INIT]][%[[FI]], 0] [1, 4] [1, 1]
// CHECK:           } else {
// CHECK-NEXT:        %[[TLAST:[^ ]*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK:             %[[HLAST:[^ ]*]] = tensor.extract_slice %[[DOWN]]#0[%[[FI]], %[[TLAST]], 0, 0] [1, 1, 4, 1] [1, 1, 1, 1]
// CHECK-NEXT:        scf.yield %[[HLAST]] : tensor<4x1xf32>
// CHECK:           %[[FLAT:[^ ]*]] = tensor.collapse_shape %[[CHOICE]] {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[FLAT]] into %[[LAST]][%[[FI]], 0] [1, 4] [1, 1] : tensor<4xf32> into tensor<2x4xf32>
// CHECK:         return %[[OUTPUT]], %[[FINAL]] : tensor<2x10x4xf32>, tensor<2x4xf32>
// CHECK-NOT:     recurrence.scan
func.func @diagonal(%a: tensor<2x10x4xf32>, %b: tensor<2x10x4xf32>, %init: tensor<2x4xf32>) -> (tensor<2x10x4xf32>, tensor<2x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x10x4xf32>
  %last_dest = tensor.empty() : tensor<2x4xf32>
  %h, %last = recurrence.scan diagonal schedule scan transition(%a : tensor<2x10x4xf32>) input(%b : tensor<2x10x4xf32>) init(%init : tensor<2x4xf32>) outs(%h_dest, %last_dest : tensor<2x10x4xf32>, tensor<2x4xf32>) -> tensor<2x10x4xf32>, tensor<2x4xf32>
  return %h, %last : tensor<2x10x4xf32>, tensor<2x4xf32>
}

// -----

// Identity has no products: every loop carries the states alone, and a
// combine is b_j := b_i + b_j. Without init there is nothing to fold.

// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @identity(
// CHECK-SAME:    %[[B:[^:]*]]: tensor<6x4xf32>)
// CHECK:         %[[STATES0:[^ ]*]] = tensor.empty(%{{.*}}) : tensor<?x4x1xf32>
// CHECK-NEXT:    %[[PAIRS:[^ ]*]] = scf.forall (%{{.*}}) in (%{{.*}}) shared_outs(%{{[^ ]*}} = %[[STATES0]]) -> (tensor<?x4x1xf32>) {
// CHECK-NOT:     arith.minui
// CHECK:         %[[UP:[^ ]*]] = scf.for %{{.*}} iter_args(%{{[^ ]*}} = %[[PAIRS]]) -> (tensor<?x4x1xf32>) {
// CHECK:           scf.forall (%[[UK:[^ ]*]]) in (%{{.*}}) shared_outs(%[[UST:[^ ]*]] = %{{.*}}) -> (tensor<?x4x1xf32>) {
// CHECK:             %[[UJ:[^ ]*]] = arith.addi
// CHECK-NEXT:        %[[UI:[^ ]*]] = arith.subi %[[UJ]], %{{.*}} : index
// CHECK:             %[[BI:[^ ]*]] = tensor.extract_slice %[[UST]][%[[UI]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<?x4x1xf32> to tensor<4x1xf32>
// CHECK:             %[[BJ:[^ ]*]] = tensor.extract_slice %[[UST]][%[[UJ]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<?x4x1xf32> to tensor<4x1xf32>
// CHECK-NEXT:        %[[SUM:[^ ]*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[BI]] : tensor<4x1xf32>) outs(%[[BJ]] : tensor<4x1xf32>) {
// CHECK:             scf.forall.in_parallel {
// CHECK-NEXT:          tensor.parallel_insert_slice %[[SUM]] into %[[UST]][%[[UJ]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<4x1xf32> into tensor<?x4x1xf32>
// CHECK-NEXT:        }
// CHECK:         %[[DOWN:[^ ]*]] = scf.for %{{.*}} iter_args(%{{[^ ]*}} = %[[UP]]) -> (tensor<?x4x1xf32>) {
// CHECK:           scf.forall (%{{.*}}) in (%{{.*}}) shared_outs(%{{[^ ]*}} = %{{.*}}) -> (tensor<?x4x1xf32>) {
// CHECK:         scf.forall (%[[OT:[^ ]*]]) in (%{{.*}}) shared_outs(
// CHECK:           tensor.extract_slice %[[DOWN]][%[[OT]], 0, 0] [1, 4, 1] [1, 1, 1]
func.func @identity(%b: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %h_dest = tensor.empty() : tensor<6x4xf32>
  %h = recurrence.scan identity schedule scan input(%b : tensor<6x4xf32>) outs(%h_dest : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %h : tensor<6x4xf32>
}

// -----

// A dynamic T: each sweep runs ceil(log2 T) = 64 - ctlz(T - 1) levels, and
// none when T <= 1.

// CHECK-LABEL: func.func @dynamic_steps(
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK:         %[[T:[^ ]*]] = tensor.dim %{{.*}}, %{{.*}} : tensor<?x4xf32>
// CHECK:         %[[TM1:[^ ]*]] = arith.subi %[[T]], %[[ONE:[^ ]*]] : index
// CHECK-NEXT:    %[[TM1I:[^ ]*]] = arith.index_castui %[[TM1]] : index to i64
// CHECK-NEXT:    %[[LZ:[^ ]*]] = math.ctlz %[[TM1I]] : i64
// CHECK:         %[[BITS:[^ ]*]] = arith.subi %{{.*}}, %[[LZ]] : i64
// CHECK-NEXT:    %[[L:[^ ]*]] = arith.index_castui %[[BITS]] : i64 to index
// CHECK-NEXT:    %[[TRIVIAL:[^ ]*]] = arith.cmpi ule, %[[T]], %[[ONE]] : index
// CHECK-NEXT:    %[[LEVELS:[^ ]*]] = arith.select %[[TRIVIAL]], %{{.*}}, %[[L]] : index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %[[LEVELS]] step
func.func @dynamic_steps(%b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x4xf32>
  %h_dest = tensor.empty(%d0) : tensor<?x4xf32>
  %h = recurrence.scan identity schedule scan input(%b : tensor<?x4xf32>) outs(%h_dest : tensor<?x4xf32>) -> tensor<?x4xf32>
  return %h : tensor<?x4xf32>
}

// -----

// dplr, reversed: the pair of logical step s holds time t = T - 1 - s, and
// A_t = diag(d) + U V^T is densified to N x N by applying it to the identity;
// combines are then dense matmuls. Output row t gets scanned state s.

// CHECK-DAG: #[[$ND:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$V_KI:.+]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$X_KJ:.+]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$OUT_IJ:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$L_IK:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$N_OF_ND:.+]] = affine_map<(d0, d1) -> (d0)>

// CHECK-LABEL: func.func @dplr_reverse(
// CHECK-SAME:    %[[D:[^:]*]]: tensor<6x4xf32>, %[[U:[^:]*]]: tensor<6x4x1xf32>, %[[V:[^:]*]]: tensor<6x4x1xf32>, %[[B:[^:]*]]: tensor<6x4xf32>)
// CHECK:         %[[T:[^ ]*]] = arith.constant 6 : index
// CHECK:         %[[STATES0:[^ ]*]] = tensor.empty(%[[T]]) : tensor<?x4x1xf32>
// CHECK:         %[[PRODS0:[^ ]*]] = tensor.empty(%[[T]]) : tensor<?x4x4xf32>
// CHECK:         %[[PAIRS:[^ ]*]]:2 = scf.forall (%[[S:[^ ]*]]) in (%[[T]]) shared_outs(%[[ST:[^ ]*]] = %[[STATES0]], %[[PR:[^ ]*]] = %[[PRODS0]]) -> (tensor<?x4x1xf32>, tensor<?x4x4xf32>) {
// CHECK:           %[[TM1:[^ ]*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK-NEXT:      %[[TIME:[^ ]*]] = arith.subi %[[TM1]], %[[S]] : index
// CHECK-NEXT:      tensor.extract_slice %[[B]][%[[TIME]], 0] [1, 4] [1, 1]
// CHECK:           %[[DT:[^ ]*]] = tensor.extract_slice %[[D]][%[[TIME]], 0] [1, 4] [1, 1] : tensor<6x4xf32> to tensor<4xf32>
// CHECK-NEXT:      %[[UT:[^ ]*]] = tensor.extract_slice %[[U]][%[[TIME]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<6x4x1xf32> to tensor<4x1xf32>
// CHECK-NEXT:      %[[VT:[^ ]*]] = tensor.extract_slice %[[V]][%[[TIME]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<6x4x1xf32> to tensor<4x1xf32>
// The 4 x 4 identity ...
// CHECK:           %[[EYE:[^ ]*]] = linalg.generic {indexing_maps = [#[[$ND]]], iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<4x4xf32>) {
// CHECK:             %[[R:[^ ]*]] = linalg.index 0 : index
// CHECK-NEXT:        %[[C:[^ ]*]] = linalg.index 1 : index
// CHECK-NEXT:        %[[SAME:[^ ]*]] = arith.cmpi eq, %[[R]], %[[C]] : index
// CHECK-NEXT:        arith.select %[[SAME]], %{{.*}}, %{{.*}} : f32
// ... through V^T, U and diag(d): A = U (V^T I) + diag(d) I.
// CHECK:           %[[VTI:[^ ]*]] = linalg.generic {indexing_maps = [#[[$V_KI]], #[[$X_KJ]], #[[$OUT_IJ]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[VT]], %[[EYE]] : tensor<4x1xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<1x4xf32>)
// CHECK:           %[[UVT:[^ ]*]] = linalg.generic {indexing_maps = [#[[$L_IK]], #[[$X_KJ]], #[[$OUT_IJ]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[UT]], %[[VTI]] : tensor<4x1xf32>, tensor<1x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK:           %[[DENSE:[^ ]*]] = linalg.generic {indexing_maps = [#[[$N_OF_ND]], #[[$ND]], #[[$ND]]], iterator_types = ["parallel", "parallel"]} ins(%[[DT]], %[[EYE]] : tensor<4xf32>, tensor<4x4xf32>) outs(%[[UVT]] : tensor<4x4xf32>)
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[ST]][%[[S]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<4x1xf32> into tensor<?x4x1xf32>
// CHECK-NEXT:        tensor.parallel_insert_slice %[[DENSE]] into %[[PR]][%[[S]], 0, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4xf32> into tensor<?x4x4xf32>
// CHECK-NEXT:      }
// Both sweeps combine with dense matmuls: b_j := P_j b_i + b_j, P_j := P_j P_i.
// CHECK-COUNT-2: scf.for %{{.*}} iter_args(%{{.*}}, %{{.*}}) -> (tensor<?x4x1xf32>, tensor<?x4x4xf32>) {
// CHECK:         scf.forall (%{{.*}}) in (%{{.*}}) shared_outs(%[[DST:[^ ]*]] = %{{.*}}, %[[DPR:[^ ]*]] = %{{.*}}) -> (tensor<?x4x1xf32>, tensor<?x4x4xf32>) {
// CHECK:           %[[PJ:[^ ]*]] = tensor.extract_slice %[[DPR]][%[[J:[^ ]*]], 0, 0] [1, 4, 4] [1, 1, 1] : tensor<?x4x4xf32> to tensor<4x4xf32>
// CHECK:           %[[PI:[^ ]*]] = tensor.extract_slice %[[DPR]][%[[I:[^ ]*]], 0, 0] [1, 4, 4] [1, 1, 1] : tensor<?x4x4xf32> to tensor<4x4xf32>
// CHECK:           %[[BI:[^ ]*]] = tensor.extract_slice %[[DST]][%[[I]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<?x4x1xf32> to tensor<4x1xf32>
// CHECK:           %[[BJ:[^ ]*]] = tensor.extract_slice %[[DST]][%[[J]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<?x4x1xf32> to tensor<4x1xf32>
// CHECK-NEXT:      linalg.generic {indexing_maps = [#[[$L_IK]], #[[$X_KJ]], #[[$OUT_IJ]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[PJ]], %[[BI]] : tensor<4x4xf32>, tensor<4x1xf32>) outs(%[[BJ]] : tensor<4x1xf32>)
// CHECK:           linalg.generic {indexing_maps = [#[[$L_IK]], #[[$X_KJ]], #[[$OUT_IJ]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[PJ]], %[[PI]] : tensor<4x4xf32>, tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// Output: scanned state s goes to row t = T - 1 - s.
// CHECK:         scf.forall (%[[OS:[^ ]*]]) in (%[[T]]) shared_outs(%[[OUT:[^ ]*]] = %{{.*}}) -> (tensor<6x4xf32>) {
// CHECK:           %[[OTM1:[^ ]*]] = arith.subi %[[T]], %{{.*}} : index
// CHECK-NEXT:      %[[OTIME:[^ ]*]] = arith.subi %[[OTM1]], %[[OS]] : index
// CHECK:           tensor.extract_slice %{{.*}}[%[[OS]], 0, 0] [1, 4, 1] [1, 1, 1] : tensor<?x4x1xf32> to tensor<4x1xf32>
// CHECK:           scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[OUT]][%[[OTIME]], 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<6x4xf32>
func.func @dplr_reverse(%d: tensor<6x4xf32>, %u: tensor<6x4x1xf32>, %v: tensor<6x4x1xf32>, %b: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %h_dest = tensor.empty() : tensor<6x4xf32>
  %h = recurrence.scan dplr<1> schedule scan reverse transition(%d, %u, %v : tensor<6x4xf32>, tensor<6x4x1xf32>, tensor<6x4x1xf32>) input(%b : tensor<6x4xf32>) outs(%h_dest : tensor<6x4xf32>) -> tensor<6x4xf32>
  return %h : tensor<6x4xf32>
}

// -----

// The largest dplr state densified (N = 256), and a dynamic N, are accepted.

// CHECK-LABEL: func.func @dplr_limits(
// CHECK:         tensor.empty(%{{.*}}) : tensor<?x256x256xf32>
// CHECK:         tensor.empty(%{{.*}}, %{{.*}}, %{{.*}}) : tensor<?x?x?xf32>
// CHECK-NOT:     recurrence.scan
func.func @dplr_limits(%d: tensor<2x256xf32>, %u: tensor<2x256x1xf32>, %v: tensor<2x256x1xf32>, %dd: tensor<2x?xf32>, %du: tensor<2x?x1xf32>, %dv: tensor<2x?x1xf32>) -> (tensor<2x256xf32>, tensor<2x?xf32>) {
  %h_dest = tensor.empty() : tensor<2x256xf32>
  %h = recurrence.scan dplr<1> schedule scan transition(%d, %u, %v : tensor<2x256xf32>, tensor<2x256x1xf32>, tensor<2x256x1xf32>) input(%d : tensor<2x256xf32>) outs(%h_dest : tensor<2x256xf32>) -> tensor<2x256xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %dd, %c1 : tensor<2x?xf32>
  %g_dest = tensor.empty(%d1) : tensor<2x?xf32>
  %g = recurrence.scan dplr<1> schedule scan transition(%dd, %du, %dv : tensor<2x?xf32>, tensor<2x?x1xf32>, tensor<2x?x1xf32>) input(%dd : tensor<2x?xf32>) outs(%g_dest : tensor<2x?xf32>) -> tensor<2x?xf32>
  return %h, %g : tensor<2x256xf32>, tensor<2x?xf32>
}

// -----

// Other schedules are left alone.

// CHECK-LABEL: func.func @schedules(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x8x4xf32>, %[[B:[^:]*]]: tensor<2x8x4xf32>)
// CHECK-NEXT:    tensor.empty() : tensor<2x8x4xf32>
// CHECK-NEXT:    %[[R0:[^ ]*]] = recurrence.scan diagonal transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x8x4xf32>
// CHECK-NEXT:    %[[R1:[^ ]*]] = recurrence.scan diagonal schedule auto transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x8x4xf32>
// CHECK-NEXT:    %[[R2:[^ ]*]] = recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    tensor.empty() : tensor<2x8x4xf32>
// CHECK-NEXT:    %[[R3:[^ ]*]] = recurrence.scan diagonal schedule chunked<4> transition(%[[A]] : tensor<2x8x4xf32>) input(%[[B]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
// CHECK-NEXT:    return %[[R0]], %[[R1]], %[[R2]], %[[R3]]
func.func @schedules(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) -> (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) {
  %dest0 = tensor.empty() : tensor<2x8x4xf32>
  %0 = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest0 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest1 = tensor.empty() : tensor<2x8x4xf32>
  %1 = recurrence.scan diagonal schedule auto transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest1 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest2 = tensor.empty() : tensor<2x8x4xf32>
  %2 = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest2 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  %dest3 = tensor.empty() : tensor<2x8x4xf32>
  %3 = recurrence.scan diagonal schedule chunked<4> transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%dest3 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %0, %1, %2, %3 : tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>
}

// -----

// dplr<r> with N = 257 under `scan` would densify 257 x 257 products: the pass
// refuses it (and fails), while a sequential dplr of any size is fine.

func.func @dplr_too_large(%d: tensor<4x257xf32>, %u: tensor<4x257x2xf32>, %v: tensor<4x257x2xf32>, %b: tensor<4x257xf32>, %bd: tensor<4x512xf32>, %bu: tensor<4x512x2xf32>, %bv: tensor<4x512x2xf32>) -> (tensor<4x512xf32>, tensor<4x257xf32>) {
  %s_dest = tensor.empty() : tensor<4x512xf32>
  %s = recurrence.scan dplr<2> schedule sequential transition(%bd, %bu, %bv : tensor<4x512xf32>, tensor<4x512x2xf32>, tensor<4x512x2xf32>) input(%bd : tensor<4x512xf32>) outs(%s_dest : tensor<4x512xf32>) -> tensor<4x512xf32>
  %h_dest = tensor.empty() : tensor<4x257xf32>
  // expected-error @below {{'recurrence.scan' op schedule 'scan' composes dplr transitions as dense N x N matrices (N^3 per combine), which is refused for N = 257 > 256; use schedule 'sequential' or 'chunked'}}
  %h = recurrence.scan dplr<2> schedule scan transition(%d, %u, %v : tensor<4x257xf32>, tensor<4x257x2xf32>, tensor<4x257x2xf32>) input(%b : tensor<4x257xf32>) outs(%h_dest : tensor<4x257xf32>) -> tensor<4x257xf32>
  return %s, %h : tensor<4x512xf32>, tensor<4x257xf32>
}
