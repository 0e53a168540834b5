// Model ops round-trip, and their verifiers speak in the models' terms.
//
// RUN: recurrence-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @models
// CHECK: recurrence.normalize_gates softplus %{{.*}} : tensor<8x3xf32>
// CHECK: recurrence.hlru gates(%{{.*}} : tensor<2x16x6x3xf32>) input(%{{.*}} : tensor<2x16x6xf32>) init(%{{.*}} : tensor<2x2x6xf32>) -> tensor<2x16x6xf32>
// CHECK: recurrence.bdlru gates(%{{.*}} : tensor<?x?x?x4x5xf64>) input(%{{.*}} : tensor<?x?x?xf64>) {schedule = #recurrence.schedule<chunked<8>>} -> tensor<?x?x?xf64>
func.func @models(%raw: tensor<8x3xf32>, %g: tensor<2x16x6x3xf32>, %v: tensor<2x16x6xf32>, %h0: tensor<2x2x6xf32>,
                  %bg: tensor<?x?x?x4x5xf64>, %bv: tensor<?x?x?xf64>) -> (tensor<8x3xf32>, tensor<2x16x6xf32>, tensor<?x?x?xf64>) {
  %w = recurrence.normalize_gates softplus %raw : tensor<8x3xf32>
  %h = recurrence.hlru gates(%g : tensor<2x16x6x3xf32>) input(%v : tensor<2x16x6xf32>) init(%h0 : tensor<2x2x6xf32>) -> tensor<2x16x6xf32>
  %b = recurrence.bdlru gates(%bg : tensor<?x?x?x4x5xf64>) input(%bv : tensor<?x?x?xf64>) {schedule = #recurrence.schedule<chunked<8>>} -> tensor<?x?x?xf64>
  return %w, %h, %b : tensor<8x3xf32>, tensor<2x16x6xf32>, tensor<?x?x?xf64>
}

// -----

func.func @hlru_one_gate(%g: tensor<2x16x6x1xf32>, %v: tensor<2x16x6xf32>) -> tensor<2x16x6xf32> {
  // expected-error @+1 {{'recurrence.hlru' op expected at least 2 gates (m state gates and an input gate) in the last dim, got 1}}
  %h = recurrence.hlru gates(%g : tensor<2x16x6x1xf32>) input(%v : tensor<2x16x6xf32>) -> tensor<2x16x6xf32>
  return %h : tensor<2x16x6xf32>
}

// -----

func.func @hlru_dynamic_order(%g: tensor<2x16x6x?xf32>, %v: tensor<2x16x6xf32>) -> tensor<2x16x6xf32> {
  // expected-error @+1 {{'recurrence.hlru' op expected a static m+1 in the gates' shape, got [2, 16, 6, ?]}}
  %h = recurrence.hlru gates(%g : tensor<2x16x6x?xf32>) input(%v : tensor<2x16x6xf32>) -> tensor<2x16x6xf32>
  return %h : tensor<2x16x6xf32>
}

// -----

func.func @hlru_input(%g: tensor<2x16x6x3xf32>, %v: tensor<2x16x5xf32>) -> tensor<2x16x5xf32> {
  // expected-error @+1 {{'recurrence.hlru' op expected input of shape [2, 16, 6] ([..., T, N], the gates' without m+1), got [2, 16, 5]}}
  %h = recurrence.hlru gates(%g : tensor<2x16x6x3xf32>) input(%v : tensor<2x16x5xf32>) -> tensor<2x16x5xf32>
  return %h : tensor<2x16x5xf32>
}

// -----

func.func @hlru_init(%g: tensor<2x16x6x3xf32>, %v: tensor<2x16x6xf32>, %h0: tensor<2x6xf32>) -> tensor<2x16x6xf32> {
  // expected-error @+1 {{'recurrence.hlru' op expected init of shape [2, 2, 6] ([..., m, N]), got [2, 6]}}
  %h = recurrence.hlru gates(%g : tensor<2x16x6x3xf32>) input(%v : tensor<2x16x6xf32>) init(%h0 : tensor<2x6xf32>) -> tensor<2x16x6xf32>
  return %h : tensor<2x16x6xf32>
}

// -----

func.func @bdlru_row(%g: tensor<2x16x3x4x4xf32>, %v: tensor<2x16x12xf32>) -> tensor<2x16x12xf32> {
  // expected-error @+1 {{'recurrence.bdlru' op expected the last dim m+1 = 5 for blocks of m = 4, got 4}}
  %h = recurrence.bdlru gates(%g : tensor<2x16x3x4x4xf32>) input(%v : tensor<2x16x12xf32>) -> tensor<2x16x12xf32>
  return %h : tensor<2x16x12xf32>
}

// -----

func.func @bdlru_input(%g: tensor<2x16x3x4x5xf32>, %v: tensor<2x16x10xf32>) -> tensor<2x16x10xf32> {
  // expected-error @+1 {{'recurrence.bdlru' op expected input of shape [2, 16, 12] ([..., T, H*m]), got [2, 16, 10]}}
  %h = recurrence.bdlru gates(%g : tensor<2x16x3x4x5xf32>) input(%v : tensor<2x16x10xf32>) -> tensor<2x16x10xf32>
  return %h : tensor<2x16x10xf32>
}

// -----

func.func @gates_rank(%raw: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{'recurrence.normalize_gates' op expected raw gates of rank >= 1 ([..., K])}}
  %w = recurrence.normalize_gates exp %raw : tensor<f32>
  return %w : tensor<f32>
}

