//===- Adjoint.h - The adjoint of a recurrence.scan -------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Reverse-mode derivatives of recurrence.scan, built as IR: the adjoint of a
// linear recurrence is a linear recurrence of the same structure, run in the
// other direction with transposed transitions (DESIGN.md §1), so gradients
// go through the same schedules and lowerings as the forward scan.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_ADJOINT_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_ADJOINT_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence {

/// Builds, at the rewriter's insertion point, the gradients of `op`'s
/// operands for the cotangent `outputCotangent` of its output and
/// `finalStateCotangent` of its final state; either may be null (a zero
/// cotangent). Returns one value per operand in the op's order (transition
/// operands, input or key and value, init, readout), shaped like it; the
/// destinations of `outs` get none. `op`'s operands must dominate the
/// insertion point. Fails, after a diagnostic on `op`, when the op does not
/// verify.
///
/// With `checkpoint` = C > 0, the states are recomputed C steps at a time
/// from the states saved before each chunk, and the adjoint runs chunk by
/// chunk, so that beyond the operands and gradients only O(T/C + C) states
/// are held instead of O(T) (for structures with a state depth the states
/// are recomputed at once).
///
/// Over packed sequences (`offsets`) the adjoint is a reverse scan over the
/// same sequences, and init's gradient holds one state per sequence; the
/// states are recomputed at once there where `output` does not hold them
/// (`checkpoint` does not apply yet).
///
/// `output`, when set, is the value of `op`'s output (the caller's saved
/// forward result). Where it holds the states exactly (no readout, a
/// first-order state, and the state's element type), the
/// adjoint reads h_{t-1} from it instead of recomputing the states, and
/// `checkpoint` does not apply.
FailureOr<SmallVector<Value>> buildScanAdjoint(RewriterBase &rewriter,
                                               ScanOp op, Value outputCotangent,
                                               Value finalStateCotangent,
                                               int64_t checkpoint = 0,
                                               Value output = Value());

/// Whether `buildGenericAdjoint` knows `op`: one tensor result of floats,
/// projected-permutation maps, a body of arith/math ops with known
/// derivatives (add, sub, mul, div, neg, max, min, select, exp, log1p, abs),
/// and an output element that is either not read (elementwise) or the sum
/// it accumulates into.
bool isDifferentiableGeneric(linalg::GenericOp op);

/// Builds the cotangents of `op`'s inputs, then of its init (null where
/// zero: an unread or non-float input, an init the body overwrites), for
/// the cotangent `cotangent` of its result. `op` must satisfy
/// isDifferentiableGeneric.
SmallVector<Value> buildGenericAdjoint(OpBuilder &b, linalg::GenericOp op,
                                       Value cotangent);

/// `value` [B, T, ...] with its steps in the opposite order: a generic that
/// reads `value` by tensor.extract, marked so that the sweep knows it. The
/// adjoint's canonical form flips reverse scans with it.
Value buildReverseSteps(OpBuilder &b, Location loc, Value value);

/// The tensor `op` flips when it is a buildReverseSteps generic; the flip is
/// its own adjoint.
Value reversedStepsSource(linalg::GenericOp op);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_ADJOINT_H
