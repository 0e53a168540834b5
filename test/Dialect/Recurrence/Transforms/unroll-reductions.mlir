// -recurrence-unroll-reductions writes a short static reduction loop of a
// linalg.generic out as a sum in its body, in the loop's order: operands
// indexed by the loop are passed once per term (the loop a constant in their
// maps, an operand's terms side by side), the others once, and each term's body takes the previous one's
// result as its accumulator.
//
// RUN: recurrence-opt %s -recurrence-unroll-reductions | FileCheck %s
// RUN: recurrence-opt %s -recurrence-unroll-reductions=max-extent=2 | FileCheck %s --check-prefix=SHORT

// CHECK-DAG: #[[$A0:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-DAG: #[[$H0:.+]] = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
// CHECK-DAG: #[[$A2:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, 2)>
// CHECK-DAG: #[[$H2:.+]] = affine_map<(d0, d1, d2) -> (d0, 2, d2)>
// CHECK-DAG: #[[$OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$X0:.+]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[$X1:.+]] = affine_map<(d0, d1) -> (d0, 1)>
// CHECK-DAG: #[[$N:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$NU:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$M0:.+]] = affine_map<(d0, d1) -> (d0, 0, d1)>
// CHECK-DAG: #[[$M2:.+]] = affine_map<(d0, d1) -> (d0, 2, d1)>
// CHECK-DAG: #[[$MH:.+]] = affine_map<(d0, d1) -> (1, d1)>

// A block_diagonal<3> step: out[g, i, d] += A[g, i, j] * h[g, j, d].
// CHECK-LABEL: func.func @blocks(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<?x3x3xf32>, %[[H:[^:]*]]: tensor<?x3x1xf32>, %[[ACC:[^:]*]]: tensor<?x3x1xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$A0]], {{.*}}, #[[$A2]], #[[$H0]], {{.*}}, #[[$H2]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[A]], %[[A]], %[[H]], %[[H]], %[[H]] :
// CHECK-SAME:      outs(%[[ACC]] : tensor<?x3x1xf32>)
// CHECK:         ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[H0:.*]]: f32, %[[H1:.*]]: f32, %[[H2:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK:           %[[P0:.*]] = arith.mulf %[[A0]], %[[H0]] : f32
// CHECK:           %[[S0:.*]] = arith.addf %[[OUT]], %[[P0]] : f32
// CHECK:           %[[P1:.*]] = arith.mulf %[[A1]], %[[H1]] : f32
// CHECK:           %[[S1:.*]] = arith.addf %[[S0]], %[[P1]] : f32
// CHECK:           %[[P2:.*]] = arith.mulf %[[A2]], %[[H2]] : f32
// CHECK:           %[[S2:.*]] = arith.addf %[[S1]], %[[P2]] : f32
// CHECK:           linalg.yield %[[S2]] : f32
// SHORT-LABEL: func.func @blocks(
// SHORT:         iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @blocks(%a: tensor<?x3x3xf32>, %h: tensor<?x3x1xf32>, %acc: tensor<?x3x1xf32>) -> tensor<?x3x1xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(g, i, d, j) -> (g, i, j)>,
                       affine_map<(g, i, d, j) -> (g, j, d)>,
                       affine_map<(g, i, d, j) -> (g, i, d)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%a, %h : tensor<?x3x3xf32>, tensor<?x3x1xf32>)
      outs(%acc : tensor<?x3x1xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x3x1xf32>
  return %r : tensor<?x3x1xf32>
}

