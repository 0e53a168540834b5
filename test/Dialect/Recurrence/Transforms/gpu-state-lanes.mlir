// RUN: recurrence-opt %s -split-input-file -recurrence-gpu-state-lanes -canonicalize -cse | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-to-nvvm | FileCheck %s --check-prefix=PTX
// RUN: recurrence-opt %s -split-input-file -recurrence-to-nvvm=state-lanes=0 | FileCheck %s --check-prefix=OFF
// RUN: recurrence-opt %s -split-input-file -recurrence-gpu-state-lanes | FileCheck %s --check-prefix=RAW

// The selective SSM's scan on the caller's buffers (its gates exp(delta A)
// and inputs delta x computed by elementwise ops): a lane per state of each
// column, 3 x 12 columns of 8 states, 288 lanes in 9 whole warps. Lane g
// holds h[g mod 8, d] of column g / 8 = (b, d); it computes its gate and
// input from delta, A, B and x where it reads them (A[d, n] once, before
// its steps), and the column's 8 lanes add c_t[n] h_t[n, d] by a butterfly
// of xor shuffles (4, 2, 1); the first writes y_t[d], each its final
// state.
// CHECK-LABEL: func.func @ssm
// CHECK-NOT: recurrence.scan
// CHECK-NOT: linalg.
// CHECK: scf.parallel (%[[G:.*]]) = (%c0) to (%c288) step (%c1)
// CHECK-NEXT: %[[N:.*]] = arith.remui %[[G]], %c8
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[N]], %c0
// CHECK-NEXT: %[[COLUMN:.*]] = arith.divui %[[G]], %c8
// CHECK-NEXT: %[[ROW:.*]] = arith.minui %[[COLUMN]], %c35
// CHECK-NEXT: %[[BD:.*]]:2 = affine.delinearize_index %[[ROW]] into (3, 12)
// CHECK-NEXT: %[[H0:.*]] = memref.load %arg5[%[[BD]]#0, %[[N]], %[[BD]]#1]
// CHECK-NEXT: %[[A:.*]] = memref.load %arg2[%[[BD]]#1, %[[N]]]
// CHECK-NEXT: %[[END:.*]] = scf.for %[[T:.*]] = %c0 to %c5 step %c1 iter_args(%[[H:.*]] = %[[H0]]) -> (f32)
// CHECK-NEXT: %[[DELTA:.*]] = memref.load %arg1[%[[BD]]#0, %[[T]], %[[BD]]#1]
// CHECK-NEXT: %[[DA:.*]] = arith.mulf %[[DELTA]], %[[A]]
// CHECK-NEXT: %[[GATE:.*]] = math.exp %[[DA]]
// CHECK-NEXT: %[[KEY:.*]] = memref.load %arg3[%[[BD]]#0, %[[T]], %[[N]]]
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[BD]]#0, %[[T]], %[[BD]]#1]
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[DELTA]], %[[X]]
// CHECK-NEXT: %[[IN:.*]] = arith.mulf %[[KEY]], %[[U]] fastmath<contract>
// CHECK-NEXT: %[[DECAYED:.*]] = arith.mulf %[[GATE]], %[[H]] fastmath<contract>
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[DECAYED]], %[[IN]] fastmath<contract>
// CHECK-NEXT: %[[C:.*]] = memref.load %arg4[%[[BD]]#0, %[[T]], %[[N]]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[C]], %[[NEW]]
// CHECK-NEXT: %[[O4:.*]], %{{.*}} = gpu.shuffle  xor %[[P]], %c4_i32, %c32_i32
// CHECK-NEXT: %[[S4:.*]] = arith.addf %[[P]], %[[O4]]
// CHECK-NEXT: %[[O2:.*]], %{{.*}} = gpu.shuffle  xor %[[S4]], %c2_i32, %c32_i32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S4]], %[[O2]]
// CHECK-NEXT: %[[O1:.*]], %{{.*}} = gpu.shuffle  xor %[[S2]], %c1_i32, %c32_i32
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[S2]], %[[O1]]
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[Y]], %arg6[%[[BD]]#0, %[[T]], %[[BD]]#1]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[NEW]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[END]], %arg7[%[[BD]]#0, %[[N]], %[[BD]]#1]
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: } {recurrence.warp_lanes}
// CHECK-NEXT: return

// One kernel of 288 threads, its lanes adding by shfl.sync.bfly.
// PTX-LABEL: llvm.func @ssm(
// PTX-COUNT-1: gpu.launch_func
// PTX-NOT: gpu.launch_func
// PTX: gpu.binary @ssm_kernel
// PTX-SAME: shfl.sync.bfly.b32

