//===- ScanExecutionTest.cpp - Compiled scans against the reference -------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Every structure x schedule x {forward, reverse} x {no init, init} x
// {f32, f64} x {vector, matrix, factored matrix} state x {states, readout}
// (and bf16 and f16 operands with an f32 state) is compiled
// once through -recurrence-to-llvm and run on random seeded problems of
// several shapes (T = 1, T = 257, odd N, two batch dims, an empty batch),
// then compared with the float64 reference.
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

class ScanExecution : public ::testing::TestWithParam<ScanSpec> {
protected:
  static void SetUpTestSuite() { context = makeContext().release(); }
  static void TearDownTestSuite() {
    delete context;
    context = nullptr;
  }

  /// Compiles the scan of `spec` and checks it on every shape in `shapes`,
  /// with transitions drawn from `family`.
  /// `cores` is what the JIT plans for (0: this machine's).
  void checkShapes(const ScanSpec &spec, ArrayRef<ScanSizes> shapes,
                   InputFamily family = InputFamily::Contractive,
                   int64_t cores = 0) {
    OwningOpRef<ModuleOp> module = buildScanModule(context, spec);
    JitOptions options;
    options.cores = cores;
    auto jit = JitModule::compile(*module, {"scan"}, options);
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    for (auto [index, sizes] : llvm::enumerate(shapes)) {
      uint64_t seed = stableHash(spec.describe()) + index;
      auto operands = randomScanOperands(spec, sizes, seed, family);
      ReferenceResult want = referenceScan(spec, sizes, operands);
      RunResult got = runScan(**jit, spec, sizes, operands);
      SCOPED_TRACE("shape #" + std::to_string(index) +
                   " T=" + std::to_string(sizes.steps) +
                   " N=" + std::to_string(sizes.size) +
                   " D=" + std::to_string(sizes.columns));
      double tolerance = toleranceFor(spec, sizes, family);
      expectClose(got.output, want.output, tolerance + outputRoundingFor(spec),
                  "output");
      if (spec.finalState)
        expectClose(got.finalState, want.finalState, tolerance, "final state");
    }
  }

  static MLIRContext *context;
};

MLIRContext *ScanExecution::context = nullptr;

/// Shapes with two batch dims; every N is a multiple of the block size 3.
const ScanSizes kTwoBatchDims[] = {
    {{2, 3}, 1, 6, 2},   // T = 1
    {{1, 2}, 257, 9, 3}, // long T, odd N
    {{0, 3}, 5, 6, 2},   // empty batch
    {{3, 1}, 17, 3, 1},  // D = 1
};

TEST_P(ScanExecution, MatchesReference) {
  checkShapes(GetParam(), kTwoBatchDims);
}

/// The structures with the parameters used throughout.
std::vector<ScanSpec> structures() {
  std::vector<ScanSpec> specs;
  auto add = [&](std::string structure) {
    ScanSpec spec;
    spec.structure = structure;
    specs.push_back(spec);
  };
  add("identity");
  add("scalar");
  add("diagonal");
  add("block_diagonal<3>");
  add("dplr<2>");
  add("dense");
  add("higher_order<2>");
  return specs;
}

/// Every schedule; the chunk of 8 leaves a one-step last chunk at T = 257
/// and is longer than T = 5.
const std::pair<ScheduleKind, int64_t> kSchedules[] = {
    {ScheduleKind::Sequential, 0},
    {ScheduleKind::Chunked, 8},
    {ScheduleKind::Scan, 0},
};

std::vector<ScanSpec> fullMatrix() {
  std::vector<ScanSpec> specs;
  for (ScanSpec base : structures()) {
    base.batchRank = 2;
    base.finalState = true;
    // State kinds: vector, matrix, matrix with a factored input, and for
    // diagonal a matrix with per-element transitions.
    std::vector<ScanSpec> states;
    ScanSpec vector = base, matrix = base, factored = base;
    matrix.matrix = factored.matrix = factored.factored = true;
    states = {vector, matrix, factored};
    if (base.structure == "diagonal") {
      ScanSpec perElement = matrix;
      perElement.perElement = true;
      states.push_back(perElement);
    }
    for (ScanSpec spec : states)
      for (auto [schedule, chunk] : kSchedules)
        for (bool reverse : {false, true})
          for (bool init : {false, true})
            for (bool f64 : {false, true})
              for (bool readout : {false, true}) {
                // Every state kind runs sequentially; the other schedules
                // share the state plumbing, so vector and factored matrix
                // states (and per-element gates) cover them.
                if (schedule != ScheduleKind::Sequential && spec.matrix &&
                    !spec.factored && !spec.perElement)
                  continue;
                spec.schedule = schedule;
                spec.chunkSize = chunk;
                spec.reverse = reverse;
                spec.init = init;
                spec.f64 = f64;
                spec.readout = readout;
                specs.push_back(spec);
              }
  }
  return specs;
}

