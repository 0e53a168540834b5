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

/// For the elementwise structures (identity, scalar, diagonal): A_t h + b_t
/// computed in place of `state` and written into `copy` ([N, D]) in the same
/// loop; returns {new state, new copy}. std::nullopt for other structures.
std::optional<std::pair<Value, Value>>
applyTransitionAndCopy(OpBuilder &b, Location loc, const StepTransition &a,
                       Value state, const StepInput &input, Value copy);

/// The carried state after a step that produced `newest`: `newest` itself,
/// or for higher_order the stack with `newest` pushed and the oldest dropped.
Value advanceState(OpBuilder &b, Location loc, StructureAttr structure,
                   Value state, Value newest);

/// b_t as an [N, D] tensor: the given one, or the outer product k v^T.
Value materializeInput(OpBuilder &b, Location loc, const StepInput &input);

/// Returns y = c^T h as a [D] tensor, for c [N] and h [N, D], written into
/// `into` when given.
Value applyReadout(OpBuilder &b, Location loc, Value readout, Value state,
                   Value into = {});

//===----------------------------------------------------------------------===//
// Composition: the associative combine (A2, b2) o (A1, b1) = (A2 A1, A2 b1 +
// b2)
//===----------------------------------------------------------------------===//

/// A product A_j ... A_i of transitions in the form its structure keeps under
/// composition. dplr is not closed (its rank grows), so its products are
/// dense; higher_order<m> composes as one m x m companion block per channel.
struct Composite {
  enum class Form {
    Identity,  // no value
    Scalar,    // [1]
    Diagonal,  // [N], or [N, D] per element
    Blocks,    // [N/m, m, m]
    Dense,     // [N, N]
    Companion, // [N, m, m], acting on the [m, N, D] stack
  };
  Form form = Form::Identity;
  Value value;
  int64_t blockSize = 0; // m, for Blocks
};

/// The form that products of `structure` take.
Composite::Form compositeFormOf(StructureKind structure);

/// A composite of `structure` held in `value` (null for identity).
Composite compositeOf(StructureAttr structure, Value value);

/// One step's transition as a composite.
Composite stepComposite(OpBuilder &b, Location loc, const StepTransition &a);

/// The identity in the shape of `like`.
Composite identityLike(OpBuilder &b, Location loc, const Composite &like);

/// later * earlier. With `inPlace`, elementwise forms overwrite `earlier`,
/// which the caller must own (e.g. a loop-carried product); never use it on
/// a slice of a shared parallel output.
Composite compose(OpBuilder &b, Location loc, const Composite &later,
                  const Composite &earlier, bool inPlace = false);

/// P state + acc (acc may be null), for a canonical state (or stack).
Value applyComposite(OpBuilder &b, Location loc, const Composite &p,
                     Value state, Value acc);

/// The stack [m, N, D] with `newest` on top and zeros below, which is how an
/// input b_t enters a higher_order<m> recurrence.
Value embedInStack(OpBuilder &b, Location loc, Value newest, int64_t order);

//===----------------------------------------------------------------------===//
// Costs
//===----------------------------------------------------------------------===//

/// Per-step work and sizes of a structure at state size N and D columns,
/// counted in floating-point operations and elements.
struct StructureCosts {
  double stepFlops;          // h <- A h + b
  double composeFlops;       // A2 A1 in composite form
  double applyFlops;         // P h with a composite
  double transitionElements; // operand elements of one A_t
  double compositeElements;  // elements of a composite (0 for identity)
  double stateElements;      // elements of a carried state
};

StructureCosts structureCosts(StructureKind structure, int64_t param,
                              double size, double columns, bool perElement);

/// A zero-filled tensor of the given sizes.
Value zeroTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                 Type elementType);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_STRUCTUREALGEBRA_H
