// -recurrence-differentiate=functions=...: only the functions named, each
// of which must exist (a function of linalg ops alone included); a name
// that is not there is an error.
//
// RUN: recurrence-opt %s -recurrence-differentiate=functions=g | FileCheck %s
// RUN: not recurrence-opt %s -recurrence-differentiate=functions=nope 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MISSING

// CHECK-NOT: func.func @f_grad
// CHECK-LABEL: func.func @g_grad(%{{.*}}: tensor<4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// A constant scalar operand gets no cotangent; x gets ybar * 2 * x.
//       CHECK:   linalg.generic
//       CHECK:   arith.mulf
// MISSING: error: recurrence-differentiate: no function @nope with a body to differentiate

func.func @f(%a: tensor<2x6x3xf32>, %b: tensor<2x6x3xf32>) -> tensor<2x6x3xf32> {
  %h_dest = tensor.empty() : tensor<2x6x3xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf32>) input(%b : tensor<2x6x3xf32>) outs(%h_dest : tensor<2x6x3xf32>) -> tensor<2x6x3xf32>
  return %h : tensor<2x6x3xf32>
}

func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant 3.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%x, %c : tensor<4xf32>, f32) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %sq, %s : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}
