// RUN: recurrence-opt %s -split-input-file -recurrence-gpu-warp-scan -canonicalize -cse | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-gpu-warp-scan=look-back-tiles=4 -canonicalize -cse | FileCheck %s --check-prefix=LOOKBACK
// RUN: recurrence-opt %s -split-input-file -recurrence-to-nvvm | FileCheck %s --check-prefix=PTX
// RUN: recurrence-opt %s -split-input-file -recurrence-to-nvvm=look-back-tiles=4 | FileCheck %s --check-prefix=PTXLB

// A sequential diagonal scan on the caller's time-contiguous buffers (the
// JIT's destination-passing form: inputs read through to_tensor, results
// materialized in memrefs) becomes parallel loops over 32 lanes per warp
// that write the caller's buffers themselves. A lane takes 4 consecutive
// steps of a tile of 128 (reverse: from the end), clamped to the last step
// and replaced by the identity (1, 0) past it; the lanes' pairs are scanned
// by 5 shuffles up of each field, and the last lane's pair (a shuffle idx
// from lane 31) carries to the next tile. bf16 operands are widened to the
// f32 state and the output narrowed back.
//
// With few sequences (2 x 3 here) each is split into chunks of whole
// tiles, a warp each (3 chunks of one tile). By default the first sweep composes each chunk's pair (A, B), a thread per sequence
// carries the state over its chunks from init (and writes the final
// state), and the second sweep writes the outputs from each chunk's start
// state.
// CHECK-LABEL: func.func @time_contiguous
// CHECK-NOT: recurrence.scan
// CHECK-NOT: materialize_in_destination
// CHECK: %[[PAIRS:.*]] = memref.alloc() : memref<6x3x2xf32>
// CHECK: %[[STARTS:.*]] = memref.alloc() : memref<6x3xf32>
// CHECK: scf.parallel (%[[G:.*]]) = (%c0) to (%c576) step (%c1)
// CHECK: %[[WARP:.*]] = arith.divui %[[G]], %c32
// CHECK: %[[LANE:.*]] = arith.remui %[[G]], %c32
// CHECK: %[[ROW:.*]] = arith.divui %[[WARP]], %c3
// CHECK: %[[CHUNK:.*]] = arith.remui %[[WARP]], %c3
// CHECK: %[[SEQ:.*]]:2 = affine.delinearize_index %[[ROW]] into (2, 3)
// CHECK: %[[PAIR:.*]]:2 = scf.for %{{.*}} = %[[CHUNK]] to %{{.*}} step %c1 iter_args(%{{.*}} = %cst, %{{.*}} = %cst_0) -> (f32, f32)
// CHECK: arith.minui %{{.*}}, %c299
// CHECK: %[[T0:.*]] = arith.subi %c299
// CHECK: %[[A0:.*]] = memref.load %arg0[%[[SEQ]]#0, %[[T0]], %[[SEQ]]#1]
// CHECK: arith.extf %[[A0]] : bf16 to f32
// CHECK: memref.load %arg1[%[[SEQ]]#0, %[[T0]], %[[SEQ]]#1]
// CHECK-COUNT-10: gpu.shuffle  up
// CHECK: gpu.shuffle  idx %{{.*}}, %c31_i32, %c32_i32
// CHECK: } {recurrence.warp_tiles = 128 : i64}
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[PAIR]]#0, %[[PAIRS]][%[[ROW]], %[[CHUNK]], %c0]
// CHECK-NEXT: memref.store %[[PAIR]]#1, %[[PAIRS]][%[[ROW]], %[[CHUNK]], %c1]
// CHECK: } {recurrence.warp_lanes}
// CHECK: scf.parallel (%[[R:.*]]) = (%c0) to (%c6) step (%c1)
// CHECK: %[[H0:.*]] = memref.load %arg2
// CHECK: %[[END:.*]] = scf.for %[[C:.*]] = %c0 to %c3 step %c1 iter_args(%[[H:.*]] = %[[H0]])
// CHECK-NEXT: memref.store %[[H]], %[[STARTS]][%[[R]], %[[C]]]
// CHECK: memref.store %[[END]], %arg4
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c576) step (%c1)
// CHECK: %[[START:.*]] = memref.load %[[STARTS]]
// CHECK: scf.for %{{.*}} iter_args(%{{.*}} = %[[START]]) -> (f32)
// CHECK-COUNT-10: gpu.shuffle  up
// CHECK: gpu.shuffle  idx %{{.*}}, %c31_i32, %c32_i32
// CHECK: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32
// CHECK: gpu.shuffle  up %{{.*}}, %c1_i32, %c32_i32
// CHECK-COUNT-4: memref.store %{{.*}}, %arg3
// CHECK: } {recurrence.warp_tiles = 128 : i64}
// CHECK: } {recurrence.warp_lanes}
// CHECK-NEXT: return

