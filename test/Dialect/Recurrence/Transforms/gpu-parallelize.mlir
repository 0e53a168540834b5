// RUN: recurrence-opt %s -split-input-file -recurrence-gpu-parallelize="threads=32 elementwise-threads=256" -cse | FileCheck %s

// An elementwise op whose inner run fills a block becomes blocks over (row,
// tile of the run) with 256 threads on consecutive elements of the run, 4
// each, 256 apart. The rows are the dims before the last dynamic one,
// delinearized once per thread; the run is that dim and the static ones
// after it. Tiles past the grid's y limit are looped over. A run shorter
// than a block (known only at run time here) is flattened instead.
// CHECK-LABEL: func.func @rows
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[T:.*]] = memref.dim %arg0, %c1
// CHECK-DAG: %[[N:.*]] = memref.dim %arg0, %c2
// CHECK: %[[N1:.*]] = arith.muli %c1, %[[N]] : index
// CHECK: %[[LEN:.*]] = arith.muli %[[N1]], %c1 : index
// CHECK: %[[LONG:.*]] = arith.cmpi uge, %[[LEN]], %c256
// CHECK: scf.if %[[LONG]] {
// CHECK: %[[B1:.*]] = arith.muli %c1, %[[B]] : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[B1]], %[[T]] : index
// CHECK: %[[TILES:.*]] = arith.ceildivui %[[LEN]], %c1024
// CHECK: %[[GRIDY:.*]] = arith.minui %[[TILES]], %c65535
// CHECK: scf.parallel (%[[ROW:.*]], %[[Y:.*]]) = (%c0, %c0) to (%[[ROWS]], %[[GRIDY]])
// CHECK-NEXT: scf.parallel (%[[LANE:.*]]) = (%c0) to (%c256)
// CHECK-NEXT: %[[BT:.*]]:2 = affine.delinearize_index %[[ROW]] into (%[[B]], %[[T]])
// CHECK-NEXT: %[[STEP:.*]] = arith.maxui %[[GRIDY]], %c1
// CHECK-NEXT: scf.for %[[TILE:.*]] = %[[Y]] to %[[TILES]] step %[[STEP]]
// CHECK-NEXT: scf.for %[[E:.*]] = %c0 to %c4
// CHECK-NEXT: %[[SLOT:.*]] = arith.muli %[[TILE]], %c4
// CHECK-NEXT: %[[SLOT2:.*]] = arith.addi %[[SLOT]], %[[E]]
// CHECK-NEXT: %[[BASE:.*]] = arith.muli %[[SLOT2]], %c256
// CHECK-NEXT: %[[COL:.*]] = arith.addi %[[BASE]], %[[LANE]]
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi ult, %[[COL]], %[[LEN]]
// CHECK-NEXT: scf.if %[[IN]]
// CHECK-NEXT: affine.delinearize_index %[[COL]] into (%[[N]], 1)
// CHECK: %[[X:.*]] = memref.load %arg0
// CHECK: memref.store %[[X]], %arg1
// CHECK-NOT: affine.delinearize_index
// CHECK: } else {
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%{{.*}}) step
// CHECK: affine.delinearize_index %{{.*}} into (%[[B]], %[[T]], %[[N]], 1)
// CHECK: return
func.func @rows(%a: memref<?x?x?x1xf32>, %b: memref<?x?x?x1xf32>) {
  linalg.copy ins(%a : memref<?x?x?x1xf32>) outs(%b : memref<?x?x?x1xf32>)
  return
}

// -----

// A static run that fills a block: one row, no run-time choice; the run's
// dims are divided out by constants.
// CHECK-LABEL: func.func @static_long
// CHECK-NOT: scf.if
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%c1, %{{.*}})
// CHECK-NOT: affine.delinearize_index
// CHECK: scf.if
// CHECK-NEXT: affine.delinearize_index %{{.*}} into (4, 512)
// CHECK: memref.store
func.func @static_long(%a: memref<4x512xf32>, %c: f32) {
  linalg.fill ins(%c : f32) outs(%a : memref<4x512xf32>)
  return
}

// -----

// A static run shorter than a block: flattened, tiled by 256.
// CHECK-LABEL: func.func @static_short
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%{{.*}}) step (%[[W:.*]])
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%c0) to (%[[W]])
// CHECK: affine.delinearize_index %{{.*}} into (3, 5)
func.func @static_short(%a: memref<3x5xf32>, %c: f32) {
  linalg.fill ins(%c : f32) outs(%a : memref<3x5xf32>)
  return
}

// -----

