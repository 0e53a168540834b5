// Linear attention, an identity scan on a matrix state with factored input
// k_t v_t^T and readout q_t, at T = 64, N = 8, D = 16: its gradient is three
// scans with readouts, and no [T, N, D] tensor exists, before lowering or
// after bufferization. With mu_t = sum_{s >= t} q_s ybar_s^T + F:
//   dv_t = mu_t^T k_t, the reverse scan of (q, ybar) from F read out by k;
//   dk_t = mu_t v_t, the reverse scan of (ybar, q) from F^T read out by v;
//   dq_t = h_t ybar_t, the forward scan of (v, k) from init^T read out by
//   ybar; dinit = mu_1, the first scan's final state.
// (Numbers: AdjointTests, test_scan.py and test_model_gradients.py.)
//
// RUN: recurrence-opt %s -recurrence-differentiate -canonicalize -cse \
// RUN:   | FileCheck %s
// RUN: recurrence-opt %s -recurrence-differentiate -convert-elementwise-to-linalg \
// RUN:   -recurrence-select-schedule -recurrence-lower-scan -recurrence-lower-chunked \
// RUN:   -recurrence-lower-sequential -eliminate-empty-tensors -canonicalize -cse \
// RUN:   -empty-tensor-to-alloc-tensor -recurrence-bufferize \
// RUN:   | FileCheck %s --check-prefix=BUFFERS

// CHECK-LABEL: func.func @attention_grad(
// CHECK-SAME: %[[K:[^:]*]]: tensor<2x64x8xf32>, %[[V:[^:]*]]: tensor<2x64x16xf32>, %[[Q:[^:]*]]: tensor<2x64x8xf32>, %[[H0:[^:]*]]: tensor<2x8x16xf32>, %[[YBAR:[^:]*]]: tensor<2x64x16xf32>, %[[F:[^:]*]]: tensor<2x8x16xf32>)
// CHECK-NOT: x64x8x16x
// CHECK: %[[DV:.*]], %[[DH0:.*]] = recurrence.scan identity matrix reverse factored_input(%[[Q]], %[[YBAR]] : {{.*}}) init(%[[F]] : {{.*}}) readout(%[[K]] : {{.*}}) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>
// CHECK: %[[FT:.*]] = linalg.transpose ins(%[[F]] : tensor<2x8x16xf32>) {{.*}} permutation = [0, 2, 1]
// CHECK: %[[DK:.*]] = recurrence.scan identity matrix reverse factored_input(%[[YBAR]], %[[Q]] : {{.*}}) init(%[[FT]] : tensor<2x16x8xf32>) readout(%[[V]] : {{.*}}) -> tensor<2x64x8xf32>
// CHECK: %[[H0T:.*]] = linalg.transpose ins(%[[H0]] : tensor<2x8x16xf32>)
// CHECK: %[[DQ:.*]] = recurrence.scan identity matrix factored_input(%[[V]], %[[K]] : {{.*}}) init(%[[H0T]] : tensor<2x16x8xf32>) readout(%[[YBAR]] : {{.*}}) -> tensor<2x64x8xf32>
// CHECK-NOT: x64x8x16x
// CHECK: return %[[DK]], %[[DV]], %[[DQ]], %[[DH0]]

// BUFFERS-LABEL: func.func @attention_grad(
// BUFFERS-NOT: memref<2x64x8x16xf32>
// BUFFERS-NOT: memref<2x65x8x16xf32>
// BUFFERS: return
func.func @attention(%k: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %q: tensor<2x64x8xf32>, %h0: tensor<2x8x16xf32>) -> (tensor<2x64x16xf32>, tensor<2x8x16xf32>) {
  %y_dest = tensor.empty() : tensor<2x64x16xf32>
  %last_dest = tensor.empty() : tensor<2x8x16xf32>
  %y, %last = recurrence.scan identity matrix factored_input(%k, %v : tensor<2x64x8xf32>, tensor<2x64x16xf32>) init(%h0 : tensor<2x8x16xf32>) readout(%q : tensor<2x64x8xf32>) outs(%y_dest, %last_dest : tensor<2x64x16xf32>, tensor<2x8x16xf32>) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>
  return %y, %last : tensor<2x64x16xf32>, tensor<2x8x16xf32>
}

// The selective SSM's scan (a per-element diagonal transition on a matrix
// state, factored input, readout c_t): the cotangents of its states,
// G_t = c_t ybar_t^T, reach the reverse scan as its factored input; only
// the last step's product mu_T = c_T ybar_T^T is built, and no [T, N, D]
// tensor of G.
// CHECK-LABEL: func.func @selective_grad(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x64x8x16xf32>, %[[K:[^:]*]]: tensor<2x64x8xf32>, %[[V:[^:]*]]: tensor<2x64x16xf32>, %[[C:[^:]*]]: tensor<2x64x8xf32>, %[[YBAR:[^:]*]]: tensor<2x64x16xf32>)
// CHECK: %[[CLAST:.*]] = tensor.extract_slice %[[C]][0, 63, 0] [2, 1, 8]
// CHECK: %[[YLAST:.*]] = tensor.extract_slice %[[YBAR]][0, 63, 0] [2, 1, 16]
// CHECK: linalg.generic {{.*}} ins(%[[CLAST]], %[[YLAST]] : tensor<2x1x8xf32>, tensor<2x1x16xf32>) outs(%{{.*}} : tensor<2x1x8x16xf32>)
// CHECK: %[[CS:.*]] = tensor.extract_slice %[[C]][0, 0, 0] [2, 63, 8]
// CHECK: %[[YS:.*]] = tensor.extract_slice %[[YBAR]][0, 0, 0] [2, 63, 16]
// CHECK: recurrence.scan diagonal matrix reverse transition(%{{.*}} : tensor<2x63x8x16xf32>) factored_input(%[[CS]], %[[YS]] : tensor<2x63x8xf32>, tensor<2x63x16xf32>) init(
// CHECK: return
func.func @selective(%a: tensor<2x64x8x16xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %c: tensor<2x64x8xf32>) -> tensor<2x64x16xf32> {
  %y_dest = tensor.empty() : tensor<2x64x16xf32>
  %y = recurrence.scan diagonal matrix transition(%a : tensor<2x64x8x16xf32>) factored_input(%k, %v : tensor<2x64x8xf32>, tensor<2x64x16xf32>) readout(%c : tensor<2x64x8xf32>) outs(%y_dest : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}
