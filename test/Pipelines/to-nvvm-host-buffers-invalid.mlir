// Index and i1 buffers are host bookkeeping for the GPU lowering (the buffer
// deallocation's index and flag lists), so such an intermediate that
// kernels compute stays in host memory: -recurrence-to-nvvm says so rather
// than emit kernels that would fault. (i32 and i64 ones are data, on the
// device: a packed scan's sequence of each step.)
//
// RUN: not recurrence-opt %s -recurrence-to-nvvm 2>&1 | FileCheck %s

#map = affine_map<(d0) -> (d0)>
func.func @integer_intermediate(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xindex>
  // CHECK: [[@LINE+1]]:8: error: a GPU kernel would access a buffer in host memory (of index or i1 elements, the host's bookkeeping); not supported on the GPU yet
  %i = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xindex>) {
  ^bb0(%x: f32, %o: index):
    %y = arith.fptosi %x : f32 to i32
    %z = arith.index_cast %y : i32 to index
    linalg.yield %z : index
  } -> tensor<?xindex>
  %f = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%i : tensor<?xindex>) outs(%f : tensor<?xf32>) {
  ^bb0(%x: index, %o: f32):
    %w = arith.index_cast %x : index to i32
    %y = arith.sitofp %w : i32 to f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