// With look-back-tiles (LOOKBACK), one kernel, chunk-major: warp w runs chunk
// w / 6 of sequence w mod 6. It composes the chunk's pair; the first chunk
// starts from init; the others publish their pair (status 1) and look
// back: lane l waits for chunk (end - 1 - l), takes its end state (status
// 2) as the constant pair (0, H) or else its pair, lanes past the nearest
// end state (a butterfly min) take the identity, the window's pairs are
// composed by shuffles down, farther first, and the walk goes on 32
// chunks farther while no end state was found. Lane 0 then publishes the
// chunk's end state, the warp writes the outputs from its start state, and
// the last chunk's lane 0 the final state.
// LOOKBACK-LABEL: func.func @time_contiguous
// LOOKBACK: %[[PAIRS:.*]] = memref.alloc() : memref<3x6x2xf32>
// LOOKBACK: %[[ENDS:.*]] = memref.alloc() : memref<3x6xf32>
// LOOKBACK: %[[STATUS:.*]] = memref.alloc() : memref<3x6xf32>
// LOOKBACK: linalg.fill ins(%[[NONE:.*]] : f32) outs(%[[STATUS]]
// LOOKBACK: scf.parallel (%[[G:.*]]) = (%c0) to (%c576) step (%c1)
// LOOKBACK: %[[WARP:.*]] = arith.divui %[[G]], %c32
// LOOKBACK: %[[LANE:.*]] = arith.remui %[[G]], %c32
// LOOKBACK: %[[LANE32:.*]] = arith.index_cast %[[LANE]] : index to i32
// LOOKBACK: %[[ROW:.*]] = arith.remui %[[WARP]], %c6
// LOOKBACK: %[[CHUNK:.*]] = arith.divui %[[WARP]], %c6
// LOOKBACK: %[[PAIR:.*]]:2 = scf.for
// LOOKBACK: } {recurrence.warp_tiles = 128 : i64}
// LOOKBACK: %[[FIRST:.*]] = arith.cmpi eq, %[[CHUNK]], %c0
// LOOKBACK: %[[START:.*]] = scf.if %[[FIRST]] -> (f32) {
// LOOKBACK-NEXT: %[[H0:.*]] = memref.load %arg2
// LOOKBACK-NEXT: scf.yield %[[H0]]
// LOOKBACK: } else {
// LOOKBACK: memref.store %[[PAIR]]#0, %[[PAIRS]][%[[CHUNK]], %[[ROW]], %c0]
// LOOKBACK-NEXT: memref.store %[[PAIR]]#1, %[[PAIRS]][%[[CHUNK]], %[[ROW]], %c1]
// LOOKBACK-NEXT: memref.atomic_rmw assign %[[AGGREGATE:.*]], %[[STATUS]][%[[CHUNK]], %[[ROW]]]
// LOOKBACK: %[[WALK:.*]]:3 = scf.while
// LOOKBACK: scf.if
// LOOKBACK: %[[J:.*]] = arith.subi %{{.*}}, %[[LANE]]
// LOOKBACK: scf.while
// LOOKBACK: memref.atomic_rmw addf %[[NONE]], %[[STATUS]][%[[J]], %[[ROW]]]
// LOOKBACK: memref.load %[[ENDS]][%[[J]], %[[ROW]]]
// LOOKBACK: memref.load %[[PAIRS]][%[[J]], %[[ROW]], %c0]
// LOOKBACK: memref.load %[[PAIRS]][%[[J]], %[[ROW]], %c1]
// LOOKBACK-COUNT-5: gpu.shuffle  xor
// LOOKBACK-NEXT: %[[NEAREST:.*]] = arith.minui
// LOOKBACK-NEXT: arith.cmpi ugt, %[[LANE32]], %[[NEAREST]] : i32
// LOOKBACK: %[[FA:.*]], %{{.*}} = gpu.shuffle  down %[[PA:.*]], %c1_i32, %c32_i32 : f32
// LOOKBACK-NEXT: %[[FB:.*]], %{{.*}} = gpu.shuffle  down %[[PB:.*]], %c1_i32, %c32_i32 : f32
// LOOKBACK-NEXT: %[[M:.*]] = arith.mulf %[[PA]], %[[FB]] : f32
// LOOKBACK-NEXT: arith.addf %[[M]], %[[PB]] : f32
// LOOKBACK-NEXT: arith.mulf %[[PA]], %[[FA]] : f32
// LOOKBACK-COUNT-8: gpu.shuffle  down
// LOOKBACK-COUNT-2: gpu.shuffle  idx %{{.*}}, %c0_i32, %c32_i32
// LOOKBACK: scf.yield %[[WALK]]#1
// LOOKBACK: scf.if
// LOOKBACK: memref.store %{{.*}}, %[[ENDS]][%[[CHUNK]], %[[ROW]]]
// LOOKBACK-NEXT: memref.atomic_rmw assign %{{.*}}, %[[STATUS]][%[[CHUNK]], %[[ROW]]]
// LOOKBACK: %[[END:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[START]]) -> (f32)
// LOOKBACK-COUNT-4: memref.store %{{.*}}, %arg3
// LOOKBACK: } {recurrence.warp_tiles = 128 : i64}
// LOOKBACK: arith.cmpi eq, %[[CHUNK]], %c2
// LOOKBACK: memref.store %[[END]], %arg4
// LOOKBACK: } {recurrence.warp_lanes}
// LOOKBACK-NEXT: return

