// RUN: recurrence-opt %s -split-input-file -recurrence-unshare-init-tensors | FileCheck %s

// Two reductions into one zero fill (as CSE leaves them): the second gets a
// fill of its own empty tensor, next to it; the first keeps the original.
// CHECK-LABEL: func.func @shared_fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x5xf32>
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<3x5xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[Z]] : tensor<3x5xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<3x5xf32>
// CHECK: %[[Z2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<3x5xf32>)
// CHECK: linalg.generic {{.*}} outs(%[[Z2]] : tensor<3x5xf32>)
#s = affine_map<(b, i, j) -> (b, i, j)>
#o = affine_map<(b, i, j) -> (b, i)>
func.func @shared_fill(%s: tensor<3x5x4xf32>, %t: tensor<3x5x4xf32>) -> (tensor<3x5xf32>, tensor<3x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x5xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x5xf32>) -> tensor<3x5xf32>
  %a = linalg.generic {indexing_maps = [#s, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%s : tensor<3x5x4xf32>) outs(%z : tensor<3x5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<3x5xf32>
  %b = linalg.generic {indexing_maps = [#s, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%t : tensor<3x5x4xf32>) outs(%z : tensor<3x5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %acc, %x : f32
    linalg.yield %r : f32
  } -> tensor<3x5xf32>
  return %a, %b : tensor<3x5xf32>, tensor<3x5xf32>
}

// -----

// A shared empty tensor as the init of two ops: cloned for the second. An
// init computed from anything else (here the argument) stays shared.
// CHECK-LABEL: func.func @shared_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.copy ins(%arg0 : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: linalg.copy ins(%arg0 : tensor<4xf32>) outs(%[[E2]] : tensor<4xf32>)
// CHECK: linalg.copy ins(%arg0 : tensor<4xf32>) outs(%arg1 : tensor<4xf32>)
// CHECK: linalg.copy ins(%arg0 : tensor<4xf32>) outs(%arg1 : tensor<4xf32>)
func.func @shared_empty(%x: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %a = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %c = linalg.copy ins(%x : tensor<4xf32>) outs(%d : tensor<4xf32>) -> tensor<4xf32>
  %f = linalg.copy ins(%x : tensor<4xf32>) outs(%d : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b, %c, %f : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// The two branches of an scf.if run one at a time: they keep sharing the
// empty tensor (both may write the one buffer it becomes).
// CHECK-LABEL: func.func @exclusive_branches
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NOT: tensor.empty
// CHECK: linalg.copy ins(%arg1 : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
// CHECK: } else {
// CHECK-NEXT: linalg.copy ins(%arg2 : tensor<4xf32>) outs(%[[E]] : tensor<4xf32>)
func.func @exclusive_branches(%c: i1, %x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = scf.if %c -> tensor<4xf32> {
    %a = linalg.copy ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %a : tensor<4xf32>
  } else {
    %b = linalg.copy ins(%y : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// A slice of an empty tensor as an init (what elimination leaves where the
// empty it sliced was a destination since replaced) becomes an empty tensor
// of its own, which the next elimination can replace in turn.
// CHECK-LABEL: func.func @slice_of_empty
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[R:.*]] = linalg.copy ins(%arg0 : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: tensor.insert_slice %[[R]] into %arg1[0, 0] [2, 3] [1, 1]
func.func @slice_of_empty(%x: tensor<2x3xf32>, %d: tensor<8x3xf32>) -> tensor<8x3xf32> {
  %e = tensor.empty() : tensor<8x3xf32>
  %s = tensor.extract_slice %e[0, 0] [2, 3] [1, 1] : tensor<8x3xf32> to tensor<2x3xf32>
  %c = linalg.copy ins(%x : tensor<2x3xf32>) outs(%s : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = tensor.insert_slice %c into %d[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<8x3xf32>
  return %r : tensor<8x3xf32>
}

// -----

// One slice of an empty tensor as the init of two ops: folded into an
// empty first, then unshared like one (the folds run before the walk).
// CHECK-LABEL: func.func @shared_slice_of_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.copy ins(%arg0 : tensor<2x3xf32>) outs(%[[E]] : tensor<2x3xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: linalg.copy ins(%arg0 : tensor<2x3xf32>) outs(%[[E2]] : tensor<2x3xf32>)
func.func @shared_slice_of_empty(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<8x3xf32>
  %s = tensor.extract_slice %e[0, 0] [2, 3] [1, 1] : tensor<8x3xf32> to tensor<2x3xf32>
  %a = linalg.copy ins(%x : tensor<2x3xf32>) outs(%s : tensor<2x3xf32>) -> tensor<2x3xf32>
  %b = linalg.copy ins(%x : tensor<2x3xf32>) outs(%s : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %a, %b : tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A cast of an empty tensor as the init of two ops: the empty and the
// cast are cloned for the second.
// CHECK-LABEL: func.func @shared_cast_of_empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[E]] : tensor<4xf32> to tensor<?xf32>
// CHECK: linalg.copy ins(%arg0 : tensor<?xf32>) outs(%[[C]] : tensor<?xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<4xf32>
// CHECK: %[[C2:.*]] = tensor.cast %[[E2]] : tensor<4xf32> to tensor<?xf32>
// CHECK: linalg.copy ins(%arg0 : tensor<?xf32>) outs(%[[C2]] : tensor<?xf32>)
func.func @shared_cast_of_empty(%x: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %c = tensor.cast %e : tensor<4xf32> to tensor<?xf32>
  %a = linalg.copy ins(%x : tensor<?xf32>) outs(%c : tensor<?xf32>) -> tensor<?xf32>
  %b = linalg.copy ins(%x : tensor<?xf32>) outs(%c : tensor<?xf32>) -> tensor<?xf32>
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}
