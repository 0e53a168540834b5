//===- ScanBench.cpp - Throughput of compiled scans -----------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Times every schedule of a few characteristic recurrences on the CPU and
// prints one line per case with its bandwidth and its ratios to two ceilings
// measured in the same run: memcpy bandwidth and a plain -O3 loop of the
// same recurrence.
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"

#include "Reference/ScanReference.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/JitModule.h"
#include "recurrence/Runtime/ScanSpec.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <thread>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::bench;

static llvm::cl::opt<bool> quick("quick",
                                 llvm::cl::desc("Smaller shapes, one rep"));
static llvm::cl::opt<std::string>
    only("only",
         llvm::cl::desc("Run only cases of this structure (block_diagonal) or "
                        "this instance of it (block_diagonal<4>)"));
static llvm::cl::opt<bool>
    dynamicShapes("dynamic-shapes",
                  llvm::cl::desc("Compile for dynamic shapes, as the Python "
                                 "package does, instead of the case's sizes"));
static llvm::cl::opt<std::string>
    onlySchedule("schedule",
                 llvm::cl::desc("Run only the variants whose schedule name "
                                "(as printed, e.g. sequential:1core) is this"));
static llvm::cl::opt<int> reps("reps", llvm::cl::desc("Timed repetitions"),
                               llvm::cl::init(3));

