// -recurrence-differentiate: the gradient function of a function of scans.
// Its numbers are checked by python-bindings/tests/test_torch.py (gradcheck
// of every structure and variant) and test/Plugin/lru-rotation-grad.mlir;
// this file pins its form: the states recomputed by a forward scan, the
// adjoint scan of the same structure in reverse over T - 1 steps from mu_T
// (T + m steps for a state of depth m) with the transposed transitions read
// a step later (a view, not a padded copy), and the projections.
//
// RUN: recurrence-opt %s -recurrence-differentiate -canonicalize -cse | FileCheck %s
// RUN: recurrence-opt %s -recurrence-differentiate -recurrence-differentiate=functions=packed_grad | FileCheck %s --check-prefix=SECOND

// dplr: (diag(d) + U V^T)^T = diag(d) + V U^T, so U and V swap.
// CHECK-LABEL: func.func @dplr_grad(
// CHECK-SAME: %[[D:[a-z0-9]+]]: tensor<2x8x6xf32>, %[[U:[a-z0-9]+]]: tensor<2x8x6x2xf32>, %[[V:[a-z0-9]+]]: tensor<2x8x6x2xf32>, %[[B:[a-z0-9]+]]: tensor<2x8x6xf32>, %[[DH:[a-z0-9]+]]: tensor<2x8x6xf32>)
// CHECK-SAME: -> (tensor<2x8x6xf32>, tensor<2x8x6x2xf32>, tensor<2x8x6x2xf32>, tensor<2x8x6xf32>)
// CHECK: %[[H:.*]] = recurrence.scan dplr<2> matrix transition(%[[D]], %[[U]], %[[V]] :
// CHECK-SAME: -> tensor<2x8x6x1xf32>
// CHECK-DAG: %[[D1:.*]] = tensor.extract_slice %[[D]][0, 1, 0] [2, 7, 6] [1, 1, 1]
// CHECK-DAG: %[[V1:.*]] = tensor.extract_slice %[[V]][0, 1, 0, 0] [2, 7, 6, 2] [1, 1, 1, 1]
// CHECK-DAG: %[[U1:.*]] = tensor.extract_slice %[[U]][0, 1, 0, 0] [2, 7, 6, 2] [1, 1, 1, 1]
// CHECK: %[[MU:.*]], %{{.*}} = recurrence.scan dplr<2> matrix reverse transition(%[[D1]], %[[V1]], %[[U1]] :
// CHECK-SAME: init(
// CHECK-SAME: -> tensor<2x7x6x1xf32>, tensor<2x6x1xf32>
// CHECK: tensor.insert_slice %[[MU]] into %{{.*}}[0, 0, 0, 0] [2, 7, 6, 1]
func.func @dplr(%d: tensor<2x8x6xf32>, %u: tensor<2x8x6x2xf32>, %v: tensor<2x8x6x2xf32>, %b: tensor<2x8x6xf32>) -> tensor<2x8x6xf32> {
  %h_dest = tensor.empty() : tensor<2x8x6xf32>
  %h = recurrence.scan dplr<2> transition(%d, %u, %v : tensor<2x8x6xf32>, tensor<2x8x6x2xf32>, tensor<2x8x6x2xf32>) input(%b : tensor<2x8x6xf32>) outs(%h_dest : tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  return %h : tensor<2x8x6xf32>
}

// block_diagonal: each block transposed; the schedule carries over.
// CHECK-LABEL: func.func @blocks_grad(
// CHECK: recurrence.scan block_diagonal<3> schedule chunked<4> matrix transition(
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<4x7x2x3x3xf64>) outs(%{{.*}} : tensor<4x7x2x3x3xf64>) permutation = [0, 1, 2, 4, 3]
// CHECK: %[[P:.*]] = tensor.extract_slice %[[T]][0, 1, 0, 0, 0] [4, 6, 2, 3, 3] [1, 1, 1, 1, 1]
// CHECK: recurrence.scan block_diagonal<3> schedule chunked<4> matrix reverse transition(%[[P]] :
func.func @blocks(%a: tensor<4x7x2x3x3xf64>, %b: tensor<4x7x6x5xf64>) -> tensor<4x7x6x5xf64> {
  %h_dest = tensor.empty() : tensor<4x7x6x5xf64>
  %h = recurrence.scan block_diagonal<3> schedule chunked<4> matrix transition(%a : tensor<4x7x2x3x3xf64>) input(%b : tensor<4x7x6x5xf64>) outs(%h_dest : tensor<4x7x6x5xf64>) -> tensor<4x7x6x5xf64>
  return %h : tensor<4x7x6x5xf64>
}

