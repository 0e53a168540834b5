// RUN: recurrence-opt %s -split-input-file -verify-diagnostics -recurrence-gpu-parallelize | FileCheck %s

// A host read of a buffer that kernels computed, used only by a kernel,
// moves into that kernel when nothing writes the buffer in between (the
// Blelloch adjoint's last step reads a transition it computed): each
// thread reads the element itself.
// CHECK-LABEL: func.func @read_before_its_kernel
// CHECK-NOT: memref.load
// CHECK: scf.parallel
// CHECK: memref.load %{{.*}}[%c3]
// CHECK: arith.addf
#id = affine_map<(d0) -> (d0)>
func.func @read_before_its_kernel(%a: memref<8xf32>, %out: memref<8xf32>) {
  %c3 = arith.constant 3 : index
  %buf = memref.alloc() : memref<8xf32>
  linalg.copy ins(%a : memref<8xf32>) outs(%buf : memref<8xf32>)
  %x = memref.load %buf[%c3] : memref<8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : memref<8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.addf %in, %x : f32
    linalg.yield %y : f32
  }
  memref.dealloc %buf : memref<8xf32>
  return
}

// -----

// Where the buffer is written between the read and the kernel, the read
// stays on the host, which the GPU cannot run.
#id = affine_map<(d0) -> (d0)>
func.func @read_then_overwritten(%a: memref<8xf32>, %out: memref<8xf32>) {
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<8xf32>
  linalg.copy ins(%a : memref<8xf32>) outs(%buf : memref<8xf32>)
  // expected-error @below {{host code accesses a buffer element outside any GPU kernel}}
  %x = memref.load %buf[%c3] : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%buf : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%buf : memref<8xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = arith.addf %in, %x : f32
    linalg.yield %y : f32
  }
  memref.dealloc %buf : memref<8xf32>
  return
}

// -----

// A host store of one element becomes a kernel of one thread; the read
// that feeds it, made before the stored-to buffer is allocated, then sinks
// into that kernel (a one-element scan's result read before its output is
// allocated).
// CHECK-LABEL: func.func @read_before_an_allocation_then_stored
// CHECK-NOT: memref.load
// CHECK: gpu.alloc
// CHECK: scf.parallel
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%c3]
// CHECK-NEXT: memref.store %[[X]]
func.func @read_before_an_allocation_then_stored(%a: memref<8xf32>) -> memref<1xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %buf = memref.alloc() : memref<8xf32>
  linalg.copy ins(%a : memref<8xf32>) outs(%buf : memref<8xf32>)
  %x = memref.load %buf[%c3] : memref<8xf32>
  %out = memref.alloc() : memref<1xf32>
  memref.store %x, %out[%c0] : memref<1xf32>
  memref.dealloc %buf : memref<8xf32>
  return %out : memref<1xf32>
}

// -----

// Where the read buffer is written between the read and the store, the
// read stays on the host, which the GPU cannot run.
func.func @read_overwritten_before_stored(%a: memref<8xf32>) -> memref<1xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<8xf32>
  linalg.copy ins(%a : memref<8xf32>) outs(%buf : memref<8xf32>)
  // expected-error @below {{host code accesses a buffer element outside any GPU kernel}}
  %x = memref.load %buf[%c3] : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%buf : memref<8xf32>)
  %out = memref.alloc() : memref<1xf32>
  memref.store %x, %out[%c0] : memref<1xf32>
  memref.dealloc %buf : memref<8xf32>
  return %out : memref<1xf32>
}
