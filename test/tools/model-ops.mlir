// recurrence-run on the model ops: each compiled (decomposed into scans and
// linalg) and run on random inputs, against the float64 evaluation of the
// op's equations written out (test/lib/Reference/ModelReference.cpp), with
// several batch dims, every optional operand, and the final states.
//
// RUN: recurrence-run %s --entry attention | FileCheck %s --check-prefix=ATTENTION
// RUN: recurrence-run %s --entry raw_attention | FileCheck %s --check-prefix=RAW
// RUN: recurrence-run %s --entry gated_delta | FileCheck %s --check-prefix=DELTA
// RUN: recurrence-run %s --entry ssm | FileCheck %s --check-prefix=SSM
// RUN: recurrence-run %s --entry gates | FileCheck %s --check-prefix=GATES
// RUN: recurrence-run %s --entry one_row | FileCheck %s --check-prefix=GATES
// RUN: recurrence-run %s --entry hlru | FileCheck %s --check-prefix=HLRU
// RUN: recurrence-run %s --entry bdlru | FileCheck %s --check-prefix=BDLRU
//
// And their gradients: -recurrence-differentiate derives <f>_grad from a
// decomposed copy of <f>, which stays as written, so recurrence-run checks
// the gradient against central differences of <f>'s equations.
// RUN: recurrence-opt %s -recurrence-differentiate=functions=gated_delta,ssm,bdlru \
// RUN:   -o %t.mlir
// RUN: recurrence-run %t.mlir --entry gated_delta_grad | FileCheck %s --check-prefix=DELTA-GRAD
// RUN: recurrence-run %t.mlir --entry ssm_grad | FileCheck %s --check-prefix=SSM-GRAD
// RUN: recurrence-run %t.mlir --entry bdlru_grad | FileCheck %s --check-prefix=BDLRU-GRAD
// RUN: FileCheck %s --input-file=%t.mlir --check-prefix=PRIMAL

// DELTA-GRAD: gradient {{.*}} @gated_delta_grad of @gated_delta
// DELTA-GRAD: argument #5 ok:
// DELTA-GRAD-NEXT: all arguments ok:
// SSM-GRAD: gradient {{.*}} @ssm_grad of @ssm
// SSM-GRAD: argument #6 ok:
// SSM-GRAD-NEXT: all arguments ok:
// BDLRU-GRAD: argument #2 ok:
// BDLRU-GRAD-NEXT: all arguments ok:
// PRIMAL-LABEL: func.func @gated_delta(
// PRIMAL-NEXT: recurrence.delta_rule
// PRIMAL-LABEL: func.func @gated_delta_grad(
// PRIMAL-NOT: recurrence.delta_rule
// PRIMAL: recurrence.scan dplr<1>

// ATTENTION: example {{.*}} @attention
// ATTENTION: result #0 ok: max |error| vs float64 reference
// ATTENTION: result #1 ok:
// ATTENTION: result #2 ok:
func.func @attention(%q: tensor<2x3x7x4xf64>, %k: tensor<2x3x7x4xf64>,
                     %v: tensor<2x3x7x5xf64>, %s0: tensor<2x3x4x5xf64>,
                     %c0: tensor<2x3x4xf64>)
    -> (tensor<2x3x7x5xf64>, tensor<2x3x4x5xf64>, tensor<2x3x4xf64>) {
  %y, %s, %c = recurrence.linear_attention elu1 normalize
      q(%q : tensor<2x3x7x4xf64>) k(%k : tensor<2x3x7x4xf64>)
      v(%v : tensor<2x3x7x5xf64>) init(%s0 : tensor<2x3x4x5xf64>)
      normalizer_init(%c0 : tensor<2x3x4xf64>)
      -> tensor<2x3x7x5xf64>, tensor<2x3x4x5xf64>, tensor<2x3x4xf64>
  return %y, %s, %c : tensor<2x3x7x5xf64>, tensor<2x3x4x5xf64>, tensor<2x3x4xf64>
}

