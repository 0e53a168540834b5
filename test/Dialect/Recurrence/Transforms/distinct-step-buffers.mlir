// RUN: recurrence-opt %s -split-input-file -recurrence-distinct-step-buffers | FileCheck %s

// A reverse scan's time loop on buffers: the output and the scratch state
// it writes are each stated apart from every other buffer it accesses;
// the two operands, only read, are not paired with each other. The loop
// uses the stated values.
// CHECK-LABEL: func.func @reverse_steps
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?x?xf32>,
// CHECK: %[[S:.*]] = memref.alloc
// CHECK: %[[D0:.*]]:2 = memref.distinct_objects %[[A]], %[[OUT]]
// CHECK: %[[D1:.*]]:2 = memref.distinct_objects %[[D0]]#0, %[[S]]
// CHECK: %[[D2:.*]]:2 = memref.distinct_objects %[[B]], %[[D0]]#1
// CHECK: %[[D3:.*]]:2 = memref.distinct_objects %[[D2]]#0, %[[D1]]#1
// CHECK: %[[D4:.*]]:2 = memref.distinct_objects %[[D2]]#1, %[[D3]]#1
// CHECK-NOT: memref.distinct_objects
// CHECK: scf.for
// CHECK: memref.subview %[[D1]]#0
// CHECK: memref.subview %[[D3]]#0
// CHECK: memref.subview %[[D4]]#0
// CHECK: linalg.generic {{.*}} outs(%[[D4]]#1, %{{.*}} :
// CHECK: } {recurrence.steps}
#id = affine_map<(d0) -> (d0)>
func.func @reverse_steps(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %out: memref<?x?xf32>, %t: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %last = arith.subi %t, %c1 : index
  %state = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %t step %c1 {
    %row = arith.subi %last, %i : index
    %ar = memref.subview %a[%row, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %br = memref.subview %b[%row, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    %hr = memref.subview %out[%row, 0] [1, %n] [1, 1] : memref<?x?xf32> to memref<?xf32, strided<[1], offset: ?>>
    linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%ar, %br : memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>) outs(%state, %hr : memref<?xf32>, memref<?xf32, strided<[1], offset: ?>>) {
    ^bb0(%x: f32, %y: f32, %h: f32, %o: f32):
      %m = arith.mulf %x, %h : f32
      %s = arith.addf %m, %y : f32
      linalg.yield %s, %s : f32, f32
    }
  } {recurrence.steps}
  memref.dealloc %state : memref<?xf32>
  return
}

// -----

// A chunked phase's loop over one chunk is a step loop too.
// CHECK-LABEL: func.func @chunk_steps
// CHECK: memref.distinct_objects
// CHECK: scf.for
// CHECK: } {recurrence.chunk_steps = 4 : index}
func.func @chunk_steps(%a: memref<?xf32>, %out: memref<?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %t step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %out[%i] : memref<?xf32>
  } {recurrence.chunk_steps = 4 : index}
  return
}

// -----

// Views of one buffer are not stated apart, however they are reached; nor
// is a loop that is not marked as a scan's steps.
// CHECK-LABEL: func.func @one_buffer
// CHECK-NOT: memref.distinct_objects
// CHECK-LABEL: func.func @unmarked
// CHECK-NOT: memref.distinct_objects
func.func @one_buffer(%h: memref<?x?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %prev = memref.subview %h[0, 0] [%t, 4] [1, 1] : memref<?x?xf32> to memref<?x4xf32, strided<[?, 1]>>
  %next = memref.subview %h[1, 0] [%t, 4] [1, 1] : memref<?x?xf32> to memref<?x4xf32, strided<[?, 1], offset: ?>>
  scf.for %i = %c0 to %t step %c1 {
    %x = memref.load %prev[%i, %c0] : memref<?x4xf32, strided<[?, 1]>>
    memref.store %x, %next[%i, %c0] : memref<?x4xf32, strided<[?, 1], offset: ?>>
  } {recurrence.steps}
  return
}
func.func @unmarked(%a: memref<?xf32>, %out: memref<?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %t step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// A loop that writes a buffer its value does not identify (either of two
// arguments) is left as it is: that buffer may be any of them.
// CHECK-LABEL: func.func @unknown_write
// CHECK-NOT: memref.distinct_objects
func.func @unknown_write(%a: memref<?xf32>, %p: memref<?xf32>, %q: memref<?xf32>, %c: i1, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %out = arith.select %c, %p, %q : memref<?xf32>
  scf.for %i = %c0 to %t step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %p[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %out[%i] : memref<?xf32>
  } {recurrence.steps}
  return
}

// -----

// A write to no buffer in particular (a print), a write through a buffer
// the loop carries, and a call: the loop may write any buffer, and is left
// as it is.
// CHECK-LABEL: func.func @print
// CHECK-NOT: memref.distinct_objects
// CHECK-LABEL: func.func @carried
// CHECK-NOT: memref.distinct_objects
// CHECK-LABEL: func.func @call
// CHECK-NOT: memref.distinct_objects
func.func @print(%a: memref<?xf32>, %out: memref<?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %t step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    vector.print %x : f32
    memref.store %x, %out[%i] : memref<?xf32>
  } {recurrence.steps}
  return
}
func.func @carried(%a: memref<?xf32>, %p: memref<?xf32>, %q: memref<?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %t step %c1 iter_args(%x = %p, %y = %q) -> (memref<?xf32>, memref<?xf32>) {
    %v = memref.load %a[%i] : memref<?xf32>
    memref.store %v, %x[%i] : memref<?xf32>
    scf.yield %y, %x : memref<?xf32>, memref<?xf32>
  } {recurrence.steps}
  return
}
func.func private @opaque(memref<?xf32>)
func.func @call(%a: memref<?xf32>, %out: memref<?xf32>, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %t step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %out[%i] : memref<?xf32>
    func.call @opaque(%a) : (memref<?xf32>) -> ()
  } {recurrence.steps}
  return
}
