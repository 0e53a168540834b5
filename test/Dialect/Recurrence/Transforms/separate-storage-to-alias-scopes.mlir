// RUN: recurrence-opt %s -split-input-file -recurrence-separate-storage-to-alias-scopes | FileCheck %s

// Two memref descriptors built from two pointer arguments, stated apart by
// an assumption on their aligned pointers (as memref.distinct_objects
// lowers). Each access based on either pointer, through GEPs and the
// descriptors, joins its object's scope; those after the assumption are
// marked not to alias the other's. The assumption is gone; an access of a
// pointer whose object is not found keeps no metadata.
// CHECK: #[[DOMAIN:.*]] = #llvm.alias_scope_domain<id = {{.*}}, description = "separate storage">
// CHECK: #[[SA:.*]] = #llvm.alias_scope<id = {{.*}}, domain = #[[DOMAIN]]>
// CHECK: #[[SB:.*]] = #llvm.alias_scope<id = {{.*}}, domain = #[[DOMAIN]]>
// CHECK-LABEL: llvm.func @two_buffers
// CHECK: llvm.load {{.*}} {alias_scopes = [#[[SA]]]}
// CHECK-NOT: llvm.intr.assume
// CHECK: llvm.load {{.*}} {alias_scopes = [#[[SA]]], {{.*}}noalias_scopes = [#[[SB]]]}
// CHECK: llvm.store {{.*}} {alias_scopes = [#[[SB]]], {{.*}}noalias_scopes = [#[[SA]]]}
// CHECK: %[[P:.*]] = llvm.load %{{.*}} : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.store %{{.*}}, %[[P]] : f32, !llvm.ptr
// CHECK-NEXT: llvm.return
llvm.func @two_buffers(%pa: !llvm.ptr, %pb: !llvm.ptr, %pp: !llvm.ptr, %i: i64) {
  %u = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64)>
  %z = llvm.mlir.constant(0 : i64) : i64
  %da0 = llvm.insertvalue %pa, %u[0] : !llvm.struct<(ptr, ptr, i64)>
  %da1 = llvm.insertvalue %pa, %da0[1] : !llvm.struct<(ptr, ptr, i64)>
  %da = llvm.insertvalue %z, %da1[2] : !llvm.struct<(ptr, ptr, i64)>
  %db0 = llvm.insertvalue %pb, %u[0] : !llvm.struct<(ptr, ptr, i64)>
  %db1 = llvm.insertvalue %pb, %db0[1] : !llvm.struct<(ptr, ptr, i64)>
  %db = llvm.insertvalue %z, %db1[2] : !llvm.struct<(ptr, ptr, i64)>
  %early = llvm.load %pa : !llvm.ptr -> f32
  %ha = llvm.extractvalue %da[1] : !llvm.struct<(ptr, ptr, i64)>
  %hb = llvm.extractvalue %db[1] : !llvm.struct<(ptr, ptr, i64)>
  %true = llvm.mlir.constant(true) : i1
  llvm.intr.assume %true ["separate_storage"(%ha, %hb : !llvm.ptr, !llvm.ptr)] : i1
  %ba = llvm.extractvalue %da[1] : !llvm.struct<(ptr, ptr, i64)>
  %qa = llvm.getelementptr %ba[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %x = llvm.load %qa : !llvm.ptr -> f32
  %bb = llvm.extractvalue %db[1] : !llvm.struct<(ptr, ptr, i64)>
  %qb = llvm.getelementptr %bb[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  %s = llvm.fadd %x, %early : f32
  llvm.store %s, %qb : f32, !llvm.ptr
  %other = llvm.load %pp : !llvm.ptr -> !llvm.ptr
  llvm.store %s, %other : f32, !llvm.ptr
  llvm.return
}

// -----

// An assumption that states more than separate storage stays, and adds no
// metadata.
// CHECK-LABEL: llvm.func @other_bundle
// CHECK: llvm.intr.assume
// CHECK-NOT: alias_scopes
llvm.func @other_bundle(%pa: !llvm.ptr, %pb: !llvm.ptr) {
  %true = llvm.mlir.constant(true) : i1
  %c = llvm.mlir.constant(16 : i64) : i64
  llvm.intr.assume %true ["separate_storage"(%pa, %pb : !llvm.ptr, !llvm.ptr), "align"(%pa, %c : !llvm.ptr, i64)] : i1
  %x = llvm.load %pa : !llvm.ptr -> f32
  llvm.store %x, %pb : f32, !llvm.ptr
  llvm.return
}

// -----

// Metadata holds on every execution, an assumption where it is made. Two
// pointers that trade places every iteration (block arguments), and two
// allocations (which may reuse each other's memory from one iteration to
// the next), keep their assumptions and get no scopes.
// CHECK-LABEL: llvm.func @ping_pong
// CHECK: llvm.intr.assume
// CHECK-NOT: alias_scopes
// CHECK-LABEL: llvm.func @two_allocations
// CHECK: llvm.intr.assume
// CHECK-NOT: alias_scopes
llvm.func @ping_pong(%a: !llvm.ptr, %b: !llvm.ptr, %n: i64) {
  %z = llvm.mlir.constant(0 : i64) : i64
  %one = llvm.mlir.constant(1 : i64) : i64
  %true = llvm.mlir.constant(true) : i1
  llvm.br ^loop(%z, %a, %b : i64, !llvm.ptr, !llvm.ptr)
^loop(%i: i64, %p: !llvm.ptr, %q: !llvm.ptr):
  llvm.intr.assume %true ["separate_storage"(%p, %q : !llvm.ptr, !llvm.ptr)] : i1
  %x = llvm.load %p : !llvm.ptr -> f32
  llvm.store %x, %q : f32, !llvm.ptr
  %next = llvm.add %i, %one : i64
  %more = llvm.icmp "slt" %next, %n : i64
  llvm.cond_br %more, ^loop(%next, %q, %p : i64, !llvm.ptr, !llvm.ptr), ^exit
^exit:
  llvm.return
}
llvm.func @malloc(i64) -> !llvm.ptr
llvm.func @two_allocations(%n: i64) {
  %true = llvm.mlir.constant(true) : i1
  %p = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  %q = llvm.call @malloc(%n) : (i64) -> !llvm.ptr
  llvm.intr.assume %true ["separate_storage"(%p, %q : !llvm.ptr, !llvm.ptr)] : i1
  %x = llvm.load %p : !llvm.ptr -> f32
  llvm.store %x, %q : f32, !llvm.ptr
  llvm.return
}

// -----

// An allocation against an argument is apart on every execution, and a
// call keeps no scopes (they would cover all that its callee reaches). A
// store through a descriptor whose part holding the pointer was replaced
// whole (an insertion at a prefix of the position) is not followed.
// CHECK-LABEL: llvm.func @allocation_and_argument
// CHECK-NOT: llvm.intr.assume
// CHECK: llvm.load {{.*}} {alias_scopes = [#[[ARG:.*]]], noalias_scopes = [#[[NEW:.*]]]}
// CHECK: llvm.store {{.*}} {alias_scopes = [#[[NEW]]], noalias_scopes = [#[[ARG]]]}
// CHECK: llvm.call @free(%{{.*}}) : (!llvm.ptr) -> ()
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK-NEXT: llvm.return
llvm.func @free(!llvm.ptr)
llvm.func @aligned_alloc(i64, i64) -> !llvm.ptr
llvm.func @allocation_and_argument(%a: !llvm.ptr, %n: i64, %inner: !llvm.struct<(ptr, ptr)>) {
  %true = llvm.mlir.constant(true) : i1
  %c64 = llvm.mlir.constant(64 : i64) : i64
  %p = llvm.call @aligned_alloc(%c64, %n) : (i64, i64) -> !llvm.ptr
  llvm.intr.assume %true ["separate_storage"(%a, %p : !llvm.ptr, !llvm.ptr)] : i1
  %x = llvm.load %a : !llvm.ptr -> f32
  llvm.store %x, %p : f32, !llvm.ptr
  llvm.call @free(%p) : (!llvm.ptr) -> ()
  %u = llvm.mlir.poison : !llvm.struct<(struct<(ptr, ptr)>, i64)>
  %s1 = llvm.insertvalue %a, %u[0, 1] : !llvm.struct<(struct<(ptr, ptr)>, i64)>
  %s2 = llvm.insertvalue %inner, %s1[0] : !llvm.struct<(struct<(ptr, ptr)>, i64)>
  %q = llvm.extractvalue %s2[0, 1] : !llvm.struct<(struct<(ptr, ptr)>, i64)>
  llvm.store %x, %q : f32, !llvm.ptr
  llvm.return
}
