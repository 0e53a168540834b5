//===- SelectSchedule.cpp - Choose schedules with the cost model ----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/Transforms/CostModel.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/Target.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_SELECTSCHEDULEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
std::string formatNumber(double value, const char *spec) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format(spec, value);
  return text;
}

std::string describe(const ScheduleEstimate &estimate) {
  ScheduleAttr schedule = estimate.schedule;
  std::string text = stringifyScheduleKind(schedule.getKind()).str();
  if (schedule.getKind() == ScheduleKind::Chunked)
    text += "<" + std::to_string(schedule.getChunkSize()) + ">";
  if (estimate.channelTiles > 1)
    text += "(channel-tiles=" + std::to_string(estimate.channelTiles) + ")";
  return text;
}

/// Reports a decision and the candidates' estimates as a remark.
void explainChoice(ScanOp op, const TargetModel &model, StringRef regime,
                   ArrayRef<ScheduleEstimate> estimates) {
  InFlightDiagnostic remark = op.emitRemark();
  remark << "schedule " << describe(estimates.front()) << " chosen for "
         << model.name << " (" << static_cast<int64_t>(model.cores) << " "
         << model.unit << ", "
         << formatNumber(model.bytesPerSecond / 1e9, "%.0f") << " GB/s)"
         << regime << "; estimated seconds:";
  for (const ScheduleEstimate &estimate : estimates)
    remark << " " << describe(estimate) << " "
           << formatNumber(estimate.seconds, "%.3g");
}

/// A copy of `op` with `schedule` that writes into `destinations`.
ScanOp cloneWith(OpBuilder &b, ScanOp op, ScheduleAttr schedule,
                 ValueRange destinations) {
  auto copy = cast<ScanOp>(b.clone(*op));
  copy.setScheduleAttr(schedule);
  copy.getDestinationsMutable().assign(destinations);
  return copy;
}

/// Replaces `op` by `scf.if (count < threshold)` between a clone with
/// `small` and one with `large`, which write into the same destinations (so
/// that the results bufferize in place whichever runs). Returns the `small`
/// clone.
ScanOp dispatchOn(OpBuilder &b, ScanOp op, Value count, int64_t threshold,
                  ScheduleAttr small, ScheduleAttr large) {
  Location loc = op.getLoc();
  Value few =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, count,
                            arith::ConstantIndexOp::create(b, loc, threshold));
  SmallVector<Value> destinations(op.getDestinations());
  ScanOp smallClone;
  auto dispatch = scf::IfOp::create(
      b, loc, few,
      [&](OpBuilder &nb, Location nl) {
        smallClone = cloneWith(nb, op, small, destinations);
        scf::YieldOp::create(nb, nl, smallClone->getResults());
      },
      [&](OpBuilder &nb, Location nl) {
        scf::YieldOp::create(
            nb, nl, cloneWith(nb, op, large, destinations)->getResults());
      });
  op->replaceAllUsesWith(dispatch.getResults());
  op->erase();
  return smallClone;
}

/// `op`'s lanes, for sizes only known at run time: the batch elements, times
/// the channel blocks with `perBlock`, times the columns with `perColumn`.
Value lanesOf(OpBuilder &b, ScanOp op, bool perBlock, bool perColumn) {
  Location loc = op.getLoc();
  MixedScanDims dims(b, op);
  SmallVector<OpFoldResult> factors(dims.batch);
  AffineExpr lanes = b.getAffineConstantExpr(1);
  for (unsigned i = 0; i < factors.size(); ++i)
    lanes = lanes * b.getAffineSymbolExpr(i);
  if (perBlock) {
    lanes = lanes * b.getAffineSymbolExpr(factors.size())
                        .floorDiv(op.getStructure().getChannelGroup());
    factors.push_back(dims.size);
  }
  if (perColumn) {
    lanes = lanes * b.getAffineSymbolExpr(factors.size());
    factors.push_back(dims.columns);
  }
  return getValueOrCreateConstantIndexOp(
      b, loc, affine::makeComposedFoldedAffineApply(b, loc, lanes, factors));
}

