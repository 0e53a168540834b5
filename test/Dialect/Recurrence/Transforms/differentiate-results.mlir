// -recurrence-differentiate=results=true: the gradient takes the function's
// results after its arguments (then the cotangents), and the adjoint of a
// scan whose output holds the states reads h_{t-1} there: no forward scan
// is recomputed, and no [B, T + 1, N] history is built. Step 0 read init,
// steps 1 .. T - 1 the output's steps 0 .. T - 2. A readout's output holds
// no states, nor does a narrower output hold them exactly: those adjoints
// recompute them, and only take the result as an (unread) argument.
// (Numbers: test_compile.py's test_gradient_of_results_reads_the_states and
// the C API test.)
//
// RUN: recurrence-opt %s -recurrence-differentiate=results=true | FileCheck %s
// RUN: recurrence-opt %s "-recurrence-differentiate=results=true checkpoint=4" | FileCheck %s --check-prefix=CHECKPOINT
// RUN: recurrence-opt %s -recurrence-differentiate | FileCheck %s --check-prefix=RECOMPUTE

// CHECK-LABEL: func.func @diagonal_grad(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x8x4xf32>, %[[B:[^:]*]]: tensor<2x8x4xf32>, %[[H0:[^:]*]]: tensor<2x4xf32>, %[[H:[^:]*]]: tensor<2x8x4xf32>, %[[DH:[^:]*]]: tensor<2x8x4xf32>)
// CHECK: %[[STATES:.*]] = tensor.expand_shape %[[H]]
// The scans are the adjoint's, in reverse (the last one step to init's
// cotangent).
// CHECK-NOT: recurrence.scan diagonal {{(matrix )?}}transition
// CHECK: recurrence.scan diagonal matrix reverse
// CHECK-NOT: recurrence.scan diagonal {{(matrix )?}}transition
// Step 0's gradient: mu_0 * init.
// CHECK: %[[INIT:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2], [3]] output_shape [2, 1, 4, 1]
// CHECK: %[[FIRST:.*]] = tensor.extract_slice %[[INIT]][0, 0, 0, 0] [2, 1, 4, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[FIRST]] : tensor<2x1x4x1xf32>, tensor<2x1x4x1xf32>)
// CHECK: tensor.insert_slice %{{.*}}[0, 0, 0] [2, 1, 4]
// Steps 1 .. 7: mu_t * h_{t-1}, the output's steps 0 .. 6.
// CHECK: %[[PREVIOUS:.*]] = tensor.extract_slice %[[STATES]][0, 0, 0, 0] [2, 7, 4, 1]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[PREVIOUS]] : tensor<2x7x4x1xf32>, tensor<2x7x4x1xf32>)
// CHECK: tensor.insert_slice %{{.*}}[0, 1, 0] [2, 7, 4]
// CHECK: return
// The states are given: no checkpoints either.
// CHECKPOINT-LABEL: func.func @diagonal_grad(
// CHECKPOINT-NOT: scf.for
// CHECKPOINT: recurrence.scan diagonal matrix reverse
// CHECKPOINT-NOT: scf.for
// CHECKPOINT: return
// Without the option, the gradient recomputes the states.
// RECOMPUTE-LABEL: func.func @diagonal_grad(
// RECOMPUTE-SAME: %{{[^:]*}}: tensor<2x4xf32>, %{{[^:]*}}: tensor<2x8x4xf32>)
// RECOMPUTE: recurrence.scan diagonal matrix transition
// RECOMPUTE: recurrence.scan diagonal matrix reverse
func.func @diagonal(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %h0: tensor<2x4xf32>) -> tensor<2x8x4xf32> {
  %dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) init(%h0 : tensor<2x4xf32>) outs(%dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// Read out: the output is not the states, which are recomputed.
// CHECK-LABEL: func.func @read_out_grad(
// CHECK-SAME: %{{[^:]*}}: tensor<2x8x3xf32>, %{{[^:]*}}: tensor<2x8x3xf32>)
// CHECK: recurrence.scan diagonal matrix transition
// CHECK: recurrence.scan diagonal matrix reverse
func.func @read_out(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4x3xf32>, %c: tensor<2x8x4xf32>) -> tensor<2x8x3xf32> {
  %dest = tensor.empty() : tensor<2x8x3xf32>
  %y = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4x3xf32>) readout(%c : tensor<2x8x4xf32>) outs(%dest : tensor<2x8x3xf32>) -> tensor<2x8x3xf32>
  return %y : tensor<2x8x3xf32>
}

// A bf16 output rounds the f32 states: they are recomputed.
// CHECK-LABEL: func.func @narrow_grad(
// CHECK-SAME: %{{[^:]*}}: tensor<2x8x4xbf16>, %{{[^:]*}}: tensor<2x8x4xbf16>)
// CHECK: recurrence.scan diagonal matrix transition
// CHECK: recurrence.scan diagonal matrix reverse
func.func @narrow(%a: tensor<2x8x4xbf16>, %b: tensor<2x8x4xbf16>) -> tensor<2x8x4xbf16> {
  %dest = tensor.empty() : tensor<2x8x4xbf16>
  %h = recurrence.scan diagonal accumulate(f32) transition(%a : tensor<2x8x4xbf16>) input(%b : tensor<2x8x4xbf16>) outs(%dest : tensor<2x8x4xbf16>) -> tensor<2x8x4xbf16>
  return %h : tensor<2x8x4xbf16>
}

// Packed sequences: the output holds each sequence's states too, so the
// packed adjoint reads them there; the only scans left are the reverse one
// over the sequences and the one-step scan of the inits' cotangents (and
// the identity scans that spread each init over its sequence).
// CHECK-LABEL: func.func @packed_grad(
// CHECK-SAME: %{{[^:]*}}: tensor<?xi64>, %[[PH:[^:]*]]: tensor<2x8x4xf32>, %{{[^:]*}}: tensor<2x8x4xf32>)
// CHECK: tensor.expand_shape %[[PH]]
// CHECK-NOT: recurrence.scan diagonal {{(matrix )?}}transition
// CHECK: recurrence.scan diagonal matrix reverse
// CHECK-NOT: recurrence.scan diagonal {{(matrix )?}}transition
// CHECK: return
// RECOMPUTE-LABEL: func.func @packed_grad(
// RECOMPUTE: recurrence.scan diagonal matrix transition
// RECOMPUTE: recurrence.scan diagonal matrix reverse
func.func @packed(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %h0: tensor<2x3x4xf32>, %o: tensor<?xi64>) -> tensor<2x8x4xf32> {
  %dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) init(%h0 : tensor<2x3x4xf32>) offsets(%o : tensor<?xi64>) outs(%dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}
