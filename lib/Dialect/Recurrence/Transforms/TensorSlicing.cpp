//===- TensorSlicing.cpp - Row slices and unit-column reshapes ------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// Offsets, sizes and strides selecting source[lead..., :...].
struct RowSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RankedTensorType rowType;

  RowSlice(OpBuilder &b, Location loc, Value source, ValueRange lead) {
    auto type = cast<RankedTensorType>(source.getType());
    SmallVector<OpFoldResult> all = tensor::getMixedSizes(b, loc, source);
    for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
      bool fixed = i < static_cast<int64_t>(lead.size());
      offsets.push_back(fixed ? OpFoldResult(lead[i]) : b.getIndexAttr(0));
      sizes.push_back(fixed ? b.getIndexAttr(1) : all[i]);
      strides.push_back(b.getIndexAttr(1));
    }
    rowType = RankedTensorType::get(type.getShape().drop_front(lead.size()),
                                    type.getElementType());
  }

  /// Selects rows [offset, offset + count) of the first free dim.
  RowSlice(OpBuilder &b, Location loc, Value source, ValueRange lead,
           OpFoldResult offset, OpFoldResult count)
      : RowSlice(b, loc, source, lead) {
    // Constant bounds become attributes, so that the slice type is static.
    auto fold = [&](OpFoldResult value) -> OpFoldResult {
      if (std::optional<int64_t> known = getConstantIntValue(value))
        return b.getIndexAttr(*known);
      return value;
    };
    offsets[lead.size()] = fold(offset);
    count = fold(count);
    sizes[lead.size()] = count;
    SmallVector<int64_t> shape(rowType.getShape());
    std::optional<int64_t> known = getConstantIntValue(count);
    shape[0] = known ? *known : ShapedType::kDynamic;
    rowType = RankedTensorType::get(shape, rowType.getElementType());
  }
};

/// Offsets, sizes and unit strides of a box, and its type without the first
/// `dropped` dims.
struct BoxSlice {
  SmallVector<OpFoldResult> offsets, sizes, strides;
  RankedTensorType rowType;

  BoxSlice(OpBuilder &b, Value source, ArrayRef<OpFoldResult> boxOffsets,
           ArrayRef<OpFoldResult> boxSizes, unsigned dropped) {
    auto fold = [&](OpFoldResult value) -> OpFoldResult {
      if (std::optional<int64_t> known = getConstantIntValue(value))
        return b.getIndexAttr(*known);
      return value;
    };
    SmallVector<int64_t> shape;
    for (auto [index, offset, size] : llvm::enumerate(boxOffsets, boxSizes)) {
      offsets.push_back(fold(offset));
      sizes.push_back(fold(size));
      strides.push_back(b.getIndexAttr(1));
      if (index >= dropped)
        shape.push_back(
            getConstantIntValue(size).value_or(ShapedType::kDynamic));
    }
    rowType = RankedTensorType::get(
        shape, cast<RankedTensorType>(source.getType()).getElementType());
  }
};
} // namespace

Value mlir::recurrence::castTo(OpBuilder &b, Location loc, Value value,
                               RankedTensorType type) {
  type = type.clone(cast<RankedTensorType>(value.getType()).getElementType());
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

Value mlir::recurrence::convertElementType(OpBuilder &b, Location loc,
                                           Value value, Type elementType) {
  if (cast<RankedTensorType>(value.getType()).getElementType() == elementType)
    return value;
  // linalg.copy casts each element to the destination's type.
  Value empty = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, value), elementType);
  return linalg::CopyOp::create(b, loc, value, empty).getResult(0);
}

SmallVector<Value> mlir::recurrence::appendIndex(ValueRange lead, Value index) {
  SmallVector<Value> indices(lead);
  indices.push_back(index);
  return indices;
}

Value mlir::recurrence::extractRow(OpBuilder &b, Location loc, Value source,
                                   ValueRange lead) {
  if (lead.empty())
    return source;
  RowSlice slice(b, loc, source, lead);
  return tensor::ExtractSliceOp::create(
      b, loc, slice.rowType, source, slice.offsets, slice.sizes, slice.strides);
}

Value mlir::recurrence::insertRow(OpBuilder &b, Location loc, Value row,
                                  Value dest, ValueRange lead) {
  if (lead.empty())
    return row;
  RowSlice slice(b, loc, dest, lead);
  return tensor::InsertSliceOp::create(
      b, loc, castTo(b, loc, row, slice.rowType), dest, slice.offsets,
      slice.sizes, slice.strides);
}

Value mlir::recurrence::copyIntoRow(OpBuilder &b, Location loc, Value row,
                                    Value dest, ValueRange lead) {
  Value slice = extractRow(b, loc, dest, lead);
  Value copied =
      linalg::CopyOp::create(
          b, loc, castTo(b, loc, row, cast<RankedTensorType>(slice.getType())),
          slice)
          .getResult(0);
  return insertRow(b, loc, copied, dest, lead);
}

/// Emits the parallel insertion of `source` into `slice` of `dest` at the end
/// of `combining`, after casting it (at the current point) to the slice type.
template <typename Slice>
static void emitParallelInsert(OpBuilder &b, Location loc, Value source,
                               Value dest, const Slice &slice,
                               Block *combining) {
  source = castTo(b, loc, source, slice.rowType);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(combining);
  tensor::ParallelInsertSliceOp::create(b, loc, source, dest, slice.offsets,
                                        slice.sizes, slice.strides);
}

void mlir::recurrence::parallelInsertRow(OpBuilder &b, Location loc, Value row,
                                         Value dest, ValueRange lead,
                                         Block *combining) {
  emitParallelInsert(b, loc, row, dest, RowSlice(b, loc, dest, lead),
                     combining);
}

