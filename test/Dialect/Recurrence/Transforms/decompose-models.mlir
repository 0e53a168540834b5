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
