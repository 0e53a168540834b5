//===- ScanShapes.h - Operand shapes of recurrence.scan ---------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one place that knows which shape every operand and result of a
// recurrence.scan has, given its structure and its dims. The verifier checks
// against it and the lowerings build their slices from it.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_SCANSHAPES_H
#define RECURRENCE_DIALECT_RECURRENCE_IR_SCANSHAPES_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::recurrence {

/// The dims of one scan; unknown sizes are ShapedType::kDynamic.
struct ScanDims {
  RecurrenceStructureInterface structure;
  bool matrix = false;
  SmallVector<int64_t> batch;
  int64_t steps = 0;   // T
  int64_t size = 0;    // N
  int64_t columns = 1; // D, 1 for a vector state
  /// S, the packed sequences that `offsets` delimit (kDynamic when unknown);
  /// std::nullopt without `offsets`.
  std::optional<int64_t> sequences;

  /// Reads the dims off an op whose input operands have a valid rank. Returns
  /// std::nullopt (after emitting an error) when the ranks are too small.
  static std::optional<ScanDims> fromOp(ScanOp op);

  /// The trailing dims of an operand after [..., T] (or after [...] for
  /// states), which is what one time step of one batch element sees.
  SmallVector<int64_t> transitionStep(unsigned index, bool perElement) const;
  SmallVector<int64_t> stateStep() const; // [N] [N, D] [m, N] [m, N, D]
  SmallVector<int64_t> inputStep() const; // [N] or [N, D]
  SmallVector<int64_t> outputStep(bool readout) const;

  /// Full shapes: batch dims, then T for per-step operands, then the step.
  SmallVector<int64_t> perStep(ArrayRef<int64_t> step) const;
  SmallVector<int64_t> perBatch(ArrayRef<int64_t> step) const;
  /// The shape of `init` and of the final state: [..., (S,) (m,) N(, D)].
  SmallVector<int64_t> stateShape() const;

  /// The number of transition operands of the structure.
  unsigned numTransitionOperands() const;

  /// Whether a transition operand of rank `rank` is given per element.
  bool isPerElement(int64_t rank) const;
};

/// The dims of one scan as sizes in IR, static ones as attributes and
/// dynamic ones as `tensor.dim` of the operands, read once off an op that
/// verifies. The result shapes, the tiling, the scan lowerings' state
/// shapes and the schedule dispatch take their sizes from here (the adjoint
/// reads those of the canonical operands it builds).
struct MixedScanDims {
  SmallVector<OpFoldResult> batch;
  OpFoldResult steps;     // T
  OpFoldResult size;      // N
  OpFoldResult columns;   // D, 1 for a vector state
  OpFoldResult sequences; // S with `offsets`, null otherwise
  int64_t depth = 0;      // the states a structure keeps (higher_order's m)
  bool matrix = false;
  bool readout = false;

  MixedScanDims(OpBuilder &b, ScanOp op);

  /// The output: [..., T, N(, D)], or [..., T(, D)] with a readout.
  SmallVector<OpFoldResult> output() const;
  /// The final state (and init): [..., (S,) (m,) N(, D)].
  SmallVector<OpFoldResult> finalState() const;
  /// One state as the lowerings carry it: [(m,) N, D], with D = 1 for a
  /// vector state.
  SmallVector<OpFoldResult> canonicalState() const;
};

/// S, the sequences that `offsets` ([S + 1] bounds) delimit: kDynamic when
/// its size is.
int64_t sequenceCount(Value offsets);

/// Prints a size as "8", or "?" when dynamic.
std::string formatDim(int64_t size);

/// Prints a shape as "[8, 128, ?]".
std::string formatShape(ArrayRef<int64_t> shape);

/// Whether two shapes agree where both sizes are known.
bool shapesCompatible(ArrayRef<int64_t> actual, ArrayRef<int64_t> expected);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_SCANSHAPES_H
