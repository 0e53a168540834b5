// Integer buffers are host bookkeeping for the GPU lowering (the buffer
// deallocation's index and flag lists), so an integer intermediate that
// kernels compute stays in host memory: -recurrence-to-nvvm says so rather
// than emit kernels that would fault.
//
// RUN: not recurrence-opt %s -recurrence-to-nvvm 2>&1 | FileCheck %s

#map = affine_map<(d0) -> (d0)>
func.func @integer_intermediate(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xi32>
  // CHECK: [[@LINE+1]]:8: error: a GPU kernel would access a buffer in host memory (its elements are not floats); not supported on the GPU yet
  %i = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xi32>) {
  ^bb0(%x: f32, %o: i32):
    %y = arith.fptosi %x : f32 to i32
    linalg.yield %y : i32
  } -> tensor<?xi32>
  %f = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%i : tensor<?xi32>) outs(%f : tensor<?xf32>) {
  ^bb0(%x: i32, %o: f32):
    %y = arith.sitofp %x : i32 to f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
