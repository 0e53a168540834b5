// RUN: recurrence-opt %s -split-input-file -recurrence-gpu-block-rows -canonicalize -cse | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-to-nvvm | FileCheck %s --check-prefix=PTX

// A sequential block_diagonal<4> scan on the caller's buffers becomes a
// parallel loop with 2 lanes per row of each block (3 x 12 = 36 rows, 72
// lanes, in 3 warps; a warp per GPU block) that writes the caller's
// buffers itself. Lane g takes columns 2 (g mod 2) and the next of row
// g / 2: it loads those entries of A_t (reverse: from the end) and the
// row's input, widened from bf16, takes h_j from the first lane of row j
// (a shuffle idx from the block's first lane + 2 j), and the row's 2 lanes
// add their sums (a shuffle xor 1), so both hold the row's new state. The
// row's first lane writes; lanes 72..95 run on copies of the last row and
// write nothing.
// CHECK-LABEL: func.func @rows
// CHECK-NOT: recurrence.scan
// CHECK-NOT: materialize_in_destination
// CHECK: scf.parallel (%[[G:.*]]) = (%c0) to (%c96) step (%c1)
// CHECK: %[[INSIDE:.*]] = arith.cmpi ult, %[[G]], %c72
// CHECK: %[[PART:.*]] = arith.remui %[[G]], %c2
// CHECK: %[[FIRSTPART:.*]] = arith.cmpi eq, %[[PART]], %c0
// CHECK: %[[WRITES:.*]] = arith.andi %[[INSIDE]], %[[FIRSTPART]]
// CHECK: %[[R:.*]] = arith.divui %[[G]], %c2
// CHECK: %[[ROW:.*]] = arith.minui %[[R]], %c35
// CHECK: %[[AT:.*]]:2 = affine.delinearize_index %[[ROW]] into (3, 12)
// CHECK: %[[BLOCK:.*]] = arith.divui %[[AT]]#1, %c4
// CHECK: %[[I:.*]] = arith.remui %[[AT]]#1, %c4
// CHECK: %[[LANE:.*]] = arith.remui %[[G]], %c32
// CHECK: %[[OFF:.*]] = arith.remui %[[LANE]], %c8
// CHECK: %[[FIRST:.*]] = arith.subi %[[LANE]], %[[OFF]]
// CHECK: %[[FIRST32:.*]] = arith.index_cast %[[FIRST]] : index to i32
// CHECK: %[[J0:.*]] = arith.muli %[[PART]], %c2
// CHECK: %[[J032:.*]] = arith.index_cast %[[J0]] : index to i32
// CHECK: %[[SKIP:.*]] = arith.muli %[[J032]], %c2_i32
// CHECK: %[[H0:.*]] = memref.load %arg2[%[[AT]]#0, %[[AT]]#1]
// CHECK: %[[END:.*]] = scf.for %[[S:.*]] = %c0 to %c5 step %c1 iter_args(%[[H:.*]] = %[[H0]]) -> (f32)
// CHECK: %[[T:.*]] = arith.subi %c4, %[[S]]
// CHECK: %[[X:.*]] = memref.load %arg1[%[[AT]]#0, %[[T]], %[[AT]]#1]
// CHECK: %[[XF:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK: %[[SRC:.*]] = arith.addi %[[FIRST32]], %[[SKIP]]
// CHECK: %[[A0:.*]] = memref.load %arg0[%[[AT]]#0, %[[T]], %[[BLOCK]], %[[I]], %[[J0]]]
// CHECK: %[[A0F:.*]] = arith.extf %[[A0]] : bf16 to f32
// CHECK: %[[H0J:.*]], %{{.*}} = gpu.shuffle  idx %[[H]], %[[SRC]], %c32_i32
// CHECK: %[[P0:.*]] = arith.mulf %[[A0F]], %[[H0J]] fastmath<contract>
// CHECK: %[[J1:.*]] = arith.addi %[[J0]], %c1
// CHECK: %[[A1:.*]] = memref.load %arg0[%[[AT]]#0, %[[T]], %[[BLOCK]], %[[I]], %[[J1]]]
// CHECK: %[[A1F:.*]] = arith.extf %[[A1]] : bf16 to f32
// CHECK: %[[SRC1:.*]] = arith.addi %[[SRC]], %c2_i32
// CHECK: %[[H1J:.*]], %{{.*}} = gpu.shuffle  idx %[[H]], %[[SRC1]], %c32_i32
// CHECK: %[[P1:.*]] = arith.mulf %[[A1F]], %[[H1J]] fastmath<contract>
// CHECK: %[[MINE:.*]] = arith.addf %[[P0]], %[[P1]] fastmath<contract>
// CHECK: %[[OTHER:.*]], %{{.*}} = gpu.shuffle  xor %[[MINE]], %c1_i32, %c32_i32
// CHECK: %[[SUM:.*]] = arith.addf %[[MINE]], %[[OTHER]]
// CHECK: %[[NEW:.*]] = arith.addf %[[XF]], %[[SUM]]
// CHECK: scf.if %[[WRITES]] {
// CHECK-NEXT: %[[OUT:.*]] = arith.truncf %[[NEW]] : f32 to bf16
// CHECK-NEXT: memref.store %[[OUT]], %arg3[%[[AT]]#0, %[[T]], %[[AT]]#1]
// CHECK: scf.yield %[[NEW]] : f32
// CHECK: scf.if %[[WRITES]] {
// CHECK-NEXT: memref.store %[[END]], %arg4[%[[AT]]#0, %[[AT]]#1]
// CHECK: } {recurrence.warp_lanes = 32 : i64}
// CHECK-NEXT: return

