//===- LowerSequential.cpp - Sequential schedule --------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lowers recurrence.scan into an scf.forall over batch elements (and tiles
// of independent channels, or, on the GPU, of a matrix state's columns where
// the channels are not independent), each running an scf.for over time
// whose body applies one transition from the structure algebra.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/Target.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
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
  loop->setAttr(kStepsAttrName, b.getUnitAttr());
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

/// The fewest steps a channel tile of run-time width covers, in units of the
/// minimum tile (see chooseChannelTiles).
constexpr int64_t kMinTileSteps = 16;

namespace {
/// The width of a channel tile, in channels (a multiple of the block
/// size): `uniform` when every tile has that one static width, else a value
/// computed at run time (the last tile possibly shorter).
struct ChannelTiles {
  Value size;
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
                                       OpFoldResult channels,
                                       OpFoldResult steps, int64_t block,
                                       const ChannelTiling &tiling) {
  AffineExpr s0, s1;
  bindSymbols(b.getContext(), s0, s1);
  OpFoldResult elements = b.getIndexAttr(1);
  for (OpFoldResult size : batch)
    elements = affine::makeComposedFoldedAffineApply(b, loc, s0 * s1,
                                                     {elements, size});

  if (tiling.fixedTile > 0) {
    int64_t size = tiling.fixedTile * block;
    return {arith::ConstantIndexOp::create(b, loc, size), size};
  }
  std::optional<int64_t> staticElements = getConstantIntValue(elements),
                         staticChannels = getConstantIntValue(channels);
  if (staticElements && staticChannels && *staticChannels > 0) {
    ChannelSplit split =
        splitChannels(*staticElements, *staticChannels, block, tiling);
    return {arith::ConstantIndexOp::create(b, loc, split.size),
            split.uniform ? std::optional<int64_t>(split.size) : std::nullopt};
  }

  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value someElements = arith::MaxUIOp::create(
      b, loc, one, getValueOrCreateConstantIndexOp(b, loc, elements));
  Value wanted = arith::CeilDivUIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, tiling.cores),
      someElements);
  // A tile also holds at least kMinTileSteps steps of the minimum tile's
  // work: a decoding step (T = 1) of a few thousand channels stays on one
  // thread, where forking a team would cost more than the step.
  Value most = getValueOrCreateConstantIndexOp(
      b, loc,
      affine::makeComposedFoldedAffineApply(
          b, loc, s0.floorDiv(tiling.minRuntimeTile * block), {channels}));
  Value work = getValueOrCreateConstantIndexOp(
      b, loc,
      affine::makeComposedFoldedAffineApply(
          b, loc,
          (s0 * s1).floorDiv(tiling.minRuntimeTile * block * kMinTileSteps),
          {channels, steps}));
  most = arith::MinUIOp::create(b, loc, most, work);
  Value count = arith::MaxUIOp::create(
      b, loc, one, arith::MinUIOp::create(b, loc, wanted, most));
  Value size = arith::MaxUIOp::create(
      b, loc, arith::ConstantIndexOp::create(b, loc, block),
      getValueOrCreateConstantIndexOp(
          b, loc,
          affine::makeComposedFoldedAffineApply(
              b, loc, s0.ceilDiv(s1 * block) * block, {channels, count})));
  return {size, std::nullopt};
}

bool mlir::recurrence::threadPerColumn(ScanOp op) { return op.getMatrix(); }

/// Whether tiles hold one column each of a matrix state (see
/// threadPerColumn).
static bool tilesColumns(ScanOp op, const ChannelTiling &tiling) {
  return tiling.fixedTile > 0 && threadPerColumn(op);
}

/// Splits channels into tiles so that batch x tiles fills `cores` (and
/// columns into tiles of one, see tilesColumns): upstream tiling (the op's
/// TilingInterface) makes an scf.forall over the batch and the tiles around
/// a scan of one batch element and one tile, which is then lowered untiled.
/// Returns the values that replace `op`.
static FailureOr<SmallVector<Value>>
buildChannelTiled(RewriterBase &rewriter, ScanOp op,
                  const ChannelTiling &tiling) {
  Location loc = op.getLoc();
  int64_t block = op.getStructure().getChannelGroup();
  int64_t batchRank = op.getBatchRank();

  // Tile sizes in the loops of the iteration domain: one batch element,
  // the tile's blocks of channels (where they are a loop), the columns.
  SmallVector<OpFoldResult> sizes(batchRank, rewriter.getIndexAttr(1));
  if (op.hasIndependentChannels()) {
    MixedScanDims dims(rewriter, op);
    ChannelTiles tiles = chooseChannelTiles(
        rewriter, loc, dims.batch, dims.size, dims.steps, block, tiling);
    if (tiles.uniform)
      sizes.push_back(rewriter.getIndexAttr(*tiles.uniform / block));
    else
      sizes.push_back(affine::makeComposedFoldedAffineApply(
          rewriter, loc, rewriter.getAffineSymbolExpr(0).floorDiv(block),
          {tiles.size}));
  }
  if (op.getMatrix())
    sizes.push_back(rewriter.getIndexAttr(tilesColumns(op, tiling) ? 1 : 0));
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  options.setTileSizes(sizes);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled))
    return failure();
  // The op is in destination style, so the forall's shared outputs are its
  // `outs` and each tile writes into their slices.
  auto tile = cast<ScanOp>(tiled->tiledOps.back());
  if (failed(lowerScanToSequential(rewriter, tile, ChannelTiling{1})))
    return failure();
  return tiled->replacements;
}

FailureOr<SmallVector<Value>>
mlir::recurrence::lowerScanToSequential(RewriterBase &rewriter, ScanOp op,
                                        const ChannelTiling &tiling) {
  ChannelTiling checked = tiling;
  checked.minTile = std::max<int64_t>(1, tiling.minTile);
  checked.minRuntimeTile = std::max<int64_t>(1, tiling.minRuntimeTile);
  bool tiled = ((checked.cores > 1 || checked.fixedTile > 0) &&
                op.hasIndependentChannels()) ||
               tilesColumns(op, checked);
  return lowerScanWith(rewriter, op, [&](const ScanIO &io) {
    if (tiled)
      if (FailureOr<SmallVector<Value>> tiles =
              buildChannelTiled(rewriter, op, checked);
          succeeded(tiles))
        return *tiles;
    return buildSequential(rewriter, op, io, op.getDestinations());
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
        patterns, ChannelTiling{planned, minChannelTile, minRuntimeChannelTile,
                                fixedChannelTile});
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerSequentialPatterns(
    RewritePatternSet &patterns, const ChannelTiling &tiling) {
  patterns.add<LowerSequentialScan>(patterns.getContext(), tiling);
}
