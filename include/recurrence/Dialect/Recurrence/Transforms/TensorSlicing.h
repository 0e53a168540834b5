//===- TensorSlicing.h - Row slices and unit-column reshapes ----*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Small builders the schedules share to pick one batch element / one time
// step out of an operand and to move between vector and [N, 1] states.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TENSORSLICING_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TENSORSLICING_H

#include "mlir/IR/Builders.h"

namespace mlir::recurrence {

/// source[lead..., :, ..., :] as a tensor of the trailing dims.
Value extractRow(OpBuilder &b, Location loc, Value source, ValueRange lead);

/// Writes `row` into dest[lead..., :, ..., :]; returns the new dest.
Value insertRow(OpBuilder &b, Location loc, Value row, Value dest,
                ValueRange lead);

/// Emits tensor.parallel_insert_slice of `row` into dest[lead..., :...] at
/// the end of `combining` (an scf.forall.in_parallel body); sizes are
/// computed at the builder's insertion point.
void parallelInsertRow(OpBuilder &b, Location loc, Value row, Value dest,
                       ValueRange lead, Block *combining);

/// [..., N] -> [..., N, 1] and back.
Value appendUnitDim(OpBuilder &b, Location loc, Value value);
Value dropTrailingUnitDim(OpBuilder &b, Location loc, Value value);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TENSORSLICING_H
