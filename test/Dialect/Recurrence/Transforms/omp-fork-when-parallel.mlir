// RUN: recurrence-opt %s -convert-scf-to-openmp -recurrence-omp-fork-when-parallel | FileCheck %s

// The team forks only when the loop has more than one iteration at run
// time: ceil((ub - lb) / step), 0 for an empty range, multiplied over dims.
// CHECK-LABEL: func.func @tiles(
// CHECK-SAME:    %[[N:[^:]*]]: index, %[[TILE:[^:]*]]: index, %[[BATCH:[^:]*]]: index
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[SPAN0:.*]] = arith.subi %[[BATCH]], %[[C0]] : index
// CHECK:         %[[EMPTY0:.*]] = arith.cmpi sle, %[[SPAN0]], %[[Z0:.*]] : index
// CHECK:         %[[DIV0:.*]] = arith.ceildivsi %[[SPAN0]], %[[C1]] : index
// CHECK:         %[[COUNT0:.*]] = arith.select %[[EMPTY0]], %[[Z0]], %[[DIV0]] : index
// CHECK:         %[[SPAN1:.*]] = arith.subi %[[N]], %[[C0]] : index
// CHECK:         %[[DIV1:.*]] = arith.ceildivsi %[[SPAN1]], %[[TILE]] : index
// CHECK:         %[[COUNT1:.*]] = arith.select %{{.*}}, %{{.*}}, %[[DIV1]] : index
// CHECK:         %[[TOTAL:.*]] = arith.muli %[[COUNT0]], %[[COUNT1]] : index
// CHECK:         %[[SEVERAL:.*]] = arith.cmpi sgt, %[[TOTAL]], %{{.*}} : index
// CHECK:         omp.parallel if(%[[SEVERAL]])
// CHECK-NEXT:      omp.wsloop
func.func @tiles(%n: index, %tile: index, %batch: index, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%batch, %n) step (%c1, %tile) {
    memref.store %zero, %out[%i, %j] : memref<?x?xf32>
    scf.reduce
  }
  return
}

// A parallel region that is not one work-sharing loop keeps its fork.
// CHECK-LABEL: func.func @region(
// CHECK:         omp.parallel {
func.func @region(%out: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  omp.parallel {
    memref.store %zero, %out[] : memref<f32>
    omp.terminator
  }
  return
}
