//===- FuseStepProducers.cpp - Elementwise producers into the steps -------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A model's gates (exp(delta A), sigmoid, softplus, a normalization) are
// elementwise ops whose results the lowered scan reads a slice at a time:
// a tile in its parallel loop, a step's row in its time loop. Computing each
// slice where it is read, from slices of the producer's operands, means the
// gates never reach memory: a [B, T, N, D] tensor written and read back
// becomes a few registers per step.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_FUSESTEPPRODUCERSPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
/// Whether `slice` reads a static tile that is smaller than `whole`, or
/// may be: `whole` is dynamic. (A tile fused into such a slice is static,
/// so that fusing into its own slices again needs them strictly smaller.)
bool readsAStaticPart(tensor::ExtractSliceOp slice, Value whole) {
  auto wholeType = cast<RankedTensorType>(whole.getType());
  RankedTensorType sliceType = slice.getResultType();
  return sliceType.hasStaticShape() &&
         (!wholeType.hasStaticShape() ||
          sliceType.getNumElements() < wholeType.getNumElements());
}

/// Replaces `extract_slice(producer(x...))` inside a loop, a linalg op, by
/// `producer(extract_slice(x)...)`, when every use of that result is such a
/// slice (so that the whole result dies).
struct FuseElementwiseIntoSlice : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(tensor::ExtractSliceOp slice,
                                PatternRewriter &rewriter) const override {
    auto result = dyn_cast<OpResult>(slice.getSource());
    auto producer =
        result ? dyn_cast<linalg::LinalgOp>(result.getOwner()) : nullptr;
    // Reductions are fine: a slice covers the reduced dims whole (a gate
    // normalized over its last axis).
    if (!producer || !producer.hasPureTensorSemantics() ||
        !isa<TilingInterface>(producer.getOperation()))
      return rewriter.notifyMatchFailure(slice, "not a tileable producer");
    auto loop = slice->getParentOfType<LoopLikeOpInterface>();
    if (!loop)
      return rewriter.notifyMatchFailure(slice, "not read inside a loop");
    // A producer in the same loop (a tile of a parallel loop that a chunk's
    // first step reads before its time loop) is fused only into a static
    // slice smaller than it, so that each rewrite shrinks the work and a
    // slice the size of its producer (a rank-reducing view of a step's
    // tile) is left alone.
    // Every slice of it must be such a part, or the whole stays computed.
    if (loop->isAncestor(producer) &&
        !llvm::all_of(result.getUsers(), [&](Operation *user) {
          auto other = dyn_cast<tensor::ExtractSliceOp>(user);
          return !other || readsAStaticPart(other, result);
        }))
      return rewriter.notifyMatchFailure(slice, "a view of a local tile");
    // Its sizes (tensor.dim) are resolved from its operands meanwhile.
    if (!llvm::all_of(result.getUsers(),
                      llvm::IsaPred<tensor::ExtractSliceOp, tensor::DimOp>))
      return rewriter.notifyMatchFailure(slice, "the whole result is used");
    FailureOr<TilingResult> tiled =
        tensor::replaceExtractSliceWithTiledProducer(rewriter, slice, result);
    if (failed(tiled))
      return rewriter.notifyMatchFailure(slice, "the producer cannot tile");
    // (A rank-reducing slice gets a rank-reduced tile.)
    rewriter.replaceOp(slice, tiled->tiledValues.front());
    return success();
  }
};

struct FuseStepProducersPass
    : recurrence::impl::FuseStepProducersPassBase<FuseStepProducersPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseElementwiseIntoSlice>(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    // A tile's destination, a slice of an empty tensor, is an empty tile.
    tensor::populateFoldTensorEmptyPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