// With state-lanes=0: a thread per column, no shuffle.
// OFF-LABEL: llvm.func @ssm(
// OFF-NOT: shfl.sync
// OFF: // -----
#bt = affine_map<(b, t, n, d) -> (b, t, d)>
#dn = affine_map<(b, t, n, d) -> (d, n)>
#id = affine_map<(b, t, n, d) -> (b, t, n, d)>
func.func @ssm(%x: memref<3x5x12xf32>, %delta: memref<3x5x12xf32>,
               %A: memref<12x8xf32>, %B: memref<3x5x8xf32>,
               %C: memref<3x5x8xf32>, %h0: memref<3x8x12xf32>,
               %y: memref<3x5x12xf32>, %last: memref<3x8x12xf32>) {
  %xt = bufferization.to_tensor %x restrict : memref<3x5x12xf32> to tensor<3x5x12xf32>
  %dt = bufferization.to_tensor %delta restrict : memref<3x5x12xf32> to tensor<3x5x12xf32>
  %At = bufferization.to_tensor %A restrict : memref<12x8xf32> to tensor<12x8xf32>
  %Bt = bufferization.to_tensor %B restrict : memref<3x5x8xf32> to tensor<3x5x8xf32>
  %Ct = bufferization.to_tensor %C restrict : memref<3x5x8xf32> to tensor<3x5x8xf32>
  %h0t = bufferization.to_tensor %h0 restrict : memref<3x8x12xf32> to tensor<3x8x12xf32>
  %e = tensor.empty() : tensor<3x5x8x12xf32>
  %gates = linalg.generic {indexing_maps = [#bt, #dn, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%dt, %At : tensor<3x5x12xf32>, tensor<12x8xf32>) outs(%e : tensor<3x5x8x12xf32>) {
  ^bb0(%in: f32, %a: f32, %out: f32):
    %p = arith.mulf %in, %a : f32
    %g = math.exp %p : f32
    linalg.yield %g : f32
  } -> tensor<3x5x8x12xf32>
  %ue = tensor.empty() : tensor<3x5x12xf32>
  %u = linalg.mul ins(%dt, %xt : tensor<3x5x12xf32>, tensor<3x5x12xf32>) outs(%ue : tensor<3x5x12xf32>) -> tensor<3x5x12xf32>
  %y_dest = tensor.empty() : tensor<3x5x12xf32>
  %l_dest = tensor.empty() : tensor<3x8x12xf32>
  %yt, %lt = recurrence.scan diagonal schedule sequential matrix transition(%gates : tensor<3x5x8x12xf32>) factored_input(%Bt, %u : tensor<3x5x8xf32>, tensor<3x5x12xf32>) init(%h0t : tensor<3x8x12xf32>) readout(%Ct : tensor<3x5x8xf32>) outs(%y_dest, %l_dest : tensor<3x5x12xf32>, tensor<3x8x12xf32>) -> tensor<3x5x12xf32>, tensor<3x8x12xf32>
  bufferization.materialize_in_destination %yt in restrict writable %y : (tensor<3x5x12xf32>, memref<3x5x12xf32>) -> ()
  bufferization.materialize_in_destination %lt in restrict writable %last : (tensor<3x8x12xf32>, memref<3x8x12xf32>) -> ()
  return
}

// -----

// The delta rule's dplr<1> (d = 1, U = -beta k, V = k, as [..., 64, 1]
// views) on a [64, 3] state per batch element, its readout q read a step
// ahead (a slice): a warp per column, 2 x 3 columns, 192 lanes; lane l
// holds states l and l + 32. Each step first adds w = sum_n k[n] h[n] over
// the warp (its two products, then 5 xor shuffles), then updates both
// states as h + k[n] v[d] - beta k[n] w (the ones fold away), then adds
// q[n] h[n] over the warp for y_t[d]; each lane writes its two final
// states.
// CHECK: #map = affine_map<(d0) -> (d0 + 1)>
// CHECK-LABEL: func.func @delta
// CHECK-NOT: recurrence.scan
// CHECK: scf.parallel (%[[G:.*]]) = (%c0) to (%c192) step (%c1)
// CHECK-NEXT: %[[L:.*]] = arith.remui %[[G]], %c32
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[L]], %c0
// CHECK: %[[BD:.*]]:2 = affine.delinearize_index %{{.*}} into (2, 3)
// CHECK-NEXT: %[[L2:.*]] = arith.addi %[[L]], %c32
// CHECK-NEXT: %[[H0:.*]] = memref.load %arg4[%[[BD]]#0, %[[L]], %[[BD]]#1]
// CHECK-NEXT: %[[H1:.*]] = memref.load %arg4[%[[BD]]#0, %[[L2]], %[[BD]]#1]
// CHECK-NEXT: %[[END:.*]]:2 = scf.for %[[T:.*]] = %c0 to %c6 step %c1 iter_args(%[[A:.*]] = %[[H0]], %[[B:.*]] = %[[H1]]) -> (f32, f32)
// CHECK-NEXT: %[[K0:.*]] = memref.load %arg0[%[[BD]]#0, %[[T]], %[[L]]]
// CHECK-NEXT: %[[K1:.*]] = memref.load %arg0[%[[BD]]#0, %[[T]], %[[L2]]]
// CHECK-NEXT: %[[P0:.*]] = arith.mulf %[[K0]], %[[A]]
// CHECK-NEXT: %[[P1:.*]] = arith.mulf %[[K1]], %[[B]] fastmath<contract>
// CHECK-NEXT: %[[P:.*]] = arith.addf %[[P0]], %[[P1]] fastmath<contract>
// CHECK-NEXT: %[[O16:.*]], %{{.*}} = gpu.shuffle  xor %[[P]], %c16_i32, %c32_i32
// CHECK-NEXT: %[[S16:.*]] = arith.addf %[[P]], %[[O16]]
// CHECK-NEXT: %[[O8:.*]], %{{.*}} = gpu.shuffle  xor %[[S16]], %c8_i32, %c32_i32
// CHECK-NEXT: %[[S8:.*]] = arith.addf %[[S16]], %[[O8]]
// CHECK-NEXT: %[[O4:.*]], %{{.*}} = gpu.shuffle  xor %[[S8]], %c4_i32, %c32_i32
// CHECK-NEXT: %[[S4:.*]] = arith.addf %[[S8]], %[[O4]]
// CHECK-NEXT: %[[O2:.*]], %{{.*}} = gpu.shuffle  xor %[[S4]], %c2_i32, %c32_i32
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S4]], %[[O2]]
// CHECK-NEXT: %[[O1:.*]], %{{.*}} = gpu.shuffle  xor %[[S2]], %c1_i32, %c32_i32
// CHECK-NEXT: %[[W:.*]] = arith.addf %[[S2]], %[[O1]]
// CHECK-NEXT: %[[V:.*]] = memref.load %arg2[%[[BD]]#0, %[[T]], %[[BD]]#1]
// CHECK-NEXT: %[[X0:.*]] = arith.mulf %[[K0]], %[[V]] fastmath<contract>
// CHECK-NEXT: %[[BETA:.*]] = memref.load %arg1[%[[BD]]#0, %[[T]]]
// CHECK-NEXT: %[[BK:.*]] = arith.mulf %[[BETA]], %[[K0]]
// CHECK-NEXT: %[[U0:.*]] = arith.negf %[[BK]]
// CHECK-NEXT: %[[UW:.*]] = arith.mulf %[[U0]], %[[W]] fastmath<contract>
// CHECK-NEXT: %[[IN0:.*]] = arith.addf %[[X0]], %[[UW]] fastmath<contract>
// CHECK-NEXT: %[[NEW0:.*]] = arith.addf %[[A]], %[[IN0]] fastmath<contract>
// CHECK-NEXT: %[[X1:.*]] = arith.mulf %[[K1]], %[[V]] fastmath<contract>
// CHECK-NEXT: %[[BK1:.*]] = arith.mulf %[[BETA]], %[[K1]]
// CHECK-NEXT: %[[U1:.*]] = arith.negf %[[BK1]]
// CHECK-NEXT: %[[UW1:.*]] = arith.mulf %[[U1]], %[[W]] fastmath<contract>
// CHECK-NEXT: %[[IN1:.*]] = arith.addf %[[X1]], %[[UW1]] fastmath<contract>
// CHECK-NEXT: %[[NEW1:.*]] = arith.addf %[[B]], %[[IN1]] fastmath<contract>
// CHECK-NEXT: %[[NEXT:.*]] = affine.apply #map(%[[T]])
// CHECK-NEXT: %[[Q0:.*]] = memref.load %arg3[%[[BD]]#0, %[[NEXT]], %[[L]]]
// CHECK-NEXT: %[[Q1:.*]] = memref.load %arg3[%[[BD]]#0, %[[NEXT]], %[[L2]]]
// CHECK-NEXT: %[[R0:.*]] = arith.mulf %[[Q0]], %[[NEW0]]
// CHECK-NEXT: %[[R1:.*]] = arith.mulf %[[Q1]], %[[NEW1]] fastmath<contract>
// CHECK-NEXT: %[[R:.*]] = arith.addf %[[R0]], %[[R1]] fastmath<contract>
// CHECK-NEXT: gpu.shuffle  xor %[[R]], %c16_i32, %c32_i32
// CHECK-COUNT-4: gpu.shuffle  xor
// CHECK-NEXT: %[[Y:.*]] = arith.addf
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[Y]], %arg5[%[[BD]]#0, %[[T]], %[[BD]]#1]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[NEW0]], %[[NEW1]] : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[END]]#0, %arg6[%[[BD]]#0, %[[L]], %[[BD]]#1]
// CHECK-NEXT: memref.store %[[END]]#1, %arg6[%[[BD]]#0, %[[L2]], %[[BD]]#1]
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: } {recurrence.warp_lanes}