// -----

func.func @gates_function(%raw: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{custom op 'recurrence.normalize_gates' expected string or keyword containing one of the following enum values for attribute 'function' [exp, sigmoid, softplus, abs]}}
  %w = recurrence.normalize_gates 3 %raw : tensor<4xf32>
  return %w : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @attention
// CHECK: recurrence.linear_attention elu1 normalize q(%{{.*}} : tensor<2x64x8xf32>) k(%{{.*}} : tensor<2x64x8xf32>) v(%{{.*}} : tensor<2x64x16xf32>) {eps = {{.*}} : f64} -> tensor<2x64x16xf32>
// CHECK: recurrence.linear_attention identity q(
// CHECK: recurrence.delta_rule q(%{{.*}} : tensor<2x64x8xf32>) k(%{{.*}} : tensor<2x64x8xf32>) v(%{{.*}} : tensor<2x64x16xf32>) beta(%{{.*}} : tensor<2x64xf32>) gate(%{{.*}} : tensor<2x64xf32>) init(%{{.*}} : tensor<2x8x16xf32>) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>
// CHECK: recurrence.selective_ssm x(%{{.*}} : tensor<2x64x16xf32>) delta(%{{.*}} : tensor<2x64x16xf32>) A(%{{.*}} : tensor<16x4xf32>) B(%{{.*}} : tensor<2x64x4xf32>) C(%{{.*}} : tensor<2x64x4xf32>) D(%{{.*}} : tensor<16xf32>) -> tensor<2x64x16xf32>
func.func @attention(%q: tensor<2x64x8xf32>, %k: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %beta: tensor<2x64xf32>, %s0: tensor<2x8x16xf32>,
                     %x: tensor<2x64x16xf32>, %A: tensor<16x4xf32>, %B: tensor<2x64x4xf32>, %D: tensor<16xf32>) {
  %y = recurrence.linear_attention elu1 normalize q(%q : tensor<2x64x8xf32>) k(%k : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) {eps = 1.0e-3 : f64} -> tensor<2x64x16xf32>
  %y2 = recurrence.linear_attention identity q(%q : tensor<2x64x8xf32>) k(%k : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  %d, %last = recurrence.delta_rule q(%q : tensor<2x64x8xf32>) k(%k : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) beta(%beta : tensor<2x64xf32>) gate(%beta : tensor<2x64xf32>) init(%s0 : tensor<2x8x16xf32>) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>
  %m = recurrence.selective_ssm x(%x : tensor<2x64x16xf32>) delta(%x : tensor<2x64x16xf32>) A(%A : tensor<16x4xf32>) B(%B : tensor<2x64x4xf32>) C(%B : tensor<2x64x4xf32>) D(%D : tensor<16xf32>) -> tensor<2x64x16xf32>
  return
}

// -----

func.func @attention_values(%q: tensor<2x64x8xf32>, %v: tensor<2x63x16xf32>) -> tensor<2x63x16xf32> {
  // expected-error @+1 {{'recurrence.linear_attention' op expected v of shape [2, 64, 16] ([..., T, dv], with q's batch dims and T), got [2, 63, 16]}}
  %y = recurrence.linear_attention elu1 q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x63x16xf32>) -> tensor<2x63x16xf32>
  return %y : tensor<2x63x16xf32>
}

// -----

func.func @delta_beta(%q: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %beta: tensor<2x64x8xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{'recurrence.delta_rule' op expected beta of shape [2, 64] ([..., T]), got [2, 64, 8]}}
  %y = recurrence.delta_rule q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) beta(%beta : tensor<2x64x8xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}

// -----

