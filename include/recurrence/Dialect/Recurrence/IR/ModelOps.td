//===- ModelOps.td - Model ops that decompose into scans ---*- tablegen -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Models stated as ops: each one names a published recurrence, verifies its
// operands' shapes, and decomposes (linalg::AggregatedOpInterface) into
// recurrence.scan and upstream ops, which -recurrence-decompose-models does
// at the head of the pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_MODELOPS_TD
#define RECURRENCE_DIALECT_RECURRENCE_IR_MODELOPS_TD

include "mlir/Dialect/Linalg/IR/LinalgInterfaces.td"

def Recurrence_GateFunction : I32EnumAttr<"GateFunction",
    "the function normalize_gates applies before normalizing", [
  I32EnumAttrCase<"Exp", 0, "exp">,
  I32EnumAttrCase<"Sigmoid", 1, "sigmoid">,
  I32EnumAttrCase<"Softplus", 2, "softplus">,
  I32EnumAttrCase<"Abs", 3, "abs">
]> {
  let cppNamespace = "::mlir::recurrence";
}

class Recurrence_ModelOp<string mnemonic, list<Trait> traits = []>
    : Recurrence_Op<mnemonic, !listconcat([
        DeclareOpInterfaceMethods<AggregatedOpInterface,
                                  ["decomposeOperation"]>], traits)> {
  let hasVerifier = 1;
}

def Recurrence_NormalizeGatesOp : Recurrence_ModelOp<"normalize_gates",
    [AllTypesMatch<["raw", "result"]>]> {
  let summary = "Gates f(raw) normalized to unit L1 norm over the last axis";
  let description = [{
    `w = f(raw)` elementwise, with f one of `exp`, `sigmoid`, `softplus`,
    `abs`, then `w / sum(|w|)` over the last axis, so that the gates of a
    higher-order or block-diagonal LRU keep its state bounded.

    ```mlir
    %w = recurrence.normalize_gates softplus %raw : tensor<8x128x3xf32>
    ```
  }];
  let arguments = (ins Recurrence_GateFunction:$function,
                       Recurrence_FloatTensor:$raw);
  let results = (outs Recurrence_FloatTensor:$result);
  let assemblyFormat = "$function $raw attr-dict `:` type($raw)";
}

def Recurrence_HlruOp : Recurrence_ModelOp<"hlru",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "Higher-order LRU: h_t = sum_i a_{i,t} h_{t-i} + a_{0,t} v_t";
  let description = [{
    `gates` `[..., T, N, m+1]` hold, per step and channel, the m state gates
    a_1 .. a_m and then the input gate a_0; `input` is v `[..., T, N]`;
    `init`, when given, the m most recent states `[..., m, N]`, newest
    first; the second result, when present, holds the m most recent states
    after the last step in the same layout, so that a sequence continues
    from it (a decode step is the op on one step). Decomposes into a
    `higher_order<m>` scan of a_0 v.

    ```mlir
    %h = recurrence.hlru gates(%g : tensor<2x64x32x3xf32>)
        input(%v : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
    ```
  }];
  let arguments = (ins Recurrence_FloatTensor:$gates,
                       Recurrence_FloatTensor:$input,
                       Optional<Recurrence_FloatTensor>:$init,
                       OptionalAttr<Recurrence_ScheduleAttr>:$schedule);
  let results = (outs Recurrence_FloatTensor:$result,
                      Optional<Recurrence_FloatTensor>:$final_state);
  let assemblyFormat = [{
    `gates` `(` $gates `:` type($gates) `)`
    `input` `(` $input `:` type($input) `)`
    (`init` `(` $init^ `:` type($init) `)`)?
    attr-dict `->` type($result) (`,` type($final_state)^)?
  }];
}

