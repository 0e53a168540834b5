//===- TensorSlicing.h - Row slices and unit-column reshapes ----*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Small builders the schedules share to pick one batch element / one time
// step out of an operand and to move between vector and [N, 1] states, and
// to write a reshaped result without the reshape.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TENSORSLICING_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TENSORSLICING_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mlir::recurrence {

/// `lead` followed by `index`: the leading indices of a row one dim deeper.
SmallVector<Value> appendIndex(ValueRange lead, Value index);

/// `value` with every element extended or rounded to `elementType`.
Value convertElementType(OpBuilder &b, Location loc, Value value,
                         Type elementType);

/// `value` with the shape of `type`, through a tensor.cast when they differ
/// only in which sizes are static; the element type stays that of `value`.
Value castTo(OpBuilder &b, Location loc, Value value, RankedTensorType type);

/// source[lead..., :, ..., :] as a tensor of the trailing dims.
Value extractRow(OpBuilder &b, Location loc, Value source, ValueRange lead);

/// Writes `row` into dest[lead..., :, ..., :]; returns the new dest.
Value insertRow(OpBuilder &b, Location loc, Value row, Value dest,
                ValueRange lead);

/// Copies `row` into dest[lead..., :...] with a linalg.copy into the slice,
/// which bufferizes to an in-place loop rather than a strided memref.copy;
/// returns the new dest.
Value copyIntoRow(OpBuilder &b, Location loc, Value row, Value dest,
                  ValueRange lead);

/// Emits tensor.parallel_insert_slice of `row` into dest[lead..., :...] at
/// the end of `combining` (an scf.forall.in_parallel body); sizes are
/// computed at the builder's insertion point.
void parallelInsertRow(OpBuilder &b, Location loc, Value row, Value dest,
                       ValueRange lead, Block *combining);

/// source[lead..., offset : offset + count, :...]: `count` rows of the dim
/// after the fixed ones.
Value extractRows(OpBuilder &b, Location loc, Value source, ValueRange lead,
                  OpFoldResult offset, OpFoldResult count);

/// The box source[offsets : offsets + sizes] (unit strides) without its first
/// `dropped` dims, which must have size 1: a tile of one batch element.
Value extractBox(OpBuilder &b, Location loc, Value source,
                 ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes,
                 unsigned dropped);

/// Like parallelInsertRow for a block of rows written by extractRows.
void parallelInsertRows(OpBuilder &b, Location loc, Value rows, Value dest,
                        ValueRange lead, OpFoldResult offset,
                        OpFoldResult count, Block *combining);

/// A write of one parallel iteration into a shared output: `source` goes to
/// dest[lead..., :...], or to rows [rowOffset, rowOffset + rowCount) of the
/// first free dim when rowCount is set.
struct ParallelWrite {
  Value source;
  unsigned output = 0; // index into the loop's outputs
  SmallVector<Value> lead;
  OpFoldResult rowOffset, rowCount;
  /// Or a box: `source` to output[offsets : offsets + sizes] without its
  /// first `dropped` dims (see extractBox).
  SmallVector<OpFoldResult> offsets, sizes;
  unsigned dropped = 0;

  /// `source` to output[lead..., :...].
  static ParallelWrite row(Value source, unsigned output, ValueRange lead) {
    ParallelWrite write;
    write.source = source;
    write.output = output;
    write.lead.assign(lead.begin(), lead.end());
    return write;
  }
  /// `source` to the box of output at `offsets` of `sizes`, whose first
  /// `dropped` dims (of size 1) `source` lacks.
  static ParallelWrite box(Value source, unsigned output,
                           ArrayRef<OpFoldResult> offsets,
                           ArrayRef<OpFoldResult> sizes, unsigned dropped) {
    ParallelWrite write = row(source, output, {});
    write.offsets.assign(offsets.begin(), offsets.end());
    write.sizes.assign(sizes.begin(), sizes.end());
    write.dropped = dropped;
    return write;
  }
  /// `source` to rows [offset, offset + count) of output[lead..., :...].
  static ParallelWrite rows(Value source, unsigned output, ValueRange lead,
                            OpFoldResult offset, OpFoldResult count) {
    ParallelWrite write = row(source, output, lead);
    write.rowOffset = offset;
    write.rowCount = count;
    return write;
  }
};

using ParallelBody = function_ref<SmallVector<ParallelWrite>(
    OpBuilder &, Location, ValueRange ivs, ValueRange shared)>;

/// Builds an scf.forall over [0, upperBounds) with `outputs` as shared
/// outputs and returns its results. `body` reads the shared block arguments
/// and returns its writes, which become tensor.parallel_insert_slice ops.
/// With no upper bounds the body is emitted inline, once.
SmallVector<Value> buildParallelLoop(OpBuilder &b, Location loc,
                                     ArrayRef<OpFoldResult> upperBounds,
                                     ValueRange outputs, ParallelBody body);

/// [..., N] -> [..., N, 1] and back.
Value appendUnitDim(OpBuilder &b, Location loc, Value value);
Value dropTrailingUnitDim(OpBuilder &b, Location loc, Value value);

/// Rewrites `write`, of a collapsed tensor (the collapse's one use) into a
/// buffer, as the write of the tensor it collapses into the buffer expanded
/// alike (a memref.expand_shape right after the buffer, so that it exists
/// wherever the buffer does): the tensor behind the reshape then has the
/// buffer as its destination; with `only`, where it holds for the collapse.
/// Returns whether it did.
bool writeBeforeCollapse(
    bufferization::MaterializeInDestinationOp write,
    llvm::function_ref<bool(tensor::CollapseShapeOp)> only = nullptr);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TENSORSLICING_H