// An operand the loop does not index is passed once; a unit reduction loop
// stays; two results are carried term to term.
// CHECK-LABEL: func.func @two_results(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4x2xf64>, %[[S:[^:]*]]: tensor<4xf64>
// CHECK:         %{{.*}}:2 = linalg.generic {indexing_maps = [#[[$X0]], #[[$X1]], #[[$N]], #[[$NU]], #[[$N]], #[[$N]]]
// CHECK-SAME:      iterator_types = ["parallel", "reduction"]
// CHECK-SAME:      ins(%[[X]], %[[X]], %[[S]], %{{.*}} : tensor<4x2xf64>, tensor<4x2xf64>, tensor<4xf64>, tensor<4x1xf64>)
// CHECK:         ^bb0(%[[X0:.*]]: f64, %[[X1:.*]]: f64, %[[SC:.*]]: f64, %{{.*}}: f64, %[[SUM:.*]]: f64, %[[MAX:.*]]: f64):
// CHECK:           %[[T0:.*]] = arith.mulf %[[X0]], %[[SC]]
// CHECK:           %[[SUM0:.*]] = arith.addf %[[SUM]], %[[T0]]
// CHECK:           %[[MAX0:.*]] = arith.maximumf %[[MAX]], %[[X0]]
// CHECK:           %[[T1:.*]] = arith.mulf %[[X1]], %[[SC]]
// CHECK:           %[[SUM1:.*]] = arith.addf %[[SUM0]], %[[T1]]
// CHECK:           %[[MAX1:.*]] = arith.maximumf %[[MAX0]], %[[X1]]
// CHECK:           linalg.yield %[[SUM1]], %[[MAX1]]
func.func @two_results(%x: tensor<4x2xf64>, %s: tensor<4xf64>, %u: tensor<4x1xf64>, %sum: tensor<4xf64>, %max: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %r:2 = linalg.generic {
      indexing_maps = [affine_map<(n, k, u) -> (n, k)>,
                       affine_map<(n, k, u) -> (n)>,
                       affine_map<(n, k, u) -> (n, u)>,
                       affine_map<(n, k, u) -> (n)>,
                       affine_map<(n, k, u) -> (n)>],
      iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%x, %s, %u : tensor<4x2xf64>, tensor<4xf64>, tensor<4x1xf64>)
      outs(%sum, %max : tensor<4xf64>, tensor<4xf64>) {
  ^bb0(%xv: f64, %sv: f64, %uv: f64, %o: f64, %m: f64):
    %t = arith.mulf %xv, %sv : f64
    %a = arith.addf %o, %t : f64
    %b = arith.maximumf %m, %xv : f64
    linalg.yield %a, %b : f64, f64
  } -> (tensor<4xf64>, tensor<4xf64>)
  return %r#0, %r#1 : tensor<4xf64>, tensor<4xf64>
}

// The reduced loop in the middle: the loop after it becomes d1.
// CHECK-LABEL: func.func @middle(
// CHECK:         linalg.generic {indexing_maps = [#[[$M0]], {{.*}}, #[[$M2]], {{.*}}, #[[$MH]], {{.*}}, #[[$NU]]], iterator_types = ["parallel", "parallel"]}
func.func @middle(%a: tensor<5x3x7xf32>, %h: tensor<3x7xf32>, %acc: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(i, k, d) -> (i, k, d)>,
                       affine_map<(i, k, d) -> (k, d)>,
                       affine_map<(i, k, d) -> (i, d)>],
      iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%a, %h : tensor<5x3x7xf32>, tensor<3x7xf32>)
      outs(%acc : tensor<5x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<5x7xf32>
  return %r : tensor<5x7xf32>
}

// Left alone: a dynamic or long reduction, two reductions of more than one
// iteration, a body that reads its indices, and a result indexed by the
// reduction loop.
// CHECK-LABEL: func.func @left_alone(
// CHECK-COUNT-5: iterator_types = {{.*}}"reduction"
func.func @left_alone(%dyn: tensor<4x?xf32>, %long: tensor<4x17xf32>, %two: tensor<4x2x2xf32>, %acc: tensor<4xf32>, %acc2: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n)>], iterator_types = ["parallel", "reduction"]}
      ins(%dyn : tensor<4x?xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n)>], iterator_types = ["parallel", "reduction"]}
      ins(%long : tensor<4x17xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(n, k, l) -> (n, k, l)>, affine_map<(n, k, l) -> (n)>], iterator_types = ["parallel", "reduction", "reduction"]}
      ins(%two : tensor<4x2x2xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %short = tensor.extract_slice %long[0, 0] [4, 2] [1, 1] : tensor<4x17xf32> to tensor<4x2xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (n)>], iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<4x2xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %k = linalg.index 1 : index
    %i = arith.index_cast %k : index to i32
    %f = arith.sitofp %i : i32 to f32
    %p = arith.mulf %x, %f : f32
    %s = arith.addf %o, %p : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %4 = linalg.generic {indexing_maps = [affine_map<(n, k) -> (n, k)>, affine_map<(n, k) -> (k)>], iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<4x2xf32>) outs(%acc2 : tensor<2xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %o, %x : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %0, %1, %2, %3, %4 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<2xf32>
}
