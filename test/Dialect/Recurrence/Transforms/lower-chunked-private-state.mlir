// With tile-channels (the GPU pipeline's setting), the local phase of a
// scan whose lane state has a static size starts each chunk from a zero
// state in a buffer of the lane's own (bufferization.alloc_tensor, which
// empty-tensor elimination leaves alone): a GPU thread accumulates the
// chunk in registers and writes the end state out once. A state of dynamic
// size (dense here: a lane holds all N channels) keeps tensor.empty.
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
// CHECK: return
func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %h = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
func.func @dense(%a: tensor<?x?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %h = recurrence.scan dense schedule chunked<64> transition(%a : tensor<?x?x?x?xf32>) input(%b : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
