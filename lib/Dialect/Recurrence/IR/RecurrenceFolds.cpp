//===- RecurrenceFolds.cpp - Canonicalization of recurrence ops -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// Rewrites transitions that are the constant identity into `identity`.
struct ConstantIdentityTransition : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getTransition().empty() ||
        !op.getStructure().isIdentity(op.getTransition()))
      return rewriter.notifyMatchFailure(op, "transition is not constant I");
    rewriter.modifyOpInPlace(op, [&] {
      op.setStructureAttr(IdentityAttr::get(getContext()));
      op.getTransitionMutable().clear();
    });
    return success();
  }
};

/// Replaces a one-step scan without init, readout or final state by its
/// input: h_1 = A_1 h_0 + b_1 = b_1.
struct SingleStepIsInput : OpRewritePattern<ScanOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getInput() || op.getInit() || op.getReadout() || op.getFinalState())
      return rewriter.notifyMatchFailure(op, "not a plain states scan");
    auto type = cast<RankedTensorType>(op.getInput().getType());
    if (type.getDimSize(op.getBatchRank()) != 1)
      return rewriter.notifyMatchFailure(op, "T is not statically 1");
    if (type != op.getOutput().getType())
      return rewriter.notifyMatchFailure(op, "output type differs");
    rewriter.replaceOp(op, op.getInput());
    return success();
  }
};
} // namespace

void ScanOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<ConstantIdentityTransition, SingleStepIsInput>(context);
}
