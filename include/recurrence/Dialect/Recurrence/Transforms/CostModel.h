//===- CostModel.h - Estimated time of each schedule ------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A roofline estimate of every candidate schedule of a scan: each parallel
// phase takes the longer of its compute time on the cores it can occupy and
// its memory time at the share of bandwidth those cores draw, plus a cost per
// parallel region and per task.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_COSTMODEL_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_COSTMODEL_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include <string>

namespace mlir::recurrence {

/// The threads resident on one streaming multiprocessor (sm_90).
constexpr int64_t kThreadsPerSM = 2048;

struct TargetModel {
  std::string name;
  std::string unit;          // what `cores` counts: cores, or GPU threads
  double cores;              // parallel units
  double bytesPerSecond;     // memory bandwidth of the whole target
  double coreBytesPerSecond; // what one core (SM) can stream by itself
  double flopsPerCore;       // per second
  double regionSeconds;      // starting one parallel region (or kernel)
  double taskSeconds;        // one parallel task
  double chunkedEfficiency;  // the bandwidth share chunked phases reach
  double assumedSteps;       // T, where it is dynamic
  double carryStepSeconds;   // one dependent step of the carry over chunks
  double chunkTaskBytesPerSecond = 0; // what one task of a chunked phase
                                      // streams by itself
  /// The share of those rates (a core's, a chunk task's) that a thread
  /// holding a blocked composite (m x m products) streams.
  double blockedStreamShare = 1;
  /// The steps an adjoint recomputes its states at a time from checkpoints
  /// (0: the target recomputes them all at once).
  int64_t checkpointSteps = 0;
  /// The row lanes (batch elements x block rows) from which a block
  /// structure runs faster on -recurrence-gpu-block-rows' lanes than
  /// chunked, and the block size from which it always does (0: never).
  int64_t blockRowsFromLanes = 0, blockRowsFromSize = 0;
  /// Whether `auto` keeps `op` sequential on this target whatever the
  /// estimates: it must (below) or a sequential lowering of the GPU runs it
  /// faster (time-contiguous caller buffers, block rows).
  bool keepsSequential(ScanOp op) const {
    return mustStaySequential(op) || prefersSequential(op);
  }
  /// Whether no other schedule lowers `op` on this target: on the GPU, a
  /// scan whose channels mix, whose matrix state has a dynamic D, or over
  /// packed sequences.
  bool mustStaySequential(ScanOp op) const;
  /// Whether a sequential lowering of the GPU runs `op` faster than the
  /// others would, which still lower it.
  bool prefersSequential(ScanOp op) const;
  /// Whether `auto` may pick `kind` for `op` (every target's pipeline
  /// lowers every schedule): it is sequential or `op` need not be.
  bool lowers(ScanOp op, ScheduleKind kind) const {
    return kind == ScheduleKind::Sequential || !keepsSequential(op);
  }

  /// Whether the GPU's tasks (lanes) are per channel block for `op` as well
  /// as per batch element: where its channels are independent.
  bool lanesPerBlock(ScanOp op) const;
  /// Whether the GPU's sequential kernels run a thread per column of `op`'s
  /// matrix state (threadPerColumn), as well as per channel block where its
  /// channels are independent; its chunked kernels do not.
  bool columnLanes(ScanOp op) const;
  /// The steps at a time the adjoint of `op` recomputes its states from
  /// checkpoints (`buildScanAdjoint`'s `checkpoint`), 0 for all at once:
  /// `checkpointSteps` for a matrix state of at least 32 x 32 (a dynamic N
  /// or D taken as 64), whose states the projections read several times.
  int64_t adjointCheckpoint(ScanOp op) const;
  /// On the GPU, the lanes below which the chunked schedule beats the
  /// sequential one's threads.
  double chunkedBelowLanes(ScanOp op) const;
  /// The share of a thread's stream rates that one of `op`'s threads
  /// reaches: blockedStreamShare where it holds m x m composites, else 1.
  double streamShare(ScanOp op) const;
  /// Whether a scan that -recurrence-gpu-block-rows takes has enough row
  /// lanes, or blocks large enough, to run faster there than chunked.
  bool keepsBlockRows(ScanOp op) const;
  /// Why the target's kernels would read `op`'s operands in place more
  /// slowly than a transposing copy to channels-contiguous buffers and the
  /// contiguous kernels, where the caller's buffers hold each sequence's
  /// steps contiguously (Mamba's [B, N, T] as a [B, T, N] view); "" where
  /// they read them in place at least as fast. On the GPU only the warp
  /// scan reads such buffers along its lanes' lines; the other kernels'
  /// neighbouring threads take neighbouring channels, a line apart.
  StringRef slowerInPlaceWhereTimeContiguous(ScanOp op) const;

  /// Defaults for `cpu` or `cuda`; cores (SMs for cuda) or bandwidth (GB/s)
  /// of 0 keep them.
  static std::optional<TargetModel> get(StringRef name, int64_t cores,
                                        double gigabytesPerSecond);
  /// The same, or failure after an error on `op` naming the unknown target.
  static FailureOr<TargetModel> getOrEmit(Operation *op, StringRef name,
                                          int64_t cores,
                                          double gigabytesPerSecond);
};

struct ScheduleEstimate {
  ScheduleAttr schedule;
  double seconds;
  /// The channel tiles the sequential loops split each batch element into.
  int64_t channelTiles = 1;
};

/// Every legal candidate for `op`, cheapest first (whether the target
/// lowers it or not: see `TargetModel::lowers(ScanOp, ScheduleKind)`).
/// Dynamic batch dims count as `assumedBatch` elements in all; a dynamic T as a
/// long sequence.
SmallVector<ScheduleEstimate> estimateSchedules(ScanOp op,
                                                const TargetModel &target,
                                                double assumedBatch = 1);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_COSTMODEL_H