// A scan's loop stays flat: one dim of blocks of 32 threads.
// CHECK-LABEL: func.func @scan_loop
// CHECK: %[[STEP:.*]] = arith.muli %c1, %c32
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%c0) to (%{{.*}}) step (%[[STEP]])
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%c0) to (%[[STEP]])
// CHECK: affine.delinearize_index
func.func @scan_loop(%a: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?xf32>
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// A reduction over leading dims (the gradient of a transition shared by
// the batch and the steps, summed over both): its parallel dims become the
// kernel, and each thread sums its reductions in sequence, over b, then t,
// reading g[b, t, n, d] for its (d, n). (In the op's own order a reduction
// came first, as a host loop, and the pass crashed.) The sum is carried by
// the loops, loaded before them and stored after: not loaded and stored at
// every step, a round trip through memory that each step waited for.
// CHECK-LABEL: func.func @leading_reduction
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c0
// CHECK-DAG: %[[T:.*]] = memref.dim %arg0, %c1
// CHECK-NOT: scf.for
// CHECK: scf.parallel (%[[N:.*]], %{{.*}}) =
// CHECK: scf.parallel (%[[THREAD:.*]]) =
// CHECK: %[[D:.*]] = arith.addi %{{.*}}, %[[THREAD]] : index
// CHECK: %[[ACC:.*]] = memref.load %arg1[%[[D]], %[[N]]]
// CHECK-NEXT: %[[SUMB:.*]] = scf.for %[[IB:.*]] = %c0 to %[[B]] step %c1 iter_args(%[[OUTER:.*]] = %[[ACC]])
// CHECK-NEXT: %[[SUMT:.*]] = scf.for %[[IT:.*]] = %c0 to %[[T]] step %c1 iter_args(%[[INNER:.*]] = %[[OUTER]])
// CHECK-NEXT: %[[XB:.*]] = affine.apply #{{.*}}(%[[IB]])
// CHECK-NEXT: %[[XT:.*]] = affine.apply #{{.*}}(%[[IT]])
// CHECK-NEXT: %[[XN:.*]] = affine.apply #{{.*}}(%[[N]])
// CHECK-NEXT: %[[XD:.*]] = affine.apply #{{.*}}(%[[D]])
// CHECK-NEXT: %[[G:.*]] = memref.load %arg0[%[[XB]], %[[XT]], %[[XN]], %[[XD]]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[INNER]], %[[G]]
// CHECK-NEXT: scf.yield %[[SUM]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %[[SUMT]]
// CHECK-NEXT: }
// CHECK-NEXT: memref.store %[[SUMB]], %arg1[%[[D]], %[[N]]]
// CHECK: return
func.func @leading_reduction(%g: memref<?x?x?x?xf32>, %dA: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, d, t, n) -> (b, t, n, d)>,
                                   affine_map<(b, d, t, n) -> (d, n)>],
                  iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
      ins(%g : memref<?x?x?x?xf32>) outs(%dA : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An elementwise op over buffers whose unit stride is not their last dim (a
// time-contiguous [B, N, T] array's [B, T, N] view) is laid out as their
// memory: T, the dim of unit stride, becomes the run that neighbouring
// threads take.
// CHECK-LABEL: func.func @time_contiguous
// CHECK: scf.if
// CHECK-NEXT: %[[BNT:.*]]:3 = affine.delinearize_index %{{.*}} into (4, 32, 64)
// CHECK-DAG: %[[B:.*]] = affine.apply #{{.*}}(%[[BNT]]#0)
// CHECK-DAG: %[[T:.*]] = affine.apply #{{.*}}(%[[BNT]]#2)
// CHECK-DAG: %[[N:.*]] = affine.apply #{{.*}}(%[[BNT]]#1)
// CHECK: %[[X:.*]] = memref.load %arg0[%[[B]], %[[T]], %[[N]]]
// CHECK: memref.store %[[X]], %arg1[%[[B]], %[[T]], %[[N]]]
func.func @time_contiguous(%a: memref<4x64x32xf32, strided<[2048, 1, 64]>>,
                           %b: memref<4x64x32xf32, strided<[2048, 1, 64]>>) {
  linalg.copy ins(%a : memref<4x64x32xf32, strided<[2048, 1, 64]>>)
              outs(%b : memref<4x64x32xf32, strided<[2048, 1, 64]>>)
  return
}

// -----

// The same reduction at static sizes, laid out as the data it sums: the
// loads of g[b, t, n, d], 256 per thread, step d at unit stride, and
// outweigh the accumulator's one element [d, n] (whose unit stride is n),
// so d is the run that neighbouring threads take. Each thread sums one
// element (its 256 loads are work enough): 16 x 96 threads, not a fourth
// of them.
// CHECK-LABEL: func.func @reduction_layout
// CHECK-NOT: gpu.shuffle
// CHECK: %[[TILES:.*]] = arith.ceildivui %{{.*}}, %c256
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[TILES]]
// CHECK-NEXT: scf.for %{{.*}} = %c0 to %c1 step %c1
// CHECK: %[[ND:.*]]:2 = affine.delinearize_index %{{.*}} into (16, 96)
// CHECK-NEXT: memref.load %arg1[%[[ND]]#1, %[[ND]]#0]
// CHECK-NEXT: scf.for %[[IB:.*]] = %c0 to %c4 step %c1 iter_args
// CHECK-NEXT: scf.for %[[IT:.*]] = %c0 to %c64 step %c1 iter_args
// CHECK-DAG: %[[N:.*]] = affine.apply #{{.*}}(%[[ND]]#0)
// CHECK-DAG: %[[D:.*]] = affine.apply #{{.*}}(%[[ND]]#1)
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %[[N]], %[[D]]]
// CHECK-NOT: memref.store
// CHECK: memref.store %{{.*}}, %arg1[%[[ND]]#1, %[[ND]]#0]
func.func @reduction_layout(%g: memref<4x64x16x96xf32>, %dA: memref<96x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, d, t, n) -> (b, t, n, d)>,
                                   affine_map<(b, d, t, n) -> (d, n)>],
                  iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
      ins(%g : memref<4x64x16x96xf32>) outs(%dA : memref<96x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A reduction whose sum shares its buffer with what it reads (views of one
// allocation): a step's load may read what an earlier step stored, so the
// sum stays in memory, loaded and stored at every step.
// CHECK-LABEL: func.func @reduction_aliased
// CHECK: scf.for %{{.*}} = %c0 to %c8 step %c1 {
// CHECK-NEXT: affine.apply
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.load %[[G:.*]][
// CHECK-NEXT: %[[ACC:.*]] = memref.load %[[S:.*]][
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]]
// CHECK-NEXT: memref.store %[[SUM]], %[[S]][
func.func @reduction_aliased() {
  %buffer = memref.alloc() : memref<9x8xf32>
  %g = memref.subview %buffer[0, 0] [8, 8] [1, 1]
      : memref<9x8xf32> to memref<8x8xf32, strided<[8, 1]>>
  %sum = memref.subview %buffer[8, 0] [1, 8] [1, 1]
      : memref<9x8xf32> to memref<8xf32, strided<[1], offset: 64>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%g : memref<8x8xf32, strided<[8, 1]>>)
      outs(%sum : memref<8xf32, strided<[1], offset: 64>>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A sum along rows of unit stride (the gradient of an input that a step's
// every channel reads, summed over the channels): a warp per row, its lanes
// taking neighbouring elements, 32 apart each, added by a butterfly of
// shuffles; lane 0 adds the sum's initial value and stores the total. (A
// thread per row read 32 rows, 1 KB apart, at every load.)
// CHECK-LABEL: func.func @row_sum
// CHECK: %[[RL:.*]]:2 = affine.delinearize_index %{{.*}} into (64, 32)
// CHECK-NEXT: %[[INIT:.*]] = memref.load %arg1[%[[RL]]#0]
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[RL]]#1, %c0
// CHECK: %[[START:.*]] = arith.select %[[FIRST]], %[[INIT]], %cst
// CHECK-NEXT: %[[SUM:.*]] = scf.for %[[K:.*]] = %[[RL]]#1 to %c256 step %c32 iter_args(%[[ACC:.*]] = %[[START]])
// CHECK-NEXT: %[[ROW:.*]] = affine.apply #{{.*}}(%[[RL]]#0)
// CHECK-NEXT: %[[COLUMN:.*]] = affine.apply #{{.*}}(%[[K]])
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[ROW]], %[[COLUMN]]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[X]]
// CHECK: %[[S16:.*]], %{{.*}} = gpu.shuffle xor %[[SUM]], %c16_i32, %c32_i32
// CHECK-NEXT: %[[T16:.*]] = arith.addf %[[SUM]], %[[S16]]
// CHECK-COUNT-4: gpu.shuffle xor
// CHECK-NEXT: %[[TOTAL:.*]] = arith.addf
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[TOTAL]], %arg1[%[[RL]]#0]
func.func @row_sum(%x: memref<64x256xf32>, %sum: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x256xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Rows shorter than a warp are summed by a thread each.
// CHECK-LABEL: func.func @short_row_sum
// CHECK-NOT: gpu.shuffle
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @short_row_sum(%x: memref<64x16xf32>, %sum: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x16xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// So are f64 rows: the lanes of a warp scan or a row sum exchange f32s.
// CHECK-LABEL: func.func @f64_row_sum
// CHECK-NOT: gpu.shuffle
// CHECK: scf.for %{{.*}} = %c0 to %c256 step %c1 iter_args
// CHECK-NOT: gpu.shuffle
// CHECK: return
func.func @f64_row_sum(%x: memref<64x256xf64>, %sum: memref<64xf64>) {
  linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>,
                                   affine_map<(i, k) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x256xf64>) outs(%sum : memref<64xf64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.addf %out, %in : f64
    linalg.yield %s : f64
  }
  return
}
