//===- CostModel.cpp - Estimated time of each schedule --------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/CostModel.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace mlir::recurrence;

/// The size assumed for a dynamic N or D (T's is the target's).
static constexpr double kAssumedSize = 64;
static constexpr int64_t kChunkSizes[] = {64, 256, 1024, 4096};

/// `size`, or `assumed` where it is dynamic.
static double knownOr(int64_t size, double assumed) {
  return ShapedType::isDynamic(size) ? assumed : static_cast<double>(size);
}

std::optional<TargetModel> TargetModel::get(StringRef name, int64_t cores,
                                            double gigabytesPerSecond) {
  TargetModel target;
  // One CPU core streams about 60% of the socket's bandwidth. A GPU's
  // parallel units are its resident threads (2048 per SM); one thread
  // walking a recurrence, with the next steps' loads in flight, streams
  // about 0.7 GB/s (bench/cost_model_gpu.py on the H100: diagonal
  // (1, 2^20, 4) sequential, 12 bytes per step in 16 ns), so a sequential
  // kernel needs thousands of them to fill the GPU.
  double unitsPerCore = 1;
  if (name == "cpu") {
    target = {"cpu", "cores", 1, 50e9, 0, 8e9, 5e-6, 2e-7, 1.0, 65536, 0};
  } else if (name == "cuda") {
    unitsPerCore = kThreadsPerSM;
    // Its chunked kernels (three phases) move their bytes at about 65% of
    // this bandwidth (bench/cost_model_gpu.py on the H100: (1, 262144, 256)
    // in chunks of 1024, 1.34 GB in 0.50 ms), and a sequence of unknown
    // length is taken as 4096 steps, so that chunks stay short enough to
    // give thousands of threads. The carry's thread waits for each chunk's
    // product and state in turn (measured there: 16384 chunks in 0.27 ms,
    // 4096 in 0.08).
    target = {"cuda", "threads", 132 * unitsPerCore,
              4000e9, 0,         2.2e8,
              4e-6,   1e-12,     0.65,
              4096,   2e-8};
  } else {
    return std::nullopt;
  }
  if (cores > 0)
    target.cores = static_cast<double>(cores) * unitsPerCore;
  if (gigabytesPerSecond > 0)
    target.bytesPerSecond = gigabytesPerSecond * 1e9;
  // A CPU core's stream is a share of the socket's bandwidth; a GPU
  // thread's is latency bound and stays 0.7 GB/s whatever the bandwidth.
  target.coreBytesPerSecond =
      name == "cuda" ? 0.7e9 : 0.6 * target.bytesPerSecond;
  // A chunked kernel's thread runs three phases with fewer loads in flight
  // than a sequential one: 0.2 GB/s. Fitted to bench/cost_model_gpu.py's
  // sweep on the H100 (every schedule of ten shapes): diagonal
  // (1, 2^20, 4) ran 0.113 ms in chunks of 256 and 0.146 in chunks of
  // 1024, against 0.361 ms for the Blelloch scan that the model fitted
  // before (0.06 GB/s per task, 0.3 us per carry step) chose.
  target.chunkTaskBytesPerSecond =
      name == "cuda" ? 0.2e9 : target.coreBytesPerSecond;
  // A GPU thread holding m x m composites (block_diagonal's blocks,
  // higher_order's companion products) and their registers streams about
  // a quarter of that, sequential, chunked or carrying: the share with
  // which the model keeps the choices of the H200's sweep of
  // block_diagonal<m> at (8, 4096, 512), m = 2 to 16, where chunks of 64
  // ran fastest, ahead of 256 and far ahead of a sequential thread per
  // block (3.4 to 63 ms; docs/GpuJournal.md). Its estimates there stay
  // 1.5 to 3x short of those times.
  target.blockedStreamShare = name == "cuda" ? 0.25 : 1.0;
  // On the CPU, an adjoint of a matrix state recomputes its states 16
  // steps at a time: each chunk's states, cotangents and projections then
  // stay in cache (the delta rule at (B, T, dk, dv) = (4, 1024, 64, 64):
  // 74 -> 38 ms with chunks of 16, 44 with 32; a diagonal vector state
  // streams its few passes faster at once). The GPU would launch each
  // chunk's kernels in turn.
  target.checkpointSteps = name == "cpu" ? 16 : 0;
  // Measured on the H200 (bench/block_rows_schedules.py, (B, 4096, 512),
  // the row lanes prefetching into L2): block_diagonal<2> and <4> ran
  // faster chunked at 2048 row lanes (0.148 against 0.176 ms; 0.212
  // against 0.232) and faster on rows from 4096 (0.178 against 0.208;
  // 0.232 against 0.258). From m = 8 the chunked kernels' m x m products
  // cost more than rows at every size measured (<8> at 2048 lanes: 0.290
  // against 0.840 ms).
  if (name == "cuda") {
    target.blockRowsFromLanes = 4096;
    target.blockRowsFromSize = 8;
  }
  return target;
}