std::string specName(const ::testing::TestParamInfo<ScanSpec> &info) {
  return specTestName(info.param);
}

INSTANTIATE_TEST_SUITE_P(AllStructures, ScanExecution,
                         ::testing::ValuesIn(fullMatrix()), specName);

/// No batch dims and one batch dim, without the final-state result.
class ScanBatchRank : public ScanExecution {};

TEST_P(ScanBatchRank, MatchesReference) {
  ScanSpec spec = GetParam();
  if (spec.batchRank == 0)
    checkShapes(spec, {ScanSizes{{}, 1, 3, 2}, ScanSizes{{}, 31, 9, 2}});
  else
    checkShapes(spec, {ScanSizes{{4}, 7, 6, 2}, ScanSizes{{0}, 7, 6, 2}});
}

std::vector<ScanSpec> batchRanks() {
  std::vector<ScanSpec> specs;
  for (ScanSpec spec : structures())
    for (int64_t rank : {0, 1})
      for (bool matrix : {false, true}) {
        spec.batchRank = rank;
        spec.matrix = matrix;
        spec.reverse = rank == 1;
        spec.init = rank == 0;
        spec.readout = matrix && rank == 0;
        specs.push_back(spec);
      }
  return specs;
}

INSTANTIATE_TEST_SUITE_P(AllStructures, ScanBatchRank,
                         ::testing::ValuesIn(batchRanks()), specName);

/// Empty time and empty states: the final state is the initial one, a
/// readout of an empty state is zero.
class ScanEmpty : public ScanExecution {};

TEST_P(ScanEmpty, MatchesReference) {
  checkShapes(GetParam(), {ScanSizes{{2}, 0, 6, 2}, ScanSizes{{2}, 3, 0, 2},
                           ScanSizes{{2}, 3, 6, 0}});
}

std::vector<ScanSpec> emptyCases() {
  std::vector<ScanSpec> specs;
  for (ScanSpec spec : structures())
    for (auto [schedule, chunk] : kSchedules) {
      spec.schedule = schedule;
      spec.chunkSize = chunk;
      spec.matrix = spec.init = spec.finalState = true;
      spec.readout = false;
      specs.push_back(spec);
      spec.readout = true;
      specs.push_back(spec);
    }
  return specs;
}

INSTANTIATE_TEST_SUITE_P(AllStructures, ScanEmpty,
                         ::testing::ValuesIn(emptyCases()), specName);

} // namespace