Value mlir::recurrence::extractRows(OpBuilder &b, Location loc, Value source,
                                    ValueRange lead, OpFoldResult offset,
                                    OpFoldResult count) {
  RowSlice slice(b, loc, source, lead, offset, count);
  return tensor::ExtractSliceOp::create(
      b, loc, slice.rowType, source, slice.offsets, slice.sizes, slice.strides);
}

Value mlir::recurrence::extractBox(OpBuilder &b, Location loc, Value source,
                                   ArrayRef<OpFoldResult> offsets,
                                   ArrayRef<OpFoldResult> sizes,
                                   unsigned dropped) {
  BoxSlice slice(b, source, offsets, sizes, dropped);
  return tensor::ExtractSliceOp::create(
      b, loc, slice.rowType, source, slice.offsets, slice.sizes, slice.strides);
}

void mlir::recurrence::parallelInsertRows(OpBuilder &b, Location loc,
                                          Value rows, Value dest,
                                          ValueRange lead, OpFoldResult offset,
                                          OpFoldResult count,
                                          Block *combining) {
  emitParallelInsert(b, loc, rows, dest,
                     RowSlice(b, loc, dest, lead, offset, count), combining);
}

SmallVector<Value>
mlir::recurrence::buildParallelLoop(OpBuilder &b, Location loc,
                                    ArrayRef<OpFoldResult> upperBounds,
                                    ValueRange outputs, ParallelBody body) {
  if (upperBounds.empty()) {
    SmallVector<Value> results(outputs);
    for (const ParallelWrite &write : body(b, loc, {}, outputs)) {
      Value &dest = results[write.output];
      if (!write.offsets.empty()) {
        BoxSlice slice(b, dest, write.offsets, write.sizes, write.dropped);
        dest = tensor::InsertSliceOp::create(
            b, loc, castTo(b, loc, write.source, slice.rowType), dest,
            slice.offsets, slice.sizes, slice.strides);
        continue;
      }
      if (!write.rowCount) {
        dest = insertRow(b, loc, write.source, dest, write.lead);
        continue;
      }
      RowSlice slice(b, loc, dest, write.lead, write.rowOffset, write.rowCount);
      dest = tensor::InsertSliceOp::create(
          b, loc, castTo(b, loc, write.source, slice.rowType), dest,
          slice.offsets, slice.sizes, slice.strides);
    }
    return results;
  }
  auto forall =
      scf::ForallOp::create(b, loc, upperBounds, outputs, std::nullopt);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(forall.getBody());
  SmallVector<Value> ivs = forall.getInductionVars();
  SmallVector<Value> shared(forall.getRegionIterArgs());
  Block *combining = forall.getTerminator().getBody();
  for (const ParallelWrite &write : body(b, loc, ivs, shared)) {
    Value dest = shared[write.output];
    if (!write.offsets.empty())
      emitParallelInsert(
          b, loc, write.source, dest,
          BoxSlice(b, dest, write.offsets, write.sizes, write.dropped),
          combining);
    else if (write.rowCount)
      parallelInsertRows(b, loc, write.source, dest, write.lead,
                         write.rowOffset, write.rowCount, combining);
    else
      parallelInsertRow(b, loc, write.source, dest, write.lead, combining);
  }
  return forall.getResults();
}

/// Reassociation that groups the last two of `rank` dims.
static SmallVector<ReassociationIndices> lastTwoGrouped(int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i + 2 < rank; ++i)
    groups.push_back({i});
  groups.push_back({rank - 2, rank - 1});
  return groups;
}

Value mlir::recurrence::appendUnitDim(OpBuilder &b, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.push_back(1);
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  sizes.push_back(b.getIndexAttr(1));
  return tensor::ExpandShapeOp::create(b, loc, resultType, value,
                                       lastTwoGrouped(shape.size()), sizes);
}

Value mlir::recurrence::dropTrailingUnitDim(OpBuilder &b, Location loc,
                                            Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  return tensor::CollapseShapeOp::create(b, loc, value,
                                         lastTwoGrouped(type.getRank()));
}

bool mlir::recurrence::writeBeforeCollapse(
    bufferization::MaterializeInDestinationOp write,
    llvm::function_ref<bool(tensor::CollapseShapeOp)> only) {
  auto collapse = write.getSource().getDefiningOp<tensor::CollapseShapeOp>();
  auto buffer = dyn_cast<MemRefType>(write.getDest().getType());
  if (!collapse || !buffer || !collapse->hasOneUse() ||
      (only && !only(collapse)))
    return false;
  SmallVector<ReassociationIndices> groups = collapse.getReassociationIndices();
  FailureOr<MemRefType> expanded = memref::ExpandShapeOp::computeExpandedType(
      buffer, collapse.getSrcType().getShape(), groups);
  if (failed(expanded))
    return false;
  // Right after the buffer, and sized by it, so that the expanded buffer
  // too exists before an scf.if whose result is written.
  OpBuilder b(write);
  b.setInsertionPointAfterValue(write.getDest());
  Location loc = write.getLoc();
  FailureOr<SmallVector<OpFoldResult>> sizes =
      memref::ExpandShapeOp::inferOutputShape(
          b, loc, *expanded, groups,
          memref::getMixedSizes(b, loc, write.getDest()));
  if (failed(sizes))
    return false;
  Value dest = memref::ExpandShapeOp::create(b, loc, *expanded, write.getDest(),
                                             groups, *sizes);
  write.getSourceMutable().assign(collapse.getSrc());
  write.getDestMutable().assign(dest);
  collapse->erase();
  return true;
}