// The kernels: the two sweeps in blocks of 128 threads (4 whole warps;
// the pipeline's scan kernels otherwise take blocks of 32), the carry
// between them; the sweeps' shuffles.
// PTX-LABEL: llvm.func @time_contiguous(
// PTX-DAG: %[[GRID:.*]] = llvm.mlir.constant(5 : index) : i64
// PTX-DAG: %[[TPB:.*]] = llvm.mlir.constant(128 : index) : i64
// PTX: gpu.launch_func  @time_contiguous_kernel::@time_contiguous_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[TPB]], %{{.*}}, %{{.*}})
// PTX: gpu.launch_func  @time_contiguous_kernel_0::@time_contiguous_kernel
// PTX: gpu.launch_func  @time_contiguous_kernel_1::@time_contiguous_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[TPB]], %{{.*}}, %{{.*}})
// PTX: gpu.binary @time_contiguous_kernel
// PTX-COUNT-10: shfl.sync.up.b32

// With look-back-tiles: the statuses cleared, then the one pass in blocks
// of 128 threads, its atomics fenced; the shuffles of its tiles and of the
// look-back.
// PTXLB-LABEL: llvm.func @time_contiguous(
// PTXLB-DAG: %[[GRID:.*]] = llvm.mlir.constant(5 : index) : i64
// PTXLB-DAG: %[[TPB:.*]] = llvm.mlir.constant(128 : index) : i64
// PTXLB: gpu.launch_func  @time_contiguous_kernel::@time_contiguous_kernel
// PTXLB: gpu.launch_func  @time_contiguous_kernel_0::@time_contiguous_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[TPB]], %{{.*}}, %{{.*}})
// PTXLB-NOT: gpu.launch_func  @time_contiguous
// PTXLB: gpu.binary @time_contiguous_kernel_0
// PTXLB-COUNT-10: shfl.sync.up.b32
// PTXLB: fence.acq_rel.gpu
// PTXLB-NOT: atom
// PTXLB: atom.global.exch.b32
// PTXLB-NOT: fence
// PTXLB: atom.global.add.f32
// PTXLB-NOT: fence
// PTXLB: bra {{[^;]*}};\0A\09fence.acq_rel.gpu
// PTXLB-COUNT-5: shfl.sync.bfly.b32
// PTXLB-COUNT-10: shfl.sync.down.b32
// PTXLB: atom.global.exch.b32
func.func @time_contiguous(%a: memref<2x300x3xbf16, strided<[900, 1, 300]>>,
                           %b: memref<2x300x3xbf16, strided<[900, 1, 300]>>,
                           %h0: memref<2x3xf32>,
                           %y: memref<2x300x3xbf16, strided<[900, 1, 300]>>,
                           %last: memref<2x3xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<2x300x3xbf16, strided<[900, 1, 300]>> to tensor<2x300x3xbf16>
  %bt = bufferization.to_tensor %b restrict : memref<2x300x3xbf16, strided<[900, 1, 300]>> to tensor<2x300x3xbf16>
  %h0t = bufferization.to_tensor %h0 restrict : memref<2x3xf32> to tensor<2x3xf32>
  %h_dest = tensor.empty() : tensor<2x300x3xbf16>
  %last_dest = tensor.empty() : tensor<2x3xf32>
  %h, %l = recurrence.scan diagonal schedule sequential reverse accumulate(f32) transition(%at : tensor<2x300x3xbf16>) input(%bt : tensor<2x300x3xbf16>) init(%h0t : tensor<2x3xf32>) outs(%h_dest, %last_dest : tensor<2x300x3xbf16>, tensor<2x3xf32>) -> tensor<2x300x3xbf16>, tensor<2x3xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<2x300x3xbf16>, memref<2x300x3xbf16, strided<[900, 1, 300]>>) -> ()
  bufferization.materialize_in_destination %l in restrict writable %last : (tensor<2x3xf32>, memref<2x3xf32>) -> ()
  return
}

