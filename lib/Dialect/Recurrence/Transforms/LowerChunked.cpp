//===- LowerChunked.cpp - Chunked schedule --------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lowers chunked recurrence.scan ops in three phases: local end states and
// transition products per chunk (parallel), a carry across chunks
// (sequential in chunks), and the outputs per chunk from the carried start
// states (parallel).
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_LOWERCHUNKEDPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// The chunking of [0, T) into K chunks of C steps (the last one shorter).
struct Chunking {
  Value size, count; // C and K

  Chunking(OpBuilder &b, Location loc, Value steps, int64_t chunkSize) {
    size = arith::ConstantIndexOp::create(b, loc, chunkSize);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value sizeMinusOne = arith::SubIOp::create(b, loc, size, one);
    count = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, steps, sizeMinusOne), size);
  }

  /// The first logical step of chunk `c` and its number of steps.
  std::pair<Value, Value> bounds(OpBuilder &b, Location loc, Value c,
                                 Value steps) const {
    Value start = arith::MulIOp::create(b, loc, c, size);
    Value left = arith::SubIOp::create(b, loc, steps, start);
    return {start, arith::MinUIOp::create(b, loc, left, size)};
  }
};

/// The independent sequences the phases run over, lanes: one per batch
/// element, or with tiled channels one per batch element and channel block.
/// A lane reads its steps through a ScanIO: the op's own, or that of the
/// op's tile for the lane (made through its TilingInterface where a phase
/// needs it, and erased once the phases are built).
class Lanes {
public:
  Lanes(RewriterBase &rewriter, ScanOp op, const ScanIO &io, bool tiled)
      : rewriter(rewriter), op(op), io(io), tiled(tiled) {
    Location loc = op.getLoc();
    sizes = io.batchSizes(rewriter, loc);
    if (!tiled)
      return;
    SmallVector<Range> domain = op.getIterationDomain(rewriter);
    sizes.push_back(domain[op.getBatchRank()].size);
    if (op.getMatrix())
      columns = domain.back().size;
  }

  /// The lane space: batch sizes, then the channel blocks.
  ArrayRef<OpFoldResult> getSizes() const { return sizes; }

  /// A phase's loop space over lanes and `count` chunks: the chunks after
  /// the batch dims, the blocks last, so that neighbouring iterations read
  /// neighbouring channels.
  SmallVector<OpFoldResult> withChunks(Value count) const {
    SmallVector<OpFoldResult> space(sizes);
    space.insert(space.begin() + io.getBatchRank(), count);
    return space;
  }
  /// The lane and chunk of an iteration of a `withChunks` space.
  std::pair<SmallVector<Value>, Value> splitChunk(ValueRange ivs) const {
    SmallVector<Value> lane(ivs);
    Value chunk = lane[io.getBatchRank()];
    lane.erase(lane.begin() + io.getBatchRank());
    return {lane, chunk};
  }

  /// The steps of one lane: the ScanIO and the batch indices to read it at.
  struct Lane {
    ScanIO io;
    SmallVector<Value> batch;
  };
  Lane at(OpBuilder &b, Location loc, ValueRange lane) {
    if (!tiled)
      return {io, SmallVector<Value>(lane)};
    auto [offsets, tileSizes] = tileOf(b, lane);
    FailureOr<TilingResult> tile =
        op.getTiledImplementation(b, offsets, tileSizes);
    // The tiling of an independent-channel scan does not fail (the
    // sequential lowering relies on it too).
    auto tiledOp = cast<ScanOp>(tile->tiledOps.front());
    made.push_back(tiledOp);
    llvm::append_range(slices, tile->generatedSlices);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    return {ScanIO(b, tiledOp), SmallVector<Value>(io.getBatchRank(), zero)};
  }

  /// The write of a lane's `value` into the loop output that holds result
  /// `result` (at the same index): the lane's part of it, or with `offset`
  /// its rows [offset, offset + count) of the output.
  ParallelWrite write(OpBuilder &b, Value value, unsigned result,
                      ValueRange lane, OpFoldResult offset = {},
                      OpFoldResult count = {}) {
    if (!tiled)
      return offset ? ParallelWrite::rows(value, result, lane, offset, count)
                    : ParallelWrite::row(value, result, lane);
    auto [resultOffsets, resultSizes] = boxOf(b, result, lane, offset, count);
    return ParallelWrite::box(value, result, resultOffsets, resultSizes,
                              io.getBatchRank());
  }