namespace {
/// Long-memory transitions (see InputFamily::LongMemory) at T = 1031: prime,
/// so neither a power of two nor a multiple of any chunk, and long enough
/// that every level of the scan tree up to 512 and every chunk carry changes
/// the result. Every structure, schedule, direction and dtype, with init and
/// final state, for a vector state and a factored matrix state with readout.
class ScanLongMemory : public ScanExecution {};

TEST_P(ScanLongMemory, MatchesReference) {
  checkShapes(GetParam(), {ScanSizes{{2}, 1031, 6, 2}},
              InputFamily::LongMemory);
}

std::vector<ScanSpec> longMemoryCases() {
  std::vector<ScanSpec> specs;
  for (ScanSpec spec : structures())
    for (auto [schedule, chunk] :
         {std::pair<ScheduleKind, int64_t>{ScheduleKind::Sequential, 0},
          {ScheduleKind::Chunked, 8},
          {ScheduleKind::Chunked, 100},
          {ScheduleKind::Scan, 0}})
      for (bool reverse : {false, true})
        for (bool f64 : {false, true})
          for (bool matrix : {false, true}) {
            spec.schedule = schedule;
            spec.chunkSize = chunk;
            spec.reverse = reverse;
            spec.f64 = f64;
            spec.init = spec.finalState = true;
            spec.matrix = spec.factored = spec.readout = matrix;
            specs.push_back(spec);
          }
  return specs;
}

INSTANTIATE_TEST_SUITE_P(AllStructures, ScanLongMemory,
                         ::testing::ValuesIn(longMemoryCases()), specName);

/// bf16 and f16 operands with an f32 state (`accumulate(f32)`): every
/// structure and schedule, both directions, a vector state with init and a
/// factored matrix state with readout. The reference runs in float64 on the
/// operands rounded to their type; the output, stored in that type, may
/// differ by its rounding, the final state (f32) only by f32 roundoff.
class ScanMixedPrecision : public ScanExecution {};

TEST_P(ScanMixedPrecision, MatchesReference) {
  checkShapes(GetParam(), kTwoBatchDims);
}

std::vector<ScanSpec> mixedPrecisionCases() {
  std::vector<ScanSpec> specs;
  for (ScanSpec spec : structures())
    for (auto [schedule, chunk] :
         {std::pair<ScheduleKind, int64_t>{ScheduleKind::Sequential, 0},
          {ScheduleKind::Chunked, 8},
          {ScheduleKind::Scan, 0}})
      for (bool matrix : {false, true}) {
        spec.schedule = schedule;
        spec.chunkSize = chunk;
        spec.init = spec.finalState = true;
        spec.matrix = spec.factored = spec.readout = matrix;
        spec.batchRank = 2;
        spec.operandType = "bf16";
        spec.reverse = false;
        specs.push_back(spec);
        spec.operandType = "f16";
        spec.reverse = true;
        specs.push_back(spec);
      }
  return specs;
}

INSTANTIATE_TEST_SUITE_P(AllStructures, ScanMixedPrecision,
                         ::testing::ValuesIn(mixedPrecisionCases()), specName);

/// Float32 over a million steps with gates in [0.998, 1] and a third of the
/// steps in runs of exact 1s: the state remembers about 1500 steps and
/// grows to tens, and the float32 error must stay within the roundoff of
/// that memory (the tolerance rule with L = 1 / mean(1 - a)), not grow with
/// the million steps (a drift bound).
/// The million-step problem above with gates in [lowest, 1] and operands
/// rounded to `operandType` (empty: f32), checked under every schedule.
static void checkMillionSteps(MLIRContext *context,
                              const std::string &operandType, double lowest,
                              double minMemory) {
  const ScanSizes sizes{{1}, 1000000, 3, 1};
  ElementType type =
      operandType.empty() ? ElementType::F32 : *elementTypeNamed(operandType);
  std::mt19937_64 engine(42);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> gates(sizes.steps * sizes.size), inputs(gates.size());
  double forgetting = 0.0; // the mean of 1 - a_t
  for (int64_t n = 0; n < sizes.size; ++n)
    for (int64_t t = 0, run = 0; t < sizes.steps; ++t) {
      if (run == 0 && unit(engine) < 1.0 / 64)
        run = 32;
      double a = run > 0 ? (--run, 1.0) : lowest + (1 - lowest) * unit(engine);
      gates[t * sizes.size + n] = roundTo(type, a);
      forgetting += 1.0 - gates[t * sizes.size + n];
    }
  forgetting /= gates.size();
  for (double &b : inputs)
    b = roundTo(type, 2.0 * unit(engine) - 1.0);
  const double memory = 1.0 / forgetting;
  ASSERT_GT(memory, minMemory);
  ASSERT_LT(memory, 0.01 * sizes.steps);

  for (auto [schedule, chunk] :
       {std::pair<ScheduleKind, int64_t>{ScheduleKind::Sequential, 0},
        {ScheduleKind::Chunked, 4096},
        {ScheduleKind::Scan, 0}}) {
    ScanSpec spec;
    spec.structure = "diagonal";
    spec.schedule = schedule;
    spec.chunkSize = chunk;
    spec.finalState = true;
    spec.operandType = operandType;
    SCOPED_TRACE(spec.describe());
    OwningOpRef<ModuleOp> module = buildScanModule(context, spec);
    auto jit = JitModule::compile(*module, {"scan"});
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    ReferenceResult want = referenceScan(spec, sizes, {gates, inputs});
    RunResult got = runScan(**jit, spec, sizes, {gates, inputs});
    // The inputs really exercise the memory: states reach tens.
    double largest = 0.0;
    for (double h : want.output)
      largest = std::max(largest, std::fabs(h));
    EXPECT_GT(largest, 20.0);
    // The state is f32 either way: its error is f32 roundoff over the
    // memory, which a state held in bf16 (2^-8) would exceed a thousandfold.
    double tolerance = 8.0 * 0x1p-24 * std::sqrt(memory);
    expectClose(got.output, want.output, tolerance + outputRoundingFor(spec),
                "output");
    expectClose(got.finalState, want.finalState, tolerance, "final state");
  }
}

TEST_F(ScanExecution, Float32StaysStableOverAMillionSteps) {
  checkMillionSteps(context, "", 0.998, 1000.0);
}

/// bf16 gates and inputs with an f32 state over a million steps. In bf16
/// the gates of [0.99, 1] fall on 0.9921875, 0.99609375 and 1, so the state
/// remembers a few hundred steps.
TEST_F(ScanExecution, Bf16OperandsKeepAFloat32StateOverAMillionSteps) {
  checkMillionSteps(context, "bf16", 0.99, 200.0);
}
} // namespace

