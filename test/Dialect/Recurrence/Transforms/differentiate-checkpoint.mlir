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
