// RUN: recurrence-opt %s -split-input-file -recurrence-parallelize-linalg=cores=2 | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-parallelize-linalg | FileCheck %s --check-prefix=ONE-CORE

// A large elementwise op that no parallel loop encloses: its leading
// parallel dims, enough of them for several iterations per core (4 x 1024),
// are shared among the cores; the last runs serially in each iteration.
// CHECK-LABEL: func.func @large(
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-DAG:     %[[C64:.*]] = arith.constant 64 : index
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) = ({{.*}}) to (%[[C4]], %[[C1024]]) step
// CHECK-NEXT:      scf.for %{{.*}} = %{{.*}} to %[[C64]] step
// CHECK:             memref.load
// CHECK:             math.exp
// CHECK-NOT:     linalg.generic
// A machine of one core (no DLTI entry, no option) keeps the op.
// ONE-CORE-LABEL: func.func @large(
// ONE-CORE:         linalg.generic
// ONE-CORE-NOT:     scf.parallel
func.func @large(%x: memref<4x1024x64xf32>, %y: memref<4x1024x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, t, n) -> (b, t, n)>,
                                   affine_map<(b, t, n) -> (b, t, n)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : memref<4x1024x64xf32>) outs(%y : memref<4x1024x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A contraction [b, t, n] <- sum_d [b, t, n, d] with the reduction before
// the last parallel dim: only the leading dims are parallel; the others,
// the reduction included, are serial loops (upstream alone would nest a
// second parallel loop, a fork per iteration, inside the reduction).
// CHECK-LABEL: func.func @contraction(
// CHECK:         scf.parallel (%{{.*}}, %{{.*}}) =
// CHECK-NOT:       scf.parallel
// CHECK:           scf.for
// CHECK-NOT:       scf.parallel
// CHECK:             scf.for
// CHECK-NOT:         scf.parallel
// CHECK:               arith.mulf
// CHECK:               arith.addf
func.func @contraction(%s: memref<4x1024x64x64xf32>, %q: memref<4x1024x64xf32>,
                       %y: memref<4x1024x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, t, n, d) -> (b, t, d, n)>,
                                   affine_map<(b, t, n, d) -> (b, t, d)>,
                                   affine_map<(b, t, n, d) -> (b, t, n)>],
                  iterator_types = ["parallel", "parallel", "reduction",
                                    "parallel"]}
      ins(%s, %q : memref<4x1024x64x64xf32>, memref<4x1024x64xf32>)
      outs(%y : memref<4x1024x64xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Too small to pay for a fork and a join; a leading reduction (the
// parallel dims would fork inside a serial loop); inside a scan's parallel
// loop: each op stays for the serial loops.
// CHECK-LABEL: func.func @kept(
// CHECK-NOT:     scf.parallel
// CHECK:         linalg.fill
// CHECK:         linalg.generic
// CHECK:         scf.forall
// CHECK:           linalg.fill
// CHECK-NOT:     scf.parallel
func.func @kept(%small: memref<16x64xf32>, %x: memref<1024x256xf32>,
                %sum: memref<256xf32>, %tiles: memref<8x4096x64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%small : memref<16x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(t, n) -> (t, n)>,
                                   affine_map<(t, n) -> (n)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<1024x256xf32>) outs(%sum : memref<256xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %acc, %in : f32
    linalg.yield %r : f32
  }
  scf.forall (%i) in (8) {
    %tile = memref.subview %tiles[%i, 0, 0] [1, 4096, 64] [1, 1, 1]
        : memref<8x4096x64xf32> to memref<4096x64xf32, strided<[64, 1], offset: ?>>
    linalg.fill ins(%zero : f32) outs(%tile : memref<4096x64xf32, strided<[64, 1], offset: ?>>)
  }
  return
}

// -----

// Sizes known at run time: both forms, chosen by the iteration count.
// CHECK-LABEL: func.func @dynamic(
// CHECK-SAME:    %[[X:[^:]*]]: memref<?x?xf32>
// CHECK:         %[[ROWS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[COLS:.*]] = memref.dim %[[X]], %{{.*}}
// CHECK:         %[[COUNT:.*]] = arith.muli %[[ROWS]], %[[COLS]] : index
// CHECK:         %[[MIN:.*]] = arith.constant 65536 : index
// CHECK:         %[[LARGE:.*]] = arith.cmpi sge, %[[COUNT]], %[[MIN]] : index
// CHECK:         scf.if %[[LARGE]] {
// CHECK:           scf.parallel (%{{[^)]*}}) =
// CHECK-NOT:         linalg.generic
// CHECK:         } else {
// CHECK-NEXT:      linalg.generic
func.func @dynamic(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}
