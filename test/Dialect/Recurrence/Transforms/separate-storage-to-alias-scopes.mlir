// RUN: recurrence-opt %s -split-input-file -recurrence-separate-storage-to-alias-scopes | FileCheck %s

// Two memref descriptors built from two pointer arguments, stated apart by
// an assumption on their aligned pointers (as memref.distinct_objects
// lowers). Each access based on either pointer, through GEPs and the
// descriptors, joins its object's scope; those after the assumption are
// marked not to alias the other's. The assumption is gone; an access of a
// pointer whose object is not found keeps no metadata.
// CHECK-DAG: #[[DOMAIN:.*]] = #llvm.alias_scope_domain<id = {{.*}}, description = "separate storage">
// CHECK-DAG: #[[SA:.*]] = #llvm.alias_scope<id = {{.*}}, domain = #[[DOMAIN]]>
// CHECK-DAG: #[[SB:.*]] = #llvm.alias_scope<id = {{.*}}, domain = #[[DOMAIN]]>
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
