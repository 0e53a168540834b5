//===- Sequences.h - Bounds of packed sequences -----------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The reads of a scan over packed sequences (`offsets`, S + 1 bounds over T
// steps): which sequence a step starts or ends, where a sequence starts, as
// IR built inside the body of the linalg.generic that reads the step, so that
// no [T] table is built. Shared by -recurrence-split-sequences and the
// adjoint of a packed scan.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_SEQUENCES_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_SEQUENCES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::recurrence {

using GenerateBodyFn = function_ref<Value(
    OpBuilder &, Location, ValueRange inputs, ArrayRef<Value> indices)>;

/// A tensor of `sizes` and `elementType` whose element at `indices` is
/// body(inputs at their maps, indices): one linalg.generic. Each input is
/// read at the given dims of the iteration space (a broadcast where it has
/// fewer).
Value generateTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                     Type elementType,
                     ArrayRef<std::pair<Value, SmallVector<int64_t>>> inputs,
                     GenerateBodyFn body);

/// tensor[indices] where `condition` holds, else `otherwise`, with the read
/// under an scf.if: for reads that are out of bounds when not taken (a step
/// of a sequence that may be empty, when T may be 0).
Value extractIf(OpBuilder &b, Location loc, Value condition, Value tensor,
                ValueRange indices, Value otherwise);

/// The bounds of S sequences packed along T steps by `offsets` ([S + 1]
/// integers). Each method builds its IR with the builder it is given, so
/// that it can run inside a generic's body.
class SequenceBounds {
public:
  /// `reverse`: a sequence "starts" at its last step (where a reverse scan
  /// restarts) and "ends" at its first.
  SequenceBounds(Value offsets, Value steps, OpFoldResult sequences,
                 bool reverse)
      : offsets(offsets), steps(steps), sequences(sequences), reverse(reverse) {
  }

  /// offsets[s] as an index clamped into [0, T].
  Value offsetAt(OpBuilder &b, Location loc, Value s) const;

  /// The step at which sequence s starts or, with `last`, ends, clamped
  /// into [0, T - 1]; and whether s is not empty.
  std::pair<Value, Value> boundaryOf(OpBuilder &b, Location loc, Value s,
                                     bool last) const;

  /// The sequence (an i64) that starts at step `t`, or -1: a binary search
  /// of the offsets.
  Value sequenceStartingAt(OpBuilder &b, Location loc, Value t) const;

  /// sequenceStartingAt(t) for every step t: a [T] i64 tensor. Generics
  /// over [..., T, ...] read it along T rather than search at each of
  /// their elements, so that a step (the slice a lowering reads) searches
  /// once, where its producers are fused.
  Value startingSequences(OpBuilder &b, Location loc) const;

  /// Whether a result of sequenceStartingAt names a sequence.
  static Value starts(OpBuilder &b, Location loc, Value sequence);

  /// A result of sequenceStartingAt as an index, 0 for none.
  static Value indexOf(OpBuilder &b, Location loc, Value sequence);

private:
  Value offsets, steps;
  OpFoldResult sequences;
  bool reverse;
};

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_SEQUENCES_H