FailureOr<TargetModel> TargetModel::getOrEmit(Operation *op, StringRef name,
                                              int64_t cores,
                                              double gigabytesPerSecond) {
  if (std::optional<TargetModel> target = get(name, cores, gigabytesPerSecond))
    return *target;
  return op->emitError() << "unknown target '" << name
                         << "'; expected cpu or cuda";
}

bool TargetModel::lanesPerBlock(ScanOp op) const {
  return name == "cuda" && op.hasIndependentChannels();
}

bool TargetModel::columnLanes(ScanOp op) const {
  return name == "cuda" && threadPerColumn(op);
}

bool TargetModel::mustStaySequential(ScanOp op) const {
  if (name != "cuda")
    return false;
  // A scan that is not split per channel block (channels that mix: dplr,
  // dense, a readout) or whose matrix state has a dynamic D stays
  // sequential on the GPU: each chunk thread would hold the whole state
  // (dplr and dense compose dense N x N products), in temporaries it
  // allocates in the kernel when their size is dynamic. So does a scan
  // over packed sequences: its chunks would tile the restarted transitions.
  std::optional<ScanDims> shape = ScanDims::fromOp(op);
  return !lanesPerBlock(op) || op->hasAttr(kPackedAttrName) ||
         (op.getMatrix() && shape && ShapedType::isDynamic(shape->columns));
}

bool TargetModel::prefersSequential(ScanOp op) const {
  // A scan that the warp lowering takes (time-contiguous caller buffers):
  // its warps split long sequences into chunks themselves; and one that the
  // row lowering takes (blocks of channels), see keepsBlockRows.
  return name == "cuda" && (takesWarpScan(op) || keepsBlockRows(op));
}

StringRef TargetModel::slowerInPlaceWhereTimeContiguous(ScanOp op) const {
  if (name != "cuda")
    return "the CPU's step loops read neighbouring channels, a line apart";
  return warpScanUnsupportedStructure(op);
}

bool TargetModel::keepsBlockRows(ScanOp op) const {
  int64_t lanes = blockRowLanes(op);
  return lanes && blockRowsFromLanes &&
         (lanes >= blockRowsFromLanes ||
          (blockRowsFromSize &&
           op.getStructure().getCompositeBlockSize() >= blockRowsFromSize));
}

int64_t TargetModel::adjointCheckpoint(ScanOp op) const {
  std::optional<ScanDims> dims = ScanDims::fromOp(op);
  if (!checkpointSteps || !op.getMatrix() || !dims)
    return 0;
  // Smaller states stream through the projections faster than the chunk
  // loop's regions start (measured: 16 x 16, 4.6 ms at once, 5.4 in
  // chunks; 32 x 32, 23 -> 14 ms).
  double state =
      knownOr(dims->size, kAssumedSize) * knownOr(dims->columns, kAssumedSize);
  return state >= 32 * 32 ? checkpointSteps : 0;
}

double TargetModel::streamShare(ScanOp op) const {
  return op.getStructure().getCompositeBlockSize() > 1 ? blockedStreamShare
                                                       : 1.0;
}

double TargetModel::chunkedBelowLanes(ScanOp op) const {
  // Where sequential threads stream as fast as the chunked kernels (60% of
  // their bandwidth share, for their second pass over the data).
  return 0.6 * chunkedEfficiency * bytesPerSecond /
         (coreBytesPerSecond * streamShare(op));
}