namespace {
using Clock = std::chrono::steady_clock;

/// Best time of `reps` runs of `body`, in seconds.
double bestSeconds(int count, const std::function<void()> &body) {
  double best = INFINITY;
  for (int i = 0; i < count; ++i) {
    auto start = Clock::now();
    body();
    best = std::min(
        best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  return best;
}

/// Best times of `count` runs of `first` and of `second`, timed in turns,
/// so that both see the same state of a noisy machine.
std::pair<double, double> bestInTurns(int count,
                                      const std::function<void()> &first,
                                      const std::function<void()> &second) {
  double bestFirst = INFINITY, bestSecond = INFINITY;
  for (int i = 0; i < count; ++i) {
    bestFirst = std::min(bestFirst, bestSeconds(1, first));
    bestSecond = std::min(bestSecond, bestSeconds(1, second));
  }
  return {bestFirst, bestSecond};
}

/// memcpy bandwidth (bytes read + written per second) on a large buffer.
double memcpyBandwidth() {
  size_t bytes = (quick ? 64u : 512u) << 20;
  std::vector<char> from(bytes, 1), to(bytes, 0);
  double seconds = bestSeconds(std::max(3, reps.getValue()), [&] {
    std::memcpy(to.data(), from.data(), bytes);
  });
  return 2.0 * bytes / seconds;
}

struct Case {
  std::string kind; // the structure without its parameter
  int64_t param = 0;
  ScanSpec spec;
  ScanSizes sizes;
};

int64_t count(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  return n;
}

/// Cheap deterministic values in [-range, range].
void fill(std::vector<float> &values, double range, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float &value : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    value = static_cast<float>(range * ((x >> 11) * 0x1.0p-53 * 2 - 1));
  }
}

/// The schedule `auto` resolves to for `c` on this machine.
ScheduleAttr resolveAuto(MLIRContext &context, const Case &c) {
  OwningOpRef<ModuleOp> module = buildScanModule(
      &context, c.spec, "scan", dynamicShapes ? nullptr : &c.sizes);
  PassManager pm(&context);
  SelectSchedulePassOptions options;
  options.cores = std::max(1u, std::thread::hardware_concurrency());
  pm.addPass(createSelectSchedulePass(options));
  (void)pm.run(*module);
  ScheduleAttr chosen;
  module->walk([&](ScanOp op) { chosen = op.getScheduleAttr(); });
  return chosen;
}

std::string scheduleName(ScheduleKind kind, int64_t chunk) {
  std::string name = stringifyScheduleKind(kind).str();
  if (kind == ScheduleKind::Chunked)
    name += "<" + std::to_string(chunk) + ">";
  return name;
}

/// Runs the plain loop for `c` into `out`.
void runHandWritten(const Case &c, const std::vector<std::vector<float>> &in,
                    std::vector<float> &out) {
  const ScanSizes &s = c.sizes;
  int64_t batch = count(s.batch);
  if (c.kind == "diagonal")
    return diagonalLoop(in[0].data(), in[1].data(), out.data(), batch, s.steps,
                        s.size);
  if (c.kind == "block_diagonal")
    return blockDiagonalLoop(in[0].data(), in[1].data(), out.data(), batch,
                             s.steps, s.size, c.param);
  if (c.kind == "dplr")
    return dplrLoop(in[0].data(), in[1].data(), in[2].data(), in[3].data(),
                    out.data(), batch, s.steps, s.size);
  if (c.kind == "dense")
    return denseLoop(in[0].data(), in[1].data(), out.data(), batch, s.steps,
                     s.size);
}

void runCase(MLIRContext &context, const Case &c, double copyBandwidth) {
  RecurrenceStructureInterface structure = c.spec.structureIn(&context);
  std::vector<ScanOperand> layout = scanOperands(structure, c.spec, c.sizes);
  std::vector<std::vector<float>> inputs;
  std::vector<BufferView> args;
  double bytes = 0;
  for (auto [index, operand] : llvm::enumerate(layout)) {
    std::vector<float> values(count(operand.shape));
    double range = operand.role == OperandRole::Transition
                       ? transitionRange(c.spec, c.sizes, operand.index)
                       : 1.0;
    fill(values, range, index + 1);
    bytes += 4.0 * values.size();
    inputs.push_back(std::move(values));
  }
  for (auto [operand, values] : llvm::zip(layout, inputs))
    args.push_back(
        BufferView::contiguous(values.data(), ElementType::F32, operand.shape));
  std::vector<int64_t> outShape = scanOutputShape(structure, c.spec, c.sizes);
  std::vector<float> out(count(outShape)), expected(count(outShape));
  bytes += 4.0 * out.size();

  auto handWritten = [&] { runHandWritten(c, inputs, expected); };
  handWritten();

  // Each schedule on every core, the sequential loop on one core too (the
  // baseline that parallel schedules must beat), and what auto picks.
  struct Variant {
    ScheduleKind kind;
    int64_t chunk, cores;
  };
  const Variant variants[] = {{ScheduleKind::Sequential, 0, 1},
                              {ScheduleKind::Sequential, 0, 0},
                              {ScheduleKind::Chunked, 1024, 0},
                              {ScheduleKind::Scan, 0, 0},
                              {ScheduleKind::Auto, 0, 0}};
  for (auto [kind, chunk, cores] : variants) {
    ScanSpec spec = c.spec;
    spec.schedule = kind;
    spec.chunkSize = chunk;
    OwningOpRef<ModuleOp> module = buildScanModule(
        &context, spec, "scan", dynamicShapes ? nullptr : &c.sizes);
    std::string name = scheduleName(kind, chunk);
    if (cores == 1)
      name += ":1core";
    if (kind == ScheduleKind::Auto) {
      ScheduleAttr chosen = resolveAuto(context, c);
      name = "auto:" + scheduleName(chosen.getKind(), chosen.getChunkSize());
    }
    if (!onlySchedule.empty() && name != onlySchedule)
      continue;
    JitOptions options;
    options.cores = cores;
    auto jit = JitModule::compile(*module, {"scan"}, options);
    if (!jit) {
      llvm::outs() << "BENCH structure=" << c.spec.describe()
                   << " schedule=" << name
                   << " error=" << llvm::toString(jit.takeError()) << "\n";
      continue;
    }
    BufferView result =
        BufferView::contiguous(out.data(), ElementType::F32, outShape);
    auto call = [&] {
      if (llvm::Error error = (*jit)->call("scan", args, {result}))
        llvm::report_fatal_error(llvm::Twine(llvm::toString(std::move(error))));
    };
    call(); // warm up
    // The hand-written loop is timed again for each variant, in turns with
    // it: on this machine its own time moves by up to 1.7x between runs.
    auto [seconds, handSeconds] =
        bestInTurns(quick ? 1 : reps, call, handWritten);
    double worst = 0;
    for (size_t i = 0; i < out.size(); ++i)
      worst = std::max<double>(worst, std::fabs(out[i] - expected[i]) /
                                          (1.0 + std::fabs(expected[i])));
    double gbps = bytes / seconds / 1e9;
    llvm::outs() << "BENCH structure=" << c.spec.describe()
                 << " schedule=" << name << " B=" << count(c.sizes.batch)
                 << " T=" << c.sizes.steps << " N=" << c.sizes.size
                 << llvm::format(" GBps=%.2f vs_memcpy=%.2f vs_handwritten=%.2f"
                                 " ms=%.2f handwritten_ms=%.2f"
                                 " max_rel_diff=%.1e\n",
                                 gbps, gbps * 1e9 / copyBandwidth,
                                 handSeconds / seconds, seconds * 1e3,
                                 handSeconds * 1e3, worst);
  }
}

Case makeCase(std::string kind, int64_t param, int64_t batch, int64_t steps,
              int64_t size) {
  Case c;
  c.kind = kind;
  c.param = param;
  c.spec.structure =
      param ? kind + "<" + std::to_string(param) + ">" : std::move(kind);
  c.spec.batchRank = 1;
  c.sizes = ScanSizes{{batch}, steps, size, 1};
  return c;
}
} // namespace

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv,
                                    "Recurrence CPU throughput benchmark\n");
  DialectRegistry registry;
  registerRecurrenceRuntimeDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  int64_t scale = quick ? 8 : 1;
  std::vector<Case> cases = {makeCase("diagonal", 0, 8, 16384 / scale, 1536),
                             makeCase("diagonal", 0, 1, 262144 / scale, 256)};
  for (int64_t m : {2, 4, 8, 16})
    cases.push_back(makeCase("block_diagonal", m, 8, 4096 / scale, 512));
  cases.push_back(makeCase("dplr", 1, 8, 4096 / scale, 64));
  cases.push_back(makeCase("dense", 0, 8, 4096 / scale, 64));

  double copyBandwidth = memcpyBandwidth();
  llvm::outs() << llvm::format("BENCH memcpy GBps=%.2f threads=%u\n",
                               copyBandwidth / 1e9,
                               std::thread::hardware_concurrency());
  for (const Case &c : cases) {
    if (!only.empty() && c.kind != only && c.spec.structure != only)
      continue;
    runCase(context, c, copyBandwidth);
  }
  return 0;
}
