// recurrence-run on model ops over packed sequences: it draws valid offsets
// (the first sequence empty, the second of one step, the rest at random),
// evaluates each op's equations on each sequence alone (its steps' slices
// of the per-step operands, its own init) and checks the compiled function
// against them, the final states included; the gradients that
// -recurrence-differentiate derives are checked against central
// differences of those equations, with the offsets held fixed.
//
// RUN: recurrence-run %s --entry attention | FileCheck %s --check-prefix=ATTENTION
// RUN: recurrence-run %s --entry gated_delta | FileCheck %s --check-prefix=DELTA
// RUN: recurrence-run %s --entry ssm --seed 3 | FileCheck %s --check-prefix=SSM
// RUN: recurrence-run %s --entry bdlru | FileCheck %s --check-prefix=BDLRU
// RUN: recurrence-run %s --entry shared_qk | FileCheck %s --check-prefix=SHARED
// RUN: recurrence-opt %s -recurrence-differentiate=functions=attention,gated_delta,ssm,bdlru \
// RUN:   -o %t.mlir
// RUN: recurrence-run %t.mlir --entry attention_grad | FileCheck %s --check-prefix=ATTENTION-GRAD
// RUN: recurrence-run %t.mlir --entry gated_delta_grad | FileCheck %s --check-prefix=DELTA-GRAD
// RUN: recurrence-run %t.mlir --entry ssm_grad | FileCheck %s --check-prefix=SSM-GRAD
// RUN: recurrence-run %t.mlir --entry bdlru_grad | FileCheck %s --check-prefix=BDLRU-GRAD

// Normalized linear attention over 4 sequences packed in 15 steps, with
// batch dims, both inits and both final states.
// ATTENTION: example {{.*}} @attention
// ATTENTION: result #0 ok: max |error| vs float64 reference
// ATTENTION: result #1 ok:
// ATTENTION: result #2 ok:
// ATTENTION-GRAD: gradient {{.*}} @attention_grad of @attention
// ATTENTION-GRAD-NOT: argument #5
// ATTENTION-GRAD: all arguments ok:
func.func @attention(%q: tensor<2x15x3xf64>, %k: tensor<2x15x3xf64>,
                     %v: tensor<2x15x2xf64>, %s0: tensor<2x4x3x2xf64>,
                     %c0: tensor<2x4x3xf64>, %o: tensor<5xi64>)
    -> (tensor<2x15x2xf64>, tensor<2x4x3x2xf64>, tensor<2x4x3xf64>) {
  %y, %s, %c = recurrence.linear_attention elu1 normalize
      q(%q : tensor<2x15x3xf64>) k(%k : tensor<2x15x3xf64>)
      v(%v : tensor<2x15x2xf64>) init(%s0 : tensor<2x4x3x2xf64>)
      normalizer_init(%c0 : tensor<2x4x3xf64>) offsets(%o : tensor<5xi64>)
      -> tensor<2x15x2xf64>, tensor<2x4x3x2xf64>, tensor<2x4x3xf64>
  return %y, %s, %c : tensor<2x15x2xf64>, tensor<2x4x3x2xf64>, tensor<2x4x3xf64>
}

// The gated delta rule, no batch dims, in chunks of 4 steps that the
// sequences cross.
// DELTA: result #0 ok:
// DELTA: result #1 ok:
// DELTA-GRAD: gradient {{.*}} @gated_delta_grad of @gated_delta
// DELTA-GRAD: argument #5 ok:
// DELTA-GRAD-NEXT: all arguments ok:
func.func @gated_delta(%q: tensor<13x4xf64>, %k: tensor<13x4xf64>,
                       %v: tensor<13x3xf64>, %beta: tensor<13xf64>,
                       %g: tensor<13xf64>, %s0: tensor<5x4x3xf64>,
                       %o: tensor<6xi32>)
    -> (tensor<13x3xf64>, tensor<5x4x3xf64>) {
  %y, %s = recurrence.delta_rule q(%q : tensor<13x4xf64>)
      k(%k : tensor<13x4xf64>) v(%v : tensor<13x3xf64>)
      beta(%beta : tensor<13xf64>) gate(%g : tensor<13xf64>)
      init(%s0 : tensor<5x4x3xf64>) offsets(%o : tensor<6xi32>)
      {schedule = #recurrence.schedule<chunked<4>>}
      -> tensor<13x3xf64>, tensor<5x4x3xf64>
  return %y, %s : tensor<13x3xf64>, tensor<5x4x3xf64>
}

// Mamba's selective SSM, float32: A and D are parameters of every sequence.
// SSM: result #0 ok:
// SSM: result #1 ok:
// SSM-GRAD: gradient {{.*}} @ssm_grad of @ssm
// SSM-GRAD: argument #6 ok:
// SSM-GRAD-NEXT: all arguments ok:
func.func @ssm(%x: tensor<2x11x5xf32>, %delta: tensor<2x11x5xf32>,
               %a: tensor<5x3xf32>, %b: tensor<2x11x3xf32>,
               %c: tensor<2x11x3xf32>, %d: tensor<5xf32>,
               %h0: tensor<2x3x3x5xf32>, %o: tensor<4xi64>)
    -> (tensor<2x11x5xf32>, tensor<2x3x3x5xf32>) {
  %y, %h = recurrence.selective_ssm x(%x : tensor<2x11x5xf32>)
      delta(%delta : tensor<2x11x5xf32>) A(%a : tensor<5x3xf32>)
      B(%b : tensor<2x11x3xf32>) C(%c : tensor<2x11x3xf32>)
      D(%d : tensor<5xf32>) init(%h0 : tensor<2x3x3x5xf32>)
      offsets(%o : tensor<4xi64>)
      -> tensor<2x11x5xf32>, tensor<2x3x3x5xf32>
  return %y, %h : tensor<2x11x5xf32>, tensor<2x3x3x5xf32>
}

// BD-LRU with three blocks of 2 on normalized gates.
// BDLRU: result #0 ok:
// BDLRU: result #1 ok:
// BDLRU-GRAD: argument #2 ok:
// BDLRU-GRAD-NEXT: all arguments ok:
func.func @bdlru(%raw: tensor<2x9x3x2x3xf32>, %v: tensor<2x9x6xf32>,
                 %h0: tensor<2x4x6xf32>, %o: tensor<5xi64>)
    -> (tensor<2x9x6xf32>, tensor<2x4x6xf32>) {
  %gates = recurrence.normalize_gates exp %raw : tensor<2x9x3x2x3xf32>
  %h, %last = recurrence.bdlru gates(%gates : tensor<2x9x3x2x3xf32>)
      input(%v : tensor<2x9x6xf32>) init(%h0 : tensor<2x4x6xf32>)
      offsets(%o : tensor<5xi64>) -> tensor<2x9x6xf32>, tensor<2x4x6xf32>
  return %h, %last : tensor<2x9x6xf32>, tensor<2x4x6xf32>
}

// One value as both the queries and the keys: sliced once per sequence.
// SHARED: result #0 ok:
func.func @shared_qk(%x: tensor<12x3xf64>, %v: tensor<12x2xf64>,
                     %o: tensor<4xi64>) -> tensor<12x2xf64> {
  %y = recurrence.linear_attention identity q(%x : tensor<12x3xf64>)
      k(%x : tensor<12x3xf64>) v(%v : tensor<12x2xf64>)
      offsets(%o : tensor<4xi64>) -> tensor<12x2xf64>
  return %y : tensor<12x2xf64>
}