// RAW: result #0 ok:
func.func @raw_attention(%q: tensor<2x9x3xf32>, %k: tensor<2x9x3xf32>,
                         %v: tensor<2x9x2xf32>) -> tensor<2x9x2xf32> {
  %y = recurrence.linear_attention identity q(%q : tensor<2x9x3xf32>)
      k(%k : tensor<2x9x3xf32>) v(%v : tensor<2x9x2xf32>)
      {schedule = #recurrence.schedule<chunked<4>>} -> tensor<2x9x2xf32>
  return %y : tensor<2x9x2xf32>
}

// DELTA: result #0 ok:
// DELTA: result #1 ok:
func.func @gated_delta(%q: tensor<3x11x4xf64>, %k: tensor<3x11x4xf64>,
                       %v: tensor<3x11x3xf64>, %beta: tensor<3x11xf64>,
                       %g: tensor<3x11xf64>, %s0: tensor<3x4x3xf64>)
    -> (tensor<3x11x3xf64>, tensor<3x4x3xf64>) {
  %y, %s = recurrence.delta_rule q(%q : tensor<3x11x4xf64>)
      k(%k : tensor<3x11x4xf64>) v(%v : tensor<3x11x3xf64>)
      beta(%beta : tensor<3x11xf64>) gate(%g : tensor<3x11xf64>)
      init(%s0 : tensor<3x4x3xf64>) -> tensor<3x11x3xf64>, tensor<3x4x3xf64>
  return %y, %s : tensor<3x11x3xf64>, tensor<3x4x3xf64>
}

// SSM: result #0 ok:
// SSM: result #1 ok:
func.func @ssm(%x: tensor<2x13x5xf32>, %delta: tensor<2x13x5xf32>,
               %a: tensor<5x3xf32>, %b: tensor<2x13x3xf32>,
               %c: tensor<2x13x3xf32>, %d: tensor<5xf32>,
               %h0: tensor<2x3x5xf32>)
    -> (tensor<2x13x5xf32>, tensor<2x3x5xf32>) {
  %y, %h = recurrence.selective_ssm x(%x : tensor<2x13x5xf32>)
      delta(%delta : tensor<2x13x5xf32>) A(%a : tensor<5x3xf32>)
      B(%b : tensor<2x13x3xf32>) C(%c : tensor<2x13x3xf32>)
      D(%d : tensor<5xf32>) init(%h0 : tensor<2x3x5xf32>)
      -> tensor<2x13x5xf32>, tensor<2x3x5xf32>
  return %y, %h : tensor<2x13x5xf32>, tensor<2x3x5xf32>
}

// GATES: result #0 ok:
func.func @gates(%raw: tensor<4x6x3xf64>) -> tensor<4x6x3xf64> {
  %w = recurrence.normalize_gates softplus %raw : tensor<4x6x3xf64>
  return %w : tensor<4x6x3xf64>
}

// One row of gates, no batch dims.
func.func @one_row(%raw: tensor<6xf32>) -> tensor<6xf32> {
  %w = recurrence.normalize_gates abs %raw : tensor<6xf32>
  return %w : tensor<6xf32>
}

// H-LRU of order 2 on normalized gates, from an init, with its final
// state (the two latest states).
// HLRU: result #0 ok:
// HLRU: result #1 ok:
func.func @hlru(%raw: tensor<2x5x4x3xf64>, %v: tensor<2x5x4xf64>,
                %h0: tensor<2x2x4xf64>)
    -> (tensor<2x5x4xf64>, tensor<2x2x4xf64>) {
  %gates = recurrence.normalize_gates sigmoid %raw : tensor<2x5x4x3xf64>
  %h, %last = recurrence.hlru gates(%gates : tensor<2x5x4x3xf64>)
      input(%v : tensor<2x5x4xf64>) init(%h0 : tensor<2x2x4xf64>)
      -> tensor<2x5x4xf64>, tensor<2x2x4xf64>
  return %h, %last : tensor<2x5x4xf64>, tensor<2x2x4xf64>
}

// BD-LRU with three blocks of 2, from an init, with its final state.
// BDLRU: result #0 ok:
// BDLRU: result #1 ok:
func.func @bdlru(%raw: tensor<2x6x3x2x3xf32>, %v: tensor<2x6x6xf32>,
                 %h0: tensor<2x6xf32>) -> (tensor<2x6x6xf32>, tensor<2x6xf32>) {
  %gates = recurrence.normalize_gates exp %raw : tensor<2x6x3x2x3xf32>
  %h, %last = recurrence.bdlru gates(%gates : tensor<2x6x3x2x3xf32>)
      input(%v : tensor<2x6x6xf32>) init(%h0 : tensor<2x6xf32>)
      -> tensor<2x6x6xf32>, tensor<2x6xf32>
  return %h, %last : tensor<2x6x6xf32>, tensor<2x6xf32>
}