// higher_order<2>: the adjoint runs over T + 2 steps; lag i of forward step
// s moves to step s + 1 - i.
// CHECK-LABEL: func.func @lags_grad(
// CHECK: %[[L0:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [3, 5, 1, 4] [1, 1, 1, 1]
// CHECK: %[[A0:.*]] = tensor.insert_slice %[[L0]] into %{{.*}}[0, 1, 0, 0] [3, 5, 1, 4] [1, 1, 1, 1] : tensor<3x5x1x4xf32> into tensor<3x7x2x4xf32>
// CHECK: %[[L1:.*]] = tensor.extract_slice %arg0[0, 0, 1, 0] [3, 5, 1, 4] [1, 1, 1, 1]
// CHECK: %[[A1:.*]] = tensor.insert_slice %[[L1]] into %[[A0]][0, 0, 1, 0] [3, 5, 1, 4] [1, 1, 1, 1]
// CHECK: recurrence.scan higher_order<2> matrix reverse transition(%[[A1]] : tensor<3x7x2x4xf32>)
// CHECK-SAME: -> tensor<3x7x4x1xf32>
func.func @lags(%a: tensor<3x5x2x4xf32>, %b: tensor<3x5x4xf32>, %h0: tensor<3x2x4xf32>) -> tensor<3x5x4xf32> {
  %h_dest = tensor.empty() : tensor<3x5x4xf32>
  %h = recurrence.scan higher_order<2> transition(%a : tensor<3x5x2x4xf32>) input(%b : tensor<3x5x4xf32>) init(%h0 : tensor<3x2x4xf32>) outs(%h_dest : tensor<3x5x4xf32>) -> tensor<3x5x4xf32>
  return %h : tensor<3x5x4xf32>
}

// Two results, no batch dims, reverse in time: the cotangents of the states
// and of the final state both enter the adjoint; the time flips are gathers.
// CHECK-LABEL: func.func @both_grad(
// CHECK-SAME: -> (tensor<9x4xf32>, tensor<9x4xf32>, tensor<4xf32>)
// CHECK: recurrence.scan diagonal matrix transition(
// CHECK-SAME: -> tensor<1x9x4x1xf32>
// CHECK: linalg.add
// CHECK: recurrence.scan diagonal matrix reverse transition(
// CHECK-SAME: -> tensor<1x8x4x1xf32>, tensor<1x4x1xf32>
// mu_0 = A_1^T mu_1, init's cotangent: one more step.
// CHECK: recurrence.scan diagonal matrix reverse transition(
// CHECK-SAME: -> tensor<1x1x4x1xf32>
func.func @both(%a: tensor<9x4xf32>, %b: tensor<9x4xf32>, %h0: tensor<4xf32>) -> (tensor<9x4xf32>, tensor<4xf32>) {
  %h_dest = tensor.empty() : tensor<9x4xf32>
  %last_dest = tensor.empty() : tensor<4xf32>
  %h, %last = recurrence.scan diagonal reverse transition(%a : tensor<9x4xf32>) input(%b : tensor<9x4xf32>) init(%h0 : tensor<4xf32>) outs(%h_dest, %last_dest : tensor<9x4xf32>, tensor<4xf32>) -> tensor<9x4xf32>, tensor<4xf32>
  return %h, %last : tensor<9x4xf32>, tensor<4xf32>
}

