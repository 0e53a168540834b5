// With one-pass (and tile-channels), a chunked scan whose lane state and
// composite are small and static is one parallel loop over (batch, chunk,
// channel block). Beside the tensors: a status per lane and chunk (zeroed
// first), and per chunk its local end state e_c, its product P_c and its
// inclusive end state H_c. Each chunk runs its steps (e_c, P_c), writes and
// publishes them (status 1), walks back over the chunks before it while
// they have only their aggregate (waiting for a status, composing the
// suffix), takes init or the inclusive state where the walk stopped (by a
// select, not a branch), writes and publishes H_c (status 2), and runs its
// steps again from its start state to write the outputs. A scan whose lane
// state has a dynamic size (dense) keeps the three phases.
//
// RUN: recurrence-opt %s -recurrence-lower-chunked="tile-channels=1 one-pass=1" -canonicalize -cse | FileCheck %s
// RUN: recurrence-opt %s -recurrence-lower-chunked="tile-channels=0 one-pass=1" | FileCheck %s --check-prefix=UNTILED

// CHECK-LABEL: func.func @diagonal
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[AGGREGATE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG: %[[INCLUSIVE:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[STATUS:.*]] = memref.alloc({{.*}}) : memref<?x?x?xf32>
// CHECK: linalg.fill ins(%[[NONE]] : f32) outs(%[[STATUS]] : memref<?x?x?xf32>)
// CHECK: %[[ENDS:.*]] = memref.alloc({{.*}}) : memref<?x?x?x1x1xf32>
// CHECK: %[[HS:.*]] = memref.alloc({{.*}}) : memref<?x?x?x1x1xf32>
// CHECK: %[[PRODUCTS:.*]] = memref.alloc({{.*}}) : memref<?x?x?x1xf32>
// CHECK: scf.forall (%[[B:.*]], %[[C:.*]], %[[N:.*]]) in
// CHECK-NOT: scf.forall
// CHECK: %[[LOCAL:.*]]:2 = scf.for
// CHECK: } {recurrence.chunk_steps = 64 : index}
// CHECK: %[[E:.*]] = memref.subview %[[ENDS]][%[[B]], %[[N]], %[[C]], 0, 0]
// CHECK: bufferization.materialize_in_destination %[[LOCAL]]#0 in restrict writable %[[E]]
// CHECK: %[[P:.*]] = memref.subview %[[PRODUCTS]][%[[B]], %[[N]], %[[C]], 0]
// CHECK: bufferization.materialize_in_destination %[[LOCAL]]#1 in restrict writable %[[P]]
// CHECK: memref.atomic_rmw assign %[[AGGREGATE]], %[[STATUS]][%[[B]], %[[N]], %[[C]]]
// CHECK: %[[WALK:.*]]:3 = scf.while (%[[J1:.*]] = %[[C]], {{.*}}) : (index, tensor<1x1xf32>, tensor<1xf32>)
// CHECK:   scf.while : () -> f32 {
// CHECK:     %[[POLLED:.*]] = memref.atomic_rmw addf %[[NONE]], %[[STATUS]][%[[B]], %[[N]], %{{.*}}]
// CHECK:     %[[PENDING:.*]] = arith.cmpf oeq, %[[POLLED]], %[[NONE]]
// CHECK:     scf.condition(%[[PENDING]]) %[[POLLED]]
// CHECK:   arith.cmpf oeq, %{{.*}}, %[[AGGREGATE]]
// CHECK: } do {
// CHECK:   bufferization.to_tensor %{{.*}} restrict
// CHECK:   bufferization.to_tensor %{{.*}} restrict
// CHECK:   scf.yield
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[WALK]]#0, %{{.*}}
// CHECK: arith.select %[[FIRST]]
// CHECK: linalg.generic
// CHECK:   arith.select %[[FIRST]]
// CHECK: %[[H:.*]] = memref.subview %[[HS]][%[[B]], %[[N]], %[[C]], 0, 0]
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[H]]
// CHECK: memref.atomic_rmw assign %[[INCLUSIVE]], %[[STATUS]][%[[B]], %[[N]], %[[C]]]
// CHECK: scf.for
// CHECK: } {recurrence.chunk_steps = 64 : index}
// CHECK: scf.forall.in_parallel
// CHECK-NOT: scf.forall
// CHECK: return

