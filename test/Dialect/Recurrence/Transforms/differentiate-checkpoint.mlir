// The memory of a derived gradient: gated linear attention (a diagonal scan
// on a matrix state with factored input and readout) at T = 64, N = 8,
// D = 16. (Ungated linear attention needs no states at all:
// differentiate-readouts.mlir.)
// Recomputing all states at once holds [B, T, N, D] states and cotangents;
// with checkpoint=16 the gradient saves the state before each of the 4
// chunks, recomputes and runs the adjoint one chunk at a time, and no
// T x N x D buffer remains, only chunk-sized ones and the checkpoints.
// (Numbers: AdjointTests' AdjointCheckpointed suite.)
//
// DEFINE: %{lower} = -convert-elementwise-to-linalg -recurrence-select-schedule \
// DEFINE:   -recurrence-lower-scan -recurrence-lower-chunked -recurrence-lower-sequential \
// DEFINE:   -eliminate-empty-tensors -canonicalize -cse -empty-tensor-to-alloc-tensor \
// DEFINE:   -recurrence-bufferize
// RUN: recurrence-opt %s -recurrence-differentiate %{lower} \
// RUN:   | FileCheck %s --check-prefix=WHOLE
// RUN: recurrence-opt %s -recurrence-differentiate=checkpoint=16 %{lower} \
// RUN:   | FileCheck %s --check-prefix=CHUNKED
// RUN: recurrence-opt %s -recurrence-differentiate=checkpoint=16 \
// RUN:   | FileCheck %s --check-prefix=FACTORED

// In each chunk, the readout's cotangent q_t ybar_t^T enters the adjoint
// scan as a factored input, never built; the recomputed states go straight
// after the state before the chunk, so that the state each step read is a
// view of the same buffer.
// FACTORED-LABEL: func.func @gated_attention_grad(
// FACTORED: scf.for
// FACTORED: scf.for
// FACTORED: %[[HISTORY:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [2, 1, 8, 16]
// FACTORED: %[[STATES:.*]] = recurrence.scan diagonal matrix transition
// FACTORED: %[[ALL:.*]] = tensor.insert_slice %[[STATES]] into %[[HISTORY]][0, 1, 0, 0]
// FACTORED: tensor.extract_slice %[[ALL]][0, 0, 0, 0]
// FACTORED-NOT: recurrence.scan
// FACTORED: recurrence.scan diagonal matrix reverse transition({{.*}}) factored_input(

// WHOLE-LABEL: func.func @gated_attention_grad(
// WHOLE-DAG: memref.alloc() {{.*}} : memref<2x64x8x16xf32>
// WHOLE-DAG: memref.alloc() {{.*}} : memref<2x65x8x16xf32>

// CHUNKED-LABEL: func.func @gated_attention_grad(
// CHUNKED-NOT: memref<2x64x8x16xf32>
// CHUNKED-NOT: memref<2x65x8x16xf32>
// CHUNKED: memref.alloc() {{.*}} : memref<2x4x8x16xf32>
// CHUNKED: scf.for
// CHUNKED: scf.for
// CHUNKED-NOT: memref<2x64x8x16xf32>
// CHUNKED-NOT: memref<2x65x8x16xf32>
// CHUNKED: return
func.func @gated_attention(%a: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %q: tensor<2x64x8xf32>) -> tensor<2x64x16xf32> {
  %y_dest = tensor.empty() : tensor<2x64x16xf32>
  %y = recurrence.scan diagonal matrix transition(%a : tensor<2x64x8xf32>) factored_input(%k, %v : tensor<2x64x8xf32>, tensor<2x64x16xf32>) readout(%q : tensor<2x64x8xf32>) outs(%y_dest : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}