// An argument read by two scans gets the sum of both gradients; one no scan
// reads gets zeros.
// CHECK-LABEL: func.func @shared_grad(
// CHECK-SAME: -> (tensor<2x6x3xf32>, tensor<2x6x3xf32>, tensor<2x6x3xf32>, tensor<5xf32>)
// CHECK-COUNT-4: recurrence.scan
// CHECK: %[[SUM:.*]] = linalg.add ins(%{{.*}}, %{{.*}} : tensor<2x6x3xf32>, tensor<2x6x3xf32>)
// CHECK: %[[ZERO:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<5xf32>)
// CHECK: return %[[SUM]], %{{.*}}, %{{.*}}, %[[ZERO]]
func.func @shared(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>, %c: tensor<2x6x3xf32>, %unused: tensor<5xf32>) -> (tensor<2x6x3xf32>, tensor<2x6x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x6x3xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) outs(%h_dest : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  %g_dest = tensor.empty() : tensor<2x6x3xf32>
  %g = recurrence.scan diagonal reverse transition(%a : tensor<2x6x3xf32>) input(%c : tensor<2x6x3xf32>) outs(%g_dest : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h, %g : tensor<2x6x3xf32>, tensor<2x6x3xf32>
}

// A dynamic T: with no steps there is nothing to scan, and init's cotangent
// is the final state's; otherwise the adjoint starts from mu_T = G_T + F.
// CHECK-LABEL: func.func @dynamic_grad(
// CHECK-SAME: %{{.*}}: tensor<2x?x3xf32>, %{{.*}}: tensor<2x?x3xf32>, %{{.*}}: tensor<2x3xf32>, %{{.*}}: tensor<2x?x3xf32>, %[[F:.*]]: tensor<2x3xf32>)
// CHECK: %[[FC:.*]] = tensor.expand_shape %[[F]]
// CHECK: %[[T:.*]] = tensor.dim %{{.*}}, %c1 : tensor<2x?x3x1xf32>
// CHECK: recurrence.scan diagonal matrix transition(
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[T]], %c0 : index
// CHECK: scf.if %[[NONE]]
// CHECK: scf.yield %{{.*}}, %[[FC]]
// CHECK: } else {
// CHECK: %[[MUT:.*]] = linalg.add ins(%{{.*}}, %[[FC]] :
// CHECK: recurrence.scan diagonal matrix reverse transition(%{{.*}} : tensor<2x?x3xf32>) input(%{{.*}} : tensor<2x?x3x1xf32>) init(%[[MUT]] : tensor<2x3x1xf32>)
// The gate's gradient, mu_t h_{t-1} summed over the unit column: one
// product per element, written without a zero fill first.
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<2x?x3xf32>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E]] : tensor<2x?x3xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[P]] : f32
func.func @dynamic(%a: tensor<2x?x3xf32>, %b: tensor<2x?x3xf32>, %h0: tensor<2x3xf32>) -> (tensor<2x?x3xf32>, tensor<2x3xf32>) {
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %b, %c1 : tensor<2x?x3xf32>
  %h_dest = tensor.empty(%d0) : tensor<2x?x3xf32>
  %last_dest = tensor.empty() : tensor<2x3xf32>
  %h, %last = recurrence.scan diagonal transition(%a : tensor<2x?x3xf32>) input(%b : tensor<2x?x3xf32>) init(%h0 : tensor<2x3xf32>) outs(%h_dest, %last_dest : tensor<2x?x3xf32>, tensor<2x3xf32>) -> tensor<2x?x3xf32>, tensor<2x3xf32>
  return %h, %last : tensor<2x?x3xf32>, tensor<2x3xf32>
}

// A static single step: the adjoint scan over the T - 1 = 0 steps after the
// last one reads no transitions, an empty tensor (a slice at offset 1 of a
// 1-step dim is out of bounds for the verifier even when empty).
// CHECK-LABEL: func.func @single_step_grad(
// CHECK-NOT:     tensor.extract_slice {{.*}}[0, 1, 0] [2, 0, 4]
// CHECK:         return
func.func @single_step(%a: tensor<2x1x4xf32>, %b: tensor<2x1x4xf32>) -> tensor<2x1x4xf32> {
  %h_dest = tensor.empty() : tensor<2x1x4xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x1x4xf32>) input(%b : tensor<2x1x4xf32>) outs(%h_dest : tensor<2x1x4xf32>) -> tensor<2x1x4xf32>
  return %h : tensor<2x1x4xf32>
}

