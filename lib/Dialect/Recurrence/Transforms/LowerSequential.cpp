//===- LowerSequential.cpp - Sequential schedule --------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lowers recurrence.scan into an scf.forall over batch elements, each running
// an scf.for over time whose body applies one transition from the structure
// algebra.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/Target.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_LOWERSEQUENTIALPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

/// Runs steps [0, T) of one batch element from its initial state, writing
/// every output row into `block`; returns the final state and the block.
static std::pair<Value, Value> emitTimeLoop(OpBuilder &b, Location loc,
                                            const ScanIO &io, ValueRange batch,
                                            Value block) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value state = io.initialState(b, loc, batch);
  auto loop = scf::ForOp::create(
      b, loc, zero, io.getSteps(), one, ValueRange{state, block},
      [&](OpBuilder &nb, Location nl, Value tau, ValueRange args) {
        Value t = io.timeOf(nb, nl, tau);
        auto [next, out] =
            io.stepAndWrite(nb, nl, batch, t, args[0], args[1], t);
        scf::YieldOp::create(nb, nl, ValueRange{next, out});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

/// The sequential loops of `op`: a forall over the batch around time loops,
/// writing into `outputs` (one tensor per result).
static SmallVector<Value> buildSequential(RewriterBase &rewriter, ScanOp op,
                                          const ScanIO &io,
                                          ValueRange outputs) {
  Location loc = op.getLoc();
  return buildParallelLoop(
      rewriter, loc, io.batchSizes(rewriter, loc), outputs,
      [&](OpBuilder &b, Location l, ValueRange batch, ValueRange shared) {
        Value block = extractRow(b, l, shared[0], batch);
        auto [last, out] = emitTimeLoop(b, l, io, batch, block);
        SmallVector<ParallelWrite> writes = {ParallelWrite::row(out, 0, batch)};
        if (op.getFinalState())
          writes.push_back(
              ParallelWrite::row(io.toResultLayout(b, l, last), 1, batch));
        return writes;
      });
}

//===----------------------------------------------------------------------===//
// Channel tiles
//===----------------------------------------------------------------------===//

/// The dim of `operand` that indexes channels (in blocks for a
/// block_diagonal transition), or -1 when it has none.
static int64_t channelDimOf(ScanOp op, OpOperand &operand) {
  int64_t batchRank = op.getBatchRank();
  unsigned index = operand.getOperandNumber();
  if (index < op.getTransition().size()) {
    switch (op.getStructure().getKind()) {
    case StructureKind::Scalar:
      return -1;
    case StructureKind::HigherOrder:
      return batchRank + 2;
    default:
      return batchRank + 1;
    }
  }
  auto inSegment = [&](unsigned segment) {
    auto [first, count] = op.getODSOperandIndexAndLength(segment);
    return index >= first && index < first + count;
  };
  if (inSegment(3)) // factored input value: [..., T, D]
    return -1;
  if (inSegment(4)) // init
    return batchRank +
           (op.getStructure().getKind() == StructureKind::HigherOrder ? 1 : 0);
  return batchRank + 1; // input, factored input key
}

/// The box of `value` for batch element `batch` and channels [start, start
/// + size) along `channelDim` (none when -1), keeping every dim.
static std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>
tileBox(OpBuilder &b, Location loc, Value value, ValueRange batch,
        int64_t channelDim, OpFoldResult start, OpFoldResult size) {
  SmallVector<OpFoldResult> offsets,
      sizes = tensor::getMixedSizes(b, loc, value);
  for (size_t d = 0; d < sizes.size(); ++d) {
    offsets.push_back(b.getIndexAttr(0));
    if (d < batch.size()) {
      offsets[d] = batch[d];
      sizes[d] = b.getIndexAttr(1);
    } else if (static_cast<int64_t>(d) == channelDim) {
      offsets[d] = start;
      sizes[d] = size;
    }
  }
  return {offsets, sizes};
}

namespace {
/// How the channels are split: `count` tiles of `size` channels (a multiple
/// of the block size), the last one possibly shorter unless `uniform`.
struct ChannelTiles {
  Value count, size;
  std::optional<int64_t> uniform;
};
} // namespace

/// `count` tiles of ceil(N / (count m)) m channels (m: the block size), the
/// last one shorter unless that size divides N.
static ChannelSplit splitWith(int64_t channels, int64_t block, int64_t count) {
  int64_t size = std::max<int64_t>(
      block, llvm::divideCeil(channels, count * block) * block);
  return {std::max<int64_t>(1, llvm::divideCeil(channels, size)), size,
          channels % size == 0};
}

/// Enough tiles to fill the cores, clamp(ceil(cores / batch elements), 1,
/// floor(N / (min tile m))): each holds at least the minimum tile.
static int64_t mostTiles(int64_t elements, int64_t channels, int64_t block,
                         int64_t cores, int64_t minTile) {
  return std::clamp<int64_t>(
      llvm::divideCeil(cores, std::max<int64_t>(1, elements)), 1,
      std::max<int64_t>(1, channels / (minTile * block)));
}

ChannelSplit mlir::recurrence::splitChannels(int64_t elements, int64_t channels,
                                             int64_t block,
                                             const ChannelTiling &tiling) {
  // The most tiles of one static width that divide N, if more than one...
  for (int64_t count =
           mostTiles(elements, channels, block, tiling.cores, tiling.minTile);
       count > 1; --count) {
    ChannelSplit split = splitWith(channels, block, count);
    if (split.uniform)
      return split;
  }
  // ... otherwise tiles sized at run time, under their own floor.
  return splitWith(channels, block,
                   mostTiles(elements, channels, block, tiling.cores,
                             tiling.minRuntimeTile));
}

/// The split as values: constants when the shapes are static, otherwise
/// computed at run time (guarded against an empty batch and an empty state).
/// Tiles of one static width hold at least the minimum tile; the per-step
/// loops then have a constant trip count and vectorize without remainder or
/// alias checks. Tiles of run-time width hold at least the run-time minimum.
static ChannelTiles chooseChannelTiles(OpBuilder &b, Location loc,
                                       ArrayRef<OpFoldResult> batch,
                                       OpFoldResult channels, int64_t block,
                                       const ChannelTiling &tiling) {
  AffineExpr s0, s1;
  bindSymbols(b.getContext(), s0, s1);
  OpFoldResult elements = b.getIndexAttr(1);
  for (OpFoldResult size : batch)
    elements = affine::makeComposedFoldedAffineApply(b, loc, s0 * s1,
                                                     {elements, size});

  std::optional<int64_t> staticElements = getConstantIntValue(elements),
                         staticChannels = getConstantIntValue(channels);
  if (staticElements && staticChannels && *staticChannels > 0) {
    ChannelSplit split =
        splitChannels(*staticElements, *staticChannels, block, tiling);
    return {arith::ConstantIndexOp::create(b, loc, split.count),
            arith::ConstantIndexOp::create(b, loc, split.size),
            split.uniform ? std::optional<int64_t>(split.size) : std::nullopt};
  }

  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value someElements = arith::MaxUIOp::create(
      b, loc, one, getValueOrCreateConstantIndexOp(b, loc, elements));
  Value wanted = arith::CeilDivUIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, tiling.cores),
      someElements);
  Value most = getValueOrCreateConstantIndexOp(
      b, loc,
      affine::makeComposedFoldedAffineApply(
          b, loc, s0.floorDiv(tiling.minRuntimeTile * block), {channels}));
  Value count = arith::MaxUIOp::create(
      b, loc, one, arith::MinUIOp::create(b, loc, wanted, most));
  Value size = arith::MaxUIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, block),
      getValueOrCreateConstantIndexOp(
          b, loc,
          affine::makeComposedFoldedAffineApply(
              b, loc, s0.ceilDiv(s1 * block) * block, {channels, count})));
  count = arith::CeilDivUIOp::create(
      b, loc, getValueOrCreateConstantIndexOp(b, loc, channels), size);
  return {count, size, std::nullopt};
}

