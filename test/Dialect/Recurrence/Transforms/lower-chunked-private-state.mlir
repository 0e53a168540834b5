// With tile-channels (the GPU pipeline's setting), the local phase of a
// scan whose lane state has a static size starts each chunk from a zero
// state in a buffer of the lane's own (bufferization.alloc_tensor, which
// empty-tensor elimination leaves alone): a GPU thread accumulates the
// chunk in registers and writes the end state out once. A state of dynamic
// size (dense here: a lane holds all N channels), or one larger than what
// is promoted to the stack (1 KiB: a matrix state's row of 512 columns),
// keeps tensor.empty: its own buffer would be a heap allocation per thread.
//
// RUN: recurrence-opt %s -recurrence-lower-chunked=tile-channels=1 | FileCheck %s

// CHECK-LABEL: func.func @diagonal
// CHECK: scf.forall
// CHECK: %[[OWN:.*]] = bufferization.alloc_tensor() : tensor<1x1xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[OWN]] : tensor<1x1xf32>)
// CHECK: scf.for
// CHECK: scf.forall.in_parallel
// CHECK-NOT: bufferization.alloc_tensor
// CHECK-LABEL: func.func @dense
// CHECK-NOT: bufferization.alloc_tensor
// CHECK-LABEL: func.func @wide_matrix
// CHECK-NOT: bufferization.alloc_tensor
// CHECK: return
func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
func.func @dense(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d3 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d4 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d5 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d3, %d4, %d5) : tensor<?x?x?xf32>
  %h = recurrence.scan dense schedule chunked<64> transition(%a : tensor<?x?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
func.func @wide_matrix(%a: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x512xf32>) -> tensor<2x64x8x512xf32> {
  %h_dest = tensor.empty() : tensor<2x64x8x512xf32>
  %h = recurrence.scan diagonal schedule chunked<16> matrix transition(%a : tensor<2x64x8xf32>) factored_input(%k, %v : tensor<2x64x8xf32>, tensor<2x64x512xf32>) outs(%h_dest : tensor<2x64x8x512xf32>) -> tensor<2x64x8x512xf32>
  return %h : tensor<2x64x8x512xf32>
}