func.func @ssm_A(%x: tensor<2x64x16xf32>, %A: tensor<4x16xf32>, %B: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{'recurrence.selective_ssm' op expected A of shape [16, 16] ([Dm, N]), got [4, 16]}}
  %y = recurrence.selective_ssm x(%x : tensor<2x64x16xf32>) delta(%x : tensor<2x64x16xf32>) A(%A : tensor<4x16xf32>) B(%B : tensor<2x64x16xf32>) C(%B : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}

// -----

func.func @ssm_state(%x: tensor<2x64x16xf32>, %A: tensor<16x4xf32>, %B: tensor<2x64x4xf32>, %h0: tensor<2x16x4xf32>) -> tensor<2x64x16xf32> {
  // expected-error @+1 {{'recurrence.selective_ssm' op expected init of shape [2, 4, 16] ([..., N, Dm]), got [2, 16, 4]}}
  %y = recurrence.selective_ssm x(%x : tensor<2x64x16xf32>) delta(%x : tensor<2x64x16xf32>) A(%A : tensor<16x4xf32>) B(%B : tensor<2x64x4xf32>) C(%B : tensor<2x64x4xf32>) init(%h0 : tensor<2x16x4xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}

// -----

// Every model with a state carries it: init in, the final states out, the
// normalized linear attention's as S and the normalizer c.
// CHECK-LABEL: func.func @states
// CHECK: recurrence.hlru gates(%{{.*}}) input(%{{.*}}) init(%{{.*}} : tensor<2x2x6xf32>) -> tensor<2x16x6xf32>, tensor<2x2x6xf32>
// CHECK: recurrence.bdlru gates(%{{.*}}) input(%{{.*}}) -> tensor<2x16x12xf32>, tensor<2x12xf32>
// CHECK: recurrence.linear_attention elu1 normalize q(%{{.*}}) k(%{{.*}}) v(%{{.*}}) init(%{{.*}} : tensor<2x8x16xf32>) normalizer_init(%{{.*}} : tensor<2x8xf32>) {{.*}}-> tensor<2x64x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32>
// CHECK: recurrence.linear_attention identity q(%{{.*}}) k(%{{.*}}) v(%{{.*}}) offsets(%{{.*}} : tensor<4xi32>) -> tensor<2x64x16xf32>, tensor<2x3x8x16xf32>
func.func @states(%g: tensor<2x16x6x3xf32>, %v: tensor<2x16x6xf32>, %h0: tensor<2x2x6xf32>, %bg: tensor<2x16x3x4x5xf32>, %bv: tensor<2x16x12xf32>,
                  %q: tensor<2x64x8xf32>, %lv: tensor<2x64x16xf32>, %s0: tensor<2x8x16xf32>, %c0: tensor<2x8xf32>, %o: tensor<4xi32>) {
  %h, %hT = recurrence.hlru gates(%g : tensor<2x16x6x3xf32>) input(%v : tensor<2x16x6xf32>) init(%h0 : tensor<2x2x6xf32>) -> tensor<2x16x6xf32>, tensor<2x2x6xf32>
  %b, %bT = recurrence.bdlru gates(%bg : tensor<2x16x3x4x5xf32>) input(%bv : tensor<2x16x12xf32>) -> tensor<2x16x12xf32>, tensor<2x12xf32>
  %y, %S, %c = recurrence.linear_attention elu1 normalize q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%lv : tensor<2x64x16xf32>) init(%s0 : tensor<2x8x16xf32>) normalizer_init(%c0 : tensor<2x8xf32>) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>, tensor<2x8xf32>
  %y2, %S2 = recurrence.linear_attention identity q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%lv : tensor<2x64x16xf32>) offsets(%o : tensor<4xi32>) -> tensor<2x64x16xf32>, tensor<2x3x8x16xf32>
  return
}

// -----

func.func @hlru_final_state(%g: tensor<2x16x6x3xf32>, %v: tensor<2x16x6xf32>) {
  // expected-error @+1 {{'recurrence.hlru' op expected final state of shape [2, 2, 6] ([..., m, N]), got [2, 6]}}
  %h, %hT = recurrence.hlru gates(%g : tensor<2x16x6x3xf32>) input(%v : tensor<2x16x6xf32>) -> tensor<2x16x6xf32>, tensor<2x6xf32>
  return
}

// -----

func.func @bdlru_final_state(%g: tensor<2x16x3x4x5xf32>, %v: tensor<2x16x12xf32>) {
  // expected-error @+1 {{'recurrence.bdlru' op expected final state of shape [2, 12] ([..., H*m]), got [2, 3, 4]}}
  %h, %hT = recurrence.bdlru gates(%g : tensor<2x16x3x4x5xf32>) input(%v : tensor<2x16x12xf32>) -> tensor<2x16x12xf32>, tensor<2x3x4xf32>
  return
}