  /// A lane's rows [offset, offset + count) of the output `dest`.
  Value extractRows(OpBuilder &b, Location loc, Value dest, ValueRange lane,
                    OpFoldResult offset, OpFoldResult count) {
    if (!tiled)
      return recurrence::extractRows(b, loc, dest, lane, offset, count);
    auto [resultOffsets, resultSizes] = boxOf(b, 0, lane, offset, count);
    return extractBox(b, loc, dest, resultOffsets, resultSizes,
                      io.getBatchRank());
  }

  /// Erases the tiles made for reading, and the slices of their operands
  /// that the phases did not read.
  void eraseTiles() {
    for (ScanOp tile : made)
      rewriter.eraseOp(tile);
    for (Operation *slice : llvm::reverse(slices))
      if (slice->use_empty())
        rewriter.eraseOp(slice);
    made.clear();
    slices.clear();
  }

private:
  using Sizes = SmallVector<OpFoldResult>;
  std::pair<Sizes, Sizes> tileOf(OpBuilder &b, ValueRange lane) const {
    Sizes offsets(lane.begin(), lane.end());
    Sizes tileSizes(lane.size(), b.getIndexAttr(1));
    if (columns) {
      offsets.push_back(b.getIndexAttr(0));
      tileSizes.push_back(columns);
    }
    return {offsets, tileSizes};
  }
  /// The lane's box of result `result`; with `offset`, only its time rows
  /// [offset, offset + count).
  std::pair<Sizes, Sizes> boxOf(OpBuilder &b, unsigned result, ValueRange lane,
                                OpFoldResult offset, OpFoldResult count) {
    auto [offsets, tileSizes] = tileOf(b, lane);
    Sizes resultOffsets, resultSizes;
    (void)op.getResultTilePosition(b, result, offsets, tileSizes, resultOffsets,
                                   resultSizes);
    if (offset) {
      int64_t batchRank = io.getBatchRank();
      resultOffsets[batchRank] = offset;
      resultSizes[batchRank] = count;
    }
    return {resultOffsets, resultSizes};
  }

  RewriterBase &rewriter;
  ScanOp op;
  const ScanIO &io;
  bool tiled;
  SmallVector<OpFoldResult> sizes;
  OpFoldResult columns;
  SmallVector<ScanOp> made;
  SmallVector<Operation *> slices;
};

/// Sizes of a per-chunk buffer: lanes, K, then `inner`.
SmallVector<OpFoldResult> perChunk(ArrayRef<OpFoldResult> lanes, Value count,
                                   ArrayRef<OpFoldResult> inner) {
  SmallVector<OpFoldResult> sizes(lanes);
  sizes.push_back(count);
  llvm::append_range(sizes, inner);
  return sizes;
}

} // namespace

/// Marks a phase's loop over the steps of one chunk, whose trip count is
/// at most `chunkSize`: the GPU pipeline keeps fewer of its steps' loads in
/// flight per thread than in a sequential thread's loop over all steps
/// (recurrence-gpu-loads-in-flight), since such kernels have many threads.
static void markChunkLoop(scf::ForOp loop, int64_t chunkSize) {
  loop->setAttr(kChunkStepsAttrName,
                IntegerAttr::get(IndexType::get(loop.getContext()), chunkSize));
}

/// A zero state in a buffer of the lane's own, where its size is static: a
/// GPU thread then accumulates its chunk's local state in registers (once
/// the buffer is promoted to the stack) and writes it out once, instead of
/// reading and writing the shared result in memory at every step (which
/// empty-tensor elimination would make of a tensor.empty).
static Value privateZeroState(OpBuilder &b, Location loc, const ScanIO &io) {
  std::optional<SmallVector<int64_t>> shape =
      getConstantIntValues(io.stateSizes(b, loc));
  Type elementType = io.getOp().getStateType();
  // Only what promotion to the stack takes (upstream's default limit, which
  // the GPU pipeline keeps): a larger buffer would be a device-heap
  // allocation in every thread.
  constexpr int64_t kStackBytes = 1024;
  if (!shape || ShapedType::getNumElements(*shape) *
                        elementType.getIntOrFloatBitWidth() / 8 >
                    kStackBytes)
    return io.zeroState(b, loc);
  Value buffer = bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get(*shape, elementType), ValueRange());
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return linalg::FillOp::create(b, loc, zero, buffer).getResult(0);
}