// The kernel: 3 blocks of 32 threads, 2 shuffles idx and 1 xor a step (5
// steps).
// PTX-LABEL: llvm.func @rows(
// PTX-DAG: %[[TPB:.*]] = llvm.mlir.constant(32 : index) : i64
// PTX-DAG: %[[GRID:.*]] = llvm.mlir.constant(3 : index) : i64
// PTX: gpu.launch_func  @rows_kernel::@rows_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[TPB]], %{{.*}}, %{{.*}})
// PTX: gpu.binary @rows_kernel
// PTX-COUNT-10: shfl.sync.idx.b32
// PTX-NOT: shfl.sync.idx.b32
func.func @rows(%A: memref<3x5x3x4x4xbf16>, %b: memref<3x5x12xbf16>,
                %h0: memref<3x12xf32>, %y: memref<3x5x12xbf16>,
                %last: memref<3x12xf32>) {
  %At = bufferization.to_tensor %A restrict : memref<3x5x3x4x4xbf16> to tensor<3x5x3x4x4xbf16>
  %bt = bufferization.to_tensor %b restrict : memref<3x5x12xbf16> to tensor<3x5x12xbf16>
  %h0t = bufferization.to_tensor %h0 restrict : memref<3x12xf32> to tensor<3x12xf32>
  %h_dest = tensor.empty() : tensor<3x5x12xbf16>
  %last_dest = tensor.empty() : tensor<3x12xf32>
  %h, %l = recurrence.scan block_diagonal<4> schedule sequential reverse accumulate(f32) transition(%At : tensor<3x5x3x4x4xbf16>) input(%bt : tensor<3x5x12xbf16>) init(%h0t : tensor<3x12xf32>) outs(%h_dest, %last_dest : tensor<3x5x12xbf16>, tensor<3x12xf32>) -> tensor<3x5x12xbf16>, tensor<3x12xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<3x5x12xbf16>, memref<3x5x12xbf16>) -> ()
  bufferization.materialize_in_destination %l in restrict writable %last : (tensor<3x12xf32>, memref<3x12xf32>) -> ()
  return
}

// -----

