// The gradient function of a scan is scans and linalg ops again, so the
// pass run on it (functions=f_grad) derives the second-order gradient:
// f_grad_grad takes f_grad's arguments and the cotangents of its results,
// and the adjoint of the adjoint scan is a scan forward in time.
//
// RUN: recurrence-opt %s -recurrence-differentiate=functions=f \
// RUN:   -recurrence-differentiate=functions=f_grad | FileCheck %s

// f_grad holds one forward scan (the states recomputed) and one reverse;
// its copy in f_grad_grad does too, so the further forward scans there are
// the adjoints of the adjoint scan.
// CHECK-LABEL: func.func @f_grad(
//       CHECK: func.func @f_grad_grad(%{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>, %{{.*}}: tensor<2x6x3xf64>) -> (tensor<2x6x3xf64>, tensor<2x6x3xf64>, tensor<2x6x3xf64>)
// CHECK-COUNT-3:   recurrence.scan diagonal matrix transition
//       CHECK:   return
//   CHECK-NOT:   func.func @f_grad
func.func @f(%a: tensor<2x6x3xf64>, %b: tensor<2x6x3xf64>) -> tensor<2x6x3xf64> {
  %h_dest = tensor.empty() : tensor<2x6x3xf64>
  %h = recurrence.scan diagonal transition(%a : tensor<2x6x3xf64>) input(%b : tensor<2x6x3xf64>) outs(%h_dest : tensor<2x6x3xf64>) -> tensor<2x6x3xf64>
  return %h : tensor<2x6x3xf64>
}

// A reverse scan: the gradient flips the operands' steps into the forward
// canonical form with marked gathers (recurrence.reverse_steps), and the
// second sweep flips the cotangents back with the same gathers rather than
// refusing a generic that reads by tensor.extract.
// RUN: recurrence-opt %s -recurrence-differentiate=functions=r \
// RUN:   -recurrence-differentiate=functions=r_grad | FileCheck %s --check-prefix=REVERSE
// REVERSE-LABEL: func.func @r_grad(
//       REVERSE:   linalg.generic {{.*}} {recurrence.reverse_steps}
// REVERSE-LABEL: func.func @r_grad_grad(
//       REVERSE:   linalg.generic {{.*}} {recurrence.reverse_steps}
//       REVERSE:   return
func.func @r(%a: tensor<2x6x3xf64>, %b: tensor<2x6x3xf64>) -> tensor<2x6x3xf64> {
  %h_dest = tensor.empty() : tensor<2x6x3xf64>
  %h = recurrence.scan diagonal reverse transition(%a : tensor<2x6x3xf64>) input(%b : tensor<2x6x3xf64>) outs(%h_dest : tensor<2x6x3xf64>) -> tensor<2x6x3xf64>
  return %h : tensor<2x6x3xf64>
}
