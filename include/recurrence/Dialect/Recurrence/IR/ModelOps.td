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
    first. Decomposes into a `higher_order<m>` scan of a_0 v.

    ```mlir
    %h = recurrence.hlru gates(%g : tensor<2x64x32x3xf32>)
        input(%v : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
    ```
  }];
  let arguments = (ins Recurrence_FloatTensor:$gates,
                       Recurrence_FloatTensor:$input,
                       Optional<Recurrence_FloatTensor>:$init,
                       OptionalAttr<Recurrence_ScheduleAttr>:$schedule);
  let results = (outs Recurrence_FloatTensor:$result);
  let assemblyFormat = [{
    `gates` `(` $gates `:` type($gates) `)`
    `input` `(` $input `:` type($input) `)`
    (`init` `(` $init^ `:` type($init) `)`)?
    attr-dict `->` type($result)
  }];
}

def Recurrence_BdlruOp : Recurrence_ModelOp<"bdlru",
    [AllTypesMatch<["input", "result"]>]> {
  let summary = "Block-diagonal LRU: h_t = A_t h_{t-1} + a_{0,t} v_t";
  let description = [{
    `gates` `[..., T, H, m, m+1]` hold, per step and block row, the m
    entries of that row of the m x m block A_t and then the input gate a_0;
    `input` is v `[..., T, H*m]`; `init`, when given, `[..., H*m]`.
    Decomposes into a `block_diagonal<m>` scan of a_0 v.

    ```mlir
    %h = recurrence.bdlru gates(%g : tensor<2x64x8x4x5xf32>)
        input(%v : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
    ```
  }];
  let arguments = (ins Recurrence_FloatTensor:$gates,
                       Recurrence_FloatTensor:$input,
                       Optional<Recurrence_FloatTensor>:$init,
                       OptionalAttr<Recurrence_ScheduleAttr>:$schedule);
  let results = (outs Recurrence_FloatTensor:$result);
  let assemblyFormat = [{
    `gates` `(` $gates `:` type($gates) `)`
    `input` `(` $input `:` type($input) `)`
    (`init` `(` $init^ `:` type($init) `)`)?
    attr-dict `->` type($result)
  }];
}

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_MODELOPS_TD
