//===- StructureAlgebra.h - Transitions as tensor computations --*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The structure algebra: what one transition A_t does to a state, built as
// linalg on tensors for any structure. Every schedule builds its steps from
// these functions; none re-derives a structure's arithmetic.
//
// States are carried in a canonical form: a vector state [N] is an N x 1
// matrix, so every state is [N, D]; a higher_order<m> state is the stack
// [m, N, D] of the m most recent states, newest first.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_STRUCTUREALGEBRA_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_STRUCTUREALGEBRA_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/IR/Builders.h"

namespace mlir::recurrence {

/// A_t of one batch element at one step: the structure's operands sliced to
/// their step shapes (ScanDims::transitionStep); a scalar for `scalar`.
struct StepTransition {
  StructureAttr structure;
  SmallVector<Value> operands;
  /// A diagonal given per state element ([N, D] rather than [N]).
  bool perElement = false;
};

/// b_t of one step: a full [N, D] tensor, or the factors k [N] and v [D].
struct StepInput {
  Value full;
  Value key, value;
};

/// Returns A_t h + b_t as an [N, D] tensor. For higher_order `state` is the
/// [m, N, D] stack and the result is the new newest state.
Value applyTransition(OpBuilder &b, Location loc, const StepTransition &a,
                      Value state, const StepInput &input);

/// The carried state after a step that produced `newest`: `newest` itself,
/// or for higher_order the stack with `newest` pushed and the oldest dropped.
Value advanceState(OpBuilder &b, Location loc, StructureAttr structure,
                   Value state, Value newest);

/// Returns y = c^T h as a [D] tensor, for c [N] and h [N, D].
Value applyReadout(OpBuilder &b, Location loc, Value readout, Value state);

/// A zero-filled tensor of the given sizes.
Value zeroTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                 Type elementType);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_STRUCTUREALGEBRA_H
