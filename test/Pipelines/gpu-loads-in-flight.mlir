// In -recurrence-to-nvvm, -recurrence-gpu-loads-in-flight unrolls a GPU
// thread's time loop (by 64 unless `unroll` says otherwise) and issues the
// unrolled steps' operand loads (a_t and b_t, buffers the kernel never
// writes) before the steps that use them; the state's loads and stores and
// the output stores stay in order. An epilogue loop runs the last T mod 64
// steps.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm=unroll=1 -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=ONE
// RUN: not recurrence-opt %s -recurrence-gpu-loads-in-flight=unroll=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not recurrence-opt %s -recurrence-gpu-loads-in-flight=loads=0 2>&1 | FileCheck %s --check-prefix=ZEROLOADS
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=PREFETCH
// RUN: recurrence-opt %s "-recurrence-to-nvvm=chip=sm_80 features=+ptx75" -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=NOPREFETCH
// RUN: not recurrence-opt %s -recurrence-gpu-loads-in-flight=prefetch=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: recurrence-opt %s -recurrence-to-nvvm=loads=6 -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=LOADS
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=CHUNK
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=STACK
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=STATIC
// RUN: recurrence-opt %s -recurrence-to-nvvm=unroll=4 -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPE
// RUN: recurrence-opt %s "-recurrence-to-nvvm=unroll=4 pipeline=0" -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=NOPIPE
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-gpu-loads-in-flight 2>&1 >/dev/null | FileCheck %s --check-prefix=ONELOAD

// CHECK: gpu.launch
// CHECK: scf.for
// CHECK-COUNT-128: memref.load %{{(subview|expand_shape)}}
// CHECK-NOT: memref.load %{{(subview|expand_shape)}}
// CHECK: memref.load %alloca
// CHECK: memref.store
// CHECK: memref.store
// CHECK: memref.load %alloca
// The epilogue, one step per iteration.
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.load
// CHECK: memref.store

// ONE-LABEL: func.func @diagonal
// ONE: scf.for
// ONE-COUNT-2: memref.load %{{(subview|expand_shape)}}
// ONE: memref.load %alloca
// ONE-NOT: scf.for
// ONE-LABEL: func.func @chunked

// ZERO: error: unroll, chunk-unroll and loads must be positive, got 0, 4 and 128
// ZEROLOADS: error: unroll, chunk-unroll and loads must be positive, got 8, 4 and 0

// With `prefetch` (64 steps), the unrolled time loop's body also prefetches
// into L2 what its loads read one unrolled iteration (64 steps) later,
// where two iterations from there are still in the loop: the index
// arithmetic of each of its 128 loads (a_t and b_t of 64 steps, each on
// lines of its own) recomputed from iv + 64, the element's address from the
// buffer's pointer, offset and strides, and one nvvm.prefetch each; the
// epilogue's last steps prefetch nothing. A
// target without prefetch.L2 (sm_80) gets none; a negative distance is an
// error.
// PREFETCH-LABEL: func.func @diagonal
// PREFETCH: scf.for %[[IV:.*]] = %c0 to %[[UB:.*]] step %[[STEP:[^ ]*]] {
// PREFETCH: %[[TWO:.*]] = arith.muli %[[STEP]], %c2{{.*}} : index
// PREFETCH-NEXT: %[[REACH:.*]] = arith.addi %[[AHEAD:[^,]*]], %[[TWO]] : index
// PREFETCH-NEXT: %[[INSIDE:.*]] = arith.cmpi sle, %[[REACH]], %[[UB]] : index
// PREFETCH-NEXT: scf.if %[[INSIDE]] {
// PREFETCH-NEXT: memref.subview %subview[0, %[[AHEAD]], 0]
// PREFETCH: memref.extract_strided_metadata
// PREFETCH: memref.extract_aligned_pointer_as_index
// PREFETCH: llvm.inttoptr
// PREFETCH-NEXT: nvvm.prefetch level =  L2
// PREFETCH-COUNT-127: nvvm.prefetch level =  L2
// PREFETCH-NOT: nvvm.prefetch
// PREFETCH: scf.for %{{.*}} = %[[UB]] to
// PREFETCH-NOT: nvvm.prefetch
// PREFETCH-LABEL: func.func @chunked
// NOPREFETCH-NOT: nvvm.prefetch
// NEGATIVE: error: prefetch must not be negative, got -1

// With `loads` = 6, a sequential step's 2 loads (a_t, b_t) unroll the time
// loop by 3 steps rather than 64.
// LOADS-LABEL: func.func @diagonal
// LOADS: scf.for
// LOADS-COUNT-6: memref.load %{{(subview|expand_shape)}}
// LOADS-NOT: memref.load %{{(subview|expand_shape)}}
// LOADS: memref.load %alloca
// LOADS-LABEL: func.func @chunked

