//===- LowerScan.cpp - Blelloch scan schedule -----------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lowers scan-scheduled recurrence.scan ops into a work-efficient inclusive
// scan (up-sweep then down-sweep) over the pairs (A_t, b_t).
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_LOWERSCANPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

/// The levels of each sweep, ceil(log2 T): a constant for a static T, else
/// 64 - ctlz(T - 1) (0 when T <= 1).
static Value levelCount(OpBuilder &b, Location loc, Value steps) {
  if (std::optional<int64_t> t = getConstantIntValue(steps))
    return arith::ConstantIndexOp::create(
        b, loc, *t <= 1 ? 0 : llvm::Log2_64_Ceil(static_cast<uint64_t>(*t)));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), arith::SubIOp::create(b, loc, steps, one));
  Value zeros = math::CountLeadingZerosOp::create(b, loc, last);
  Value bits = arith::SubIOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, b.getI64Type(), 64), zeros);
  Value levels = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), bits);
  Value trivial =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, steps, one);
  return arith::SelectOp::create(b, loc, trivial, zero, levels);
}

namespace {
/// The scanned pairs: products P (absent for identity) and states b.
struct Pairs {
  Value states, products;
};

/// The steps of the Blelloch scan, on the pairs of one op.
struct BlellochScan {
  /// b_1 := A_1 h_0 + b_1, so that the scan starts from h_0 (when T > 0).
  static Value foldInit(OpBuilder &b, Location loc, const ScanIO &io,
                        ArrayRef<OpFoldResult> batch, Value states) {
    SmallVector<OpFoldResult> space(batch);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    space.push_back(
        arith::MinUIOp::create(b, loc, io.getSteps(), one).getResult());
    return buildParallelLoop(
        b, loc, space, {states},
        [&](OpBuilder &nb, Location l, ValueRange ivs, ValueRange shared) {
          ValueRange batchIvs = ivs.drop_back();
          Value zero = arith::ConstantIndexOp::create(nb, l, 0);
          Value t = io.timeOf(nb, l, zero);
          Value first =
              io.step(nb, l, batchIvs, t, io.initialState(nb, l, batchIvs))
                  .first;
          return SmallVector<ParallelWrite>{
              ParallelWrite::row(first, 0, appendIndex(batchIvs, zero))};
        })[0];
  }

  /// The final state: the last scanned state (init when T = 0).
  static Value finalState(OpBuilder &b, Location loc, const ScanIO &io,
                          ArrayRef<OpFoldResult> batch, Value states,
                          Value empty) {
    return buildParallelLoop(
        b, loc, batch, {empty},
        [&](OpBuilder &nb, Location l, ValueRange batchIvs, ValueRange) {
          Value zero = arith::ConstantIndexOp::create(nb, l, 0);
          Value one = arith::ConstantIndexOp::create(nb, l, 1);
          Value none = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq,
                                             io.getSteps(), zero);
          auto choice = scf::IfOp::create(
              nb, l, none,
              [&](OpBuilder &ib, Location il) {
                scf::YieldOp::create(ib, il, io.initialState(ib, il, batchIvs));
              },
              [&](OpBuilder &ib, Location il) {
                Value last = arith::SubIOp::create(ib, il, io.getSteps(), one);
                scf::YieldOp::create(
                    ib, il,
                    extractRow(ib, il, states, appendIndex(batchIvs, last)));
              });
          return SmallVector<ParallelWrite>{
              ParallelWrite::row(io.toResultLayout(nb, l, choice.getResult(0)),
                                 0, SmallVector<Value>(batchIvs))};
        })[0];
  }