// block_diagonal<16>: 2 lanes per row (8 x 512 rows, 8192 lanes, 256
// blocks of a warp), 8 columns each, with no init and no lanes past the
// rows. A lane's 8 products go to 4 interleaved sums. Its time loop is
// unrolled by 14 steps (14 x 9 loads fit in the 128 of `loads`) and
// pipelined: the prologue issues a whole unrolled step's loads.
// CHECK-LABEL: func.func @full_warps
// CHECK-NOT: arith.cmpi ult
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c8192) step (%c1)
// CHECK: scf.for %{{.*}} = %c0 to %c4096 step %c1 iter_args(%{{.*}} = %cst) -> (f32)
// CHECK-COUNT-8: gpu.shuffle  idx
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32
// CHECK-NOT: gpu.shuffle
// CHECK: memref.store
// CHECK: } {recurrence.warp_lanes = 32 : i64}
// PTX-LABEL: llvm.func @full_warps(
// PTX-DAG: %[[TPB:.*]] = llvm.mlir.constant(32 : index) : i64
// PTX-DAG: %[[GRID:.*]] = llvm.mlir.constant(256 : index) : i64
// PTX: gpu.launch_func  @full_warps_kernel::@full_warps_kernel blocks in (%[[GRID]], %{{.*}}, %{{.*}}) threads in (%[[TPB]], %{{.*}}, %{{.*}})
// PTX: gpu.binary @full_warps_kernel
// PTX-COUNT-126: ld.global.b32
// An L2 prefetch 64 steps ahead per line, not per load: each of the 14
// steps' input, and its row of A once (twice for half of the steps, whose
// column indices the pipeliner's copies of the index arithmetic hide from
// each other), 35 rather than 126.
// PTX: prefetch.L2
// PTX-COUNT-34: prefetch.L2
// PTX-NOT: prefetch.L2
func.func @full_warps(%A: memref<8x4096x32x16x16xf32>, %b: memref<8x4096x512xf32>,
                      %y: memref<8x4096x512xf32>) {
  %At = bufferization.to_tensor %A restrict : memref<8x4096x32x16x16xf32> to tensor<8x4096x32x16x16xf32>
  %bt = bufferization.to_tensor %b restrict : memref<8x4096x512xf32> to tensor<8x4096x512xf32>
  %h_dest = tensor.empty() : tensor<8x4096x512xf32>
  %h = recurrence.scan block_diagonal<16> schedule sequential transition(%At : tensor<8x4096x32x16x16xf32>) input(%bt : tensor<8x4096x512xf32>) outs(%h_dest : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<8x4096x512xf32>, memref<8x4096x512xf32>) -> ()
  return
}

// -----

// Left to the other lowerings: a chunked scan; blocks of 3, which do not
// divide a warp; operands that are not the caller's buffers; a diagonal.
// CHECK-LABEL: func.func @not_taken
// CHECK: recurrence.scan block_diagonal<2> schedule chunked<16>
// CHECK: recurrence.scan block_diagonal<3> schedule sequential
// CHECK: recurrence.scan block_diagonal<2> schedule sequential
// CHECK: recurrence.scan diagonal schedule sequential
// CHECK-NOT: gpu.shuffle
func.func @not_taken(%A: memref<2x40x3x2x2xf32>, %A3: memref<2x40x2x3x3xf32>,
                     %b: memref<2x40x6xf32>,
                     %y1: memref<2x40x6xf32>, %y2: memref<2x40x6xf32>,
                     %y3: memref<2x40x6xf32>,
                     %At2: tensor<2x40x3x2x2xf32>) -> tensor<2x40x6xf32> {
  %At = bufferization.to_tensor %A restrict : memref<2x40x3x2x2xf32> to tensor<2x40x3x2x2xf32>
  %A3t = bufferization.to_tensor %A3 restrict : memref<2x40x2x3x3xf32> to tensor<2x40x2x3x3xf32>
  %bt = bufferization.to_tensor %b restrict : memref<2x40x6xf32> to tensor<2x40x6xf32>
  %h_dest = tensor.empty() : tensor<2x40x6xf32>
  %h1 = recurrence.scan block_diagonal<2> schedule chunked<16> transition(%At : tensor<2x40x3x2x2xf32>) input(%bt : tensor<2x40x6xf32>) outs(%h_dest : tensor<2x40x6xf32>) -> tensor<2x40x6xf32>
  bufferization.materialize_in_destination %h1 in restrict writable %y1 : (tensor<2x40x6xf32>, memref<2x40x6xf32>) -> ()
  %h2 = recurrence.scan block_diagonal<3> schedule sequential transition(%A3t : tensor<2x40x2x3x3xf32>) input(%bt : tensor<2x40x6xf32>) outs(%h_dest : tensor<2x40x6xf32>) -> tensor<2x40x6xf32>
  bufferization.materialize_in_destination %h2 in restrict writable %y2 : (tensor<2x40x6xf32>, memref<2x40x6xf32>) -> ()
  %h3 = recurrence.scan block_diagonal<2> schedule sequential transition(%At2 : tensor<2x40x3x2x2xf32>) input(%bt : tensor<2x40x6xf32>) outs(%h_dest : tensor<2x40x6xf32>) -> tensor<2x40x6xf32>
  bufferization.materialize_in_destination %h3 in restrict writable %y3 : (tensor<2x40x6xf32>, memref<2x40x6xf32>) -> ()
  %h5 = recurrence.scan diagonal schedule sequential transition(%bt : tensor<2x40x6xf32>) input(%bt : tensor<2x40x6xf32>) outs(%h_dest : tensor<2x40x6xf32>) -> tensor<2x40x6xf32>
  return %h5 : tensor<2x40x6xf32>
}