// The final state: the last chunk's inclusive state per lane (init when
// there are no chunks), in a loop of its own after the pass.
// CHECK-LABEL: func.func @final_state
// CHECK: %[[K:.*]] = arith.divui
// CHECK: memref.alloc(%[[K]]) : memref<2x4x?xf32>
// CHECK: memref.alloc(%[[K]]) : memref<2x4x?x1x1xf32>
// CHECK: %[[INCL:.*]] = memref.alloc(%[[K]]) : memref<2x4x?x1x1xf32>
// CHECK: scf.forall
// CHECK: memref.atomic_rmw assign
// CHECK: scf.forall (%[[LB:.*]], %[[LN:.*]]) in (2, 4)
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[K]], %c0
// CHECK: scf.if %[[NONE]]
// CHECK: } else {
// CHECK: %[[LAST:.*]] = arith.subi %[[K]], %c1
// CHECK: memref.subview %[[INCL]][%[[LB]], %[[LN]], %[[LAST]], 0, 0]
// CHECK: bufferization.to_tensor
// CHECK: return

// With blocks the composition's order shows: stepping back over chunk j,
// s <- Q e_j + s and Q <- Q P_j (the suffix is the later factor).
// CHECK-LABEL: func.func @blocks
// CHECK: scf.condition(%{{.*}}) %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}} : index, tensor<2x1xf32>, tensor<1x2x2xf32>
// CHECK-NEXT: } do {
// CHECK-NEXT: ^bb0(%{{[^:]*}}: index, %[[S:[^:]*]]: tensor<2x1xf32>, %[[Q:[^:]*]]: tensor<1x2x2xf32>):
// CHECK: %[[EJ:.*]] = bufferization.to_tensor
// CHECK: %[[EJX:.*]] = tensor.expand_shape %[[EJ]]
// CHECK: %[[SX:.*]] = tensor.expand_shape %[[S]]
// CHECK: linalg.generic {{.*}} ins(%[[Q]], %[[EJX]] : {{.*}}) outs(%[[SX]] :
// CHECK: %[[PJ:.*]] = bufferization.to_tensor
// CHECK: %[[QP:.*]] = linalg.generic {{.*}} ins(%[[Q]], %[[PJ]] : {{.*}})
// CHECK: linalg.copy ins(%[[QP]] : {{.*}}) outs(%[[Q]] :

// CHECK-LABEL: func.func @dense
// CHECK-NOT: memref.atomic_rmw
// CHECK-COUNT-3: scf.forall
// CHECK: return

// UNTILED-LABEL: func.func @diagonal
// UNTILED-COUNT-3: scf.forall
// UNTILED-NOT: memref.atomic_rmw


func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

func.func @final_state(%a: tensor<2x?x4xf32>, %b: tensor<2x?x4xf32>, %h0: tensor<2x4xf32>) -> (tensor<2x?x4xf32>, tensor<2x4xf32>) {
  %c1 = arith.constant 1 : index
  %d3 = tensor.dim %b, %c1 : tensor<2x?x4xf32>
  %h_dest = tensor.empty(%d3) : tensor<2x?x4xf32>
  %last_dest = tensor.empty() : tensor<2x4xf32>
  %h, %last = recurrence.scan diagonal schedule chunked<16> reverse transition(%a : tensor<2x?x4xf32>) input(%b : tensor<2x?x4xf32>) init(%h0 : tensor<2x4xf32>) outs(%h_dest, %last_dest : tensor<2x?x4xf32>, tensor<2x4xf32>) -> tensor<2x?x4xf32>, tensor<2x4xf32>
  return %h, %last : tensor<2x?x4xf32>, tensor<2x4xf32>
}

func.func @blocks(%a: tensor<?x?x?x2x2xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d4 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d5 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d6 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d4, %d5, %d6) : tensor<?x?x?xf32>
  %h = recurrence.scan block_diagonal<2> schedule chunked<64> transition(%a : tensor<?x?x?x2x2xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

func.func @dense(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d7 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d8 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d9 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d7, %d8, %d9) : tensor<?x?x?xf32>
  %h = recurrence.scan dense schedule chunked<64> transition(%a : tensor<?x?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