  /// One sweep over ceil(log2 T) levels. Level s combines pair j with pair j -
  /// s, (P_j, b_j) := (P_j P_{j-s}, P_j b_{j-s} + b_j), for
  ///   up:   j = 2s k + 2s - 1 < T  (s = 1, 2, 4, ...)
  ///   down: j = 2s k + 3s - 1 < T  (s = ..., 4, 2, 1)
  static Pairs sweep(OpBuilder &b, Location loc, const ScanIO &io,
                     ArrayRef<OpFoldResult> space, Pairs pairs, bool up) {
    RecurrenceStructureInterface structure = io.getStructure();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value levels = levelCount(b, loc, io.getSteps());
    SmallVector<Value> init = {pairs.states};
    if (pairs.products)
      init.push_back(pairs.products);
    auto loop = scf::ForOp::create(
        b, loc, zero, levels, one, init,
        [&](OpBuilder &nb, Location l, Value level, ValueRange args) {
          Value exponent =
              up ? level
                 : arith::SubIOp::create(
                       nb, l, arith::SubIOp::create(nb, l, levels, one), level);
          Value s = arith::ShLIOp::create(nb, l, one, exponent);
          Value twoS = arith::AddIOp::create(nb, l, s, s);
          Value firstJ = arith::SubIOp::create(
              nb, l, up ? twoS : arith::AddIOp::create(nb, l, twoS, s), one);
          // count = j0 < T ? (T - 1 - j0) / 2s + 1 : 0
          Value steps = io.getSteps();
          Value fits = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult,
                                             firstJ, steps);
          Value room = arith::SubIOp::create(
              nb, l, arith::SubIOp::create(nb, l, steps, one), firstJ);
          Value count = arith::SelectOp::create(
              nb, l, fits,
              arith::AddIOp::create(
                  nb, l, arith::DivUIOp::create(nb, l, room, twoS), one),
              zero);
          SmallVector<OpFoldResult> combines(space.drop_back());
          combines.push_back(count);
          SmallVector<Value> next = buildParallelLoop(
              nb, l, combines, args,
              [&](OpBuilder &pb, Location pl, ValueRange ivs,
                  ValueRange shared) {
                ValueRange batchIvs = ivs.drop_back();
                Value j = arith::AddIOp::create(
                    pb, pl, arith::MulIOp::create(pb, pl, ivs.back(), twoS),
                    firstJ);
                Value i = arith::SubIOp::create(pb, pl, j, s);
                SmallVector<Value> atJ = appendIndex(batchIvs, j);
                SmallVector<Value> atI = appendIndex(batchIvs, i);
                bool products = shared.size() > 1;
                Composite later = compositeOf(
                    structure,
                    products ? extractRow(pb, pl, shared[1], atJ) : Value());
                Composite earlier = compositeOf(
                    structure,
                    products ? extractRow(pb, pl, shared[1], atI) : Value());
                Value state = applyComposite(
                    pb, pl, later, extractRow(pb, pl, shared[0], atI),
                    extractRow(pb, pl, shared[0], atJ));
                SmallVector<ParallelWrite> writes = {
                    ParallelWrite::row(state, 0, atJ)};
                if (shared.size() > 1)
                  writes.push_back(ParallelWrite::row(
                      compose(pb, pl, later, earlier).value, 1, atJ));
                return writes;
              });
          scf::YieldOp::create(nb, l, next);
        });
    return {loop.getResult(0), pairs.products ? loop.getResult(1) : Value()};
  }
};
} // namespace

/// Whether the op's structure accepts the scan schedule at its state size;
/// emits why not through `emitError` when given.
static LogicalResult
checkScanSchedule(ScanOp op, function_ref<InFlightDiagnostic()> emitError) {
  std::optional<ScanDims> dims = ScanDims::fromOp(op);
  int64_t size = dims ? dims->size : ShapedType::kDynamic;
  return op.getStructure().checkSchedule(ScheduleKind::Scan, size, emitError);
}

