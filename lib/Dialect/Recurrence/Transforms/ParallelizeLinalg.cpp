//===- ParallelizeLinalg.cpp - Large linalg ops on every core -------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A scan's lowering shares its batch and channel tiles among the cores; the
// linalg ops around it would otherwise all run on the calling thread while
// the others wait: the contractions that give an adjoint's gradients from
// its states and cotangents, for instance, read as many bytes as the scans.
// Each such op that no parallel loop encloses becomes upstream's parallel
// loop nest (`linalg::linalgOpToParallelLoops`) when it is large enough to
// pay for a fork and a join; an op inside a parallel loop is left serial,
// where a nested team would only add forks.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/Target.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_PARALLELIZELINALGPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
/// Whether a parallel loop (of a scan's tiles, or already of OpenMP)
/// encloses `op`.
bool insideParallelLoop(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (isa<scf::ParallelOp, scf::ForallOp, omp::ParallelOp, omp::WsloopOp>(
            parent))
      return true;
  return false;
}

/// The number of points of `op`'s iteration space, a constant where its
/// sizes are, computed before `op` otherwise.
OpFoldResult iterationCount(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  if (!ShapedType::isDynamicShape(sizes))
    return rewriter.getIndexAttr(ShapedType::getNumElements(sizes));
  Location loc = op.getLoc();
  int64_t known = 1;
  Value dynamic;
  for (Range range : op.createLoopRanges(rewriter, loc)) {
    // Linalg's loop ranges start at 0 with step 1.
    if (std::optional<int64_t> size = getConstantIntValue(range.size)) {
      known *= *size;
      continue;
    }
    Value size = getValueOrCreateConstantIndexOp(rewriter, loc, range.size);
    dynamic =
        dynamic ? arith::MulIOp::create(rewriter, loc, dynamic, size) : size;
  }
  if (!dynamic)
    return rewriter.getIndexAttr(known);
  if (known == 1)
    return dynamic;
  return arith::MulIOp::create(
             rewriter, loc, dynamic,
             arith::ConstantIndexOp::create(rewriter, loc, known))
      .getResult();
}

/// `parallel` (without reductions) over its first `kept` dims only, each of
/// its iterations a nest of serial loops over the others.
void keepParallel(RewriterBase &rewriter, scf::ParallelOp parallel,
                  size_t kept) {
  if (kept == parallel.getNumLoops())
    return;
  Location loc = parallel.getLoc();
  auto first = [&](ValueRange values) { return values.take_front(kept); };
  auto rest = [&](ValueRange values) { return values.drop_front(kept); };
  rewriter.setInsertionPoint(parallel);
  SmallVector<Value> ivs;
  Block *body = nullptr;
  if (kept > 0) {
    auto outer = scf::ParallelOp::create(
        rewriter, loc, first(parallel.getLowerBound()),
        first(parallel.getUpperBound()), first(parallel.getStep()));
    llvm::append_range(ivs, outer.getInductionVars());
    body = outer.getBody();
    rewriter.setInsertionPoint(body->getTerminator());
  }
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, rest(parallel.getLowerBound()),
      rest(parallel.getUpperBound()), rest(parallel.getStep()));
  for (scf::ForOp loop : nest.loops)
    ivs.push_back(loop.getInductionVar());
  if (!nest.loops.empty())
    body = nest.loops.back().getBody();
  rewriter.eraseOp(parallel.getBody()->getTerminator());
  rewriter.inlineBlockBefore(parallel.getBody(), body->getTerminator(), ivs);
  rewriter.eraseOp(parallel);
}

/// How many of the leading parallel dims of `op` to share among `cores`:
/// the fewest whose static sizes give every core several iterations (or
/// that reach a size known only at run time). The others run serially in
/// each iteration, where they vectorize and need no index arithmetic; the
/// OpenMP conversion would collapse them all into one loop.
size_t sharedDims(linalg::LinalgOp op, int64_t cores) {
  SmallVector<int64_t> sizes = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  int64_t iterations = 1;
  size_t dims = 0;
  while (dims < sizes.size() && linalg::isParallelIterator(iterators[dims]) &&
         iterations < 4 * cores) {
    if (ShapedType::isDynamic(sizes[dims]))
      return dims + 1;
    iterations *= sizes[dims++];
  }
  return dims;
}

/// `op` as loops whose first `shared` dims are parallel, erased. (Upstream
/// makes every run of parallel dims an `scf.parallel`; one after a
/// reduction dim would fork a nested team on every iteration.)
LogicalResult toParallelLoops(RewriterBase &rewriter, linalg::LinalgOp op,
                              size_t shared) {
  FailureOr<linalg::LinalgLoops> loops =
      linalg::linalgOpToParallelLoops(rewriter, op);
  if (failed(loops))
    return op.emitOpError("could not be lowered to parallel loops");
  rewriter.eraseOp(op);
  for (auto [i, loop] : llvm::enumerate(*loops))
    if (auto parallel = dyn_cast<scf::ParallelOp>(loop))
      keepParallel(rewriter, parallel, i == 0 ? shared : 0);
  return success();
}

struct ParallelizeLinalgPass
    : recurrence::impl::ParallelizeLinalgPassBase<ParallelizeLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    int64_t planned =
        cores > 0 ? static_cast<int64_t>(cores)
                  : recurrence::targetCores(getOperation(), "CPU").value_or(1);
    if (planned < 2)
      return;
    SmallVector<linalg::LinalgOp> candidates;
    getOperation()->walk([&](linalg::LinalgOp op) {
      // An outermost reduction dim would run the parallel dims inside a
      // serial loop: a fork per iteration.
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      if (op.hasPureBufferSemantics() && !iterators.empty() &&
          linalg::isParallelIterator(iterators.front()) &&
          !insideParallelLoop(op))
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : candidates) {
      rewriter.setInsertionPoint(op);
      OpFoldResult count = iterationCount(rewriter, op);
      if (std::optional<int64_t> known = getConstantIntValue(count)) {
        if (*known >= minIterations &&
            failed(toParallelLoops(rewriter, op, sharedDims(op, planned))))
          return signalPassFailure();
        continue;
      }
      // Sizes known at run time: the parallel nest when they are large, the
      // op itself (serial loops later) otherwise.
      Location loc = op.getLoc();
      Value large = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sge, cast<Value>(count),
          arith::ConstantIndexOp::create(rewriter, loc, minIterations));
      auto branch = scf::IfOp::create(rewriter, loc, TypeRange(), large,
                                      /*withElseRegion=*/true);
      rewriter.setInsertionPoint(branch.elseBlock()->getTerminator());
      rewriter.clone(*op);
      rewriter.setInsertionPoint(branch.thenBlock()->getTerminator());
      auto parallel = cast<linalg::LinalgOp>(rewriter.clone(*op));
      size_t shared = sharedDims(op, planned);
      rewriter.eraseOp(op);
      if (failed(toParallelLoops(rewriter, parallel, shared)))
        return signalPassFailure();
    }
  }
};
} // namespace
