// The gradient function of a scan is scans and linalg ops again, so the
// pass run on it (functions=f_grad) derives the second-order gradient:
// f_grad_grad takes f_grad's arguments and the cotangents of its results,
// and the adjoint of the adjoint scan is a scan forward in time.
//
// RUN: recurrence-opt %s -recurrence-differentiate \
// RUN:   -recurrence-differentiate=functions=f_grad | FileCheck %s

// f_grad holds one forward scan (the states recomputed) and one reverse;
// its copy in f_grad_grad does too, so the further forward scans there are
// the adjoints of the adjoint scan.
// CHECK-LABEL: func.func @f_grad(
//       CHECK: func.func @f_grad_grad(%{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>) -> (tensor<2x6x3xf64>, tensor<2x6x3xf64>, tensor<2x6x3xf64>)
// CHECK-COUNT-3:   recurrence.scan diagonal matrix transition
//       CHECK:   return
//   CHECK-NOT:   func.func
func.func @f(%a: tensor<2x6x3xf64>, %b: tensor<2x6x3xf64>) -> tensor<2x6x3xf64> {
  %h_dest = tensor.empty() : tensor<2x6x3xf64>
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf64>) input(%b : tensor<2x6x3xf64>) outs(%h_dest : tensor<2x6x3xf64>) -> tensor<2x6x3xf64>
  return %h : tensor<2x6x3xf64>
}
