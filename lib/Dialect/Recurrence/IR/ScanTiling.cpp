//===- ScanTiling.cpp - TilingInterface of recurrence.scan ----------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A scan is independent across batch elements, across the columns D of a
// matrix state (A_t acts on every column alike), and across channels when
// its transitions do not mix them and nothing sums over them. Those are its
// parallel loops; time is sequential inside the op and is never tiled. A
// tile is a smaller recurrence.scan on slices of the operands, so upstream
// tiling (scf::tileUsingSCF, transform.structured.tile_using_forall) makes
// the loop nests.
//
// The iteration domain is: the batch dims, then the channels when they are
// independent (counted in the structure's channel groups of g, e.g. the m x m
// blocks of block_diagonal<m>, so a tile never splits a group), then the
// columns D of a matrix state. Which operand dims the channels are is the
// structure's to say (RecurrenceStructureInterface::getChannelDim).
//
// Limits: a dynamic N must be a multiple of g, as the structures require
// (the verifier can check only a static N). The op is in destination
// style: upstream tiling makes its `outs` the loop's shared outputs, and a
// tile writes into their slices.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// The loops of a scan's iteration domain.
struct Loops {
  int64_t batchRank;
  bool channels;     // independent channels are a loop
  int64_t blockSize; // channels per unit of that loop
  bool columns;      // a matrix state's D is a loop

  explicit Loops(ScanOp op)
      : batchRank(op.getBatchRank()), channels(op.hasIndependentChannels()),
        blockSize(std::max<int64_t>(op.getStructure().getChannelGroup(), 1)),
        columns(op.getMatrix()) {}

  int64_t count() const { return batchRank + channels + columns; }
};

/// A tile of the iteration domain, in the operands' own units.
struct Tile {
  SmallVector<OpFoldResult> batchOffsets, batchSizes;
  OpFoldResult blockOffset, blockCount;     // in units of the channel loop
  OpFoldResult channelOffset, channelCount; // in channels
  OpFoldResult columnOffset, columnCount;
  bool channels = false, columns = false;

  Tile(OpBuilder &b, Location loc, const Loops &loops,
       ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes) {
    batchOffsets.assign(offsets.begin(), offsets.begin() + loops.batchRank);
    batchSizes.assign(sizes.begin(), sizes.begin() + loops.batchRank);
    unsigned next = loops.batchRank;
    if ((channels = loops.channels)) {
      blockOffset = offsets[next];
      blockCount = sizes[next];
      AffineExpr s0 = b.getAffineSymbolExpr(0);
      channelOffset = affine::makeComposedFoldedAffineApply(
          b, loc, s0 * loops.blockSize, {blockOffset});
      channelCount = affine::makeComposedFoldedAffineApply(
          b, loc, s0 * loops.blockSize, {blockCount});
      ++next;
    }
    if ((columns = loops.columns)) {
      columnOffset = offsets[next];
      columnCount = sizes[next];
    }
  }
};

/// The box of `value` covering a tile: the batch dims, and the given dims
/// for channels and columns (-1: none), every other dim whole.
struct Box {
  SmallVector<OpFoldResult> offsets, sizes, strides;

  /// `whole` are the sizes of the tensor the box is in.
  Box(OpBuilder &b, SmallVector<OpFoldResult> whole, const Tile &tile,
      int64_t channelDim, bool channelsInBlocks, int64_t columnDim)
      : sizes(std::move(whole)) {
    offsets.assign(sizes.size(), b.getIndexAttr(0));
    strides.assign(sizes.size(), b.getIndexAttr(1));
    for (auto [d, offset] : llvm::enumerate(tile.batchOffsets)) {
      offsets[d] = offset;
      sizes[d] = tile.batchSizes[d];
    }
    if (tile.channels && channelDim >= 0) {
      offsets[channelDim] =
          channelsInBlocks ? tile.blockOffset : tile.channelOffset;
      sizes[channelDim] =
          channelsInBlocks ? tile.blockCount : tile.channelCount;
    }
    if (tile.columns && columnDim >= 0) {
      offsets[columnDim] = tile.columnOffset;
      sizes[columnDim] = tile.columnCount;
    }
  }
};
} // namespace

/// The dims of the transition operand `index` that index channel groups and
/// columns (per-element operands end in D); -1 where there is none.
static std::pair<int64_t, int64_t> transitionDims(ScanOp op, unsigned index) {
  int64_t base = op.getBatchRank() + 1; // after [..., T]
  int64_t rank =
      cast<RankedTensorType>(op.getTransition()[index].getType()).getRank();
  std::optional<unsigned> channel = op.getStructure().getChannelDim(index);
  bool perElement = index == 0 && op.hasPerElementTransition();
  return {channel ? base + *channel : -1, perElement ? rank - 1 : -1};
}

SmallVector<utils::IteratorType> ScanOp::getLoopIteratorTypes() {
  return SmallVector<utils::IteratorType>(Loops(*this).count(),
                                          utils::IteratorType::parallel);
}