// -----

func.func @attention_half_state(%q: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %s0: tensor<2x8x16xf32>) {
  // expected-error @+1 {{'recurrence.linear_attention' op expected both init and normalizer_init or neither: a normalized state is S and the normalizer c}}
  %y = recurrence.linear_attention elu1 normalize q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) init(%s0 : tensor<2x8x16xf32>) -> tensor<2x64x16xf32>
  return
}

// -----

func.func @attention_half_final_state(%q: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>) {
  // expected-error @+1 {{'recurrence.linear_attention' op expected both final states (S and the normalizer) or neither}}
  %y, %S = recurrence.linear_attention elu1 normalize q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>, tensor<2x8x16xf32>
  return
}

// -----

func.func @attention_normalizer_unnormalized(%q: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %s0: tensor<2x8x16xf32>, %c0: tensor<2x8xf32>) {
  // expected-error @+1 {{'recurrence.linear_attention' op a normalizer state needs `normalize`}}
  %y = recurrence.linear_attention elu1 q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) init(%s0 : tensor<2x8x16xf32>) normalizer_init(%c0 : tensor<2x8xf32>) -> tensor<2x64x16xf32>
  return
}

// -----

func.func @attention_state_shapes(%q: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %s0: tensor<2x8x16xf32>, %c0: tensor<2x16xf32>) {
  // expected-error @+1 {{'recurrence.linear_attention' op expected normalizer_init of shape [2, 8] ([..., dk]), got [2, 16]}}
  %y = recurrence.linear_attention elu1 normalize q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) init(%s0 : tensor<2x8x16xf32>) normalizer_init(%c0 : tensor<2x16xf32>) -> tensor<2x64x16xf32>
  return
}

// -----

func.func @attention_packed_state(%q: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %s0: tensor<2x8x16xf32>, %o: tensor<4xi64>) {
  // expected-error @+1 {{'recurrence.linear_attention' op expected init of shape [2, 3, 8, 16] ([..., S, dk, dv]), got [2, 8, 16]}}
  %y = recurrence.linear_attention identity q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) init(%s0 : tensor<2x8x16xf32>) offsets(%o : tensor<4xi64>) -> tensor<2x64x16xf32>
  return
}

// -----

func.func @bdlru_packed_state(%g: tensor<2x16x3x4x5xf32>, %v: tensor<2x16x12xf32>, %h0: tensor<2x12xf32>, %o: tensor<4xi64>) {
  // expected-error @+1 {{'recurrence.bdlru' op expected init of shape [2, 3, 12] ([..., S, H*m]), got [2, 12]}}
  %h = recurrence.bdlru gates(%g : tensor<2x16x3x4x5xf32>) input(%v : tensor<2x16x12xf32>) init(%h0 : tensor<2x12xf32>) offsets(%o : tensor<4xi64>) -> tensor<2x16x12xf32>
  return
}

// -----

// N comes from the input where the gates leave it dynamic.
func.func @hlru_state_from_input(%g: tensor<2x16x?x3xf32>, %v: tensor<2x16x6xf32>, %h0: tensor<2x2x7xf32>) {
  // expected-error @+1 {{'recurrence.hlru' op expected init of shape [2, 2, 6] ([..., m, N]), got [2, 2, 7]}}
  %h = recurrence.hlru gates(%g : tensor<2x16x?x3xf32>) input(%v : tensor<2x16x6xf32>) init(%h0 : tensor<2x2x7xf32>) -> tensor<2x16x6xf32>
  return
}

// -----

func.func @bdlru_state_from_input(%g: tensor<2x16x?x4x5xf32>, %v: tensor<2x16x12xf32>, %h0: tensor<2x13xf32>) {
  // expected-error @+1 {{'recurrence.bdlru' op expected init of shape [2, 12] ([..., H*m]), got [2, 13]}}
  %h = recurrence.bdlru gates(%g : tensor<2x16x?x4x5xf32>) input(%v : tensor<2x16x12xf32>) init(%h0 : tensor<2x13xf32>) -> tensor<2x16x12xf32>
  return
}

// -----

func.func @delta_state_type(%q: tensor<2x64x8xf32>, %v: tensor<2x64x16xf32>, %beta: tensor<2x64xf32>, %s0: tensor<2x8x16xf64>) {
  // expected-error @+1 {{'recurrence.delta_rule' op expected init of element type 'f32', the operands', got 'f64'}}
  %y = recurrence.delta_rule q(%q : tensor<2x64x8xf32>) k(%q : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>) beta(%beta : tensor<2x64xf32>) init(%s0 : tensor<2x8x16xf64>) -> tensor<2x64x16xf32>
  return
}