// -----

// Enough sequences to fill the GPU (8 x 512 warps): one sweep, each warp
// a whole sequence from its init, lane 0 writing the final state.
// CHECK-LABEL: func.func @many_sequences
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%[[G:.*]]) = (%c0) to (%c131072) step (%c1)
// CHECK: %[[SEQ:.*]]:2 = affine.delinearize_index %{{.*}} into (8, 512)
// CHECK: %[[H0:.*]] = memref.load %arg2[%[[SEQ]]#0, %[[SEQ]]#1]
// CHECK: %[[END:.*]] = scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%{{.*}} = %[[H0]]) -> (f32)
// CHECK-COUNT-4: memref.store %{{.*}}, %arg3
// CHECK: } {recurrence.warp_tiles = 128 : i64}
// CHECK: scf.if
// CHECK-NEXT: memref.store %[[END]], %arg4[%[[SEQ]]#0, %[[SEQ]]#1]
// CHECK: } {recurrence.warp_lanes}
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @many_sequences(%a: memref<8x300x512xf32, strided<[153600, 1, 300]>>,
                          %b: memref<8x300x512xf32, strided<[153600, 1, 300]>>,
                          %h0: memref<8x512xf32>,
                          %y: memref<8x300x512xf32, strided<[153600, 1, 300]>>,
                          %last: memref<8x512xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<8x300x512xf32, strided<[153600, 1, 300]>> to tensor<8x300x512xf32>
  %bt = bufferization.to_tensor %b restrict : memref<8x300x512xf32, strided<[153600, 1, 300]>> to tensor<8x300x512xf32>
  %h0t = bufferization.to_tensor %h0 restrict : memref<8x512xf32> to tensor<8x512xf32>
  %h_dest = tensor.empty() : tensor<8x300x512xf32>
  %last_dest = tensor.empty() : tensor<8x512xf32>
  %h, %l = recurrence.scan diagonal schedule sequential transition(%at : tensor<8x300x512xf32>) input(%bt : tensor<8x300x512xf32>) init(%h0t : tensor<8x512xf32>) outs(%h_dest, %last_dest : tensor<8x300x512xf32>, tensor<8x512xf32>) -> tensor<8x300x512xf32>, tensor<8x512xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<8x300x512xf32>, memref<8x300x512xf32, strided<[153600, 1, 300]>>) -> ()
  bufferization.materialize_in_destination %l in restrict writable %last : (tensor<8x512xf32>, memref<8x512xf32>) -> ()
  return
}