// Packed sequences: the states are recomputed by the packed scan from each
// sequence's init; the state each step read is step 0's init, then a
// select under the mask of first steps between views of the states one step
// behind and of each sequence's init at its every step (an identity scan
// of zeros from the inits), written into one tensor; the final
// states' cotangents F_s join at each sequence's last step the same way; mu
// is a reverse scan over the same (reversed) bounds with no init; dinit is
// A_t^T mu_t at every step (one step of the transposes, the [1, 6] states
// as a batch), kept at first steps and summed over each sequence (an
// identity scan's final states), F_s for an empty sequence. No gathers: the
// sweep differentiates this again (SECOND). The offsets get a zero
// gradient.
// CHECK-LABEL: func.func @packed_grad(
// CHECK:         %[[BOUNDS:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi64>)
// CHECK:         %[[FIRST:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<6xi8>)
// CHECK:         %[[LAST:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<6xi8>)
// CHECK:         %[[STATES:.+]] = recurrence.scan diagonal matrix transition({{.*}}) input({{.*}}) init(%[[INIT:.+]] : tensor<1x3x5x1xf32>) offsets(%[[BOUNDS]] : tensor<4xi64>)
// CHECK:         %[[INITS:.+]] = recurrence.scan identity matrix input(%[[ZEROS:.+]] : tensor<1x6x5x1xf32>) init(%[[INIT]] : tensor<1x3x5x1xf32>) offsets(%[[BOUNDS]] : tensor<4xi64>)
// CHECK:         %[[STEP0:.+]] = tensor.extract_slice %[[INITS]][0, 0, 0, 0] [1, 1, 5, 1]
// CHECK:         %[[HEAD:.+]] = tensor.insert_slice %[[STEP0]] into %{{.*}}[0, 0, 0, 0] [1, 1, 5, 1]
// CHECK:         %[[LATER:.+]] = tensor.extract_slice %[[FIRST]][1] [5] [1] : tensor<6xi8> to tensor<5xi8>
// CHECK:         %[[LATER_INITS:.+]] = tensor.extract_slice %[[INITS]][0, 1, 0, 0] [1, 5, 5, 1]
// CHECK:         %[[BEHIND:.+]] = tensor.extract_slice %[[STATES]][0, 0, 0, 0] [1, 5, 5, 1]
// CHECK:         %[[READ:.+]] = linalg.generic {{.*}} ins(%[[LATER]], %[[LATER_INITS]], %[[BEHIND]] : tensor<5xi8>, tensor<1x5x5x1xf32>, tensor<1x5x5x1xf32>)
// CHECK:         tensor.insert_slice %[[READ]] into %[[HEAD]][0, 1, 0, 0] [1, 5, 5, 1]
// CHECK:         recurrence.scan identity matrix reverse input(%[[ZEROS]] : tensor<1x6x5x1xf32>) init(%{{.*}} : tensor<1x3x5x1xf32>) offsets(%[[BOUNDS]] : tensor<4xi64>)
// CHECK:         %[[DIRECTS:.+]] = linalg.generic {{.*}} ins(%[[LAST]], %{{.*}}, %{{.*}} : tensor<6xi8>, tensor<1x6x5x1xf32>, tensor<1x6x5x1xf32>)
// CHECK:         %[[MU:.+]] = recurrence.scan diagonal matrix reverse transition({{.*}}) input(%[[DIRECTS]] : tensor<1x6x5x1xf32>) offsets(%[[BOUNDS]] : tensor<4xi64>)
// CHECK:         recurrence.scan diagonal matrix reverse transition(%{{.*}} : tensor<1x6x1x5xf32>) input(%{{.*}} : tensor<1x6x1x5x1xf32>) init(%[[MU]] : tensor<1x6x5x1xf32>)
// CHECK:         %[[KEPT:.+]] = linalg.generic {{.*}} ins(%[[FIRST]], {{.*}} : tensor<6xi8>, tensor<1x6x5x1xf32>, tensor<1x6x5x1xf32>)
// CHECK:         %{{.*}}, %[[SUMS:.+]] = recurrence.scan identity matrix reverse input(%[[KEPT]] : tensor<1x6x5x1xf32>) offsets(%[[BOUNDS]] : tensor<4xi64>)
// CHECK:         %[[NONEMPTY:.+]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xi8>)
// CHECK:         linalg.generic {{.*}} ins(%[[NONEMPTY]], %[[SUMS]], %{{.*}} : tensor<3xi8>, tensor<1x3x5x1xf32>, tensor<1x3x5x1xf32>)
// CHECK:         return {{.*}} : tensor<1x6x5xf32>, tensor<1x6x5xf32>, tensor<1x3x5xf32>, tensor<4xi64>
// The second order copies the first's 7 scans and adds the adjoints of
// each: at least 25 scans in all before the next function.
// SECOND-LABEL: func.func @packed_grad_grad(
// SECOND-SAME:    tensor<1x6x5xf32>, %{{.*}}: tensor<1x3x5xf32>, %{{.*}}: tensor<4xi64>) -> (
// SECOND-COUNT-25: recurrence.scan
// SECOND:         return
// SECOND-LABEL: func.func @no_steps(
func.func @packed(%a: tensor<1x6x5xf32>, %b: tensor<1x6x5xf32>, %h0: tensor<1x3x5xf32>, %o: tensor<4xi64>) -> (tensor<1x6x5xf32>, tensor<1x3x5xf32>) {
  %h_dest = tensor.empty() : tensor<1x6x5xf32>
  %f_dest = tensor.empty() : tensor<1x3x5xf32>
  %h, %f = recurrence.scan diagonal reverse transition(%a : tensor<1x6x5xf32>) input(%b : tensor<1x6x5xf32>) init(%h0 : tensor<1x3x5xf32>) offsets(%o : tensor<4xi64>) outs(%h_dest, %f_dest : tensor<1x6x5xf32>, tensor<1x3x5xf32>) -> tensor<1x6x5xf32>, tensor<1x3x5xf32>
  return %h, %f : tensor<1x6x5xf32>, tensor<1x3x5xf32>
}

