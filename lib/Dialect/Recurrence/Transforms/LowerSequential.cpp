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
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/StructureAlgebra.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_LOWERSEQUENTIALPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// Everything one batch element's time loop needs from the op.
struct SequentialEmitter {
  mutable ScanOp op;
  bool matrix, higherOrder, perElement;
  Value steps; // T as an index

  SequentialEmitter(OpBuilder &b, ScanOp op) : op(op) {
    matrix = op.getMatrix();
    higherOrder = op.getStructure().getKind() == StructureKind::HigherOrder;
    perElement = false;
    if (!op.getTransition().empty()) {
      int64_t rank =
          cast<RankedTensorType>(op.getTransition()[0].getType()).getRank();
      perElement = op.getStructure().getKind() == StructureKind::Diagonal &&
                   matrix && rank == op.getBatchRank() + 3;
    }
    steps = getValueOrCreateConstantIndexOp(
        b, op.getLoc(),
        tensor::getMixedSize(b, op.getLoc(), op.getShapeSource(),
                             op.getBatchRank()));
  }

  /// A state row in canonical form: vector states gain a unit column.
  Value toCanonical(OpBuilder &b, Location loc, Value row) const {
    return matrix ? row : appendUnitDim(b, loc, row);
  }
  Value fromCanonical(OpBuilder &b, Location loc, Value row) const {
    return matrix ? row : dropTrailingUnitDim(b, loc, row);
  }

  /// The initial carried state of one batch element.
  Value initialState(OpBuilder &b, Location loc, ValueRange batch) const {
    if (Value init = op.getInit())
      return toCanonical(b, loc, extractRow(b, loc, init, batch));
    Value source = op.getShapeSource();
    int64_t batchRank = op.getBatchRank();
    SmallVector<OpFoldResult> sizes;
    if (higherOrder)
      sizes.push_back(b.getIndexAttr(op.getStructure().getParam()));
    sizes.push_back(tensor::getMixedSize(b, loc, source, batchRank + 1));
    if (!matrix)
      sizes.push_back(b.getIndexAttr(1));
    else if (op.hasFactoredInput())
      sizes.push_back(
          tensor::getMixedSize(b, loc, op.getInputValue(), batchRank + 1));
    else
      sizes.push_back(tensor::getMixedSize(b, loc, source, batchRank + 2));
    return zeroTensor(b, loc, sizes, op.getElementType());
  }

  /// One step: returns the new carried state and the new output row block.
  std::pair<Value, Value> step(OpBuilder &b, Location loc, ValueRange batch,
                               Value iv, Value state, Value out) const {
    Value t = iv;
    if (op.getReverse()) {
      Value one = arith::ConstantIndexOp::create(b, loc, 1);
      Value last = arith::SubIOp::create(b, loc, steps, one);
      t = arith::SubIOp::create(b, loc, last, iv);
    }
    SmallVector<Value> lead(batch);
    lead.push_back(t);

    StepTransition transition{op.getStructure(), {}, perElement};
    for (Value a : op.getTransition()) {
      if (op.getStructure().getKind() == StructureKind::Scalar)
        transition.operands.push_back(tensor::ExtractOp::create(b, loc, a, lead));
      else
        transition.operands.push_back(extractRow(b, loc, a, lead));
    }
    StepInput input;
    if (op.hasFactoredInput()) {
      input.key = extractRow(b, loc, op.getInputKey(), lead);
      input.value = extractRow(b, loc, op.getInputValue(), lead);
    } else {
      input.full = toCanonical(b, loc, extractRow(b, loc, op.getInput(), lead));
    }

    Value newest = applyTransition(b, loc, transition, state, input);
    Value next = advanceState(b, loc, op.getStructure(), state, newest);

    Value row;
    if (Value readout = op.getReadout()) {
      row = applyReadout(b, loc, extractRow(b, loc, readout, lead), newest);
      if (!matrix) {
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value y = tensor::ExtractOp::create(b, loc, row, zero);
        return {next, tensor::InsertOp::create(b, loc, y, out, t)};
      }
    } else {
      row = fromCanonical(b, loc, newest);
    }
    return {next, insertRow(b, loc, row, out, t)};
  }