// -----

// Channels contiguous (the identity layout): a thread per channel already
// reads neighbouring channels together; the scan is left as it is. So is
// a chunked one.
// CHECK-LABEL: func.func @channels_contiguous
// CHECK: recurrence.scan diagonal schedule sequential
// CHECK: recurrence.scan diagonal schedule chunked<16>
// CHECK-NOT: gpu.shuffle
func.func @channels_contiguous(%a: memref<2x300x3xf32>, %b: memref<2x300x3xf32>,
                               %at2: memref<2x300x3xf32, strided<[900, 1, 300]>>,
                               %y: memref<2x300x3xf32>,
                               %y2: memref<2x300x3xf32, strided<[900, 1, 300]>>)
    -> tensor<2x300x3xf32> {
  %at = bufferization.to_tensor %a restrict : memref<2x300x3xf32> to tensor<2x300x3xf32>
  %bt = bufferization.to_tensor %b restrict : memref<2x300x3xf32> to tensor<2x300x3xf32>
  %ct = bufferization.to_tensor %at2 restrict : memref<2x300x3xf32, strided<[900, 1, 300]>> to tensor<2x300x3xf32>
  %h_dest = tensor.empty() : tensor<2x300x3xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%at : tensor<2x300x3xf32>) input(%bt : tensor<2x300x3xf32>) outs(%h_dest : tensor<2x300x3xf32>) -> tensor<2x300x3xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<2x300x3xf32>, memref<2x300x3xf32>) -> ()
  %h2 = recurrence.scan diagonal schedule chunked<16> transition(%ct : tensor<2x300x3xf32>) input(%ct : tensor<2x300x3xf32>) outs(%h_dest : tensor<2x300x3xf32>) -> tensor<2x300x3xf32>
  bufferization.materialize_in_destination %h2 in restrict writable %y2 : (tensor<2x300x3xf32>, memref<2x300x3xf32, strided<[900, 1, 300]>>) -> ()
  return %h2 : tensor<2x300x3xf32>
}

// -----

