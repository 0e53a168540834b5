//===- StructureAlgebra.h - Transitions as tensor computations --*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The structure algebra: what one transition A_t does to a state, built as
// linalg on tensors, generic over RecurrenceStructureInterface. Every
// schedule builds its steps from these functions; none re-derives a
// structure's arithmetic. The last section holds the building blocks the
// structures themselves are written with.
//
// States are carried in a canonical form: a vector state [N] is an N x 1
// matrix, so every state is [N, D]; a higher_order<m> state is the stack
// [m, N, D] of the m most recent states, newest first.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTUREALGEBRA_H
#define RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTUREALGEBRA_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::recurrence {

/// A_t of one batch element at one step: the structure's operands sliced to
/// their step shapes (getTransitionStep); a scalar for a rank-0 step.
struct StepTransition {
  RecurrenceStructureInterface structure;
  SmallVector<Value> operands;
  /// The first operand given per state element (allowsPerElement).
  bool perElement = false;
};

/// Returns A_t h + b_t as an [N, D] tensor. For a state of depth m, `state`
/// is the [m, N, D] stack and the result is the new newest state.
Value applyTransition(OpBuilder &b, Location loc, const StepTransition &a,
                      Value state, const StepInput &input);

/// For structures whose step runs in place (elementwise ones, dplr): A_t h +
/// b_t computed in place of `state` and written into `copy` ([N, D]) in the
/// same loop; returns {new state, new copy}. std::nullopt for others.
std::optional<std::pair<Value, Value>>
applyTransitionAndCopy(OpBuilder &b, Location loc, const StepTransition &a,
                       Value state, const StepInput &input, Value copy);

/// The carried state after a step that produced `newest`: `newest` itself,
/// or for a state of depth m the stack with `newest` pushed and the oldest
/// dropped.
Value advanceState(OpBuilder &b, Location loc,
                   RecurrenceStructureInterface structure, Value state,
                   Value newest);

/// b_t as an [N, D] tensor: the given one, or the outer product k v^T;
/// written into `input.into` when that is set.
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
/// composition.
struct Composite {
  using Form = CompositeForm;
  Form form = Form::Identity;
  Value value;
  int64_t blockSize = 0; // m, for Blocks and Companion
};

/// A composite of `structure` held in `value` (null for identity).
Composite compositeOf(RecurrenceStructureInterface structure, Value value);

/// One step's transition as a composite.
Composite stepComposite(OpBuilder &b, Location loc, const StepTransition &a);

/// The identity in the shape of `like`.
Composite identityLike(OpBuilder &b, Location loc, const Composite &like);

/// later * earlier. With `inPlace` the result overwrites `earlier` (the
/// elementwise forms directly, the matrix forms by a copy of the product),
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
// Building blocks for structures
//===----------------------------------------------------------------------===//

/// A zero-filled tensor of the given sizes.
Value zeroTensor(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                 Type elementType);

/// An empty tensor, zeros, or the identity in the last two dims (ones when
/// it has fewer), shaped like `like`.
Value emptyLike(OpBuilder &b, Location loc, Value like);
Value zerosLike(OpBuilder &b, Location loc, Value like);
Value eyeLike(OpBuilder &b, Location loc, Value like);

/// acc + sum lhs * rhs as one linalg.generic over `numLoops` loops, each
/// operand indexed by the listed loop dims, e.g. a matmul is lhs {0, 2},
/// rhs {2, 1}, acc {0, 1} with iterators (par, par, red).
Value contract(OpBuilder &b, Location loc, unsigned numLoops, Value lhs,
               ArrayRef<unsigned> lhsDims, Value rhs,
               ArrayRef<unsigned> rhsDims, Value acc,
               ArrayRef<unsigned> accDims,
               ArrayRef<utils::IteratorType> iterators);

/// A low-rank term U w of a step: U [N, r] and w [r, D], the state already
/// projected (w = V^T h for dplr), r the structure's rank (the types' r may
/// be dynamic; the front doors give U the structure's r).
struct LowRankTerm {
  Value left, projected;
  int64_t rank;
};

/// h' = gate * h (+ U w) + b_t elementwise, in place on `state` [N, D], and
/// also written into `copy` when given; returns the new state (and copy).
/// The gate is null (1), a scalar value, a tensor [N], or [N, D]
/// `perElement`; the low-rank term's r products are summed in each element.
SmallVector<Value> applyGate(OpBuilder &b, Location loc, Value gate,
                             bool perElement, Value state,
                             const StepInput &input, Value copy = {},
                             std::optional<LowRankTerm> lowRank = {});

/// `value` with dim `dim` of size n viewed as two, [n/m, m].
Value splitDim(OpBuilder &b, Location loc, Value value, unsigned dim,
               int64_t m);

/// `value` [B, T, ...] with `before` zero steps in front and `after` behind:
/// [B, before + T + after, ...].
Value padSteps(OpBuilder &b, Location loc, Value value, int64_t before,
               int64_t after);

/// `value` with its last two dims swapped.
Value transposeInner(OpBuilder &b, Location loc, Value value);

/// Blocks [N/m, m, m] applied to h [N, D], added to acc [N, D].
Value applyBlocks(OpBuilder &b, Location loc, int64_t m, Value blocks,
                  Value state, Value acc);

/// The [N, m, m] companion blocks of higher-order coefficients a [m, N]:
/// row 0 holds a[:, n], and row r > 0 shifts h_{t-r} down from row r - 1.
Value companionBlocks(OpBuilder &b, Location loc, Value coefficients,
                      int64_t order);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTUREALGEBRA_H
