// -recurrence-to-nvvm=one-pass=1: a chunked scan is one kernel whose
// chunks publish their states behind atomic statuses and poll those of the
// chunks before them. memref.atomic_rmw means acquire-release, but NVPTX
// emits a relaxed `atom`: -recurrence-gpu-parallelize puts a release fence
// before each publication and an acquire fence after each poll's spin loop
// (not in it, and none around the polls' atomics). The PTX has them at
// device scope.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm=one-pass=1 -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-parallelize 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm=one-pass=1 | grep gpu.binary | FileCheck %s --check-prefix=PTX

// CHECK-LABEL: func.func @diagonal
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: memref.atomic_rmw assign
// CHECK-NOT: llvm.fence
// CHECK: scf.while
// CHECK-NOT: llvm.fence
// CHECK: memref.atomic_rmw addf
// CHECK-NOT: llvm.fence
// CHECK: scf.condition
// CHECK-NEXT: } do {
// CHECK: }
// CHECK-NEXT: llvm.fence syncscope("device") acquire
// CHECK: llvm.fence syncscope("device") release
// CHECK-NEXT: memref.atomic_rmw assign
// CHECK-NOT: llvm.fence

// PTX: fence.acq_rel.gpu
// PTX-NOT: fence
// PTX: atom.global.exch.b32
// PTX-NOT: fence
// PTX: atom.global.add.f32
// PTX-NOT: fence
// PTX: bra {{[^;]*}};\0A\09fence.acq_rel.gpu
// PTX-NOT: atom
// PTX: fence.acq_rel.gpu
// PTX-NOT: fence
// PTX: atom.global.exch.b32
// PTX-NOT: fence

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
