// Both pipelines write a step's short static reductions out as sums
// (-recurrence-unroll-reductions): a block_diagonal<4> step reads each block
// row's 4 entries and the block's 4 state elements as 8 operands of one
// all-parallel generic (over the tile's blocks: on the CPU those after the
// last whole vector of blocks, see vectorize-block-steps.mlir; one per GPU
// thread), and leaves no reduction loop over the block.
//
// RUN: recurrence-opt %s -recurrence-to-llvm -mlir-disable-threading -mlir-print-ir-after=recurrence-unroll-reductions 2>&1 >/dev/null | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=recurrence-unroll-reductions 2>&1 >/dev/null | FileCheck %s

// CHECK-LABEL: func.func @blocks(
// CHECK:         scf.for
// CHECK-NOT:       "reduction"
// CHECK:           linalg.generic {indexing_maps = {{.*}}, iterator_types = ["parallel", "parallel", "parallel"]} ins({{[^:]*}} : tensor<[[G:.*]]x4x4xf32>, tensor<[[G]]x4x4xf32>, tensor<[[G]]x4x4xf32>, tensor<[[G]]x4x4xf32>, tensor<[[G]]x4x1xf32>, tensor<[[G]]x4x1xf32>, tensor<[[G]]x4x1xf32>, tensor<[[G]]x4x1xf32>)
// CHECK-NOT:       "reduction"
// CHECK:           scf.yield
func.func @blocks(%a: tensor<?x?x?x4x4xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan block_diagonal<4> schedule sequential transition(%a : tensor<?x?x?x4x4xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