/// `op`'s steps, for a T only known at run time.
Value stepsOf(OpBuilder &b, ScanOp op) {
  return getValueOrCreateConstantIndexOp(b, op.getLoc(),
                                         MixedScanDims(b, op).steps);
}

struct SelectSchedulePass
    : recurrence::impl::SelectSchedulePassBase<SelectSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    if (cores < 0 || bandwidth < 0) {
      getOperation()->emitError()
          << "cores and bandwidth must not be negative (0 picks the "
             "target's default), got cores = "
          << static_cast<int64_t>(cores)
          << ", bandwidth = " << static_cast<double>(bandwidth);
      return signalPassFailure();
    }
    int64_t planned =
        cores > 0
            ? static_cast<int64_t>(cores)
            : targetCores(getOperation(), dltiDeviceOf(target)).value_or(0);
    FailureOr<TargetModel> model =
        TargetModel::getOrEmit(getOperation(), target, planned, bandwidth);
    if (failed(model))
      return signalPassFailure();
    SmallVector<ScheduleKind> allowed;
    for (const std::string &name : schedules) {
      std::optional<ScheduleKind> kind = symbolizeScheduleKind(name);
      if (!kind || *kind == ScheduleKind::Auto) {
        getOperation()->emitError()
            << "unknown schedule '" << name
            << "' in `schedules`; expected sequential, chunked or scan";
        return signalPassFailure();
      }
      allowed.push_back(*kind);
    }
    // Both targets lower every schedule (a packed scan on the GPU only
    // sequentially, refused below).
    if (allowed.empty())
      allowed = {ScheduleKind::Sequential, ScheduleKind::Chunked,
                 ScheduleKind::Scan};
    auto isAllowed = [&](ScheduleKind kind) {
      return llvm::is_contained(allowed, kind);
    };
    SmallVector<ScanOp> autoOps;
    WalkResult walk = getOperation()->walk([&](ScanOp op) {
      ScheduleKind kind = op.getScheduleOrAuto().getKind();
      if (kind == ScheduleKind::Auto) {
        autoOps.push_back(op);
        return WalkResult::advance();
      }
      if (kind != ScheduleKind::Sequential && model->name == "cuda" &&
          op->hasAttr(kPackedAttrName)) {
        op.emitOpError() << "over packed sequences runs sequentially on the "
                            "GPU; its schedule '"
                         << stringifyScheduleKind(kind)
                         << "' would allocate a tile of the restarted "
                            "transitions in every thread";
        return WalkResult::interrupt();
      }
      if (isAllowed(kind))
        return WalkResult::advance();
      op.emitOpError() << "schedule '" << stringifyScheduleKind(kind)
                       << "' is not among the pass's `schedules`; use "
                       << llvm::join(
                              llvm::map_range(allowed, stringifyScheduleKind),
                              " or ")
                       << " (or auto)";
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    bool gpu = model->name == "cuda";
    auto candidates = [&](ScanOp op, const TargetModel &costs, int64_t cores) {
      SmallVector<ScheduleEstimate> estimates =
          estimateSchedules(op, costs, cores);
      llvm::erase_if(estimates, [&](const ScheduleEstimate &estimate) {
        ScheduleKind kind = estimate.schedule.getKind();
        // The `schedules` option may not name another for a scan that must
        // stay sequential; one that sequential would only run faster gets
        // the schedules asked for where they leave sequential out.
        bool keep = costs.mustStaySequential(op) ||
                    (costs.prefersSequential(op) &&
                     isAllowed(ScheduleKind::Sequential));
        return !isAllowed(kind) || (kind != ScheduleKind::Sequential && keep);
      });
      return estimates;
    };
    auto noneAllowed = [&](ScanOp op) {
      op.emitOpError() << "no schedule in `schedules` can lower this scan "
                          "for target '"
                       << target << "'; allow sequential";
      signalPassFailure();
    };
    for (ScanOp op : autoOps) {
      SmallVector<ScheduleEstimate> large =
          candidates(op, *model, model->cores);
      if (large.empty()) {
        noneAllowed(op);
        return;
      }
      std::optional<ScanDims> dims = ScanDims::fromOp(op);
      bool dynamicBatch = llvm::any_of(dims->batch, [](int64_t size) {
        return ShapedType::isDynamic(size);
      });
      // The CPU's tasks are batch elements: with a dynamic batch, the
      // choice for one element runs below `cores` of them. The GPU's are
      // lanes (batch elements times channel blocks): with dynamic lanes,
      // the choice for one element runs below the lanes where chunked
      // kernels beat sequential threads, and sequential above. The lanes
      // are those threads: times the columns of a matrix state, each a
      // sequential thread of its own.
      bool perBlock = model->lanesPerBlock(op);
      bool perColumn = model->columnLanes(op);
      bool dynamicLanes =
          dynamicBatch || (perBlock && ShapedType::isDynamic(dims->size)) ||
          (perColumn && ShapedType::isDynamic(dims->columns));
      double threshold = gpu ? model->chunkedBelowLanes(op) : model->cores;
      if (gpu && dynamicLanes)
        llvm::erase_if(large, [](const ScheduleEstimate &estimate) {
          return estimate.schedule.getKind() != ScheduleKind::Sequential;
        });
      if (large.empty()) {
        noneAllowed(op);
        return;
      }
      SmallVector<ScheduleEstimate> small =
          dynamicLanes ? candidates(op, *model, 1) : large;
      if (small.front().schedule == large.front().schedule) {
        if (explain)
          explainChoice(op, *model, "", large);
        op.setScheduleAttr(large.front().schedule);
        continue;
      }
      // The batch decides and is only known at run time.
      if (explain) {
        explainChoice(
            op, *model,
            gpu ? " below " + std::to_string(static_cast<int64_t>(threshold)) +
                      " lanes"
                : std::string(" when the batch is smaller than the "
                              "cores"),
            small);
        explainChoice(op, *model, " otherwise", large);
      }
      OpBuilder b(op);
      ScanOp smallClone = dispatchOn(
          b, op, lanesOf(b, op, perBlock, perColumn),
          static_cast<int64_t>(threshold),
          small.front().schedule, large.front().schedule);
      // On the GPU, where few lanes run chunked and T is dynamic too, the
      // best chunk follows T: short chunks give short sequences threads
      // enough, long ones keep the carry over chunks short. The choice for
      // sequences 64 times the assumed length runs from 8 times it on.
      std::optional<ScanDims> smallDims = ScanDims::fromOp(smallClone);
      if (!gpu || !smallDims || !ShapedType::isDynamic(smallDims->steps) ||
          small.front().schedule.getKind() != ScheduleKind::Chunked)
        continue;
      TargetModel longer = *model;
      longer.assumedSteps *= 64;
      SmallVector<ScheduleEstimate> longSmall =
          candidates(smallClone, longer, 1);
      llvm::erase_if(longSmall, [&](const ScheduleEstimate &estimate) {
        return estimate.schedule.getKind() != ScheduleKind::Chunked;
      });
      if (longSmall.empty() ||
          longSmall.front().schedule == small.front().schedule)
        continue;
      if (explain)
        explainChoice(
            smallClone, longer,
            " for sequences of " +
                std::to_string(static_cast<int64_t>(8 * model->assumedSteps)) +
                " steps or more",
            longSmall);
      b.setInsertionPoint(smallClone);
      dispatchOn(b, smallClone, stepsOf(b, smallClone),
                 static_cast<int64_t>(8 * model->assumedSteps),
                 small.front().schedule, longSmall.front().schedule);
    }
  }
};
} // namespace
