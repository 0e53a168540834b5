// -recurrence-decompose-models: each model op becomes elementwise linalg
// gates and one recurrence.scan (numbers: python-bindings/tests/
// test_models.py, which builds these ops through ModelSpec).
//
// RUN: recurrence-opt %s -recurrence-decompose-models | FileCheck %s

// w = f(raw), s = sum |w| over the last axis, w / s.
// CHECK-LABEL: func.func @gates
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%arg0
// CHECK: math.exp
// CHECK: math.log1p
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: math.absf
// CHECK: linalg.generic
// CHECK: arith.divf
// CHECK-NOT: recurrence.normalize_gates
func.func @gates(%raw: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %w = recurrence.normalize_gates softplus %raw : tensor<8x3xf32>
  return %w : tensor<8x3xf32>
}

// hlru: the first m gates, moved to [..., T, m, N], are higher_order's
// coefficients; the last one gates the input.
// CHECK-LABEL: func.func @hlru
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [2, 16, 6, 2] [1, 1, 1, 1]
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[A]] : tensor<2x16x6x2xf32>) {{.*}} permutation = [0, 1, 3, 2]
// CHECK: %[[G:.*]] = tensor.extract_slice %arg0[0, 0, 0, 2] [2, 16, 6, 1] [1, 1, 1, 1]
// CHECK: %[[G1:.*]] = tensor.collapse_shape %[[G]] {{\[}}[0], [1], [2, 3]]
// CHECK: %[[B:.*]] = linalg.mul ins(%[[G1]], %arg1
// CHECK: recurrence.scan higher_order<2> transition(%[[T]] : tensor<2x16x2x6xf32>) input(%[[B]] : tensor<2x16x6xf32>) init(%arg2 : tensor<2x2x6xf32>)
func.func @hlru(%g: tensor<2x16x6x3xf32>, %v: tensor<2x16x6xf32>, %h0: tensor<2x2x6xf32>) -> tensor<2x16x6xf32> {
  %h = recurrence.hlru gates(%g : tensor<2x16x6x3xf32>) input(%v : tensor<2x16x6xf32>) init(%h0 : tensor<2x2x6xf32>) -> tensor<2x16x6xf32>
  return %h : tensor<2x16x6xf32>
}

