//===- ScanShapes.cpp - Operand shapes of recurrence.scan -----------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::recurrence;

std::optional<ScanDims> ScanDims::fromOp(ScanOp op) {
  ScanDims dims;
  dims.structure = op.getStructure();
  dims.matrix = op.getMatrix();
  Value source = op.getShapeSource();
  if (!source) {
    op.emitOpError("needs an input: `input(%b)` or `factored_input(%k, %v)`");
    return std::nullopt;
  }
  auto type = cast<RankedTensorType>(source.getType());
  int64_t trailing = op.hasFactoredInput() ? 2 : (dims.matrix ? 3 : 2);
  StringRef role = op.hasFactoredInput() ? "factored input key" : "input";
  if (type.getRank() < trailing) {
    op.emitOpError() << "expected " << role << " of rank at least " << trailing
                     << " ([..., T, N" << (trailing == 3 ? ", D" : "")
                     << "]), got rank " << type.getRank();
    return std::nullopt;
  }
  ArrayRef<int64_t> shape = type.getShape();
  int64_t batchRank = type.getRank() - trailing;
  dims.batch.assign(shape.begin(), shape.begin() + batchRank);
  dims.steps = shape[batchRank];
  dims.size = shape[batchRank + 1];
  if (op.hasFactoredInput()) {
    auto valueType = cast<RankedTensorType>(op.getInputValue().getType());
    if (valueType.getRank() != batchRank + 2) {
      op.emitOpError() << "expected factored input value of rank "
                       << batchRank + 2 << " ([..., T, D]), got rank "
                       << valueType.getRank();
      return std::nullopt;
    }
    dims.columns = valueType.getShape().back();
  } else if (dims.matrix) {
    dims.columns = shape[batchRank + 2];
  }
  if (Value offsets = op.getOffsets())
    dims.sequences = sequenceCount(offsets);
  return dims;
}

int64_t mlir::recurrence::sequenceCount(Value offsets) {
  int64_t bounds = cast<RankedTensorType>(offsets.getType()).getDimSize(0);
  return ShapedType::isDynamic(bounds) ? bounds
                                       : std::max<int64_t>(0, bounds - 1);
}

MixedScanDims::MixedScanDims(OpBuilder &b, ScanOp op)
    : depth(op.getStructure().getStateDepth()), matrix(op.getMatrix()),
      readout(op.getReadout() != nullptr) {
  Location loc = op.getLoc();
  int64_t batchRank = op.getBatchRank();
  SmallVector<OpFoldResult> all =
      tensor::getMixedSizes(b, loc, op.getShapeSource());
  batch.assign(all.begin(), all.begin() + batchRank);
  steps = all[batchRank];
  size = all[batchRank + 1];
  if (!matrix)
    columns = b.getIndexAttr(1);
  else if (op.hasFactoredInput())
    columns = tensor::getMixedSize(b, loc, op.getInputValue(), batchRank + 1);
  else
    columns = all[batchRank + 2];
  if (Value offsets = op.getOffsets()) {
    OpFoldResult bounds = tensor::getMixedSize(b, loc, offsets, 0);
    if (std::optional<int64_t> known = getConstantIntValue(bounds))
      sequences = b.getIndexAttr(std::max<int64_t>(0, *known - 1));
    else
      sequences =
          arith::SubIOp::create(b, loc, cast<Value>(bounds),
                                arith::ConstantIndexOp::create(b, loc, 1))
              .getResult();
  }
}

SmallVector<OpFoldResult> MixedScanDims::output() const {
  SmallVector<OpFoldResult> sizes(batch);
  sizes.push_back(steps);
  if (!readout)
    sizes.push_back(size);
  if (matrix)
    sizes.push_back(columns);
  return sizes;
}

SmallVector<OpFoldResult> MixedScanDims::finalState() const {
  SmallVector<OpFoldResult> sizes(batch);
  if (sequences)
    sizes.push_back(sequences);
  if (depth)
    sizes.push_back(Builder(size.getContext()).getIndexAttr(depth));
  sizes.push_back(size);
  if (matrix)
    sizes.push_back(columns);
  return sizes;
}

SmallVector<OpFoldResult> MixedScanDims::canonicalState() const {
  SmallVector<OpFoldResult> sizes;
  if (depth)
    sizes.push_back(Builder(size.getContext()).getIndexAttr(depth));
  sizes.push_back(size);
  sizes.push_back(columns);
  return sizes;
}

unsigned ScanDims::numTransitionOperands() const {
  return structure.getNumTransitionOperands();
}

bool ScanDims::isPerElement(int64_t rank) const {
  return matrix && structure.allowsPerElement() &&
         rank == static_cast<int64_t>(batch.size()) + 3;
}

SmallVector<int64_t> ScanDims::transitionStep(unsigned index,
                                              bool perElement) const {
  return structure.getTransitionStep(index, size, columns, perElement);
}

SmallVector<int64_t> ScanDims::inputStep() const {
  if (matrix)
    return {size, columns};
  return {size};
}

SmallVector<int64_t> ScanDims::stateStep() const {
  SmallVector<int64_t> step;
  if (int64_t depth = structure.getStateDepth())
    step.push_back(depth);
  llvm::append_range(step, inputStep());
  return step;
}

SmallVector<int64_t> ScanDims::outputStep(bool readout) const {
  if (!readout)
    return inputStep();
  if (matrix)
    return {columns};
  return {};
}

SmallVector<int64_t> ScanDims::perBatch(ArrayRef<int64_t> step) const {
  SmallVector<int64_t> shape(batch);
  llvm::append_range(shape, step);
  return shape;
}

SmallVector<int64_t> ScanDims::stateShape() const {
  SmallVector<int64_t> shape(batch);
  if (sequences)
    shape.push_back(*sequences);
  llvm::append_range(shape, stateStep());
  return shape;
}

SmallVector<int64_t> ScanDims::perStep(ArrayRef<int64_t> step) const {
  SmallVector<int64_t> shape(batch);
  shape.push_back(steps);
  llvm::append_range(shape, step);
  return shape;
}

std::string mlir::recurrence::formatDim(int64_t size) {
  return ShapedType::isDynamic(size) ? "?" : std::to_string(size);
}

std::string mlir::recurrence::formatShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  llvm::interleaveComma(shape, os,
                        [&](int64_t size) { os << formatDim(size); });
  os << "]";
  return text;
}

bool mlir::recurrence::shapesCompatible(ArrayRef<int64_t> actual,
                                        ArrayRef<int64_t> expected) {
  if (actual.size() != expected.size())
    return false;
  for (auto [a, e] : llvm::zip(actual, expected))
    if (!ShapedType::isDynamic(a) && !ShapedType::isDynamic(e) && a != e)
      return false;
  return true;
}