/// Splits channels into tiles so that batch x tiles fills `cores`, and runs
/// one sequential scan per (batch element, tile).
static SmallVector<Value> buildChannelTiled(RewriterBase &rewriter, ScanOp op,
                                            const ScanIO &io,
                                            const ChannelTiling &tiling) {
  Location loc = op.getLoc();
  int64_t block = op.getStructure().getKind() == StructureKind::BlockDiagonal
                      ? op.getStructure().getParam()
                      : 1;
  int64_t batchRank = op.getBatchRank();
  SmallVector<OpFoldResult> batch = io.batchSizes(rewriter, loc);
  OpFoldResult channels =
      tensor::getMixedSize(rewriter, loc, op.getShapeSource(), batchRank + 1);
  ChannelTiles tiles =
      chooseChannelTiles(rewriter, loc, batch, channels, block, tiling);
  Value tileSize = tiles.size;
  std::optional<int64_t> uniformSize = tiles.uniform;
  SmallVector<OpFoldResult> space = batch;
  space.push_back(tiles.count);

  return buildParallelLoop(
      rewriter, loc, space, io.resultDestinations(rewriter, loc),
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
        ValueRange batchIvs = ivs.drop_back();
        Value start = arith::MulIOp::create(b, l, ivs.back(), tileSize);
        Value blockStart = arith::DivUIOp::create(
            b, l, start, arith::ConstantIndexOp::create(b, l, block));
        OpFoldResult size, blockCount;
        if (uniformSize) {
          size = b.getIndexAttr(*uniformSize);
          blockCount = b.getIndexAttr(*uniformSize / block);
        } else {
          Value left = arith::SubIOp::create(
              b, l, getValueOrCreateConstantIndexOp(b, l, channels), start);
          Value dynamicSize = arith::MinUIOp::create(b, l, left, tileSize);
          size = dynamicSize;
          blockCount = arith::DivUIOp::create(
                           b, l, dynamicSize,
                           arith::ConstantIndexOp::create(b, l, block))
                           .getResult();
        }
        // The scan of this tile, on slices of every input operand (by
        // operand number: one value may serve several roles).
        unsigned inputs = op->getNumOperands() - op.getDestinations().size();
        SmallVector<Value> sliced(inputs);
        for (OpOperand &operand : op->getOpOperands()) {
          unsigned number = operand.getOperandNumber();
          if (number >= inputs)
            continue;
          int64_t dim = channelDimOf(op, operand);
          bool inBlocks = block > 1 && number < op.getTransition().size();
          auto [offsets, sizes] = tileBox(b, l, operand.get(), batchIvs, dim,
                                          inBlocks ? blockStart : start,
                                          inBlocks ? blockCount : size);
          sliced[number] = extractBox(b, l, operand.get(), offsets, sizes);
        }
        // Segments: transition, input, key, value, init, readout.
        auto segment = [&](unsigned index) -> ValueRange {
          auto [first, count] = op.getODSOperandIndexAndLength(index);
          return ValueRange(sliced).slice(first, count);
        };
        auto single = [&](unsigned index) -> Value {
          ValueRange values = segment(index);
          return values.empty() ? Value() : values.front();
        };
        SmallVector<Value> transition(segment(0));
        SmallVector<
            std::pair<SmallVector<OpFoldResult>, SmallVector<OpFoldResult>>>
            boxes;
        SmallVector<Type> resultTypes;
        SmallVector<Value> destinations;
        for (auto [index, result] : llvm::enumerate(op->getResults())) {
          bool last = result == op.getFinalState();
          int64_t dim = last ? batchRank + (op.getStructure().getKind() ==
                                                    StructureKind::HigherOrder
                                                ? 1
                                                : 0)
                             : batchRank + 1;
          boxes.push_back(
              tileBox(b, l, shared[index], batchIvs, dim, start, size));
          resultTypes.push_back(tensor::ExtractSliceOp::inferResultType(
              cast<RankedTensorType>(result.getType()), boxes.back().second));
          destinations.push_back(extractBox(
              b, l, shared[index], boxes.back().first, boxes.back().second));
        }
        auto tile = ScanOp::create(
            b, l, resultTypes[0], op.getFinalState() ? resultTypes[1] : Type(),
            op.getStructureAttr(), op.getScheduleAttr(), op.getMatrix(),
            op.getReverse(), transition, single(1), single(2), single(3),
            single(4), single(5), ValueRange());
        ScanIO tileIO(b, tile);
        IRRewriter tileRewriter(b);
        SmallVector<Value> results =
            buildSequential(tileRewriter, tile, tileIO, destinations);
        tile->erase();
        SmallVector<ParallelWrite> writes;
        for (auto [index, value] : llvm::enumerate(results))
          writes.push_back(ParallelWrite::box(value, index, boxes[index].first,
                                              boxes[index].second));
        return writes;
      });
}