#bt = affine_map<(b, t, n) -> (b, t)>
#id = affine_map<(b, t, n) -> (b, t, n)>
func.func @delta(%k: memref<2x6x64xf32>, %beta: memref<2x6xf32>,
                 %v: memref<2x6x3xf32>, %q: memref<2x7x64xf32>,
                 %h0: memref<2x64x3xf32>,
                 %y: memref<2x6x3xf32>, %last: memref<2x64x3xf32>) {
  %kt = bufferization.to_tensor %k restrict : memref<2x6x64xf32> to tensor<2x6x64xf32>
  %bt = bufferization.to_tensor %beta restrict : memref<2x6xf32> to tensor<2x6xf32>
  %vt = bufferization.to_tensor %v restrict : memref<2x6x3xf32> to tensor<2x6x3xf32>
  %qt = bufferization.to_tensor %q restrict : memref<2x7x64xf32> to tensor<2x7x64xf32>
  %h0t = bufferization.to_tensor %h0 restrict : memref<2x64x3xf32> to tensor<2x64x3xf32>
  %e = tensor.empty() : tensor<2x6x64xf32>
  %ones = linalg.generic {indexing_maps = [#bt, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bt : tensor<2x6xf32>) outs(%e : tensor<2x6x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %one = arith.constant 1.0 : f32
    linalg.yield %one : f32
  } -> tensor<2x6x64xf32>
  %u = linalg.generic {indexing_maps = [#bt, #id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bt, %kt : tensor<2x6xf32>, tensor<2x6x64xf32>) outs(%e : tensor<2x6x64xf32>) {
  ^bb0(%b: f32, %kk: f32, %out: f32):
    %p = arith.mulf %b, %kk : f32
    %m = arith.negf %p : f32
    linalg.yield %m : f32
  } -> tensor<2x6x64xf32>
  %ue = tensor.expand_shape %u [[0], [1], [2, 3]] output_shape [2, 6, 64, 1] : tensor<2x6x64xf32> into tensor<2x6x64x1xf32>
  %ve = tensor.expand_shape %kt [[0], [1], [2, 3]] output_shape [2, 6, 64, 1] : tensor<2x6x64xf32> into tensor<2x6x64x1xf32>
  %qs = tensor.extract_slice %qt[0, 1, 0] [2, 6, 64] [1, 1, 1] : tensor<2x7x64xf32> to tensor<2x6x64xf32>
  %y_dest = tensor.empty() : tensor<2x6x3xf32>
  %l_dest = tensor.empty() : tensor<2x64x3xf32>
  %yt, %lt = recurrence.scan dplr<1> schedule sequential matrix transition(%ones, %ue, %ve : tensor<2x6x64xf32>, tensor<2x6x64x1xf32>, tensor<2x6x64x1xf32>) factored_input(%kt, %vt : tensor<2x6x64xf32>, tensor<2x6x3xf32>) init(%h0t : tensor<2x64x3xf32>) readout(%qs : tensor<2x6x64xf32>) outs(%y_dest, %l_dest : tensor<2x6x3xf32>, tensor<2x64x3xf32>) -> tensor<2x6x3xf32>, tensor<2x64x3xf32>
  bufferization.materialize_in_destination %yt in restrict writable %y : (tensor<2x6x3xf32>, memref<2x6x3xf32>) -> ()
  bufferization.materialize_in_destination %lt in restrict writable %last : (tensor<2x64x3xf32>, memref<2x64x3xf32>) -> ()
  return
}

// -----

// The states themselves, as a gradient reads them (dplr<1>, no readout, in
// reverse, its U and V read a step ahead through slices and [..., 8, 1]
// views): each lane stores its state every step into a buffer of the
// scan's own, each column's states contiguous ([..., T, D, N], so that a
// warp's stores are), which one transpose reads back as the result; the
// final state, unread, is not written. 3 x 2 columns of 8 lanes: 48 lanes
// of 64 write.
// CHECK: #map = affine_map<(d0) -> (d0 + 1)>
// CHECK-LABEL: func.func @adjoint_states
// CHECK: %[[STATES:.*]] = memref.alloc() : memref<3x5x2x8xf32>
// CHECK-NEXT: scf.parallel (%[[G:.*]]) = (%c0) to (%c64) step (%c1)
// CHECK-NEXT: %[[INSIDE:.*]] = arith.cmpi ult, %[[G]], %c48
// CHECK-NEXT: %[[N:.*]] = arith.remui %[[G]], %c8
// CHECK: %[[BD:.*]]:2 = affine.delinearize_index %{{.*}} into (3, 2)
// CHECK-NEXT: %[[H0:.*]] = memref.load %arg5[%[[BD]]#0, %[[N]], %[[BD]]#1]
// CHECK-NEXT: scf.for %[[S:.*]] = %c0 to %c5 step %c1 iter_args(%[[H:.*]] = %[[H0]]) -> (f32)
// CHECK-NEXT: %[[T:.*]] = arith.subi %c4, %[[S]]
// CHECK-NEXT: %[[T1:.*]] = affine.apply #map(%[[T]])
// CHECK-NEXT: %[[V:.*]] = memref.load %arg2[%[[BD]]#0, %[[T1]], %[[N]]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[V]], %[[H]]
// CHECK-COUNT-3: gpu.shuffle  xor
// CHECK-NEXT: %[[W:.*]] = arith.addf
// CHECK-NEXT: %[[D:.*]] = memref.load %arg0[%[[BD]]#0, %[[T]], %[[N]]]
// CHECK-NEXT: %[[K:.*]] = memref.load %arg3[%[[BD]]#0, %[[T]], %[[N]]]
// CHECK-NEXT: %[[VD:.*]] = memref.load %arg4[%[[BD]]#0, %[[T]], %[[BD]]#1]
// CHECK-NEXT: %[[KV:.*]] = arith.mulf %[[K]], %[[VD]] fastmath<contract>
// CHECK-NEXT: %[[U:.*]] = memref.load %arg1[%[[BD]]#0, %[[T1]], %[[N]]]
// CHECK-NEXT: %[[UW:.*]] = arith.mulf %[[U]], %[[W]] fastmath<contract>
// CHECK-NEXT: %[[IN:.*]] = arith.addf %[[KV]], %[[UW]] fastmath<contract>
// CHECK-NEXT: %[[DH:.*]] = arith.mulf %[[D]], %[[H]] fastmath<contract>
// CHECK-NEXT: %[[NEW:.*]] = arith.addf %[[DH]], %[[IN]] fastmath<contract>
// CHECK-NEXT: scf.if %[[INSIDE]] {
// CHECK-NEXT: memref.store %[[NEW]], %[[STATES]][%[[BD]]#0, %[[T]], %[[BD]]#1, %[[N]]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[NEW]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: } {recurrence.warp_lanes}
// CHECK-NEXT: %[[READ:.*]] = bufferization.to_tensor %[[STATES]] restrict :
// CHECK: %[[ORDERED:.*]] = linalg.transpose ins(%[[READ]] : tensor<3x5x2x8xf32>) outs(%{{.*}} : tensor<3x5x8x2xf32>) permutation = [0, 1, 3, 2]
// CHECK: linalg.generic {{.*}} ins(%[[ORDERED]] :

#id4 = affine_map<(b, t, n, d) -> (b, t, n, d)>
#btd = affine_map<(b, t, n, d) -> (b, t, d)>
func.func @adjoint_states(%d: memref<3x5x8xf32>, %u: memref<3x6x8xf32>,
                          %w: memref<3x6x8xf32>, %k: memref<3x5x8xf32>,
                          %v: memref<3x5x2xf32>, %h0: memref<3x8x2xf32>,
                          %out: memref<3x5x2xf32>) {
  %dt = bufferization.to_tensor %d restrict : memref<3x5x8xf32> to tensor<3x5x8xf32>
  %ut = bufferization.to_tensor %u restrict : memref<3x6x8xf32> to tensor<3x6x8xf32>
  %wt = bufferization.to_tensor %w restrict : memref<3x6x8xf32> to tensor<3x6x8xf32>
  %kt = bufferization.to_tensor %k restrict : memref<3x5x8xf32> to tensor<3x5x8xf32>
  %vt = bufferization.to_tensor %v restrict : memref<3x5x2xf32> to tensor<3x5x2xf32>
  %h0t = bufferization.to_tensor %h0 restrict : memref<3x8x2xf32> to tensor<3x8x2xf32>
  %us = tensor.extract_slice %ut[0, 1, 0] [3, 5, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<3x5x8xf32>
  %ws = tensor.extract_slice %wt[0, 1, 0] [3, 5, 8] [1, 1, 1] : tensor<3x6x8xf32> to tensor<3x5x8xf32>
  %ue = tensor.expand_shape %us [[0], [1], [2, 3]] output_shape [3, 5, 8, 1] : tensor<3x5x8xf32> into tensor<3x5x8x1xf32>
  %we = tensor.expand_shape %ws [[0], [1], [2, 3]] output_shape [3, 5, 8, 1] : tensor<3x5x8xf32> into tensor<3x5x8x1xf32>
  %s_dest = tensor.empty() : tensor<3x5x8x2xf32>
  %l_dest = tensor.empty() : tensor<3x8x2xf32>
  %st, %lt = recurrence.scan dplr<1> schedule sequential matrix reverse transition(%dt, %ue, %we : tensor<3x5x8xf32>, tensor<3x5x8x1xf32>, tensor<3x5x8x1xf32>) factored_input(%kt, %vt : tensor<3x5x8xf32>, tensor<3x5x2xf32>) init(%h0t : tensor<3x8x2xf32>) outs(%s_dest, %l_dest : tensor<3x5x8x2xf32>, tensor<3x8x2xf32>) -> tensor<3x5x8x2xf32>, tensor<3x8x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x5x2xf32>) -> tensor<3x5x2xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #btd], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
      ins(%st : tensor<3x5x8x2xf32>) outs(%z : tensor<3x5x2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<3x5x2xf32>
  bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<3x5x2xf32>, memref<3x5x2xf32>) -> ()
  return
}

// -----

// Only the final state read (the states unused): no buffer for the states
// and no store in the steps; each lane writes its final state into a buffer
// of the scan's own after them.
// CHECK-LABEL: func.func @final_state_only
// CHECK: %[[LAST:.*]] = memref.alloc() : memref<3x8x2xf32>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK-NOT: memref.store
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT: memref.store %{{.*}}, %[[LAST]]
// CHECK: %[[READ:.*]] = bufferization.to_tensor %[[LAST]] restrict :
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {{.*}} ins(%[[READ]] :
// The lowering itself makes no buffer for the states (before
// canonicalization, which would erase one that is only stored to).
// RAW-LABEL: func.func @final_state_only
// RAW-NOT: memref.alloc
// RAW: memref.alloc() : memref<3x8x2xf32>
// RAW-NOT: memref.alloc
// RAW: return

#id3 = affine_map<(b, n, d) -> (b, n, d)>
#bd = affine_map<(b, n, d) -> (b, d)>
func.func @final_state_only(%d: memref<3x5x8xf32>, %u: memref<3x5x8x1xf32>,
                            %w: memref<3x5x8x1xf32>, %k: memref<3x5x8xf32>,
                            %v: memref<3x5x2xf32>, %out: memref<3x2xf32>) {
  %dt = bufferization.to_tensor %d restrict : memref<3x5x8xf32> to tensor<3x5x8xf32>
  %ut = bufferization.to_tensor %u restrict : memref<3x5x8x1xf32> to tensor<3x5x8x1xf32>
  %wt = bufferization.to_tensor %w restrict : memref<3x5x8x1xf32> to tensor<3x5x8x1xf32>
  %kt = bufferization.to_tensor %k restrict : memref<3x5x8xf32> to tensor<3x5x8xf32>
  %vt = bufferization.to_tensor %v restrict : memref<3x5x2xf32> to tensor<3x5x2xf32>
  %s_dest = tensor.empty() : tensor<3x5x8x2xf32>
  %l_dest = tensor.empty() : tensor<3x8x2xf32>
  %st, %lt = recurrence.scan dplr<1> schedule sequential matrix transition(%dt, %ut, %wt : tensor<3x5x8xf32>, tensor<3x5x8x1xf32>, tensor<3x5x8x1xf32>) factored_input(%kt, %vt : tensor<3x5x8xf32>, tensor<3x5x2xf32>) outs(%s_dest, %l_dest : tensor<3x5x8x2xf32>, tensor<3x8x2xf32>) -> tensor<3x5x8x2xf32>, tensor<3x8x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #bd], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%lt : tensor<3x8x2xf32>) outs(%z : tensor<3x2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<3x2xf32>
  bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<3x2xf32>, memref<3x2xf32>) -> ()
  return
}

// -----

// A plain input, a transition per row (a_t[n], shared by a row's columns),
// bf16 operands with an f32 state, in reverse, no init: 2 x 5 columns of 4
// states, 40 lanes in 2 warps; lanes 40..63 run on copies of the last
// column and write nothing.
// CHECK-LABEL: func.func @reverse_plain
// CHECK: scf.parallel (%[[G:.*]]) = (%c0) to (%c64) step (%c1)
// CHECK-NEXT: %[[INSIDE:.*]] = arith.cmpi ult, %[[G]], %c40
// CHECK-NEXT: %[[N:.*]] = arith.remui %[[G]], %c4
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[N]], %c0
// CHECK-NEXT: %[[WRITES:.*]] = arith.andi %[[INSIDE]], %[[FIRST]]
// CHECK: %[[BD:.*]]:2 = affine.delinearize_index %{{.*}} into (2, 5)
// CHECK-NEXT: scf.for %[[S:.*]] = %c0 to %c6 step %c1 iter_args(%[[H:.*]] = %cst) -> (f32)
// CHECK-NEXT: %[[T:.*]] = arith.subi %c5, %[[S]]
// CHECK-NEXT: %[[A:.*]] = memref.load %arg0[%[[BD]]#0, %[[T]], %[[N]]]
// CHECK-NEXT: arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT: %[[X:.*]] = memref.load %arg1[%[[BD]]#0, %[[T]], %[[N]], %[[BD]]#1]
// CHECK: memref.load %arg2[%[[BD]]#0, %[[T]], %[[N]]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if %[[WRITES]] {
// CHECK-NEXT: %[[OUT:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK-NEXT: memref.store %[[OUT]], %arg3[%[[BD]]#0, %[[T]], %[[BD]]#1]
func.func @reverse_plain(%a: memref<2x6x4xbf16>, %x: memref<2x6x4x5xbf16>,
                         %c: memref<2x6x4xbf16>, %y: memref<2x6x5xbf16>) {
  %at = bufferization.to_tensor %a restrict : memref<2x6x4xbf16> to tensor<2x6x4xbf16>
  %xt = bufferization.to_tensor %x restrict : memref<2x6x4x5xbf16> to tensor<2x6x4x5xbf16>
  %ct = bufferization.to_tensor %c restrict : memref<2x6x4xbf16> to tensor<2x6x4xbf16>
  %y_dest = tensor.empty() : tensor<2x6x5xbf16>
  %yt = recurrence.scan diagonal schedule sequential matrix reverse accumulate(f32) transition(%at : tensor<2x6x4xbf16>) input(%xt : tensor<2x6x4x5xbf16>) readout(%ct : tensor<2x6x4xbf16>) outs(%y_dest : tensor<2x6x5xbf16>) -> tensor<2x6x5xbf16>
  bufferization.materialize_in_destination %yt in restrict writable %y : (tensor<2x6x5xbf16>, memref<2x6x5xbf16>) -> ()
  return
}

// -----

// Three states do not divide a warp: the scan is left to the thread per
// column.
// CHECK-LABEL: func.func @odd_states
// CHECK: recurrence.scan diagonal
func.func @odd_states(%a: memref<2x6x3x5xf32>, %x: memref<2x6x3x5xf32>,
                      %c: memref<2x6x3xf32>, %y: memref<2x6x5xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<2x6x3x5xf32> to tensor<2x6x3x5xf32>
  %xt = bufferization.to_tensor %x restrict : memref<2x6x3x5xf32> to tensor<2x6x3x5xf32>
  %ct = bufferization.to_tensor %c restrict : memref<2x6x3xf32> to tensor<2x6x3xf32>
  %y_dest = tensor.empty() : tensor<2x6x5xf32>
  %yt = recurrence.scan diagonal schedule sequential matrix transition(%at : tensor<2x6x3x5xf32>) input(%xt : tensor<2x6x3x5xf32>) readout(%ct : tensor<2x6x3xf32>) outs(%y_dest : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  bufferization.materialize_in_destination %yt in restrict writable %y : (tensor<2x6x5xf32>, memref<2x6x5xf32>) -> ()
  return
}

// -----

// Nor is a readout over states that a reduction produces (not element by
// element): the scan stays.
// CHECK-LABEL: func.func @reduced_operand
// CHECK: recurrence.scan diagonal
func.func @reduced_operand(%a: memref<2x6x4x5xf32>, %x: memref<2x6x4x5xf32>,
                           %c: memref<2x6x4x7xf32>, %y: memref<2x6x5xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<2x6x4x5xf32> to tensor<2x6x4x5xf32>
  %xt = bufferization.to_tensor %x restrict : memref<2x6x4x5xf32> to tensor<2x6x4x5xf32>
  %cw = bufferization.to_tensor %c restrict : memref<2x6x4x7xf32> to tensor<2x6x4x7xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x6x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x4xf32>) -> tensor<2x6x4xf32>
  %ct = linalg.reduce ins(%cw : tensor<2x6x4x7xf32>) outs(%z : tensor<2x6x4xf32>) dimensions = [3]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %y_dest = tensor.empty() : tensor<2x6x5xf32>
  %yt = recurrence.scan diagonal schedule sequential matrix transition(%at : tensor<2x6x4x5xf32>) input(%xt : tensor<2x6x4x5xf32>) readout(%ct : tensor<2x6x4xf32>) outs(%y_dest : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  bufferization.materialize_in_destination %yt in restrict writable %y : (tensor<2x6x5xf32>, memref<2x6x5xf32>) -> ()
  return
}

// -----

// Nor one that an op writes in another order than its loops (a transpose):
// the scan stays.
// CHECK-LABEL: func.func @transposed_operand
// CHECK: recurrence.scan diagonal
func.func @transposed_operand(%a: memref<2x6x4x5xf32>, %x: memref<2x6x4x5xf32>,
                              %c: memref<2x4x6xf32>, %y: memref<2x6x5xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<2x6x4x5xf32> to tensor<2x6x4x5xf32>
  %xt = bufferization.to_tensor %x restrict : memref<2x6x4x5xf32> to tensor<2x6x4x5xf32>
  %cn = bufferization.to_tensor %c restrict : memref<2x4x6xf32> to tensor<2x4x6xf32>
  %e = tensor.empty() : tensor<2x6x4xf32>
  %ct = linalg.generic {indexing_maps = [affine_map<(b, n, t) -> (b, n, t)>,
                                         affine_map<(b, n, t) -> (b, t, n)>],
                        iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%cn : tensor<2x4x6xf32>) outs(%e : tensor<2x6x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x6x4xf32>
  %y_dest = tensor.empty() : tensor<2x6x5xf32>
  %yt = recurrence.scan diagonal schedule sequential matrix transition(%at : tensor<2x6x4x5xf32>) input(%xt : tensor<2x6x4x5xf32>) readout(%ct : tensor<2x6x4xf32>) outs(%y_dest : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  bufferization.materialize_in_destination %yt in restrict writable %y : (tensor<2x6x5xf32>, memref<2x6x5xf32>) -> ()
  return
}

// -----

// A dplr state of 48 neither divides a warp nor fills whole warps, and a
// diagonal step without a readout splits into a thread per state by
// tiling: both scans stay.
// CHECK-LABEL: func.func @refused
// CHECK: recurrence.scan dplr<1>
// CHECK: recurrence.scan diagonal
func.func @refused(%d: memref<2x6x48xf32>, %u: memref<2x6x48x1xf32>,
                   %x: memref<2x6x48x5xf32>, %c: memref<2x6x48xf32>,
                   %a: memref<2x6x8xf32>, %xd: memref<2x6x8x5xf32>,
                   %y: memref<2x6x5xf32>, %h: memref<2x6x8x5xf32>) {
  %dt = bufferization.to_tensor %d restrict : memref<2x6x48xf32> to tensor<2x6x48xf32>
  %ut = bufferization.to_tensor %u restrict : memref<2x6x48x1xf32> to tensor<2x6x48x1xf32>
  %xt = bufferization.to_tensor %x restrict : memref<2x6x48x5xf32> to tensor<2x6x48x5xf32>
  %ct = bufferization.to_tensor %c restrict : memref<2x6x48xf32> to tensor<2x6x48xf32>
  %at = bufferization.to_tensor %a restrict : memref<2x6x8xf32> to tensor<2x6x8xf32>
  %xdt = bufferization.to_tensor %xd restrict : memref<2x6x8x5xf32> to tensor<2x6x8x5xf32>
  %y_dest = tensor.empty() : tensor<2x6x5xf32>
  %yt = recurrence.scan dplr<1> schedule sequential matrix transition(%dt, %ut, %ut : tensor<2x6x48xf32>, tensor<2x6x48x1xf32>, tensor<2x6x48x1xf32>) input(%xt : tensor<2x6x48x5xf32>) readout(%ct : tensor<2x6x48xf32>) outs(%y_dest : tensor<2x6x5xf32>) -> tensor<2x6x5xf32>
  bufferization.materialize_in_destination %yt in restrict writable %y : (tensor<2x6x5xf32>, memref<2x6x5xf32>) -> ()
  %h_dest = tensor.empty() : tensor<2x6x8x5xf32>
  %ht = recurrence.scan diagonal schedule sequential matrix transition(%at : tensor<2x6x8xf32>) input(%xdt : tensor<2x6x8x5xf32>) outs(%h_dest : tensor<2x6x8x5xf32>) -> tensor<2x6x8x5xf32>
  bufferization.materialize_in_destination %ht in restrict writable %h : (tensor<2x6x8x5xf32>, memref<2x6x8x5xf32>) -> ()
  return
}