// The adjoint's reverse scan on time-contiguous caller buffers: its
// operands are views of them (the transitions a step in, the cotangents
// with a unit column, init their last step), it is a matrix state of one
// column, and its results go on into other tensors rather than into a
// caller's buffer. The warps read the views (the unit column collapsed)
// and write buffers of the results' own, which the results then are (not
// writable: bufferization copies before writing into them). The output's
// holds each sequence's steps contiguously, as the lanes write them.
// CHECK-LABEL: func.func @views_into_own_buffers
// CHECK-DAG: %[[ALLOC:.*]] = memref.alloc() : memref<2x3x1x299xf32>
// CHECK-DAG: %[[OUT:.*]] = memref.transpose %[[ALLOC]] (d0, d1, d2, d3) -> (d0, d3, d1, d2) : memref<2x3x1x299xf32> to memref<2x299x3x1xf32, strided<[897, 1, 299, 299]>>
// CHECK-DAG: %[[LAST:.*]] = memref.alloc() : memref<2x3x1xf32>
// CHECK-DAG: %[[OUT3:.*]] = memref.collapse_shape %[[OUT]] {{\[}}[0], [1], [2, 3]]
// CHECK-DAG: %[[LAST2:.*]] = memref.collapse_shape %[[LAST]] {{\[}}[0], [1, 2]]
// CHECK-DAG: %[[A:.*]] = memref.subview %arg0[0, 1, 0] [2, 299, 3] [1, 1, 1]
// CHECK-DAG: %[[G4:.*]] = memref.expand_shape %arg1 {{\[}}[0], [1], [2, 3]]
// CHECK-DAG: %[[G:.*]] = memref.subview %[[G4]][0, 0, 0, 0] [2, 299, 3, 1]
// CHECK-DAG: %[[G3:.*]] = memref.collapse_shape %[[G]] {{\[}}[0], [1], [2, 3]]
// CHECK: memref.load %[[A]]
// CHECK: memref.load %[[G3]]
// CHECK: gpu.shuffle  up
// CHECK: memref.store %{{.*}}, %[[LAST2]]
// CHECK: memref.store %{{.*}}, %[[OUT3]]
// CHECK-NOT: recurrence.scan
// CHECK: %[[H:.*]] = bufferization.to_tensor %[[OUT]] restrict :
// CHECK: %[[F:.*]] = bufferization.to_tensor %[[LAST]] restrict :
// CHECK: return %[[H]], %[[F]]
func.func @views_into_own_buffers(
    %a: memref<2x300x3xf32, strided<[900, 1, 300]>>,
    %g: memref<2x300x3xf32, strided<[900, 1, 300]>>)
    -> (tensor<2x299x3x1xf32>, tensor<2x3x1xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<2x300x3xf32, strided<[900, 1, 300]>> to tensor<2x300x3xf32>
  %gt = bufferization.to_tensor %g restrict : memref<2x300x3xf32, strided<[900, 1, 300]>> to tensor<2x300x3xf32>
  %g4 = tensor.expand_shape %gt [[0], [1], [2, 3]] output_shape [2, 300, 3, 1] : tensor<2x300x3xf32> into tensor<2x300x3x1xf32>
  %last = tensor.extract_slice %g4[0, 299, 0, 0] [2, 1, 3, 1] [1, 1, 1, 1] : tensor<2x300x3x1xf32> to tensor<2x1x3x1xf32>
  %init = tensor.collapse_shape %last [[0, 1], [2], [3]] : tensor<2x1x3x1xf32> into tensor<2x3x1xf32>
  %shifted = tensor.extract_slice %at[0, 1, 0] [2, 299, 3] [1, 1, 1] : tensor<2x300x3xf32> to tensor<2x299x3xf32>
  %steps = tensor.extract_slice %g4[0, 0, 0, 0] [2, 299, 3, 1] [1, 1, 1, 1] : tensor<2x300x3x1xf32> to tensor<2x299x3x1xf32>
  %dest = tensor.empty() : tensor<2x299x3x1xf32>
  %dest_last = tensor.empty() : tensor<2x3x1xf32>
  %mu, %mu0 = recurrence.scan diagonal schedule sequential matrix reverse transition(%shifted : tensor<2x299x3xf32>) input(%steps : tensor<2x299x3x1xf32>) init(%init : tensor<2x3x1xf32>) outs(%dest, %dest_last : tensor<2x299x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x299x3x1xf32>, tensor<2x3x1xf32>
  return %mu, %mu0 : tensor<2x299x3x1xf32>, tensor<2x3x1xf32>
}