// bdlru: the rows' first m entries are the blocks; the schedule carries over.
// CHECK-LABEL: func.func @bdlru
// CHECK: %[[A:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0, 0] [2, 16, 3, 4, 4]
// CHECK: %[[G:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0, 4] [2, 16, 3, 4, 1]
// CHECK: tensor.collapse_shape %[[G]] {{\[}}[0], [1], [2, 3, 4]]
// CHECK: recurrence.scan block_diagonal<4> schedule chunked<8> transition(%[[A]] : tensor<2x16x3x4x4xf64>)
func.func @bdlru(%g: tensor<2x16x3x4x5xf64>, %v: tensor<2x16x12xf64>) -> tensor<2x16x12xf64> {
  %h = recurrence.bdlru gates(%g : tensor<2x16x3x4x5xf64>) input(%v : tensor<2x16x12xf64>) {schedule = #recurrence.schedule<chunked<8>>} -> tensor<2x16x12xf64>
  return %h : tensor<2x16x12xf64>
}

// Normalized linear attention: phi on q and k, a matrix-state identity scan
// (numerator) and a vector one (normalizer), divided with the floor eps.
// CHECK-LABEL: func.func @attention
// CHECK: %[[FQ:.*]] = linalg.generic {{.*}} ins(%arg0
// CHECK: arith.select
// CHECK: %[[FK:.*]] = linalg.generic {{.*}} ins(%arg1
// CHECK: %[[NUM:.*]] = recurrence.scan identity matrix factored_input(%[[FK]], %arg2 : tensor<2x64x8xf32>, tensor<2x64x16xf32>) readout(%[[FQ]] : tensor<2x64x8xf32>)
// CHECK: %[[DEN:.*]] = recurrence.scan identity input(%[[FK]] : tensor<2x64x8xf32>) readout(%[[FQ]] : tensor<2x64x8xf32>) outs(%{{.*}} : tensor<2x64xf32>) -> tensor<2x64xf32>
// CHECK: linalg.generic {{.*}} ins(%[[NUM]], %[[DEN]]
// CHECK: arith.maximumf
// CHECK: arith.divf
func.func @attention(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  %y = recurrence.linear_attention elu1 normalize q(%q : tensor<2x64x8xf32>) k(%k : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}

// Gated delta rule: dplr<1> with d = g, U = -g beta k, V = k.
// CHECK-LABEL: func.func @delta
// CHECK: %[[D:.*]] = linalg.generic {{.*}} ins(%arg3, %arg1, %arg4
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%arg3, %arg1, %arg4
// CHECK: arith.negf
// CHECK: %[[K:.*]] = linalg.generic {{.*}} ins(%arg3, %arg1
// CHECK: %[[U1:.*]] = tensor.expand_shape %[[U]] {{\[}}[0], [1], [2, 3]]
// CHECK: %[[V1:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1], [2, 3]]
// CHECK: recurrence.scan dplr<1> matrix transition(%[[D]], %[[U1]], %[[V1]] : {{.*}}) factored_input(%[[K]], %arg2 : {{.*}}) init(%arg5 : tensor<2x8x16xf32>) readout(%arg0 : tensor<2x64x8xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x64x16xf32>, tensor<2x8x16xf32>) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>
func.func @delta(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %beta: tensor<2x64xf32>, %g: tensor<2x64xf32>, %s0: tensor<2x8x16xf32>) -> (tensor<2x64x16xf32>, tensor<2x8x16xf32>) {
  %y, %s = recurrence.delta_rule q(%q : tensor<2x64x8xf32>) k(%k : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) beta(%beta : tensor<2x64xf32>) gate(%g : tensor<2x64xf32>) init(%s0 : tensor<2x8x16xf32>) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>
  return %y, %s : tensor<2x64x16xf32>, tensor<2x8x16xf32>
}

// Selective SSM: per-element gates exp(delta A) on the [N, Dm] state, input
// B (delta x)^T, readout C, plus D x.
// CHECK-LABEL: func.func @ssm
// CHECK: %[[A:.*]] = linalg.generic {{.*}} ins(%arg1, %arg2 : tensor<2x64x16xf32>, tensor<16x4xf32>) outs(%{{.*}} : tensor<2x64x4x16xf32>)
// CHECK: math.exp
// CHECK: %[[DX:.*]] = linalg.mul ins(%arg1, %arg0
// CHECK: %[[Y:.*]] = recurrence.scan diagonal matrix transition(%[[A]] : tensor<2x64x4x16xf32>) factored_input(%arg3, %[[DX]] : {{.*}}) readout(%arg4 : tensor<2x64x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[Y]], %arg5, %arg0
func.func @ssm(%x: tensor<2x64x16xf32>, %dt: tensor<2x64x16xf32>, %A: tensor<16x4xf32>, %B: tensor<2x64x4xf32>, %C: tensor<2x64x4xf32>, %D: tensor<16xf32>) -> tensor<2x64x16xf32> {
  %y = recurrence.selective_ssm x(%x : tensor<2x64x16xf32>) delta(%dt : tensor<2x64x16xf32>) A(%A : tensor<16x4xf32>) B(%B : tensor<2x64x4xf32>) C(%C : tensor<2x64x4xf32>) D(%D : tensor<16xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}

// Packed sequences reach the scan: init and the final state per sequence.
// CHECK-LABEL: func.func @delta_rule_packed
//  CHECK-SAME:   %[[H0:[a-z0-9]+]]: tensor<2x3x4x5xf32>, %[[O:[a-z0-9]+]]: tensor<4xi64>
//       CHECK:   recurrence.scan dplr<1> matrix {{.*}} init(%[[H0]] : tensor<2x3x4x5xf32>) readout({{.*}}) offsets(%[[O]] : tensor<4xi64>) {{.*}} -> tensor<2x16x5xf32>, tensor<2x3x4x5xf32>
func.func @delta_rule_packed(%q: tensor<2x16x4xf32>, %k: tensor<2x16x4xf32>, %v: tensor<2x16x5xf32>, %beta: tensor<2x16xf32>, %h0: tensor<2x3x4x5xf32>, %o: tensor<4xi64>) -> (tensor<2x16x5xf32>, tensor<2x3x4x5xf32>) {
  %y, %last = recurrence.delta_rule q(%q : tensor<2x16x4xf32>) k(%k : tensor<2x16x4xf32>) v(%v : tensor<2x16x5xf32>) beta(%beta : tensor<2x16xf32>) init(%h0 : tensor<2x3x4x5xf32>) offsets(%o : tensor<4xi64>) -> tensor<2x16x5xf32>, tensor<2x3x4x5xf32>
  return %y, %last : tensor<2x16x5xf32>, tensor<2x3x4x5xf32>
}

// CHECK-LABEL: func.func @bdlru_packed
//  CHECK-SAME:   %[[H0:[a-z0-9]+]]: tensor<2x3x12xf32>, %[[O:[a-z0-9]+]]: tensor<4xi32>
//       CHECK:   recurrence.scan block_diagonal<4> {{.*}} init(%[[H0]] : tensor<2x3x12xf32>) offsets(%[[O]] : tensor<4xi32>) {{.*}} -> tensor<2x16x12xf32>, tensor<2x3x12xf32>
func.func @bdlru_packed(%g: tensor<2x16x3x4x5xf32>, %v: tensor<2x16x12xf32>, %h0: tensor<2x3x12xf32>, %o: tensor<4xi32>) -> (tensor<2x16x12xf32>, tensor<2x3x12xf32>) {
  %h, %last = recurrence.bdlru gates(%g : tensor<2x16x3x4x5xf32>) input(%v : tensor<2x16x12xf32>) init(%h0 : tensor<2x3x12xf32>) offsets(%o : tensor<4xi32>) -> tensor<2x16x12xf32>, tensor<2x3x12xf32>
  return %h, %last : tensor<2x16x12xf32>, tensor<2x3x12xf32>
}

// The states of a decode step: one step of each model from its states, and
// the final states out of the scans.
// CHECK-LABEL: func.func @attention_step
// CHECK: %[[NUM:[^ ]*]], %[[S:[^ ]*]] = recurrence.scan identity matrix factored_input({{.*}}) init(%arg3 : tensor<2x8x16xf32>) readout({{.*}}) outs(%{{.*}}, %{{.*}} : tensor<2x1x16xf32>, tensor<2x8x16xf32>)
// CHECK: %[[DEN:[^ ]*]], %[[C:[^ ]*]] = recurrence.scan identity input({{.*}}) init(%arg4 : tensor<2x8xf32>) readout({{.*}}) outs(%{{.*}}, %{{.*}} : tensor<2x1xf32>, tensor<2x8xf32>)
// CHECK: %[[Y:.*]] = linalg.generic {{.*}} ins(%[[NUM]], %[[DEN]] :
// CHECK: return %[[Y]], %[[S]], %[[C]] :
func.func @attention_step(%q: tensor<2x1x8xf32>, %k: tensor<2x1x8xf32>, %v: tensor<2x1x16xf32>, %s: tensor<2x8x16xf32>, %c: tensor<2x8xf32>) -> (tensor<2x1x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32>) {
  %y, %s1, %c1 = recurrence.linear_attention elu1 normalize q(%q : tensor<2x1x8xf32>) k(%k : tensor<2x1x8xf32>) v(%v : tensor<2x1x16xf32>) init(%s : tensor<2x8x16xf32>) normalizer_init(%c : tensor<2x8xf32>) -> tensor<2x1x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32>
  return %y, %s1, %c1 : tensor<2x1x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32>
}

// CHECK-LABEL: func.func @hlru_step
// CHECK: %[[H:[^ ]*]], %[[HT:[^ ]*]] = recurrence.scan higher_order<2> {{.*}} init(%arg2 : tensor<2x2x6xf32>) outs(%{{.*}}, %{{.*}} : tensor<2x1x6xf32>, tensor<2x2x6xf32>)
// CHECK: return %[[H]], %[[HT]] :
func.func @hlru_step(%g: tensor<2x1x6x3xf32>, %v: tensor<2x1x6xf32>, %h0: tensor<2x2x6xf32>) -> (tensor<2x1x6xf32>, tensor<2x2x6xf32>) {
  %h, %hT = recurrence.hlru gates(%g : tensor<2x1x6x3xf32>) input(%v : tensor<2x1x6xf32>) init(%h0 : tensor<2x2x6xf32>) -> tensor<2x1x6xf32>, tensor<2x2x6xf32>
  return %h, %hT : tensor<2x1x6xf32>, tensor<2x2x6xf32>
}

// CHECK-LABEL: func.func @bdlru_step
// CHECK: %[[H:[^ ]*]], %[[HT:[^ ]*]] = recurrence.scan block_diagonal<4> {{.*}} outs(%{{.*}}, %{{.*}} : tensor<2x1x12xf32>, tensor<2x12xf32>)
// CHECK: return %[[H]], %[[HT]] :
func.func @bdlru_step(%g: tensor<2x1x3x4x5xf32>, %v: tensor<2x1x12xf32>, %h0: tensor<2x12xf32>) -> (tensor<2x1x12xf32>, tensor<2x12xf32>) {
  %h, %hT = recurrence.bdlru gates(%g : tensor<2x1x3x4x5xf32>) input(%v : tensor<2x1x12xf32>) init(%h0 : tensor<2x12xf32>) -> tensor<2x1x12xf32>, tensor<2x12xf32>
  return %h, %hT : tensor<2x1x12xf32>, tensor<2x12xf32>
}
