//===- ScanIO.h - What schedules read and write of a scan -------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The operand and result plumbing of recurrence.scan that every schedule
// shares: slicing one batch element's step t out of each operand, the initial
// state, one step of the recurrence, and writing an output row. Schedules
// differ only in the order in which they visit steps.
//
// States are canonical (see StructureAlgebra.h): [N, D], or the [m, N, D]
// stack for higher_order<m>. Steps are visited in logical order tau; timeOf
// maps tau to the physical step (T - 1 - tau when reversed).
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_SCANIO_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_SCANIO_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence {

class ScanIO {
public:
  ScanIO(OpBuilder &b, ScanOp op);

  ScanOp getOp() const { return op; }
  RecurrenceStructureInterface getStructure() const { return structure; }
  int64_t getBatchRank() const { return batchRank; }
  /// T as an index value.
  Value getSteps() const { return steps; }

  /// The physical step of logical step `tau`.
  Value timeOf(OpBuilder &b, Location loc, Value tau) const;

  /// A_t and b_t of one batch element.
  StepTransition transitionAt(OpBuilder &b, Location loc, ValueRange batch,
                              Value t) const;
  StepInput inputAt(OpBuilder &b, Location loc, ValueRange batch,
                    Value t) const;

  /// The carried state before the first step: init, or zeros.
  Value initialState(OpBuilder &b, Location loc, ValueRange batch) const;
  /// A zero carried state.
  Value zeroState(OpBuilder &b, Location loc) const;

  /// The sizes of a carried state, and of a composite of transitions
  /// (empty for identity, which has none).
  SmallVector<OpFoldResult> stateSizes(OpBuilder &b, Location loc) const;
  SmallVector<OpFoldResult> compositeSizes(OpBuilder &b, Location loc) const;

  /// b_t as a carried state: [N, D], or the stack with b_t on top.
  Value inputAsState(OpBuilder &b, Location loc, ValueRange batch,
                     Value t) const;

  /// One step from `state`: returns the next carried state and h_t.
  std::pair<Value, Value> step(OpBuilder &b, Location loc, ValueRange batch,
                               Value t, Value state) const;

  /// One step and its output row at `row` of `block`: returns the next
  /// carried state and the new block. For structures whose step runs in
  /// place, without a readout, the state update and the row write are one
  /// loop.
  std::pair<Value, Value> stepAndWrite(OpBuilder &b, Location loc,
                                       ValueRange batch, Value t, Value state,
                                       Value block, Value row) const;

  /// The newest state h_t [N, D] of a carried state.
  Value newestOf(OpBuilder &b, Location loc, Value state) const;

  /// Writes step t's output row (h_t, or its readout) into `block` at `row`;
  /// `block` holds consecutive output rows of one batch element.
  Value writeRow(OpBuilder &b, Location loc, ValueRange batch, Value t,
                 Value newest, Value block, Value row) const;

  /// The batch sizes.
  SmallVector<OpFoldResult> batchSizes(OpBuilder &b, Location loc) const;

  /// A carried state in the layout of the final-state result.
  Value toResultLayout(OpBuilder &b, Location loc, Value state) const;

  /// Replaces the op by `results`, casting any whose type is more or less
  /// static than the op's result; returns the values that replaced it.
  SmallVector<Value> replaceOp(RewriterBase &rewriter,
                               ValueRange results) const;

  /// When T, N or D is statically zero there is nothing to iterate: replaces
  /// the op by its trivial results and returns them.
  std::optional<SmallVector<Value>>
  replaceIfEmpty(RewriterBase &rewriter) const;

private:
  /// `value` (a row, or a scalar) extended to the state type where the
  /// operands are narrower (`accumulate`).
  Value toStateType(OpBuilder &b, Location loc, Value value) const;
  Value toCanonical(OpBuilder &b, Location loc, Value row) const;
  Value fromCanonical(OpBuilder &b, Location loc, Value row) const;

  mutable ScanOp op;
  RecurrenceStructureInterface structure;
  bool matrix, perElement;
  int64_t batchRank;
  Value steps;
};

/// The frame of every schedule's lowering: places `rewriter` before `op`;
/// replaces a scan with statically zero T, N or D by its trivial results,
/// and any other by the results `build` makes of it (one per op result);
/// returns the values that replaced `op`.
FailureOr<SmallVector<Value>>
lowerScanWith(RewriterBase &rewriter, ScanOp op,
              function_ref<SmallVector<Value>(const ScanIO &io)> build);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_SCANIO_H
