// RUN: recurrence-opt %s -split-input-file -recurrence-sink-materialize-into-branches | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-sink-materialize-into-branches -eliminate-empty-tensors -empty-tensor-to-alloc-tensor -one-shot-bufferize=bufferize-function-boundaries -canonicalize -cse -canonicalize | FileCheck %s --check-prefix=BUFFERS

// Both results of a schedule dispatch are written into the caller's buffers
// in each branch; a pure op between the scf.if and the writes stays.
// CHECK-LABEL: func.func @dispatch
// CHECK: scf.if %{{.*}} {
// CHECK: %[[X:.*]] = linalg.fill ins(%{{.*}}) outs(%[[E:.*]] :
// CHECK: %[[S:.*]] = linalg.fill ins(%{{.*}}) outs(%{{.*}} :
// CHECK: bufferization.materialize_in_destination %[[X]] in restrict writable %arg2
// CHECK: bufferization.materialize_in_destination %[[S]] in restrict writable %arg3
// CHECK: } else {
// CHECK: %[[Y:.*]] = linalg.fill ins(%{{.*}}) outs(%[[E]] :
// CHECK: bufferization.materialize_in_destination %[[Y]] in restrict writable %arg2
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %arg3
// CHECK-NEXT: }
// CHECK-NEXT: arith.addi
// CHECK-NEXT: return
// Each branch then writes the caller's buffers themselves: no temporary and
// no copy.
// BUFFERS-LABEL: func.func @dispatch
// BUFFERS-NOT: memref.alloc
// BUFFERS-NOT: memref.copy
// BUFFERS: scf.if
// BUFFERS: linalg.fill ins(%{{.*}}) outs(%arg2
// BUFFERS: linalg.fill ins(%{{.*}}) outs(%arg3
// BUFFERS: } else {
// BUFFERS: linalg.fill ins(%{{.*}}) outs(%arg2
// BUFFERS: linalg.fill ins(%{{.*}}) outs(%arg3
// BUFFERS-NOT: memref.copy
// BUFFERS: return
func.func @dispatch(%c: i1, %n: index, %o: memref<?xf32>, %s: memref<4xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %es = tensor.empty() : tensor<4xf32>
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %r:2 = scf.if %c -> (tensor<?xf32>, tensor<4xf32>) {
    %x = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %xs = linalg.fill ins(%one : f32) outs(%es : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %x, %xs : tensor<?xf32>, tensor<4xf32>
  } else {
    %y = linalg.fill ins(%two : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %ys = linalg.fill ins(%two : f32) outs(%es : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y, %ys : tensor<?xf32>, tensor<4xf32>
  }
  %m = arith.addi %n, %n : index
  bufferization.materialize_in_destination %r#0 in restrict writable %o : (tensor<?xf32>, memref<?xf32>) -> ()
  bufferization.materialize_in_destination %r#1 in restrict writable %s : (tensor<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// A write to memory between the scf.if and the result's write: the result
// stays where it is.
// CHECK-LABEL: func.func @effect_between
// CHECK: %[[R:.*]] = scf.if
// CHECK: memref.store
// CHECK: bufferization.materialize_in_destination %[[R]] in
func.func @effect_between(%c: i1, %n: index, %o: memref<?xf32>, %p: memref<1xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0 : index
  %r = scf.if %c -> tensor<?xf32> {
    %x = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %x : tensor<?xf32>
  } else {
    scf.yield %e : tensor<?xf32>
  }
  memref.store %one, %p[%zero] : memref<1xf32>
  bufferization.materialize_in_destination %r in restrict writable %o : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

// A result with another use, and a result written into a tensor: both stay.
// CHECK-LABEL: func.func @other_uses
// CHECK: %[[R:.*]] = scf.if
// CHECK: bufferization.materialize_in_destination %[[R]] in
// CHECK: return %[[R]]
// CHECK-LABEL: func.func @into_tensor
// CHECK: %[[T:.*]] = scf.if
// CHECK: bufferization.materialize_in_destination %[[T]] in %arg2 : (tensor<?xf32>, tensor<?xf32>)
func.func @other_uses(%c: i1, %n: index, %o: memref<?xf32>) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %r = scf.if %c -> tensor<?xf32> {
    %x = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %x : tensor<?xf32>
  } else {
    scf.yield %e : tensor<?xf32>
  }
  bufferization.materialize_in_destination %r in restrict writable %o : (tensor<?xf32>, memref<?xf32>) -> ()
  return %r : tensor<?xf32>
}
func.func @into_tensor(%c: i1, %n: index, %t: tensor<?xf32>) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %r = scf.if %c -> tensor<?xf32> {
    %x = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %x : tensor<?xf32>
  } else {
    scf.yield %e : tensor<?xf32>
  }
  %w = bufferization.materialize_in_destination %r in %t : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %w : tensor<?xf32>
}

// -----

// The writes keep their order in each branch (without restrict the two
// buffers may alias, and the later write wins).
// CHECK-LABEL: func.func @order
// CHECK: scf.if
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %arg3
// CHECK-NEXT: bufferization.materialize_in_destination %{{.*}} in writable %arg2
// CHECK: } else {
// CHECK: bufferization.materialize_in_destination %{{.*}} in writable %arg3
// CHECK-NEXT: bufferization.materialize_in_destination %{{.*}} in writable %arg2
func.func @order(%c: i1, %n: index, %o: memref<?xf32>, %p: memref<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %r:2 = scf.if %c -> (tensor<?xf32>, tensor<?xf32>) {
    %x = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %x, %x : tensor<?xf32>, tensor<?xf32>
  } else {
    %y = linalg.fill ins(%two : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %y, %y : tensor<?xf32>, tensor<?xf32>
  }
  bufferization.materialize_in_destination %r#1 in writable %p : (tensor<?xf32>, memref<?xf32>) -> ()
  bufferization.materialize_in_destination %r#0 in writable %o : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

// A result inserted into a larger tensor that exists before the scf.if
// (the adjoint's states after their first step): each branch inserts its
// own value and yields the larger tensor, so that each computes in place.
// An insert whose bounds are computed after the scf.if stays outside.
// CHECK-LABEL: func.func @insert
// CHECK: %[[BIG:.*]] = tensor.empty(%arg2) : tensor<?xf32>
// CHECK: %[[R:.*]]:2 = scf.if %{{.*}} -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK: %[[X:.*]] = linalg.fill
// CHECK: %[[X2:.*]] = linalg.fill
// CHECK: %[[XI:.*]] = tensor.insert_slice %[[X]] into %[[BIG]][1] [%arg1] [1]
// CHECK: scf.yield %[[XI]], %[[X2]]
// CHECK: } else {
// CHECK: %[[Y:.*]] = linalg.fill
// CHECK: %[[Y2:.*]] = linalg.fill
// CHECK: %[[YI:.*]] = tensor.insert_slice %[[Y]] into %[[BIG]][1] [%arg1] [1]
// CHECK: scf.yield %[[YI]], %[[Y2]]
// CHECK: %[[AT:.*]] = arith.addi %arg1, %arg1
// CHECK: tensor.insert_slice %[[R]]#1 into %{{.*}}[%[[AT]]] [%arg1] [1]
// CHECK: return %[[R]]#0
// Bufferized, each branch fills its part of the larger buffer itself.
// BUFFERS-LABEL: func.func @insert
// BUFFERS: %[[B:.*]] = memref.alloc(%arg2)
// BUFFERS: scf.if
// BUFFERS-NOT: memref.copy
// BUFFERS: linalg.fill ins(%{{.*}}) outs(%[[S:.*]] : memref<?xf32, strided<[1], offset: 1>>)
// BUFFERS-NOT: memref.copy
// BUFFERS: } else {
// BUFFERS-NOT: memref.copy
// BUFFERS: linalg.fill ins(%{{.*}}) outs(%{{.*}} : memref<?xf32, strided<[1], offset: 1>>)
// BUFFERS-NOT: memref.copy
// BUFFERS: }
// BUFFERS: return %[[B]],
func.func @insert(%c: i1, %n: index, %m: index) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %big = tensor.empty(%m) : tensor<?xf32>
  %other = tensor.empty(%m) : tensor<?xf32>
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %r:2 = scf.if %c -> (tensor<?xf32>, tensor<?xf32>) {
    %x = linalg.fill ins(%one : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %x2 = linalg.fill ins(%one : f32) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %x, %x2 : tensor<?xf32>, tensor<?xf32>
  } else {
    %y = linalg.fill ins(%two : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
    %y2 = linalg.fill ins(%two : f32) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
    scf.yield %y, %y2 : tensor<?xf32>, tensor<?xf32>
  }
  %i = tensor.insert_slice %r#0 into %big[1] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  %at = arith.addi %n, %n : index
  %j = tensor.insert_slice %r#1 into %other[%at] [%n] [1] : tensor<?xf32> into tensor<?xf32>
  return %i, %j : tensor<?xf32>, tensor<?xf32>
}

// -----

// A collapsed result (an adjoint's gradient in its canonical form with a
// unit column) is written by writing the tensor it collapses into the buffer
// expanded alike, made right after the buffer; that tensor's empty
// destination then becomes the buffer: no temporary, no copy. Through an
// scf.if too, whose result then gets its writes sunk into the branches.
// CHECK-LABEL: func.func @collapsed
// CHECK-SAME: %[[C:[a-z0-9]+]]: i1, %{{[a-z0-9]+}}: index, %[[O:[a-z0-9]+]]: memref<?x4xf32>)
// CHECK: %[[E:.*]] = memref.expand_shape %[[O]] {{\[\[}}0], [1, 2]] output_shape [%{{.*}}, 4, 1] : memref<?x4xf32> into memref<?x4x1xf32>
// CHECK: scf.if %[[C]] {
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[E]] : (tensor<?x4x1xf32>, memref<?x4x1xf32>)
// CHECK: } else {
// CHECK: bufferization.materialize_in_destination %{{.*}} in restrict writable %[[E]] : (tensor<?x4x1xf32>, memref<?x4x1xf32>)
// CHECK-NOT: tensor.collapse_shape
// BUFFERS-LABEL: func.func @collapsed
// BUFFERS-NOT: memref.alloc
// BUFFERS-NOT: memref.copy
// BUFFERS: return
func.func @collapsed(%c: i1, %n: index, %o: memref<?x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = scf.if %c -> (tensor<?x4x1xf32>) {
    %e = tensor.empty(%n) : tensor<?x4x1xf32>
    %x = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4x1xf32>) -> tensor<?x4x1xf32>
    scf.yield %x : tensor<?x4x1xf32>
  } else {
    %e = tensor.empty(%n) : tensor<?x4x1xf32>
    %y = linalg.fill ins(%one : f32) outs(%e : tensor<?x4x1xf32>) -> tensor<?x4x1xf32>
    scf.yield %y : tensor<?x4x1xf32>
  }
  %flat = tensor.collapse_shape %r [[0], [1, 2]] : tensor<?x4x1xf32> into tensor<?x4xf32>
  bufferization.materialize_in_destination %flat in restrict writable %o : (tensor<?x4xf32>, memref<?x4xf32>) -> ()
  return
}