FailureOr<SmallVector<Value>>
mlir::recurrence::lowerScanToChunks(RewriterBase &rewriter, ScanOp op,
                                    int64_t chunkSize, bool tileChannels) {
  if (chunkSize < 1)
    return rewriter.notifyMatchFailure(op, "the chunk size must be positive");
  bool tiled = tileChannels && op.hasIndependentChannels();
  return lowerScanWith(rewriter, op, [&](const ScanIO &io) {
    Location loc = op.getLoc();
    Value steps = io.getSteps();
    Chunking chunks(rewriter, loc, steps, chunkSize);
    Type elementType = op.getStateType();
    Lanes lanes(rewriter, op, io, tiled);
    // The sizes of one lane's state and composite.
    Lanes::Lane first = lanes.at(
        rewriter, loc,
        SmallVector<Value>(lanes.getSizes().size(),
                           arith::ConstantIndexOp::create(rewriter, loc, 0)));
    SmallVector<OpFoldResult> stateSizes = first.io.stateSizes(rewriter, loc);
    SmallVector<OpFoldResult> composite =
        first.io.compositeSizes(rewriter, loc);
    bool hasProducts = !composite.empty();
    SmallVector<OpFoldResult> chunkSpace = lanes.withChunks(chunks.count);

    // Phase 1: per chunk, the local end state e_c and the product P_c.
    SmallVector<Value> phase1Outs = {tensor::EmptyOp::create(
        rewriter, loc, perChunk(lanes.getSizes(), chunks.count, stateSizes),
        elementType)};
    if (hasProducts)
      phase1Outs.push_back(tensor::EmptyOp::create(
          rewriter, loc, perChunk(lanes.getSizes(), chunks.count, composite),
          elementType));
    SmallVector<Value> local = buildParallelLoop(
        rewriter, loc, chunkSpace, phase1Outs,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          auto [laneIvs, c] = lanes.splitChunk(ivs);
          Lanes::Lane lane = lanes.at(b, l, laneIvs);
          const ScanIO &in = lane.io;
          ValueRange batchIvs = lane.batch;
          auto [start, length] = chunks.bounds(b, l, c, steps);
          Value t0 = in.timeOf(b, l, start);
          Value end = arith::AddIOp::create(b, l, start, length);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value start0 =
              tiled ? privateZeroState(b, l, in) : in.zeroState(b, l);
          Value first = in.step(b, l, batchIvs, t0, start0).first;
          Composite product =
              stepComposite(b, l, in.transitionAt(b, l, batchIvs, t0));
          SmallVector<Value> init = {first};
          if (hasProducts)
            init.push_back(product.value);
          auto loop = scf::ForOp::create(
              b, l, arith::AddIOp::create(b, l, start, one), end, one, init,
              [&](OpBuilder &nb, Location nl, Value tau, ValueRange args) {
                Value t = in.timeOf(nb, nl, tau);
                // Elementwise steps update the state in place; others build
                // it anew and copy it over the carried one, which so stays
                // one buffer (no allocation per step, none in a kernel).
                Value stepped = in.step(nb, nl, batchIvs, t, args[0]).first;
                if (!op.getStructure().hasApplyAndCopy())
                  stepped = copyIntoRow(nb, nl, stepped, args[0], {});
                SmallVector<Value> next = {stepped};
                if (hasProducts) {
                  Composite step = stepComposite(
                      nb, nl, in.transitionAt(nb, nl, batchIvs, t));
                  next.push_back(
                      compose(nb, nl, step,
                              compositeOf(op.getStructure(), args[1]),
                              /*inPlace=*/true)
                          .value);
                }
                scf::YieldOp::create(nb, nl, next);
              });
          markChunkLoop(loop, chunkSize);
          SmallVector<Value> at = appendIndex(laneIvs, c);
          SmallVector<ParallelWrite> writes = {
              ParallelWrite::row(loop.getResult(0), 0, at)};
          if (hasProducts)
            writes.push_back(ParallelWrite::row(loop.getResult(1), 1, at));
          return writes;
        });

    // Phase 2: carry H_c = P_c H_{c-1} + e_c across chunks, per lane,
    // recording every chunk's start state.
    SmallVector<Value> phase2Outs = {tensor::EmptyOp::create(
        rewriter, loc, perChunk(lanes.getSizes(), chunks.count, stateSizes),
        elementType)};
    if (op.getFinalState())
      phase2Outs.push_back(io.resultDestinations(rewriter, loc)[1]);
    SmallVector<Value> carried = buildParallelLoop(
        rewriter, loc, lanes.getSizes(), phase2Outs,
        [&](OpBuilder &b, Location l, ValueRange laneIvs, ValueRange shared) {
          Lanes::Lane lane = lanes.at(b, l, laneIvs);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value starts = extractRow(b, l, shared[0], laneIvs);
          auto loop = scf::ForOp::create(
              b, l, zero, chunks.count, one,
              ValueRange{lane.io.initialState(b, l, lane.batch), starts},
              [&](OpBuilder &nb, Location nl, Value c, ValueRange args) {
                SmallVector<Value> at = appendIndex(laneIvs, c);
                Value recorded = insertRow(nb, nl, args[0], args[1], c);
                Composite product = compositeOf(
                    op.getStructure(),
                    hasProducts ? extractRow(nb, nl, local[1], at) : Value());
                // P_c H_{c-1} + e_c in a temporary of the iteration, then
                // copied over H_{c-1}: the carried state keeps one buffer
                // (no allocation per chunk, none in a GPU kernel).
                Value end = extractRow(nb, nl, local[0], at);
                Value sum = applyComposite(
                    nb, nl, product, args[0],
                    linalg::CopyOp::create(nb, nl, end, emptyLike(nb, nl, end))
                        .getResult(0));
                Value next = copyIntoRow(nb, nl, sum, args[0], {});
                scf::YieldOp::create(nb, nl, ValueRange{next, recorded});
              });
          SmallVector<ParallelWrite> writes = {
              ParallelWrite::row(loop.getResult(1), 0, laneIvs)};
          if (op.getFinalState())
            writes.push_back(
                lanes.write(b, lane.io.toResultLayout(b, l, loop.getResult(0)),
                            1, laneIvs));
          return writes;
        });

    // Phase 3: per chunk, rerun the steps from the true start state and
    // write the outputs.
    SmallVector<Value> output = buildParallelLoop(
        rewriter, loc, chunkSpace, {io.resultDestinations(rewriter, loc)[0]},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
          auto [laneIvs, c] = lanes.splitChunk(ivs);
          Lanes::Lane lane = lanes.at(b, l, laneIvs);
          const ScanIO &in = lane.io;
          ValueRange batchIvs = lane.batch;
          auto [start, length] = chunks.bounds(b, l, c, steps);
          // Physical rows of the chunk: [start, start + length), mirrored
          // when reversed.
          Value rowOffset = start;
          if (op.getReverse())
            rowOffset = arith::SubIOp::create(
                b, l, steps, arith::AddIOp::create(b, l, start, length));
          Value block =
              lanes.extractRows(b, l, shared[0], laneIvs, rowOffset, length);
          Value state = extractRow(b, l, carried[0], appendIndex(laneIvs, c));
          Value end = arith::AddIOp::create(b, l, start, length);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          auto loop = scf::ForOp::create(
              b, l, start, end, one, ValueRange{state, block},
              [&](OpBuilder &nb, Location nl, Value tau, ValueRange args) {
                Value t = in.timeOf(nb, nl, tau);
                Value row = arith::SubIOp::create(nb, nl, t, rowOffset);
                auto [next, out] =
                    in.stepAndWrite(nb, nl, batchIvs, t, args[0], args[1], row);
                scf::YieldOp::create(nb, nl, ValueRange{next, out});
              });
          markChunkLoop(loop, chunkSize);
          return SmallVector<ParallelWrite>{
              lanes.write(b, loop.getResult(1), 0, laneIvs, rowOffset, length)};
        });

    lanes.eraseTiles();
    SmallVector<Value> results = {output[0]};
    if (op.getFinalState())
      results.push_back(carried[1]);
    return results;
  });
}

namespace {
/// Rewrites a chunked recurrence.scan with the three phases.
struct LowerChunkedScan : OpRewritePattern<ScanOp> {
  LowerChunkedScan(MLIRContext *context, bool tileChannels)
      : OpRewritePattern(context), tileChannels(tileChannels) {}

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScheduleAttr schedule = op.getScheduleOrAuto();
    if (schedule.getKind() != ScheduleKind::Chunked)
      return rewriter.notifyMatchFailure(op, "not a chunked schedule");
    return lowerScanToChunks(rewriter, op, schedule.getChunkSize(),
                             tileChannels);
  }

  bool tileChannels;
};

struct LowerChunkedPass
    : recurrence::impl::LowerChunkedPassBase<LowerChunkedPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerChunkedPatterns(patterns, tileChannels);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerChunkedPatterns(RewritePatternSet &patterns,
                                                    bool tileChannels) {
  patterns.add<LowerChunkedScan>(patterns.getContext(), tileChannels);
}
