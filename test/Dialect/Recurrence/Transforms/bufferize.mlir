// -recurrence-bufferize: one-shot module bufferization with functions on
// plain memrefs, fresh buffers allowed out of loops, and every copy a
// linalg.copy (which lowers to a vectorizable loop, where a dynamically
// shaped memref.copy would call the strided memrefCopy runtime function).
//
// RUN: recurrence-opt %s -recurrence-bufferize -split-input-file | FileCheck %s

// A result that cannot be written in place of its read-only source (a
// constant) is copied with linalg.copy.
// CHECK-LABEL: func.func @copy_into_result(
// CHECK:         %[[GLOBAL:.*]] = memref.get_global
// CHECK:         %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<2xf32>
// CHECK:         linalg.copy ins(%[[GLOBAL]] : memref<2xf32>) outs(%[[ALLOC]] : memref<2xf32>)
// CHECK-NOT:     memref.copy
// CHECK:         memref.store %{{.*}}, %[[ALLOC]]
func.func @copy_into_result() -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %t = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %one = arith.constant 3.0 : f32
  %r = tensor.insert %one into %t[%c0] : tensor<2xf32>
  return %r : tensor<2xf32>
}

// -----

// A loop may yield a buffer it allocated (a non-elementwise step builds its
// new state in one).
// CHECK-LABEL: func.func @fresh_state_per_step(
// CHECK:         scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (memref<4xf32>)
// CHECK:           memref.alloc() {{.*}} : memref<4xf32>
// CHECK:           scf.yield
func.func @fresh_state_per_step(%init: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%s = %init) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %next = linalg.generic {indexing_maps = [affine_map<(d) -> (3 - d)>, affine_map<(d) -> (d)>],
        iterator_types = ["parallel"]} ins(%s : tensor<4xf32>) outs(%e : tensor<4xf32>) {
      ^bb0(%x: f32, %y: f32):
        linalg.yield %x : f32
    } -> tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