// A chunked scan's loops over the steps of one chunk (marked with the chunk
// size, which bounds their trip count) are unrolled by chunk-unroll (4) or,
// where more, by as many steps as issue chunk-loads (32) loads: the local
// phase issues the loads of 10 steps (a_t, b_t, and a_t for the product,
// 30 loads) before their updates, the output phase those of 16 steps (a_t
// and b_t) before it stores their outputs; the carry's loop over chunks is
// unrolled by `unroll`.
// CHUNK-LABEL: func.func @chunked
// CHUNK: gpu.launch
// CHUNK: scf.for
// CHUNK-NOT: memref.store
// CHUNK-COUNT-30: memref.load %{{(subview|expand_shape)}}
// CHUNK-NOT: memref.load %{{(subview|expand_shape)}}
// CHUNK: } {recurrence.chunk_steps = 64 : index}
// CHUNK: gpu.launch
// CHUNK: gpu.launch
// CHUNK: scf.for
// CHUNK-NOT: memref.store
// CHUNK-COUNT-32: memref.load %{{(subview|expand_shape)}}
// CHUNK-NOT: memref.load %{{(subview|expand_shape)}}
// CHUNK: } {recurrence.chunk_steps = 64 : index}

// A thread's static stack buffers (its chunk's state and product here) are
// moved to the start of the kernel, its entry block, where LLVM promotes
// them to registers; below the thread's bounds check they could stay in
// local memory.
// STACK-LABEL: func.func @chunked
// STACK: gpu.launch
// STACK-NEXT: memref.alloca() {{.*}} : memref<1xf32>
// STACK-NEXT: memref.alloca() {{.*}} : memref<1x1xf32>

func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

func.func @chunked(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d3 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d4 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d5 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d3, %d4, %d5) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

// With static sizes a chunk's loop has a constant trip count (64 here, one
// chunk: only the output phase runs). It is still a time loop: only a
// count of at most two unrolled bodies (of 16 steps for this output phase,
// unroll for a sequential one) is left alone, which is what a block's
// m x m loops are. Its static count also lets it be pipelined (below): the
// loads of its 16 steps (32 values) are carried to the next iteration.
// STATIC-LABEL: func.func @static_chunk
// STATIC: gpu.launch
// STATIC: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16{{(_[0-9]+)?}} iter_args({{.*}}) -> ({{(f32, )+}}f32) {
func.func @static_chunk(%a: tensor<2x64x8xf32>, %b: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
  %h_dest = tensor.empty() : tensor<2x64x8xf32>
  %h = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<2x64x8xf32>) input(%b : tensor<2x64x8xf32>) outs(%h_dest : tensor<2x64x8xf32>) -> tensor<2x64x8xf32>
  return %h : tensor<2x64x8xf32>
}

// A sequential time loop of static trip count (512 steps, unrolled by 4) is
// pipelined in two stages: the prologue loads the first 4 steps' a_t and
// b_t, and each iteration, while it computes its 4 steps from the values
// carried in, loads the next iteration's, each right after the last use of
// the same operand of this iteration (a_t after the product with the
// state, b_t after the sum), so that a thread keeps 4 steps of each
// operand in flight at all times. The epilogue computes the last 4 steps
// and loads nothing. With pipeline=0 the loop carries nothing.
// PIPE-LABEL: func.func @static_sequential
// PIPE: gpu.launch
// PIPE-COUNT-8: memref.load %{{(subview|expand_shape)}}
// PIPE: scf.for {{.*}} iter_args(%[[A0:[^ ]+]] = %{{[^,]+}}, %[[B0:[^ ]+]] = {{.*}}) -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// PIPE: %[[H:.*]] = memref.load %alloca
// PIPE-NEXT: arith.mulf %[[A0]], %[[H]]
// PIPE-NOT: arith.addf
// PIPE: memref.load %subview
// PIPE-NEXT: arith.addf %{{.*}}, %[[B0]]
// PIPE-NOT: memref.store
// PIPE: memref.load %expand_shape
// PIPE-NEXT: memref.store
// PIPE: scf.yield
// PIPE-NOT: memref.load %{{(subview|expand_shape)}}
// PIPE: gpu.terminator
// NOPIPE-LABEL: func.func @static_sequential
// NOPIPE: gpu.launch
// NOPIPE: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{[^ ]+}} {
func.func @static_sequential(%a: tensor<2x512x64xf32>, %b: tensor<2x512x64xf32>) -> tensor<2x512x64xf32> {
  %h_dest = tensor.empty() : tensor<2x512x64xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x512x64xf32>) input(%b : tensor<2x512x64xf32>) outs(%h_dest : tensor<2x512x64xf32>) -> tensor<2x512x64xf32>
  return %h : tensor<2x512x64xf32>
}

// A step of one load (identity: b_t) would take 32 steps for chunk-loads'
// 32 loads; a chunk's loop is unrolled by at most a quarter of its chunk
// (16 of 64), so that this one-chunk loop still runs whole unrolled bodies,
// pipelined (16 values carried), and keeps its chunk mark.
// ONELOAD-LABEL: func.func @static_identity_chunk
// ONELOAD: gpu.launch
// ONELOAD: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16{{(_[0-9]+)?}} iter_args({{.*}}) -> ({{(f32, )+}}f32) {
// ONELOAD: } {recurrence.chunk_steps = 64 : index}
func.func @static_identity_chunk(%b: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
  %h_dest = tensor.empty() : tensor<2x64x8xf32>
  %h = recurrence.scan identity schedule chunked<64> input(%b : tensor<2x64x8xf32>) outs(%h_dest : tensor<2x64x8xf32>) -> tensor<2x64x8xf32>
  return %h : tensor<2x64x8xf32>
}
// NOPIPE-LABEL: func.func @static_identity_chunk
