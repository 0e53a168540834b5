// In -recurrence-to-nvvm, -recurrence-gpu-loads-in-flight unrolls a GPU
// thread's time loop (by 32 unless `unroll` says otherwise) and issues the
// unrolled steps' operand loads (a_t and b_t, buffers the kernel never
// writes) before the steps that use them; the state's loads and stores and
// the output stores stay in order. An epilogue loop runs the last T mod 32
// steps.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm=unroll=1 -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
// RUN: not recurrence-opt %s -recurrence-gpu-loads-in-flight=unroll=0 2>&1 | FileCheck %s --check-prefix=ZERO

// CHECK: gpu.launch
// CHECK: scf.for
// CHECK-COUNT-64: memref.load %{{(subview|expand_shape)}}
// CHECK: memref.load %alloca
// CHECK: memref.store
// CHECK: memref.store
// CHECK: memref.load %alloca
// The epilogue, one step per iteration.
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.load
// CHECK: memref.store

// ONE: scf.for
// ONE-COUNT-2: memref.load %{{(subview|expand_shape)}}
// ONE: memref.load %alloca
// ONE-NOT: scf.for

// ZERO: error: unroll must be positive, got 0

func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