namespace {
/// block_diagonal<2> and <4> steps on the CPU multiply a vector register of
/// blocks at a time (-recurrence-vectorize-block-steps: 8 or 4 blocks of
/// f32, 4 or 2 of f64), and the blocks after the last whole group one by
/// one. The state sizes give whole groups only (N = 64), whole groups and
/// blocks left over (N = 60, 26), and fewer blocks than a group (N = 8, 6).
class ScanVectorBlocks : public ScanExecution {};

TEST_P(ScanVectorBlocks, MatchesReference) {
  ScanSpec spec = GetParam();
  std::vector<ScanSizes> shapes;
  for (int64_t size : {64, 60, 8, 26, 6})
    if (size % (spec.structure == "block_diagonal<4>" ? 4 : 2) == 0)
      shapes.push_back(ScanSizes{{2}, 33, size, 1});
  checkShapes(spec, shapes);
}

std::vector<ScanSpec> vectorBlockCases() {
  std::vector<ScanSpec> specs;
  ScanSpec spec;
  spec.finalState = true;
  for (std::string structure : {"block_diagonal<2>", "block_diagonal<4>"})
    for (auto [schedule, chunk] : kSchedules)
      for (bool f64 : {false, true})
        for (bool reverse : {false, true}) {
          spec.structure = structure;
          spec.schedule = schedule;
          spec.chunkSize = chunk;
          spec.f64 = f64;
          spec.reverse = spec.init = reverse;
          specs.push_back(spec);
        }
  return specs;
}

INSTANTIATE_TEST_SUITE_P(SmallBlocks, ScanVectorBlocks,
                         ::testing::ValuesIn(vectorBlockCases()), specName);
} // namespace

namespace {
/// Long states with a batch smaller than the cores are split into channel
/// tiles of at least 512 channels, each with at least 16 steps of that
/// work, by the sequential lowering (N = 1101, T = 17 on two cores: two
/// tiles, in whole blocks of 3 for block_diagonal<3>, the last one
/// shorter; a batch of two: one tile per element).
class ScanChannelTiles : public ScanExecution {};

TEST_P(ScanChannelTiles, MatchesReference) {
  ScanSpec spec = GetParam();
  // Planned for two cores whatever this machine has, so that the tiles are
  // the ones described above.
  if (spec.batchRank == 0)
    checkShapes(spec, {ScanSizes{{}, 17, 1101, 2}}, InputFamily::Contractive,
                2);
  else
    checkShapes(spec, {ScanSizes{{1}, 17, 1101, 2}, ScanSizes{{2}, 3, 1101, 2}},
                InputFamily::Contractive, 2);
}

std::vector<ScanSpec> channelTileCases() {
  std::vector<ScanSpec> specs;
  for (ScanSpec spec : structures()) {
    if (spec.structure == "dense" || spec.structure == "dplr<2>")
      continue;
    spec.schedule = ScheduleKind::Sequential;
    spec.finalState = spec.init = true;
    for (int64_t rank : {0, 1}) {
      spec.batchRank = rank;
      spec.reverse = rank == 1;
      spec.matrix = spec.factored = false;
      specs.push_back(spec);
      spec.matrix = spec.factored = true;
      specs.push_back(spec);
    }
  }
  ScanSpec perElement;
  perElement.schedule = ScheduleKind::Sequential;
  perElement.matrix = perElement.perElement = perElement.finalState = true;
  specs.push_back(perElement);
  return specs;
}

INSTANTIATE_TEST_SUITE_P(AllStructures, ScanChannelTiles,
                         ::testing::ValuesIn(channelTileCases()), specName);
} // namespace
