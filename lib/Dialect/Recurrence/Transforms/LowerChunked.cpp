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
// states (parallel). Or, where asked (GPU), in one pass whose chunks look
// back for their start states (LowerChunkedOnePass.cpp).
//
//===----------------------------------------------------------------------===//

#include "ChunkedScan.h"

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_LOWERCHUNKEDPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::chunked;

SmallVector<Value> ChunkedScan::inThreePhases(RewriterBase &rewriter) {
  Location loc = op.getLoc();
  Type elementType = op.getStateType();
  Value count = chunks.count;

  // Phase 1: per chunk, the local end state e_c and the product P_c.
  SmallVector<Value> phase1Outs = {tensor::EmptyOp::create(
      rewriter, loc, perChunk(lanes.getSizes(), count, stateSizes),
      elementType)};
  if (hasProducts)
    phase1Outs.push_back(tensor::EmptyOp::create(
        rewriter, loc, perChunk(lanes.getSizes(), count, composite),
        elementType));
  SmallVector<Value> locals = buildParallelLoop(
      rewriter, loc, chunkSpace, phase1Outs,
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
        auto [laneIvs, c] = lanes.splitChunk(ivs);
        auto [end, product] = local(b, l, lanes.at(b, l, laneIvs), c);
        SmallVector<Value> at = appendIndex(laneIvs, c);
        SmallVector<ParallelWrite> writes = {ParallelWrite::row(end, 0, at)};
        if (product)
          writes.push_back(ParallelWrite::row(product, 1, at));
        return writes;
      });

  // Phase 2: carry H_c = P_c H_{c-1} + e_c across chunks, per lane,
  // recording every chunk's start state.
  SmallVector<Value> phase2Outs = {tensor::EmptyOp::create(
      rewriter, loc, perChunk(lanes.getSizes(), count, stateSizes),
      elementType)};
  if (op.getFinalState())
    phase2Outs.push_back(op.getDestinations()[1]);
  SmallVector<Value> carried = buildParallelLoop(
      rewriter, loc, lanes.getSizes(), phase2Outs,
      [&](OpBuilder &b, Location l, ValueRange laneIvs, ValueRange shared) {
        Lanes::Lane lane = lanes.at(b, l, laneIvs);
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value one = arith::ConstantIndexOp::create(b, l, 1);
        Value starts = extractRow(b, l, shared[0], laneIvs);
        auto loop = scf::ForOp::create(
            b, l, zero, count, one,
            ValueRange{lane.io.initialState(b, l, lane.batch), starts},
            [&](OpBuilder &nb, Location nl, Value c, ValueRange args) {
              SmallVector<Value> at = appendIndex(laneIvs, c);
              Value recorded = insertRow(nb, nl, args[0], args[1], c);
              // P_c H_{c-1} + e_c in a temporary of the iteration, then
              // copied over H_{c-1}: the carried state keeps one buffer
              // (no allocation per chunk, none in a GPU kernel).
              Value sum = carry(nb, nl,
                                hasProducts ? extractRow(nb, nl, locals[1], at)
                                            : Value(),
                                args[0], extractRow(nb, nl, locals[0], at));
              Value next = copyIntoRow(nb, nl, sum, args[0], {});
              scf::YieldOp::create(nb, nl, ValueRange{next, recorded});
            });
        SmallVector<ParallelWrite> writes = {
            ParallelWrite::row(loop.getResult(1), 0, laneIvs)};
        if (op.getFinalState())
          writes.push_back(lanes.write(
              b, lane.io.toResultLayout(b, l, loop.getResult(0)), 1, laneIvs));
        return writes;
      });

  // Phase 3: per chunk, rerun the steps from the true start state and
  // write the outputs.
  SmallVector<Value> output = buildParallelLoop(
      rewriter, loc, chunkSpace, {op.getDestinations()[0]},
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
        auto [laneIvs, c] = lanes.splitChunk(ivs);
        Lanes::Lane lane = lanes.at(b, l, laneIvs);
        Value state = extractRow(b, l, carried[0], appendIndex(laneIvs, c));
        return SmallVector<ParallelWrite>{
            outputs(b, l, lane, laneIvs, c, state, shared[0])};
      });

  SmallVector<Value> results = {output[0]};
  if (op.getFinalState())
    results.push_back(carried[1]);
  return results;
}

FailureOr<SmallVector<Value>>
mlir::recurrence::lowerScanToChunks(RewriterBase &rewriter, ScanOp op,
                                    int64_t chunkSize, bool tileChannels,
                                    bool onePass) {
  if (chunkSize < 1)
    return rewriter.notifyMatchFailure(op, "the chunk size must be positive");
  bool tiled = tileChannels && op.hasIndependentChannels();
  return lowerScanWith(rewriter, op, [&](const ScanIO &io) {
    ChunkedScan scan(rewriter, op, io, chunkSize, tiled);
    SmallVector<Value> results = onePass && scan.fitsOnePass()
                                     ? scan.inOnePass(rewriter)
                                     : scan.inThreePhases(rewriter);
    scan.lanes.eraseTiles();
    return results;
  });
}

namespace {
/// Rewrites a chunked recurrence.scan in three phases, or in one pass.
struct LowerChunkedScan : OpRewritePattern<ScanOp> {
  LowerChunkedScan(MLIRContext *context, bool tileChannels, bool onePass)
      : OpRewritePattern(context), tileChannels(tileChannels),
        onePass(onePass) {}

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScheduleAttr schedule = op.getScheduleOrAuto();
    if (schedule.getKind() != ScheduleKind::Chunked)
      return rewriter.notifyMatchFailure(op, "not a chunked schedule");
    return lowerScanToChunks(rewriter, op, schedule.getChunkSize(),
                             tileChannels, onePass);
  }

  bool tileChannels, onePass;
};

struct LowerChunkedPass
    : recurrence::impl::LowerChunkedPassBase<LowerChunkedPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerChunkedPatterns(patterns, tileChannels, onePass);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerChunkedPatterns(RewritePatternSet &patterns,
                                                    bool tileChannels,
                                                    bool onePass) {
  patterns.add<LowerChunkedScan>(patterns.getContext(), tileChannels, onePass);
}