def Recurrence_BdlruOp : Recurrence_ModelOp<"bdlru",
    [AttrSizedOperandSegments, AllTypesMatch<["input", "result"]>]> {
  let summary = "Block-diagonal LRU: h_t = A_t h_{t-1} + a_{0,t} v_t";
  let description = [{
    `gates` `[..., T, H, m, m+1]` hold, per step and block row, the m
    entries of that row of the m x m block A_t and then the input gate a_0;
    `input` is v `[..., T, H*m]`; `init`, when given, `[..., H*m]`; the
    second result, when present, the state after the last step,
    `[..., H*m]`. With `offsets` (cu_seqlens, `[S + 1]`), the sequences
    packed along T restart each from its own init (zero without one), and
    init and the final state are `[..., S, H*m]` (see `recurrence.scan`).
    Decomposes into a `block_diagonal<m>` scan of a_0 v.

    ```mlir
    %h = recurrence.bdlru gates(%g : tensor<2x64x8x4x5xf32>)
        input(%v : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
    ```
  }];
  let arguments = (ins Recurrence_FloatTensor:$gates,
                       Recurrence_FloatTensor:$input,
                       Optional<Recurrence_FloatTensor>:$init,
                       Optional<Recurrence_OffsetsTensor>:$offsets,
                       OptionalAttr<Recurrence_ScheduleAttr>:$schedule);
  let results = (outs Recurrence_FloatTensor:$result,
                      Optional<Recurrence_FloatTensor>:$final_state);
  let assemblyFormat = [{
    `gates` `(` $gates `:` type($gates) `)`
    `input` `(` $input `:` type($input) `)`
    (`init` `(` $init^ `:` type($init) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    attr-dict `->` type($result) (`,` type($final_state)^)?
  }];
}

def Recurrence_FeatureMap : I32EnumAttr<"FeatureMap",
    "the feature map of linear attention", [
  I32EnumAttrCase<"Elu1", 0, "elu1">,
  I32EnumAttrCase<"Identity", 1, "identity">
]> {
  let cppNamespace = "::mlir::recurrence";
}

def Recurrence_LinearAttentionOp : Recurrence_ModelOp<"linear_attention",
    [AttrSizedOperandSegments, AttrSizedResultSegments,
     AllTypesMatch<["value", "result"]>, AllTypesMatch<["query", "key"]>]> {
  let summary = "Linear attention, optionally normalized";
  let description = [{
    `y_t = phi(q_t)^T S_t / max(phi(q_t)^T c_t, eps)` with
    `S_t = S_{t-1} + phi(k_t) v_t^T` and `c_t = c_{t-1} + phi(k_t)`; without
    `normalize`, `y_t = phi(q_t)^T S_t`. q, k `[..., T, dk]`, v
    `[..., T, dv]`; phi is `elu1` (x + 1 for x > 0, else e^x) or
    `identity`. The states start from `init` (S_0, `[..., dk, dv]`) and,
    normalized, `normalizer_init` (c_0, `[..., dk]`), or from zero; the
    optional results `final_state` and, normalized, `final_normalizer` are
    S_T and c_T, so that a sequence continues from them (a decode step is
    the op on one step). With `offsets` (cu_seqlens, `[S + 1]`), the
    sequences packed along T restart each from its own init (zero without
    one), and the states hold one per sequence, `[..., S, dk, dv]` and
    `[..., S, dk]` (see `recurrence.scan`).
    Decomposes into identity scans with a factored input and a readout.

    ```mlir
    %y = recurrence.linear_attention elu1 normalize
        q(%q : tensor<2x64x8xf32>) k(%k : tensor<2x64x8xf32>)
        v(%v : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
    ```
  }];
  let arguments = (ins Recurrence_FeatureMap:$feature_map,
                       UnitAttr:$normalize,
                       DefaultValuedAttr<F64Attr, "1e-8">:$eps,
                       Recurrence_FloatTensor:$query,
                       Recurrence_FloatTensor:$key,
                       Recurrence_FloatTensor:$value,
                       Optional<Recurrence_FloatTensor>:$init,
                       Optional<Recurrence_FloatTensor>:$normalizer_init,
                       Optional<Recurrence_OffsetsTensor>:$offsets,
                       OptionalAttr<Recurrence_ScheduleAttr>:$schedule);
  let results = (outs Recurrence_FloatTensor:$result,
                      Optional<Recurrence_FloatTensor>:$final_state,
                      Optional<Recurrence_FloatTensor>:$final_normalizer);
  let assemblyFormat = [{
    $feature_map (`normalize` $normalize^)?
    `q` `(` $query `:` type($query) `)` `k` `(` $key `:` type($key) `)`
    `v` `(` $value `:` type($value) `)`
    (`init` `(` $init^ `:` type($init) `)`)?
    (`normalizer_init` `(` $normalizer_init^ `:` type($normalizer_init)
     `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    attr-dict `->` type($result) (`,` type($final_state)^)?
    (`,` type($final_normalizer)^)?
  }];
}

def Recurrence_DeltaRuleOp : Recurrence_ModelOp<"delta_rule",
    [AttrSizedOperandSegments, AllTypesMatch<["value", "result"]>,
     AllTypesMatch<["query", "key"]>]> {
  let summary = "The (gated) delta rule of DeltaNet";
  let description = [{
    `S_t = g_t S_{t-1} + beta_t k_t (v_t - g_t S_{t-1}^T k_t)^T`,
    `y_t = S_t^T q_t`: q, k `[..., T, dk]`, v `[..., T, dv]`, beta and the
    optional gate g `[..., T]` (1 without it), init `[..., dk, dv]`; the
    second result, when present, is S_T. With `offsets` (cu_seqlens,
    `[S + 1]`), the sequences packed along T restart each from its own init
    and init and the final state are `[..., S, dk, dv]` (see
    `recurrence.scan`). Decomposes into a `dplr<1>` scan
    with d = g, U = -g beta k, V = k and the factored input (beta k) v^T.

    ```mlir
    %y = recurrence.delta_rule q(%q : tensor<2x64x8xf32>)
        k(%k : tensor<2x64x8xf32>) v(%v : tensor<2x64x16xf32>)
        beta(%b : tensor<2x64xf32>) -> tensor<2x64x16xf32>
    ```
  }];
  let arguments = (ins Recurrence_FloatTensor:$query,
                       Recurrence_FloatTensor:$key,
                       Recurrence_FloatTensor:$value,
                       Recurrence_FloatTensor:$beta,
                       Optional<Recurrence_FloatTensor>:$gate,
                       Optional<Recurrence_FloatTensor>:$init,
                       Optional<Recurrence_OffsetsTensor>:$offsets,
                       OptionalAttr<Recurrence_ScheduleAttr>:$schedule);
  let results = (outs Recurrence_FloatTensor:$result,
                      Optional<Recurrence_FloatTensor>:$final_state);
  let assemblyFormat = [{
    `q` `(` $query `:` type($query) `)` `k` `(` $key `:` type($key) `)`
    `v` `(` $value `:` type($value) `)` `beta` `(` $beta `:` type($beta) `)`
    (`gate` `(` $gate^ `:` type($gate) `)`)?
    (`init` `(` $init^ `:` type($init) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    attr-dict `->` type($result) (`,` type($final_state)^)?
  }];
}

def Recurrence_SelectiveSsmOp : Recurrence_ModelOp<"selective_ssm",
    [AttrSizedOperandSegments, AllTypesMatch<["x", "result"]>,
     AllTypesMatch<["x", "delta"]>]> {
  let summary = "Mamba's selective state space model";
  let description = [{
    `h_t[n, d] = exp(delta_t[d] A[d, n]) h_{t-1}[n, d] + delta_t[d] B_t[n]
    x_t[d]`, `y_t[d] = sum_n C_t[n] h_t[n, d] + D[d] x_t[d]`: x, delta
    `[..., T, Dm]`, A `[Dm, N]`, B, C `[..., T, N]`, the optional D `[Dm]`,
    init `[..., N, Dm]`; the second result, when present, is h_T. With
    `offsets` (cu_seqlens, `[S + 1]`), the sequences packed along T restart
    each from its own init, and init and the final state are
    `[..., S, N, Dm]` (see `recurrence.scan`).
    Decomposes into a diagonal scan on the [N, Dm] state with per-element
    gates, the factored input B (delta x)^T and the readout C.

    ```mlir
    %y = recurrence.selective_ssm x(%x : tensor<2x64x16xf32>)
        delta(%dt : tensor<2x64x16xf32>) A(%A : tensor<16x4xf32>)
        B(%B : tensor<2x64x4xf32>) C(%C : tensor<2x64x4xf32>)
        -> tensor<2x64x16xf32>
    ```
  }];
  let arguments = (ins Recurrence_FloatTensor:$x,
                       Recurrence_FloatTensor:$delta,
                       Recurrence_FloatTensor:$A,
                       Recurrence_FloatTensor:$B,
                       Recurrence_FloatTensor:$C,
                       Optional<Recurrence_FloatTensor>:$D,
                       Optional<Recurrence_FloatTensor>:$init,
                       Optional<Recurrence_OffsetsTensor>:$offsets,
                       OptionalAttr<Recurrence_ScheduleAttr>:$schedule);
  let results = (outs Recurrence_FloatTensor:$result,
                      Optional<Recurrence_FloatTensor>:$final_state);
  let assemblyFormat = [{
    `x` `(` $x `:` type($x) `)` `delta` `(` $delta `:` type($delta) `)`
    `A` `(` $A `:` type($A) `)` `B` `(` $B `:` type($B) `)`
    `C` `(` $C `:` type($C) `)` (`D` `(` $D^ `:` type($D) `)`)?
    (`init` `(` $init^ `:` type($init) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    attr-dict `->` type($result) (`,` type($final_state)^)?
  }];
}

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_MODELOPS_TD
