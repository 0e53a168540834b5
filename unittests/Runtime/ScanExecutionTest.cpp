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
// is compiled
// once through -recurrence-to-llvm and run on random seeded problems of
// several shapes (T = 1, T = 257, odd N, two batch dims, an empty batch),
// then compared with the float64 reference.
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "gtest/gtest.h"

#include <functional>

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

  /// Compiles the scan of `spec` and checks it on every shape in `shapes`.
  void checkShapes(const ScanSpec &spec, ArrayRef<ScanSizes> shapes) {
    OwningOpRef<ModuleOp> module = buildScanModule(context, spec);
    auto jit = JitModule::compile(*module, {"scan"});
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    for (auto [index, sizes] : llvm::enumerate(shapes)) {
      uint64_t seed = std::hash<std::string>()(spec.describe()) + index;
      auto operands = randomScanOperands(spec, sizes, seed);
      ReferenceResult want = referenceScan(spec, sizes, operands);
      RunResult got = runScan(**jit, spec, sizes, operands);
      SCOPED_TRACE("shape #" + std::to_string(index) +
                   " T=" + std::to_string(sizes.steps) +
                   " N=" + std::to_string(sizes.size) +
                   " D=" + std::to_string(sizes.columns));
      EXPECT_LE(maxRelativeError(got.output, want.output), toleranceFor(spec));
      if (spec.finalState)
        EXPECT_LE(maxRelativeError(got.finalState, want.finalState),
                  toleranceFor(spec));
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
  auto add = [&](StructureKind kind, int64_t param) {
    ScanSpec spec;
    spec.structure = kind;
    spec.param = param;
    specs.push_back(spec);
  };
  add(StructureKind::Identity, 0);
  add(StructureKind::Scalar, 0);
  add(StructureKind::Diagonal, 0);
  add(StructureKind::BlockDiagonal, 3);
  add(StructureKind::Dplr, 2);
  add(StructureKind::Dense, 0);
  add(StructureKind::HigherOrder, 2);
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
    if (base.structure == StructureKind::Diagonal) {
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
  std::string name = info.param.describe();
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
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
/// Float32 over a million steps with |a_t| <= 1 stays finite and close to
/// float64, whatever the schedule.
TEST_F(ScanExecution, Float32StaysStableOverAMillionSteps) {
  for (auto [schedule, chunk] :
       {std::pair<ScheduleKind, int64_t>{ScheduleKind::Sequential, 0},
        {ScheduleKind::Chunked, 4096},
        {ScheduleKind::Scan, 0}}) {
    ScanSpec spec;
    spec.structure = StructureKind::Diagonal;
    spec.schedule = schedule;
    spec.chunkSize = chunk;
    spec.finalState = true;
    SCOPED_TRACE(spec.describe());
    ScanSizes sizes{{1}, 1000000, 3, 1};
    auto operands = randomScanOperands(spec, sizes, 42);
    // Stretch the gates to the whole of [-1, 1], ones included.
    for (double &a : operands[0])
      a = static_cast<float>(a / 0.95);
    operands[0][0] = operands[0][7] = 1.0;
    OwningOpRef<ModuleOp> module = buildScanModule(context, spec);
    auto jit = JitModule::compile(*module, {"scan"});
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    ReferenceResult want = referenceScan(spec, sizes, operands);
    RunResult got = runScan(**jit, spec, sizes, operands);
    EXPECT_LE(maxRelativeError(got.output, want.output), 1e-3);
    EXPECT_LE(maxRelativeError(got.finalState, want.finalState), 1e-3);
  }
}
} // namespace

namespace {
/// Long states with a batch smaller than the cores are split into channel
/// tiles of at least 512 channels by the sequential lowering (N = 1101 on
/// two cores: two tiles, in whole blocks of 3 for block_diagonal<3>, the
/// last one shorter).
class ScanChannelTiles : public ScanExecution {};

TEST_P(ScanChannelTiles, MatchesReference) {
  ScanSpec spec = GetParam();
  if (spec.batchRank == 0)
    checkShapes(spec, {ScanSizes{{}, 5, 1101, 2}});
  else
    checkShapes(spec,
                {ScanSizes{{1}, 5, 1101, 2}, ScanSizes{{2}, 3, 1101, 2}});
}

std::vector<ScanSpec> channelTileCases() {
  std::vector<ScanSpec> specs;
  for (ScanSpec spec : structures()) {
    if (spec.structure == StructureKind::Dense ||
        spec.structure == StructureKind::Dplr)
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
