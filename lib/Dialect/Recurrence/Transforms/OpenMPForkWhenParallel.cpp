//===- OpenMPForkWhenParallel.cpp - No thread team for one iteration ------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A parallel loop becomes `omp.parallel { omp.wsloop { ... } }`, which forks
// the thread team on every entry, also when the loop has one iteration at
// run time (one batch element and one channel tile: a decoding step, a small
// scan). The fork and the join cost microseconds, more than such a call's
// work. This pass gives each such `omp.parallel` the `if` clause
// `iterations > 1`, so that a single iteration runs on the calling thread.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_OPENMPFORKWHENPARALLELPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
/// The work-sharing loop nest that is all `parallel` runs, if it is.
omp::LoopNestOp onlyLoopNest(omp::ParallelOp parallel) {
  Block &body = parallel.getRegion().front();
  if (!llvm::hasSingleElement(parallel.getRegion()) ||
      !llvm::hasNItems(body, 2))
    return nullptr;
  auto wsloop = dyn_cast<omp::WsloopOp>(body.front());
  if (!wsloop)
    return nullptr;
  return dyn_cast_or_null<omp::LoopNestOp>(wsloop.getWrappedLoop());
}

/// The number of iterations of `nest`, computed before `parallel`, or null
/// when its bounds are not all defined outside it.
Value iterationCount(OpBuilder &b, omp::ParallelOp parallel,
                     omp::LoopNestOp nest) {
  if (nest.getLoopInclusive())
    return nullptr;
  auto outside = [&](Value v) {
    return !parallel.getRegion().isAncestor(v.getParentRegion());
  };
  if (!llvm::all_of(nest.getLoopLowerBounds(), outside) ||
      !llvm::all_of(nest.getLoopUpperBounds(), outside) ||
      !llvm::all_of(nest.getLoopSteps(), outside))
    return nullptr;
  Location loc = parallel.getLoc();
  Value total;
  for (auto [lower, upper, step] :
       llvm::zip(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                 nest.getLoopSteps())) {
    // ceil((upper - lower) / step), 0 for an empty range.
    Value span = arith::SubIOp::create(b, loc, upper, lower);
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(span.getType()));
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, span, zero);
    Value count = arith::CeilDivSIOp::create(b, loc, span, step);
    count = arith::SelectOp::create(b, loc, empty, zero, count);
    total = total ? arith::MulIOp::create(b, loc, total, count) : count;
  }
  return total;
}

struct OpenMPForkWhenParallelPass
    : recurrence::impl::OpenMPForkWhenParallelPassBase<
          OpenMPForkWhenParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([](omp::ParallelOp parallel) {
      omp::LoopNestOp nest = onlyLoopNest(parallel);
      if (!nest || parallel.getIfExpr())
        return;
      OpBuilder b(parallel);
      Value total = iterationCount(b, parallel, nest);
      if (!total)
        return;
      Value one = arith::ConstantOp::create(b, parallel.getLoc(),
                                            b.getOneAttr(total.getType()));
      Value several = arith::CmpIOp::create(
          b, parallel.getLoc(), arith::CmpIPredicate::sgt, total, one);
      parallel.getIfExprMutable().assign(several);
    });
  }
};
} // namespace
