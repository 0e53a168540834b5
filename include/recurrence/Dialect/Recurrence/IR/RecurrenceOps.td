//===- RecurrenceOps.td - Recurrence operations ------------*- tablegen -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEOPS_TD
#define RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEOPS_TD

include "recurrence/Dialect/Recurrence/IR/RecurrenceDialect.td"
include "recurrence/Dialect/Recurrence/IR/RecurrenceAttrs.td"
include "mlir/Interfaces/DestinationStyleOpInterface.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/TilingInterface.td"

/// Every recurrence op is a pure function of its tensor operands.
class Recurrence_Op<string mnemonic, list<Trait> traits = []>
    : Op<Recurrence_Dialect, mnemonic, !listconcat([Pure], traits)>;

def Recurrence_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Recurrence_OffsetsTensor : 1DTensorOf<[I32, I64]>;

def Recurrence_ScanOp : Recurrence_Op<"scan", [AttrSizedOperandSegments,
    DestinationStyleOpInterface,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface,
                              ["reifyResultShapes"]>,
    DeclareOpInterfaceMethods<TilingInterface,
        ["getLoopIteratorTypes", "getIterationDomain",
         "getTiledImplementation", "getResultTilePosition"]>]> {
  let summary = "First-order linear recurrence h_t = A_t h_{t-1} + b_t";
  let description = [{
    Computes, for every batch index independently,

    ```
    h_t = A_t h_{t-1} + b_t    t = 1..T    (reverse: t = T..1, h_{T+1} = init)
    ```

    with `h_0 = init`, or zeros when `init` is absent. Shapes use `...` for any
    number (zero included) of leading batch dims shared by every operand.

    * The **state** is a vector `[N]`, or with the `matrix` keyword an `N x D`
      matrix whose D columns share A_t (a `diagonal` transition may instead
      be given per state element, `[..., T, N, D]`).
    * The **structure** fixes the `transition` operands: one of the
      attributes below (`identity`, `scalar`, `diagonal`,
      `block_diagonal<m>`, `dplr<r>`, `dense`, `higher_order<m>`), written
      bare, or any attribute of another dialect that implements
      `RecurrenceStructureInterface`, written in full. `higher_order<m>` computes
      `h_t = sum_{i=1..m} a_{i,t} * h_{t-i} + b_t` elementwise; its `init`
      and final state hold the m most recent states, newest first:
      `[..., m, N]` (`[..., m, N, D]`).
    * The **input** is `input(%b)` with b `[..., T, N]` (`[..., T, N, D]`), or
      `factored_input(%k, %v)` with `b_t = k_t v_t^T`, k `[..., T, N]`,
      v `[..., T, D]`, which implies a matrix state.
    * `readout(%c)` with c `[..., T, N]` replaces the states by
      `y_t = c_t^T h_t`: the output is `[..., T]` (`[..., T, D]`). Otherwise
      the output holds every state, `[..., T, N]` (`[..., T, N, D]`).
    * A second result, when present, is the final state (h_T, or h_1 when
      `reverse`), shaped like `init`.
    * `outs(...)` names one destination tensor per result, of the result's
      type (destination-passing style, as in linalg): lowerings write the
      results into them, and their contents are not read. Builders in C++
      may leave them out and call `materializeDestinations`.
    * `accumulate(T)` states the type the state lives and is computed in.
      Without it every operand and result has one element type E. With it,
      the transition, input and readout operands share E, and T must be a
      float type at least as wide as E: `init` and the final state have
      element type T, and the output has E or T. Lowerings extend each
      operand to T when they load it, compute in T and round a result to E
      only when they store it (bf16 or f16 operands with an f32 state).
    * `offsets(%o)` packs S sequences of different lengths along T with no
      padding (flash-linear-attention's `cu_seqlens`): o is `[S + 1]` of i32
      or i64, 0 = o_0 <= o_1 <= ... <= o_S = T, and sequence s covers steps
      o_s .. o_{s+1} - 1. The state starts afresh at each sequence's first
      step (its last one when `reverse`), from the sequence's own init, and
      `init` and the final state hold one state per sequence:
      `[..., S, N]` (`[..., S, N, D]`); an empty sequence's final state is
      its init. Needs a first-order structure (not `higher_order<m>`).
      `-recurrence-split-sequences` rewrites it into a scan without.
    * `schedule` is `sequential`, `chunked<C>`, `scan` or `auto` (the
      default), written right after the structure: a request to the
      lowering passes, not part of the semantics.

    Example: a block-diagonal recurrence with 16 blocks of 4 x 4 over a
    batch of 8 and 128 steps, returning the states and the final state.

    ```mlir
    %h0 = tensor.empty() : tensor<8x128x64xf32>
    %last0 = tensor.empty() : tensor<8x64xf32>
    %h, %last = recurrence.scan block_diagonal<4> schedule sequential
        transition(%A : tensor<8x128x16x4x4xf32>)
        input(%b : tensor<8x128x64xf32>)
        outs(%h0, %last0 : tensor<8x128x64xf32>, tensor<8x64xf32>)
        -> tensor<8x128x64xf32>, tensor<8x64xf32>
    ```

    Mamba-style selective SSM on an N x D state with a readout:

    ```mlir
    %y0 = tensor.empty() : tensor<2x256x64xf32>
    %y = recurrence.scan diagonal matrix
        transition(%a : tensor<2x256x16x64xf32>)
        factored_input(%k, %v : tensor<2x256x16xf32>, tensor<2x256x64xf32>)
        readout(%c : tensor<2x256x16xf32>)
        outs(%y0 : tensor<2x256x64xf32>) -> tensor<2x256x64xf32>
    ```
  }];

  let arguments = (ins
    RecurrenceStructureInterface:$structure,
    OptionalAttr<Recurrence_ScheduleAttr>:$schedule,
    UnitAttr:$matrix,
    UnitAttr:$reverse,
    Variadic<Recurrence_FloatTensor>:$transition,
    Optional<Recurrence_FloatTensor>:$input,
    Optional<Recurrence_FloatTensor>:$input_key,
    Optional<Recurrence_FloatTensor>:$input_value,
    Optional<Recurrence_FloatTensor>:$init,
    Optional<Recurrence_FloatTensor>:$readout,
    Optional<Recurrence_OffsetsTensor>:$offsets,
    Variadic<Recurrence_FloatTensor>:$destinations,
    OptionalAttr<TypeAttrOf<AnyFloat>>:$accumulate);
  let results = (outs Recurrence_FloatTensor:$output,
                      Optional<Recurrence_FloatTensor>:$final_state);

  let assemblyFormat = [{
    custom<StructureAndSchedule>($structure, $schedule)
    (`matrix` $matrix^)? (`reverse` $reverse^)?
    (`accumulate` `(` $accumulate^ `)`)?
    (`transition` `(` $transition^ `:` type($transition) `)`)?
    (`input` `(` $input^ `:` type($input) `)`)?
    (`factored_input` `(` $input_key^ `,` $input_value `:` type($input_key)
        `,` type($input_value) `)`)?
    (`init` `(` $init^ `:` type($init) `)`)?
    (`readout` `(` $readout^ `:` type($readout) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    (`outs` `(` $destinations^ `:` type($destinations) `)`)?
    attr-dict `->` type($output) (`,` type($final_state)^)?
  }];

  let hasVerifier = 1;
  let hasCanonicalizer = 1;

  let extraClassDeclaration = [{
    /// The schedule, `auto` when none is given.
    ScheduleAttr getScheduleOrAuto();
    /// DestinationStyleOpInterface: the `outs`, one per result.
    MutableOperandRange getDpsInitsMutable() {
      return getDestinationsMutable();
    }
    /// Gives an op built without `outs` one `tensor.empty` per result, of
    /// the result's type, sized from the operands and created before the op
    /// (what a builder in C++ calls right after creating the op).
    void materializeDestinations(OpBuilder &b);
    /// Whether b_t is given as the outer product k_t v_t^T.
    bool hasFactoredInput() { return getInputKey() != nullptr; }
    /// The number of leading batch dims.
    int64_t getBatchRank();
    /// The tensor that fixes batch dims, T and N: b, or k when factored.
    Value getShapeSource() { return hasFactoredInput() ? getInputKey() : getInput(); }
    /// The sizes of the output (or of the final state), from the operands:
    /// batch dims and T of the shape source, then N (absent for a vector
    /// readout) or m, N for higher_order's final state, then D.
    SmallVector<OpFoldResult> getMixedResultSizes(OpBuilder &b,
                                                  bool finalState);
    /// Whether every transition maps each channel (or block) to itself and
    /// nothing sums over channels (no readout), so that channels are
    /// independent recurrences and may be tiled.
    bool hasIndependentChannels();
    /// Whether the first transition operand is given per state element
    /// ([..., T, N, D] on a matrix state, where its structure allows it).
    bool hasPerElementTransition();
    /// The element type of the transition, input and readout operands.
    Type getOperandType() {
      return ::llvm::cast<RankedTensorType>(getShapeSource().getType())
          .getElementType();
    }
    /// The type the state is held and computed in: `accumulate`, else the
    /// operand type.
    Type getStateType() {
      if (auto type = getAccumulateAttr())
        return type.getValue();
      return getOperandType();
    }
    /// The element type of the output result (the operand or state type).
    Type getOutputType() {
      return ::llvm::cast<RankedTensorType>(getOutput().getType())
          .getElementType();
    }
  }];
}

include "recurrence/Dialect/Recurrence/IR/ModelOps.td"

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEOPS_TD
