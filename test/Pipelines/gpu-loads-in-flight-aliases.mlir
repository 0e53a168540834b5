// -recurrence-gpu-loads-in-flight moves a kernel's loads ahead of its
// stores only for buffers whose SSA values tell them apart from those the
// kernel writes: the function's arguments and allocations. A loop's block
// argument may be the same buffer as an argument (here it starts as %out,
// which the kernel writes), so its loads keep their place after the
// stores before them; the loads of %in, an argument nothing writes, move.
//
// RUN: recurrence-opt %s "-recurrence-gpu-loads-in-flight=unroll=2 pipeline=0" | FileCheck %s

// CHECK-LABEL: func.func @loop_carried
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK-NEXT: memref.load %[[IN:[a-z0-9_]+]][
// CHECK: memref.load %[[IN]][
// CHECK: memref.load %[[BUF:[a-z0-9_]+]][
// CHECK: memref.store {{.*}}, %arg1[
// CHECK-NOT: scf.for
// CHECK: memref.load %[[BUF]][
// CHECK: memref.store {{.*}}, %arg1[
// The epilogue.
// CHECK: scf.for
func.func @loop_carried(%in: memref<?xf32>, %out: memref<?xf32>,
                        %n: index, %rounds: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %last = scf.for %r = %c0 to %rounds step %c1
      iter_args(%buf = %out) -> (memref<?xf32>) {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      scf.for %t = %c0 to %n step %c1 {
        %a = memref.load %in[%t] : memref<?xf32>
        %h = memref.load %buf[%t] : memref<?xf32>
        %s = arith.addf %a, %h : f32
        %next = arith.addi %t, %c1 : index
        memref.store %s, %out[%next] : memref<?xf32>
      }
      gpu.terminator
    }
    scf.yield %buf : memref<?xf32>
  }
  return
}