FailureOr<SmallVector<Value>>
mlir::recurrence::lowerScanToSequential(RewriterBase &rewriter, ScanOp op,
                                        const ChannelTiling &tiling) {
  ChannelTiling checked = tiling;
  checked.minTile = std::max<int64_t>(1, tiling.minTile);
  checked.minRuntimeTile = std::max<int64_t>(1, tiling.minRuntimeTile);
  bool tiled = checked.cores > 1 && op.hasIndependentChannels();
  return lowerScanWith(rewriter, op, [&](const ScanIO &io) {
    return tiled
               ? buildChannelTiled(rewriter, op, io, checked)
               : buildSequential(rewriter, op, io,
                                 io.resultDestinations(rewriter, op.getLoc()));
  });
}

namespace {
/// Rewrites a sequential recurrence.scan into scf.forall over the batch dims
/// (and channel tiles) around an scf.for over time.
struct LowerSequentialScan : OpRewritePattern<ScanOp> {
  LowerSequentialScan(MLIRContext *context, const ChannelTiling &tiling)
      : OpRewritePattern(context), tiling(tiling) {}

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getScheduleOrAuto().getKind() != ScheduleKind::Sequential)
      return rewriter.notifyMatchFailure(op, "not a sequential schedule");
    return lowerScanToSequential(rewriter, op, tiling);
  }

  ChannelTiling tiling;
};

struct LowerSequentialPass
    : recurrence::impl::LowerSequentialPassBase<LowerSequentialPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    int64_t planned = cores > 0
                          ? static_cast<int64_t>(cores)
                          : targetCores(getOperation(), "CPU").value_or(1);
    populateLowerSequentialPatterns(
        patterns,
        ChannelTiling{planned, minChannelTile, minRuntimeChannelTile});
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerSequentialPatterns(
    RewritePatternSet &patterns, const ChannelTiling &tiling) {
  patterns.add<LowerSequentialScan>(patterns.getContext(), tiling);
}