FailureOr<SmallVector<Value>>
mlir::recurrence::lowerScanToBlellochScan(RewriterBase &rewriter, ScanOp op) {
  if (failed(checkScanSchedule(op, [] { return InFlightDiagnostic(); })))
    return rewriter.notifyMatchFailure(
        op, "the structure refuses the scan schedule at this size");
  return lowerScanWith(rewriter, op, [&](const ScanIO &io) {
    Location loc = op.getLoc();
    Value steps = io.getSteps();
    Type elementType = op.getStateType();
    Composite::Form form = op.getStructure().getCompositeForm();
    SmallVector<OpFoldResult> batch = io.batchSizes(rewriter, loc);
    SmallVector<OpFoldResult> space = batch;
    space.push_back(steps);
    auto perStep = [&](ArrayRef<OpFoldResult> inner) -> Value {
      SmallVector<OpFoldResult> sizes = space;
      llvm::append_range(sizes, inner);
      return tensor::EmptyOp::create(rewriter, loc, sizes, elementType);
    };
    bool hasProducts = form != Composite::Form::Identity;

    // The pairs in logical order, with h_0 folded into the first one.
    SmallVector<Value> outs = {perStep(io.stateSizes(rewriter, loc))};
    if (hasProducts)
      outs.push_back(perStep(io.compositeSizes(rewriter, loc)));
    SmallVector<Value> pairs = buildParallelLoop(
        rewriter, loc, space, outs,
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
          ValueRange batchIvs = ivs.drop_back();
          Value t = io.timeOf(b, l, ivs.back());
          SmallVector<Value> at(ivs);
          SmallVector<ParallelWrite> writes = {
              ParallelWrite::row(io.inputAsState(b, l, batchIvs, t), 0, at)};
          if (hasProducts)
            writes.push_back(ParallelWrite::row(
                stepComposite(b, l, io.transitionAt(b, l, batchIvs, t)).value,
                1, at));
          return writes;
        });
    Pairs scanned{pairs[0], hasProducts ? pairs[1] : Value()};
    if (op.getInit())
      scanned.states =
          BlellochScan::foldInit(rewriter, loc, io, batch, scanned.states);

    scanned =
        BlellochScan::sweep(rewriter, loc, io, space, scanned, /*up=*/true);
    scanned =
        BlellochScan::sweep(rewriter, loc, io, space, scanned, /*up=*/false);

    // Outputs: every scanned state is h_t.
    ValueRange empty = op.getDestinations();
    SmallVector<Value> output = buildParallelLoop(
        rewriter, loc, space, {empty[0]},
        [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
          ValueRange batchIvs = ivs.drop_back();
          Value t = io.timeOf(b, l, ivs.back());
          Value one = arith::ConstantIndexOp::create(b, l, 1);
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value newest =
              io.newestOf(b, l, extractRow(b, l, scanned.states, ivs));
          Value row = extractRows(b, l, shared[0], batchIvs, t, one);
          row = io.writeRow(b, l, batchIvs, t, newest, row, zero);
          return SmallVector<ParallelWrite>{
              ParallelWrite::rows(row, 0, batchIvs, t, one)};
        });
    SmallVector<Value> results = {output[0]};
    if (op.getFinalState())
      results.push_back(BlellochScan::finalState(rewriter, loc, io, batch,
                                                 scanned.states, empty[1]));
    return results;
  });
}

namespace {
/// Rewrites a scan-scheduled recurrence.scan into a Blelloch scan.
struct LowerBlellochScan : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getScheduleOrAuto().getKind() != ScheduleKind::Scan)
      return rewriter.notifyMatchFailure(op, "not a scan schedule");
    return lowerScanToBlellochScan(rewriter, op);
  }
};

struct LowerScanPass : recurrence::impl::LowerScanPassBase<LowerScanPass> {
  using Base::Base;

  void runOnOperation() override {
    // A structure may refuse the scan, e.g. one densified at a large N.
    WalkResult refused = getOperation()->walk([](ScanOp op) {
      if (op.getScheduleOrAuto().getKind() != ScheduleKind::Scan ||
          succeeded(checkScanSchedule(op, [&] { return op.emitOpError(); })))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (refused.wasInterrupted())
      return signalPassFailure();
    RewritePatternSet patterns(&getContext());
    populateLowerScanPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerScanPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerBlellochScan>(patterns.getContext());
}
