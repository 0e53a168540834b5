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

/// Sizes of a per-chunk buffer: batch, K, then `inner`.
SmallVector<OpFoldResult> perChunk(ArrayRef<OpFoldResult> batch, Value count,
                                   ArrayRef<OpFoldResult> inner) {
  SmallVector<OpFoldResult> sizes(batch);
  sizes.push_back(count);
  llvm::append_range(sizes, inner);
  return sizes;
}

} // namespace

FailureOr<SmallVector<Value>>
mlir::recurrence::lowerScanToChunks(RewriterBase &rewriter, ScanOp op,
                                    int64_t chunkSize) {
  if (chunkSize < 1)
    return rewriter.notifyMatchFailure(op, "the chunk size must be positive");
  return lowerScanWith(rewriter, op, [&](const ScanIO &io) {
    Location loc = op.getLoc();
    Value steps = io.getSteps();
    Chunking chunks(rewriter, loc, steps, chunkSize);
    Type elementType = op.getStateType();
    SmallVector<OpFoldResult> batch = io.batchSizes(rewriter, loc);
    SmallVector<OpFoldResult> composite = io.compositeSizes(rewriter, loc);
    bool hasProducts = !composite.empty();
    SmallVector<OpFoldResult> chunkSpace = batch;
    chunkSpace.push_back(chunks.count);

    // Phase 1: per chunk, the local end state e_c and the product P_c.
    SmallVector<Value> phase1Outs = {tensor::EmptyOp::create(
        rewriter, loc,
        perChunk(batch, chunks.count, io.stateSizes(rewriter, loc)),
        elementType)};
    if (hasProducts)
      phase1Outs.push_back(tensor::EmptyOp::create(
          rewriter, loc, perChunk(batch, chunks.count, composite),
          elementType));
    SmallVector<Value> local = buildParallelLoop(
        rewriter, loc, chunkSpace, phase1Outs,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          ValueRange batchIvs = ivs.drop_back();
          auto [start, length] = chunks.bounds(b, l, ivs.back(), steps);
          Value t0 = io.timeOf(b, l, start);
          Value end = arith::AddIOp::create(b, l, start, length);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value first = io.step(b, l, batchIvs, t0, io.zeroState(b, l)).first;
          Composite product =
              stepComposite(b, l, io.transitionAt(b, l, batchIvs, t0));
          SmallVector<Value> init = {first};
          if (hasProducts)
            init.push_back(product.value);
          auto loop = scf::ForOp::create(
              b, l, arith::AddIOp::create(b, l, start, one), end, one, init,
              [&](OpBuilder &nb, Location nl, Value tau, ValueRange args) {
                Value t = io.timeOf(nb, nl, tau);
                SmallVector<Value> next = {
                    io.step(nb, nl, batchIvs, t, args[0]).first};
                if (hasProducts) {
                  Composite step = stepComposite(
                      nb, nl, io.transitionAt(nb, nl, batchIvs, t));
                  next.push_back(
                      compose(nb, nl, step,
                              compositeOf(op.getStructure(), args[1]),
                              /*inPlace=*/true)
                          .value);
                }
                scf::YieldOp::create(nb, nl, next);
              });
          SmallVector<ParallelWrite> writes = {ParallelWrite::row(
              loop.getResult(0), 0, SmallVector<Value>(ivs))};
          if (hasProducts)
            writes.push_back(ParallelWrite::row(loop.getResult(1), 1,
                                                SmallVector<Value>(ivs)));
          return writes;
        });

    // Phase 2: carry H_c = P_c H_{c-1} + e_c across chunks, per batch
    // element, recording every chunk's start state.
    SmallVector<Value> phase2Outs = {tensor::EmptyOp::create(
        rewriter, loc,
        perChunk(batch, chunks.count, io.stateSizes(rewriter, loc)),
        elementType)};
    if (op.getFinalState())
      phase2Outs.push_back(io.resultDestinations(rewriter, loc)[1]);
    SmallVector<Value> carried = buildParallelLoop(
        rewriter, loc, batch, phase2Outs,
        [&](OpBuilder &b, Location l, ValueRange batchIvs, ValueRange shared) {
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value starts = extractRow(b, l, shared[0], batchIvs);
          auto loop = scf::ForOp::create(
              b, l, zero, chunks.count, one,
              ValueRange{io.initialState(b, l, batchIvs), starts},
              [&](OpBuilder &nb, Location nl, Value c, ValueRange args) {
                SmallVector<Value> at = appendIndex(batchIvs, c);
                Value recorded = insertRow(nb, nl, args[0], args[1], c);
                Composite product = compositeOf(
                    op.getStructure(),
                    hasProducts ? extractRow(nb, nl, local[1], at) : Value());
                Value end = extractRow(nb, nl, local[0], at);
                Value next = applyComposite(nb, nl, product, args[0], end);
                scf::YieldOp::create(nb, nl, ValueRange{next, recorded});
              });
          SmallVector<ParallelWrite> writes = {ParallelWrite::row(
              loop.getResult(1), 0, SmallVector<Value>(batchIvs))};
          if (op.getFinalState())
            writes.push_back(
                ParallelWrite::row(io.toResultLayout(b, l, loop.getResult(0)),
                                   1, SmallVector<Value>(batchIvs)));
          return writes;
        });

    // Phase 3: per chunk, rerun the steps from the true start state and
    // write the outputs.
    SmallVector<Value> output = buildParallelLoop(
        rewriter, loc, chunkSpace, {io.resultDestinations(rewriter, loc)[0]},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
          ValueRange batchIvs = ivs.drop_back();
          auto [start, length] = chunks.bounds(b, l, ivs.back(), steps);
          // Physical rows of the chunk: [start, start + length), mirrored
          // when reversed.
          Value rowOffset = start;
          if (op.getReverse())
            rowOffset = arith::SubIOp::create(
                b, l, steps, arith::AddIOp::create(b, l, start, length));
          Value block =
              extractRows(b, l, shared[0], batchIvs, rowOffset, length);
          Value state = extractRow(b, l, carried[0], ivs);
          Value end = arith::AddIOp::create(b, l, start, length);
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          auto loop = scf::ForOp::create(
              b, l, start, end, one, ValueRange{state, block},
              [&](OpBuilder &nb, Location nl, Value tau, ValueRange args) {
                Value t = io.timeOf(nb, nl, tau);
                Value row = arith::SubIOp::create(nb, nl, t, rowOffset);
                auto [next, out] =
                    io.stepAndWrite(nb, nl, batchIvs, t, args[0], args[1], row);
                scf::YieldOp::create(nb, nl, ValueRange{next, out});
              });
          return SmallVector<ParallelWrite>{ParallelWrite::rows(
              loop.getResult(1), 0, batchIvs, rowOffset, length)};
        });

    SmallVector<Value> results = {output[0]};
    if (op.getFinalState())
      results.push_back(carried[1]);
    return results;
  });
}

namespace {
/// Rewrites a chunked recurrence.scan with the three phases.
struct LowerChunkedScan : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScheduleAttr schedule = op.getScheduleOrAuto();
    if (schedule.getKind() != ScheduleKind::Chunked)
      return rewriter.notifyMatchFailure(op, "not a chunked schedule");
    return lowerScanToChunks(rewriter, op, schedule.getChunkSize());
  }
};

struct LowerChunkedPass
    : recurrence::impl::LowerChunkedPassBase<LowerChunkedPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerChunkedPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerChunkedPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerChunkedScan>(patterns.getContext());
}
