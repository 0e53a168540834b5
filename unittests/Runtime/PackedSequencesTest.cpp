//===- PackedSequencesTest.cpp - Scans over packed sequences --------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A scan with `offsets` runs several sequences packed along T. Each
// structure and schedule is compiled and run on sequences of lengths 0, 1,
// shorter and longer than a chunk (boundaries inside chunks), and checked
// against the float64 reference run on each sequence alone.
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "recurrence/Runtime/JitModule.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

struct Case {
  std::string structure;
  ScheduleKind schedule;
  bool reverse, init, finalState, matrix, factored, readout;
};

std::string describe(const Case &c) {
  std::string name =
      c.structure + "_" + stringifyScheduleKind(c.schedule).str();
  for (auto [on, flag] : {std::pair{c.reverse, "reverse"},
                          {c.init, "init"},
                          {c.finalState, "final"},
                          {c.matrix, "matrix"},
                          {c.factored, "factored"},
                          {c.readout, "readout"}})
    if (on)
      name += std::string("_") + flag;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)))
      ch = '_';
  return name;
}

void PrintTo(const Case &c, std::ostream *os) { *os << describe(c); }

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return describe(info.param);
}

class PackedSequences : public ::testing::TestWithParam<Case> {};

TEST_P(PackedSequences, MatchEachSequenceRunAlone) {
  const Case &c = GetParam();
  // Empty sequences first, in the middle and last; a boundary inside the
  // chunks of 3; one sequence longer than a chunk.
  const std::vector<int64_t> lengths = {0, 1, 5, 3, 0, 9, 2, 0};
  std::vector<int64_t> offsets = {0};
  for (int64_t length : lengths)
    offsets.push_back(offsets.back() + length);
  const int64_t steps = offsets.back(),
                sequences = static_cast<int64_t>(lengths.size());

  ScanSpec plain;
  plain.structure = c.structure;
  plain.schedule = c.schedule;
  plain.chunkSize = c.schedule == ScheduleKind::Chunked ? 3 : 0;
  plain.reverse = c.reverse;
  plain.init = c.init;
  plain.finalState = c.finalState;
  plain.matrix = c.matrix;
  plain.factored = c.factored;
  plain.readout = c.readout;
  plain.f64 = true;
  ScanSpec packed = plain;
  packed.offsets = true;
  ScanSizes sizes{{2}, steps, 4, c.matrix ? 3 : 1};
  sizes.sequences = sequences;

  std::unique_ptr<MLIRContext> context = makeContext();
  OwningOpRef<ModuleOp> module = buildScanModule(context.get(), packed);
  ASSERT_TRUE(module);
  auto jit = JitModule::compile(*module, {"scan"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());

  // The operands of the plain scan over all steps; init per sequence.
  std::vector<ScanOperand> layout = referenceOperands(plain, sizes);
  std::vector<std::vector<double>> operands = randomScanOperands(
      plain, sizes, stableHash(packed.describe()), InputFamily::LongMemory);
  std::vector<int64_t> stateShape = referenceFinalStateShape(plain, sizes);
  std::vector<int64_t> packedStateShape = stateShape;
  packedStateShape.insert(packedStateShape.begin() + 1, sequences);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> inits(numElements(packedStateShape));
  for (double &x : inits)
    x = uniform(rng);

  std::vector<std::vector<double>> args;
  std::vector<std::vector<int64_t>> argShapes;
  for (auto [operand, values] : llvm::zip(layout, operands)) {
    bool init = operand.role == OperandRole::Init;
    args.push_back(init ? inits : values);
    argShapes.push_back(init ? packedStateShape : operand.shape);
  }
  args.push_back(std::vector<double>(offsets.begin(), offsets.end()));
  argShapes.push_back({sequences + 1});
  std::vector<int64_t> outputShape = referenceOutputShape(plain, sizes);
  std::vector<std::vector<int64_t>> resultShapes = {outputShape};
  if (c.finalState)
    resultShapes.push_back(packedStateShape);
  std::vector<std::vector<double>> got =
      runFunction(**jit, "scan", args, argShapes, resultShapes);
  ASSERT_EQ(got.size(), resultShapes.size());

  // Each sequence alone, by the reference.
  std::vector<std::vector<double>> referenceArgs(args.begin(), args.end() - 1);
  ReferenceResult want =
      referencePackedScan(plain, sizes, offsets, referenceArgs);
  std::vector<double> wantOutput = want.output, wantFinal = want.finalState;
  double tolerance = 1e-12;
  expectClose(got[0], wantOutput, tolerance, "output");
  if (c.finalState)
    expectClose(got[1], wantFinal, tolerance, "final states");
}

std::vector<Case> cases() {
  std::vector<Case> all;
  for (const char *structure : {"identity", "scalar", "diagonal",
                                "block_diagonal<2>", "dplr<1>", "dense"})
    for (ScheduleKind schedule : {ScheduleKind::Sequential,
                                  ScheduleKind::Chunked, ScheduleKind::Scan}) {
      // Forward with every operand; reversed without init.
      all.push_back(
          {structure, schedule, false, true, true, false, false, false});
      all.push_back(
          {structure, schedule, true, false, true, false, false, false});
    }
  // Matrix states: a factored input and a readout (linear attention), with
  // and without init and final states.
  for (const char *structure : {"identity", "diagonal"})
    for (ScheduleKind schedule :
         {ScheduleKind::Sequential, ScheduleKind::Chunked}) {
      all.push_back(
          {structure, schedule, false, false, false, true, true, true});
      all.push_back({structure, schedule, true, true, true, true, true, true});
    }
  return all;
}

INSTANTIATE_TEST_SUITE_P(AllStructures, PackedSequences,
                         ::testing::ValuesIn(cases()), caseName);

} // namespace