SmallVector<Range> ScanOp::getIterationDomain(OpBuilder &b) {
  Loops loops(*this);
  MixedScanDims dims(b, *this);
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<Range> domain;
  for (OpFoldResult size : dims.batch)
    domain.push_back(Range{zero, size, one});
  if (loops.channels) {
    AffineExpr s0 = b.getAffineSymbolExpr(0);
    domain.push_back(
        Range{zero,
              affine::makeComposedFoldedAffineApply(
                  b, getLoc(), s0.floorDiv(loops.blockSize), {dims.size}),
              one});
  }
  if (loops.columns)
    domain.push_back(Range{zero, dims.columns, one});
  return domain;
}

/// The box of `result` (or of its destination) for a tile; its sizes come
/// from the operands, never from the result itself, which tiling replaces.
static Box resultBox(OpBuilder &b, ScanOp op, Value result, const Tile &tile) {
  int64_t batchRank = op.getBatchRank();
  bool last = result == op.getFinalState();
  bool stack = op.getStructure().getStateDepth() > 0;
  // Output: [..., T, N(, D)] or a readout [..., T(, D)]; final state:
  // [..., (m,) N(, D)].
  int64_t channelDim = last ? batchRank + (stack ? 1 : 0) : batchRank + 1;
  if (!last && op.getReadout())
    channelDim = -1;
  int64_t columnDim = -1;
  if (op.getMatrix())
    columnDim = cast<RankedTensorType>(result.getType()).getRank() - 1;
  return Box(b, op.getMixedResultSizes(b, last), tile, channelDim, false,
             columnDim);
}

FailureOr<TilingResult>
ScanOp::getTiledImplementation(OpBuilder &b, ArrayRef<OpFoldResult> offsets,
                               ArrayRef<OpFoldResult> sizes) {
  // Packed sequences hold one state per sequence: split them first.
  if (getOffsets())
    return emitOpError("with `offsets` is tiled after "
                       "-recurrence-split-sequences");
  Location loc = getLoc();
  Loops loops(*this);
  Tile tile(b, loc, loops, offsets, sizes);
  int64_t batchRank = loops.batchRank;
  bool stack = getStructure().getStateDepth() > 0;
  SmallVector<Operation *> slices;
  auto slice = [&](Value value, int64_t channelDim, bool inBlocks,
                   int64_t columnDim) -> Value {
    if (!value)
      return value;
    Box box(b, tensor::getMixedSizes(b, loc, value), tile, channelDim, inBlocks,
            columnDim);
    auto op = tensor::ExtractSliceOp::create(b, loc, value, box.offsets,
                                             box.sizes, box.strides);
    slices.push_back(op);
    return op;
  };

  SmallVector<Value> transition;
  for (auto [index, value] : llvm::enumerate(getTransition())) {
    auto [channelDim, columnDim] = transitionDims(*this, index);
    transition.push_back(slice(value, channelDim, true, columnDim));
  }
  int64_t perStep = batchRank + 1; // the first dim after [..., T]
  Value input = slice(getInput(), perStep, false, perStep + 1);
  Value key = slice(getInputKey(), perStep, false, -1);
  Value value = slice(getInputValue(), -1, false, perStep);
  int64_t initChannel = batchRank + (stack ? 1 : 0);
  Value init =
      slice(getInit(), initChannel, false, getMatrix() ? initChannel + 1 : -1);
  Value readout = slice(getReadout(), perStep, false, -1);

  SmallVector<Type> resultTypes;
  SmallVector<Value> destinations;
  for (auto [index, result] : llvm::enumerate(getResults())) {
    Box box = resultBox(b, *this, result, tile);
    resultTypes.push_back(tensor::ExtractSliceOp::inferResultType(
        cast<RankedTensorType>(result.getType()), box.sizes));
    auto op = tensor::ExtractSliceOp::create(
        b, loc, getDestinations()[index], box.offsets, box.sizes, box.strides);
    slices.push_back(op);
    destinations.push_back(op);
  }
  auto tiled = ScanOp::create(
      b, loc, resultTypes[0], getFinalState() ? resultTypes[1] : Type(),
      getStructureAttr(), getScheduleAttr(), getMatrix(), getReverse(),
      transition, input, key, value, init, readout, Value(), destinations,
      getAccumulateAttr());
  return TilingResult{{tiled}, SmallVector<Value>(tiled->getResults()), slices};
}

LogicalResult ScanOp::getResultTilePosition(
    OpBuilder &b, unsigned resultNumber, ArrayRef<OpFoldResult> offsets,
    ArrayRef<OpFoldResult> sizes, SmallVector<OpFoldResult> &resultOffsets,
    SmallVector<OpFoldResult> &resultSizes) {
  Tile tile(b, getLoc(), Loops(*this), offsets, sizes);
  Box box = resultBox(b, *this, (*this)->getResult(resultNumber), tile);
  resultOffsets = box.offsets;
  resultSizes = box.sizes;
  return success();
}