namespace {
/// The time of one parallel phase of `tasks` independent tasks.
/// `taskBytesPerSecond` is what one task streams by itself (0: a core's).
double phaseSeconds(const TargetModel &target, double tasks, double flops,
                    double bytes, double taskBytesPerSecond = 0) {
  double busy = std::min(std::max(tasks, 1.0), target.cores);
  double compute = flops / (busy * target.flopsPerCore);
  double perTask =
      taskBytesPerSecond > 0 ? taskBytesPerSecond : target.coreBytesPerSecond;
  double memory = bytes / std::min(target.bytesPerSecond, busy * perTask);
  return std::max(compute, memory) + target.regionSeconds +
         target.taskSeconds * tasks / target.cores;
}
} // namespace

SmallVector<ScheduleEstimate>
mlir::recurrence::estimateSchedules(ScanOp op, const TargetModel &target,
                                    double assumedBatch) {
  std::optional<ScanDims> dims = ScanDims::fromOp(op);
  if (!dims)
    return {};
  double batch = 1;
  bool dynamicBatch = false;
  for (int64_t size : dims->batch) {
    dynamicBatch |= ShapedType::isDynamic(size);
    if (!ShapedType::isDynamic(size))
      batch *= static_cast<double>(size);
  }
  if (dynamicBatch)
    batch = std::max(batch, assumedBatch);
  double steps = knownOr(dims->steps, target.assumedSteps);
  double n = knownOr(dims->size, kAssumedSize);
  double d = knownOr(dims->columns, kAssumedSize);
  if (!op.getMatrix())
    d = 1;
  StructureCosts cost =
      dims->structure.getCosts(n, d, op.hasPerElementTransition());
  auto bytesOf = [](Type type) { return type.getIntOrFloatBitWidth() / 8.0; };
  double bytes = bytesOf(op.getOperandType());
  double stateBytes = bytesOf(op.getStateType());
  double input = op.hasFactoredInput() ? n + d : n * d;
  double readBytes = bytes * (cost.transitionElements + input);
  // A step's output row, with the readout c_t it reads.
  double outputBytes = op.getReadout()
                           ? bytesOf(op.getOutputType()) * d + bytes * n
                           : bytesOf(op.getOutputType()) * n * d;
  double stepBytes = readBytes + outputBytes;
  double pairBytes = stateBytes * (cost.compositeElements + cost.stateElements);
  MLIRContext *context = op.getContext();

  // The CPU's sequential loops run one task per batch element, or per (batch
  // element, channel tile) where channels are independent. The GPU's
  // chunked kernels run one thread per lane: a batch element and, where
  // channels are independent, a channel block; its sequential kernels one
  // per lane and column of a matrix state.
  int64_t tiles = 1;
  double lanes = batch;
  if (target.lanesPerBlock(op))
    lanes = batch * std::max(1.0, n / dims->structure.getChannelGroup());
  if (target.name == "cpu" && op.hasIndependentChannels()) {
    ChannelTiling tiling;
    tiling.cores = static_cast<int64_t>(target.cores);
    // Tiles get a static width only when the sizes are known.
    if (dynamicBatch || ShapedType::isDynamic(dims->size))
      tiling.minTile = tiling.minRuntimeTile;
    int64_t block = dims->structure.getChannelGroup();
    tiles = splitChannels(static_cast<int64_t>(batch), static_cast<int64_t>(n),
                          block, tiling)
                .count;
  }
  // What one sequential thread and one task of a chunked phase stream:
  // less where they hold a blocked composite's m x m products.
  double threadRate = target.coreBytesPerSecond * target.streamShare(op);
  double chunkTaskRate =
      target.chunkTaskBytesPerSecond * target.streamShare(op);
  // The GPU's sequential kernels run a thread per column of a matrix state
  // too, which keeps many such scans sequential.
  double sequentialLanes = lanes * static_cast<double>(tiles);
  if (target.columnLanes(op))
    sequentialLanes *= d;
  SmallVector<ScheduleEstimate> estimates;
  estimates.push_back(
      {ScheduleAttr::get(context, ScheduleKind::Sequential, 0),
       phaseSeconds(target, sequentialLanes, batch * steps * cost.stepFlops,
                    batch * steps * stepBytes, threadRate),
       tiles});

  for (int64_t chunk : kChunkSizes) {
    if (chunk >= steps && chunk != kChunkSizes[0])
      continue;
    double chunks = std::ceil(steps / chunk);
    double local =
        phaseSeconds(target, lanes * chunks,
                     batch * steps * (cost.stepFlops + cost.composeFlops),
                     (batch * steps * readBytes + batch * chunks * pairBytes) /
                         target.chunkedEfficiency,
                     chunkTaskRate);
    double carry =
        std::max(phaseSeconds(target, lanes, batch * chunks * cost.applyFlops,
                              2 * batch * chunks * pairBytes, threadRate),
                 target.regionSeconds + chunks * target.carryStepSeconds);
    double finish = phaseSeconds(
        target, lanes * chunks, batch * steps * cost.stepFlops,
        batch * steps * stepBytes / target.chunkedEfficiency, chunkTaskRate);
    estimates.push_back(
        {ScheduleAttr::get(context, ScheduleKind::Chunked, chunk),
         local + carry + finish});
  }

  bool scanLegal = succeeded(dims->structure.checkSchedule(
      ScheduleKind::Scan, dims->size, [] { return InFlightDiagnostic(); }));
  if (scanLegal) {
    // ceil(log2 T) levels per sweep, none for T <= 1 (as LowerScan runs).
    double levels = steps > 1 ? std::ceil(std::log2(steps)) : 0;
    double combineFlops = cost.composeFlops + cost.applyFlops;
    // On the GPU every pass is a kernel of a thread per pair (per combine
    // in a sweep) walking whole state rows, which streams like a chunked
    // kernel's thread; the sweeps launch one kernel per level, whose
    // combines halve from level to level, so the upper levels run few
    // threads.
    bool gpu = target.name == "cuda";
    double rowRate = gpu ? chunkTaskRate : 0;
    double rowEfficiency = gpu ? target.chunkedEfficiency : 1;
    double setup = phaseSeconds(
        target, batch * steps,
        batch * steps * (cost.composeFlops + cost.stateElements),
        batch * steps * (readBytes + pairBytes) / rowEfficiency, rowRate);
    // Each level touches its combines' three pairs; together the levels
    // make about 2T combines.
    double sweeps = 0;
    if (gpu) {
      // At stride s, the up-sweep's level has floor(T / 2s) combines and
      // the down-sweep's floor((T - s) / 2s), none below 3s (LowerScan's
      // sweep); each level launches its kernel either way.
      for (double level = 0; level < levels; ++level) {
        double s = std::exp2(level);
        for (double count :
             {std::floor(steps / (2 * s)),
              steps >= 3 * s ? std::floor((steps - s) / (2 * s)) : 0.0}) {
          double combines = std::max(1.0, count);
          sweeps += phaseSeconds(
              target, batch * combines, batch * combines * combineFlops,
              3 * batch * combines * pairBytes / rowEfficiency, rowRate);
        }
      }
    } else {
      sweeps = 2 * levels * target.regionSeconds +
               phaseSeconds(target, batch * steps / 2,
                            2 * batch * steps * combineFlops,
                            6 * batch * steps * pairBytes);
    }
    double finish = phaseSeconds(
        target, batch * steps, 0,
        batch * steps * (pairBytes + outputBytes) / rowEfficiency, rowRate);
    estimates.push_back({ScheduleAttr::get(context, ScheduleKind::Scan, 0),
                         setup + sweeps + finish});
  }
  // Cheapest first; ties keep the candidates' order.
  SmallVector<size_t> order(estimates.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  llvm::sort(order, [&](size_t a, size_t b) {
    return std::make_pair(estimates[a].seconds, a) <
           std::make_pair(estimates[b].seconds, b);
  });
  SmallVector<ScheduleEstimate> sorted;
  for (size_t i : order)
    sorted.push_back(estimates[i]);
  return sorted;
}