// No steps at static sizes: the states one step behind are written after a
// zero first row, at offset 1 of a single row, which the verifier refuses
// even for an empty slice; the write is left out. Whole and packed.
// CHECK-LABEL: func.func @no_steps_grad(
// CHECK:         return {{.*}} : tensor<1x0x5xf32>, tensor<1x0x5xf32>, tensor<1x5xf32>
// CHECK-LABEL: func.func @packed_no_steps_grad(
// CHECK:         return {{.*}} : tensor<1x0x5xf32>, tensor<1x0x5xf32>, tensor<1x2x5xf32>, tensor<3xi64>
func.func @no_steps(%a: tensor<1x0x5xf32>, %b: tensor<1x0x5xf32>, %h0: tensor<1x5xf32>) -> (tensor<1x0x5xf32>, tensor<1x5xf32>) {
  %h_dest = tensor.empty() : tensor<1x0x5xf32>
  %f_dest = tensor.empty() : tensor<1x5xf32>
  %h, %f = recurrence.scan diagonal transition(%a : tensor<1x0x5xf32>) input(%b : tensor<1x0x5xf32>) init(%h0 : tensor<1x5xf32>) outs(%h_dest, %f_dest : tensor<1x0x5xf32>, tensor<1x5xf32>) -> tensor<1x0x5xf32>, tensor<1x5xf32>
  return %h, %f : tensor<1x0x5xf32>, tensor<1x5xf32>
}

func.func @packed_no_steps(%a: tensor<1x0x5xf32>, %b: tensor<1x0x5xf32>, %h0: tensor<1x2x5xf32>, %o: tensor<3xi64>) -> (tensor<1x0x5xf32>, tensor<1x2x5xf32>) {
  %h_dest = tensor.empty() : tensor<1x0x5xf32>
  %f_dest = tensor.empty() : tensor<1x2x5xf32>
  %h, %f = recurrence.scan diagonal transition(%a : tensor<1x0x5xf32>) input(%b : tensor<1x0x5xf32>) init(%h0 : tensor<1x2x5xf32>) offsets(%o : tensor<3xi64>) outs(%h_dest, %f_dest : tensor<1x0x5xf32>, tensor<1x2x5xf32>) -> tensor<1x0x5xf32>, tensor<1x2x5xf32>
  return %h, %f : tensor<1x0x5xf32>, tensor<1x2x5xf32>
}
