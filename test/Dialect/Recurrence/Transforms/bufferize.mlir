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

// -----

// A row computed in place, through reshapes, and inserted back where it was
// extracted is the same elements in the same order: no copy (a block step
// that writes A_t h + b_t into the output row viewed as [N/m, m, 1]).
// CHECK-LABEL: func.func @row_back_in_place(
// CHECK-NOT:     linalg.copy
// CHECK:         linalg.generic
// CHECK-NOT:     linalg.copy
// CHECK:         return
func.func @row_back_in_place(%out: tensor<4x8xf32> {bufferization.writable = true}, %t: index) -> tensor<4x8xf32> {
  %row = tensor.extract_slice %out[%t, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
  %blocks = tensor.expand_shape %row [[0, 1]] output_shape [2, 4] : tensor<8xf32> into tensor<2x4xf32>
  %scaled = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>],
      iterator_types = ["parallel", "parallel"]} outs(%blocks : tensor<2x4xf32>) {
    ^bb0(%x: f32):
      %y = arith.mulf %x, %x : f32
      linalg.yield %y : f32
  } -> tensor<2x4xf32>
  %back = tensor.collapse_shape %scaled [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %r = tensor.insert_slice %back into %out[%t, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
