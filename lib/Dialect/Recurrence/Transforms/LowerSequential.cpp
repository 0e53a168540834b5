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
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

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
        auto [next, newest] = io.step(nb, nl, batch, t, args[0]);
        Value out = io.writeRow(nb, nl, batch, t, newest, args[1], t);
        scf::YieldOp::create(nb, nl, ValueRange{next, out});
      });
  return {loop.getResult(0), loop.getResult(1)};
}

namespace {
/// Rewrites a sequential or `auto` recurrence.scan into scf.forall over the
/// batch dims around an scf.for over time.
struct LowerSequentialScan : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScheduleKind schedule = op.getScheduleOrAuto().getKind();
    if (schedule != ScheduleKind::Sequential && schedule != ScheduleKind::Auto)
      return rewriter.notifyMatchFailure(op, "not a sequential schedule");
    Location loc = op.getLoc();
    ScanIO io(rewriter, op);
    if (io.replaceIfEmpty(rewriter))
      return success();
    SmallVector<Value> results = buildParallelLoop(
        rewriter, loc, io.batchSizes(rewriter, loc),
        io.emptyResults(rewriter, loc),
        [&](OpBuilder &b, Location l, ValueRange batch, ValueRange shared) {
          Value block = extractRow(b, l, shared[0], batch);
          auto [last, out] = emitTimeLoop(b, l, io, batch, block);
          SmallVector<ParallelWrite> writes = {{out, 0, batch, {}, {}}};
          if (op.getFinalState())
            writes.push_back({io.toResultLayout(b, l, last), 1, batch, {}, {}});
          return writes;
        });
    io.replaceOp(rewriter, results);
    return success();
  }
};

struct LowerSequentialPass
    : recurrence::impl::LowerSequentialPassBase<LowerSequentialPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerSequentialPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerSequentialPatterns(
    RewritePatternSet &patterns) {
  patterns.add<LowerSequentialScan>(patterns.getContext());
}
