//===- UnrollReductions.cpp - Short reductions written out as sums --------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A linalg.generic that reduces over a short static loop (a step's m x m
// block product) lowers to loops that load and store its result element at
// every term. Unless LLVM proves that the result does not alias the
// operands, the sum then goes through memory. Writing the k terms out in
// the body, in the loop's order, keeps it in registers; the ops keep their
// fastmath flags (a reassoc sum may still be reordered downstream).
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_UNROLLREDUCTIONSPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// `map` over the loops without `loop`, which is replaced by `term`.
AffineMap withoutLoop(AffineMap map, unsigned loop, int64_t term) {
  MLIRContext *context = map.getContext();
  SmallVector<AffineExpr> dims;
  for (unsigned d : llvm::seq(map.getNumDims()))
    dims.push_back(d < loop   ? getAffineDimExpr(d, context)
                   : d > loop ? getAffineDimExpr(d - 1, context)
                              : getAffineConstantExpr(term, context));
  return map.replaceDimsAndSymbols(dims, {}, map.getNumDims() - 1,
                                   map.getNumSymbols());
}

struct UnrollReduction : OpRewritePattern<linalg::GenericOp> {
  UnrollReduction(MLIRContext *context, int64_t maxExtent)
      : OpRewritePattern(context), maxExtent(maxExtent) {}

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.hasIndexSemantics())
      return rewriter.notifyMatchFailure(op, "not on tensors or uses indices");
    // The one reduction loop of more than one iteration.
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    std::optional<unsigned> reduced;
    for (auto [loop, type] : llvm::enumerate(op.getIteratorTypesArray())) {
      if (type != utils::IteratorType::reduction || ranges[loop] == 1)
        continue;
      if (reduced)
        return rewriter.notifyMatchFailure(op, "several reduction loops");
      reduced = loop;
    }
    if (!reduced)
      return rewriter.notifyMatchFailure(op, "no reduction to unroll");
    int64_t extent = ranges[*reduced];
    if (ShapedType::isDynamic(extent) || extent < 2 || extent > maxExtent)
      return rewriter.notifyMatchFailure(
          op, "reduction too short, too long or dynamic");
    // A result indexed by the loop is not reduced over it.
    for (OpOperand &init : op.getDpsInitsMutable())
      if (op.getMatchingIndexingMap(&init).isFunctionOfDim(*reduced))
        return rewriter.notifyMatchFailure(op, "a result indexed by the loop");

    // Operands indexed by the loop are passed once per term, the others once.
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    // firstArg[i]: the new block argument of input i at term 0; perTerm[i]:
    // whether input i has one per term (laid out term after term).
    SmallVector<unsigned> firstArg;
    SmallVector<bool> perTerm;
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      perTerm.push_back(map.isFunctionOfDim(*reduced));
      firstArg.push_back(inputs.size());
      for (int64_t term : llvm::seq<int64_t>(perTerm.back() ? extent : 1)) {
        inputs.push_back(input->get());
        maps.push_back(withoutLoop(map, *reduced, term));
      }
    }
    for (OpOperand &init : op.getDpsInitsMutable())
      maps.push_back(withoutLoop(op.getMatchingIndexingMap(&init), *reduced,
                                 /*term=*/0));
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    iterators.erase(iterators.begin() + *reduced);

    Block &body = op.getRegion().front();
    auto unrolled = linalg::GenericOp::create(
        rewriter, op.getLoc(), op.getResultTypes(), inputs, op.getDpsInits(),
        maps, iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
          ValueRange outs = args.drop_front(inputs.size());
          SmallVector<Value> acc(outs);
          for (int64_t term : llvm::seq(extent)) {
            IRMapping mapping;
            for (auto [i, arg] : llvm::enumerate(
                     body.getArguments().take_front(perTerm.size())))
              mapping.map(arg, args[firstArg[i] + (perTerm[i] ? term : 0)]);
            for (auto [arg, value] :
                 llvm::zip(body.getArguments().drop_front(perTerm.size()), acc))
              mapping.map(arg, value);
            for (Operation &inner : body.without_terminator())
              b.clone(inner, mapping);
            for (auto [i, yielded] :
                 llvm::enumerate(body.getTerminator()->getOperands()))
              acc[i] = mapping.lookupOrDefault(yielded);
          }
          linalg::YieldOp::create(b, loc, acc);
        });
    rewriter.replaceOp(op, unrolled.getResults());
    return success();
  }

  int64_t maxExtent;
};

struct UnrollReductionsPass
    : recurrence::impl::UnrollReductionsPassBase<UnrollReductionsPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<UnrollReduction>(&getContext(), maxExtent);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