  /// Runs the time loop of one batch element on its output block.
  std::pair<Value, Value> timeLoop(OpBuilder &b, Location loc,
                                   ValueRange batch, Value out) const {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value state = initialState(b, loc, batch);
    auto loop = scf::ForOp::create(
        b, loc, zero, steps, one, ValueRange{state, out},
        [&](OpBuilder &nb, Location nl, Value iv, ValueRange args) {
          auto [next, newOut] = step(nb, nl, batch, iv, args[0], args[1]);
          scf::YieldOp::create(nb, nl, ValueRange{next, newOut});
        });
    return {fromCanonical(b, loc, loop.getResult(0)), loop.getResult(1)};
  }
};

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
    SequentialEmitter emitter(rewriter, op);
    int64_t batchRank = op.getBatchRank();

    auto emptyLike = [&](Value result) -> Value {
      auto type = cast<RankedTensorType>(result.getType());
      SmallVector<OpFoldResult> sizes =
          resultSizes(rewriter, loc, op, result == op.getFinalState());
      return tensor::EmptyOp::create(rewriter, loc, sizes,
                                     type.getElementType());
    };
    SmallVector<Value> outs = {emptyLike(op.getOutput())};
    if (op.getFinalState())
      outs.push_back(emptyLike(op.getFinalState()));

    if (batchRank == 0) {
      auto [last, out] = emitter.timeLoop(rewriter, loc, {}, outs[0]);
      SmallVector<Value> results = {out};
      if (op.getFinalState())
        results.push_back(last);
      rewriter.replaceOp(op, results);
      return success();
    }

    SmallVector<OpFoldResult> batchSizes = tensor::getMixedSizes(
        rewriter, loc, op.getShapeSource());
    batchSizes.resize(batchRank);
    auto forall = scf::ForallOp::create(rewriter, loc, batchSizes, outs,
                                        std::nullopt);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(forall.getBody());
      SmallVector<Value> batch = forall.getInductionVars();
      ValueRange shared = forall.getRegionIterArgs();
      Value block = extractRow(rewriter, loc, shared[0], batch);
      auto [last, out] = emitter.timeLoop(rewriter, loc, batch, block);
      Block *combining = forall.getTerminator().getBody();
      parallelInsertRow(rewriter, loc, out, shared[0], batch, combining);
      if (op.getFinalState())
        parallelInsertRow(rewriter, loc, last, shared[1], batch, combining);
    }
    rewriter.replaceOp(op, forall.getResults());
    return success();
  }

  /// The mixed sizes of the output (or of the final state).
  static SmallVector<OpFoldResult> resultSizes(OpBuilder &b, Location loc,
                                               ScanOp op, bool finalState) {
    Value source = op.getShapeSource();
    int64_t batchRank = op.getBatchRank();
    SmallVector<OpFoldResult> all = tensor::getMixedSizes(b, loc, source);
    SmallVector<OpFoldResult> sizes(all.begin(), all.begin() + batchRank);
    OpFoldResult steps = all[batchRank], size = all[batchRank + 1];
    OpFoldResult columns =
        op.hasFactoredInput()
            ? tensor::getMixedSize(b, loc, op.getInputValue(), batchRank + 1)
            : (op.getMatrix() ? all[batchRank + 2] : OpFoldResult());
    if (finalState) {
      if (op.getStructure().getKind() == StructureKind::HigherOrder)
        sizes.push_back(b.getIndexAttr(op.getStructure().getParam()));
    } else {
      sizes.push_back(steps);
    }
    if (finalState || !op.getReadout())
      sizes.push_back(size);
    if (op.getMatrix())
      sizes.push_back(columns);
    return sizes;
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
