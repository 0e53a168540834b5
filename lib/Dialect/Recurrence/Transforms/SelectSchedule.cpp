//===- SelectSchedule.cpp - Choose schedules with the cost model ----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/CostModel.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_SELECTSCHEDULEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
std::string formatSeconds(double seconds, const char *spec) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format(spec, seconds);
  return text;
}

std::string describe(ScheduleAttr schedule) {
  std::string text = stringifyScheduleKind(schedule.getKind()).str();
  if (schedule.getKind() == ScheduleKind::Chunked)
    text += "<" + std::to_string(schedule.getChunkSize()) + ">";
  return text;
}

struct SelectSchedulePass
    : recurrence::impl::SelectSchedulePassBase<SelectSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<TargetModel> model =
        TargetModel::get(target, cores, bandwidth);
    if (!model) {
      getOperation()->emitError()
          << "unknown target '" << target << "'; expected cpu or cuda";
      return signalPassFailure();
    }
    getOperation()->walk([&](ScanOp op) {
      if (op.getScheduleOrAuto().getKind() != ScheduleKind::Auto)
        return;
      SmallVector<ScheduleEstimate> estimates = estimateSchedules(op, *model);
      if (estimates.empty())
        return;
      op.setScheduleAttr(estimates.front().schedule);
      if (!explain)
        return;
      InFlightDiagnostic remark = op.emitRemark();
      remark << "schedule " << describe(estimates.front().schedule)
             << " chosen for " << model->name << " ("
             << static_cast<int64_t>(model->cores) << " cores, "
             << formatSeconds(model->bytesPerSecond / 1e9, "%.0f")
             << " GB/s); estimated seconds:";
      for (const ScheduleEstimate &estimate : estimates)
        remark << " " << describe(estimate.schedule) << " "
               << formatSeconds(estimate.seconds, "%.3g");
    });
  }
};
} // namespace
