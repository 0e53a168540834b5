// `recurrence-opt -recurrence-differentiate` on every example, then
// `recurrence-run --entry <f>_grad`, which checks the gradients against
// central differences of the float64 reference of <f> along a direction
// through each argument and one through all.
//
// RUN: recurrence-opt %S/../../examples/diagonal.mlir -recurrence-differentiate \
// RUN:   | recurrence-run - --entry diagonal_grad | FileCheck %s --check-prefix=DIAGONAL
// RUN: recurrence-opt %S/../../examples/selective_ssm.mlir -recurrence-differentiate \
// RUN:   | recurrence-run - --entry selective_ssm_grad | FileCheck %s --check-prefix=SSM
// RUN: recurrence-opt %S/../../examples/bdlru.mlir -recurrence-differentiate \
// RUN:   | recurrence-run - --entry bdlru_layer_grad | FileCheck %s --check-prefix=BDLRU

// DIAGONAL: gradient - @diagonal_grad of @diagonal
// DIAGONAL-NEXT: compiled in
// DIAGONAL-NEXT: argument #0 ok:
// DIAGONAL-NEXT: argument #1 ok:
// DIAGONAL-NEXT: all arguments ok:

// SSM: gradient - @selective_ssm_grad of @selective_ssm
// SSM-NEXT: compiled in
// SSM-NEXT: argument #0 ok:
// SSM-NEXT: argument #1 ok:
// SSM-NEXT: argument #2 ok:
// SSM-NEXT: argument #3 ok:
// SSM-NEXT: all arguments ok:

// The arith.mulf before the scan is differentiated too.
// BDLRU: gradient - @bdlru_layer_grad of @bdlru_layer
// BDLRU-NEXT: compiled in
// BDLRU-NEXT: argument #0 ok:
// BDLRU-NEXT: argument #1 ok:
// BDLRU-NEXT: argument #2 ok:
// BDLRU-NEXT: argument #3 ok:
// BDLRU-NEXT: all arguments ok:
