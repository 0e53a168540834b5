//===- AdjointTest.cpp - Derived gradients against finite differences -----===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The gradient function that -recurrence-differentiate derives for a scan,
// compiled and run, against central differences of the float64 reference:
// every structure x {vector, matrix, factored matrix} state x {plain,
// reverse, init with readout, all three}, all with the final state,
// sequentially; the chunked and scan schedules on the vector and factored
// states with all three. Each operand's gradient is checked along its own
// random direction, and all of them along one through every operand, at shapes
// with two batch dims, T = 1, T = 9 and an empty batch.
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

using Array = std::vector<double>;

double dot(const Array &x, const Array &y) {
  double sum = 0.0;
  for (size_t i = 0; i < x.size(); ++i)
    sum += x[i] * y[i];
  return sum;
}

class AdjointExecution : public ::testing::TestWithParam<ScanSpec> {
protected:
  static void SetUpTestSuite() { context = makeContext().release(); }
  static void TearDownTestSuite() {
    delete context;
    context = nullptr;
  }

  void check(const ScanSpec &spec, ArrayRef<ScanSizes> shapes,
             int64_t checkpoint = 0) {
    OwningOpRef<ModuleOp> module = buildScanModule(context, spec);
    ASSERT_TRUE(module);
    PassManager pm(context);
    DifferentiatePassOptions options;
    options.checkpoint = checkpoint;
    pm.addPass(createDifferentiatePass(options));
    ASSERT_TRUE(succeeded(pm.run(*module)));
    // Only the gradient is compiled (it recomputes the forward scan).
    module->lookupSymbol<func::FuncOp>("scan").erase();
    auto jit = JitModule::compile(*module, {"scan_grad"});
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    for (auto [index, sizes] : llvm::enumerate(shapes)) {
      SCOPED_TRACE("shape #" + std::to_string(index) +
                   " T=" + std::to_string(sizes.steps));
      checkShape(**jit, spec, sizes, stableHash(spec.describe()) + 101 * index);
    }
  }

  void checkShape(JitModule &jit, const ScanSpec &spec, const ScanSizes &sizes,
                  uint64_t seed) {
    std::vector<Array> operands =
        randomScanOperands(spec, sizes, seed, InputFamily::Contractive);
    std::vector<std::vector<int64_t>> shapes;
    for (const ScanOperand &operand : referenceOperands(spec, sizes))
      shapes.push_back(operand.shape);
    checkGradients(
        jit, operands, shapes,
        {referenceOutputShape(spec, sizes),
         referenceFinalStateShape(spec, sizes)},
        operands.size(),
        [&](const std::vector<Array> &moved) {
          return referenceScan(spec, sizes, moved);
        },
        seed);
  }

  /// Checks the gradients scan_grad returns for the first `differentiable`
  /// of `operands` (the rest, e.g. offsets, are fixed) against central
  /// differences of `reference`, for the loss sum(cotangent * output) +
  /// sum(cotangent * final state).
  void checkGradients(
      JitModule &jit, const std::vector<Array> &operands,
      const std::vector<std::vector<int64_t>> &shapes,
      const std::vector<std::vector<int64_t>> &resultShapes,
      size_t differentiable,
      function_ref<ReferenceResult(const std::vector<Array> &)> reference,
      uint64_t seed) {
    std::mt19937_64 engine(seed ^ 0x5eed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    auto draw = [&](const std::vector<int64_t> &shape) {
      Array values(numElements(shape));
      for (double &value : values)
        value = uniform(engine);
      return values;
    };
    std::vector<Array> cotangents = {draw(resultShapes[0]),
                                     draw(resultShapes[1])};

    std::vector<Array> args(operands);
    std::vector<std::vector<int64_t>> argShapes(shapes);
    for (int i = 0; i < 2; ++i) {
      args.push_back(cotangents[i]);
      argShapes.push_back(resultShapes[i]);
    }
    std::vector<Array> gradients =
        runFunction(jit, "scan_grad", args, argShapes, shapes);
    ASSERT_EQ(gradients.size(), operands.size());

    auto loss = [&](const std::vector<Array> &direction, double step) {
      std::vector<Array> moved(operands);
      for (size_t i = 0; i < differentiable; ++i)
        for (size_t j = 0; j < moved[i].size(); ++j)
          moved[i][j] += step * direction[i][j];
      ReferenceResult result = reference(moved);
      return dot(result.output, cotangents[0]) +
             dot(result.finalState, cotangents[1]);
    };
    for (size_t along = 0; along <= differentiable; ++along) {
      std::vector<Array> direction;
      for (size_t i = 0; i < differentiable; ++i) {
        direction.push_back(draw(shapes[i]));
        if (along < differentiable && i != along)
          std::fill(direction.back().begin(), direction.back().end(), 0.0);
      }
      // Central differences at steps s and s/2, extrapolated; the scan is a
      // polynomial in its operands, so their gap bounds the truncation.
      constexpr double step = 1e-3;
      double coarse =
          (loss(direction, step) - loss(direction, -step)) / (2 * step);
      double fine =
          (loss(direction, step / 2) - loss(direction, -step / 2)) / step;
      double difference = (4 * fine - coarse) / 3;
      double exact = 0.0, scale = 0.0;
      for (size_t i = 0; i < differentiable; ++i) {
        exact += dot(gradients[i], direction[i]);
        for (size_t j = 0; j < direction[i].size(); ++j)
          scale += std::fabs(gradients[i][j] * direction[i][j]);
      }
      double tolerance = 1e-9 * (1.0 + scale) + 1e-2 * std::fabs(fine - coarse);
      EXPECT_LE(std::fabs(exact - difference), tolerance)
          << "along "
          << (along < differentiable ? "operand #" + std::to_string(along)
                                     : std::string("every operand"))
          << ": <grad, d> = " << exact
          << ", central difference = " << difference;
    }
  }

  static MLIRContext *context;
};

MLIRContext *AdjointExecution::context = nullptr;

/// Two batch dims; N a multiple of the block size 3.
const ScanSizes kShapes[] = {
    {{2, 1}, 9, 6, 2}, // T not a multiple of the chunk
    {{1, 2}, 1, 3, 2}, // T = 1
    {{0, 2}, 4, 6, 2}, // empty batch
};

TEST_P(AdjointExecution, MatchesFiniteDifferences) {
  check(GetParam(), kShapes);
}

std::vector<ScanSpec> cases() {
  std::vector<ScanSpec> specs;
  for (std::string structure :
       {"identity", "scalar", "diagonal", "block_diagonal<3>", "dplr<2>",
        "dense", "higher_order<2>"}) {
    ScanSpec base;
    base.structure = structure;
    base.batchRank = 2;
    base.finalState = true;
    base.f64 = true;
    ScanSpec vector = base, matrix = base, factored = base;
    matrix.matrix = factored.matrix = factored.factored = true;
    std::vector<ScanSpec> states = {vector, matrix, factored};
    if (structure == "diagonal") {
      ScanSpec perElement = matrix;
      perElement.perElement = true;
      states.push_back(perElement);
    }
    // (reverse, init, readout): each flag on and off, and all together.
    const bool flags[][3] = {{false, false, false},
                             {true, false, false},
                             {false, true, true},
                             {true, true, true}};
    for (ScanSpec spec : states)
      for (auto [reverse, init, readout] : flags) {
        spec.reverse = reverse;
        spec.init = init;
        spec.readout = readout;
        spec.schedule = ScheduleKind::Sequential;
        specs.push_back(spec);
        // The other schedules share the adjoint's construction: one
        // variant with everything on per state kind that they run.
        if (!reverse || !init || !readout || (spec.matrix && !spec.factored))
          continue;
        for (auto [schedule, chunk] :
             {std::pair(ScheduleKind::Chunked, int64_t(4)),
              std::pair(ScheduleKind::Scan, int64_t(0))}) {
          spec.schedule = schedule;
          spec.chunkSize = chunk;
          specs.push_back(spec);
        }
        spec.chunkSize = 0;
      }
  }
  return specs;
}

/// The states recomputed 4 steps at a time: T = 9 is chunks of 4, 4 and
/// 1, T = 8 two full chunks, T = 0 none (the final state is init).
class AdjointCheckpointed : public AdjointExecution {};

const ScanSizes kCheckpointShapes[] = {
    {{2, 1}, 9, 6, 2},
    {{1, 2}, 8, 3, 2},
    {{1, 2}, 1, 3, 2},
    {{2, 1}, 0, 3, 2},
};

TEST_P(AdjointCheckpointed, MatchesFiniteDifferences) {
  check(GetParam(), kCheckpointShapes, /*checkpoint=*/4);
}

std::vector<ScanSpec> checkpointCases() {
  std::vector<ScanSpec> specs;
  for (const ScanSpec &spec : cases())
    if (spec.schedule != ScheduleKind::Scan && spec.init && spec.readout &&
        spec.reverse)
      specs.push_back(spec);
  return specs;
}

/// Sequences of lengths 0, 1, 4, 0, 3 packed along T = 8 (two batch dims),
/// and all of T = 0 in three empty sequences.
class AdjointPacked : public AdjointExecution {
protected:
  void checkPacked(const ScanSpec &spec, const ScanSizes &plainSizes,
                   const std::vector<int64_t> &offsets, uint64_t seed) {
    ScanSpec packed = spec;
    packed.offsets = true;
    ScanSizes sizes = plainSizes;
    sizes.sequences = static_cast<int64_t>(offsets.size()) - 1;
    OwningOpRef<ModuleOp> module = buildScanModule(context, packed);
    ASSERT_TRUE(module);
    PassManager pm(context);
    pm.addPass(createDifferentiatePass());
    ASSERT_TRUE(succeeded(pm.run(*module)));
    module->lookupSymbol<func::FuncOp>("scan").erase();
    auto jit = JitModule::compile(*module, {"scan_grad"});
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());

    std::vector<Array> operands =
        randomScanOperands(spec, sizes, seed, InputFamily::Contractive);
    std::vector<std::vector<int64_t>> shapes;
    std::vector<int64_t> stateShape = referenceFinalStateShape(spec, sizes);
    stateShape.insert(stateShape.begin() + spec.batchRank, sizes.sequences);
    for (auto [operand, values] :
         llvm::zip(referenceOperands(spec, sizes), operands)) {
      bool init = operand.role == OperandRole::Init;
      shapes.push_back(init ? stateShape : operand.shape);
      if (!init)
        continue;
      // One init per sequence.
      std::mt19937_64 engine(seed);
      std::uniform_real_distribution<double> uniform(-1.0, 1.0);
      values.resize(numElements(stateShape));
      for (double &x : values)
        x = uniform(engine);
    }
    size_t differentiable = operands.size();
    operands.emplace_back(offsets.begin(), offsets.end());
    shapes.push_back({sizes.sequences + 1});
    checkGradients(
        **jit, operands, shapes,
        {referenceOutputShape(spec, sizes), stateShape}, differentiable,
        [&](const std::vector<Array> &moved) {
          return referencePackedScan(
              spec, sizes, offsets,
              std::vector<Array>(moved.begin(), moved.end() - 1));
        },
        seed);
  }
};

TEST_P(AdjointPacked, MatchesFiniteDifferences) {
  const ScanSpec &spec = GetParam();
  uint64_t seed = stableHash(spec.describe());
  {
    SCOPED_TRACE("lengths 0, 1, 4, 0, 3");
    checkPacked(spec, {{2, 1}, 8, 6, 2}, {0, 0, 1, 5, 5, 8}, seed);
  }
  {
    SCOPED_TRACE("T = 0");
    checkPacked(spec, {{1, 2}, 0, 3, 2}, {0, 0, 0, 0}, seed + 1);
  }
}

/// Per structure: a vector state forward and reversed, sequentially, with
/// init and a readout, and reversed without either; a factored matrix state
/// with a readout reversed, sequentially and chunked; the scan schedule on
/// two structures.
std::vector<ScanSpec> packedCases() {
  std::vector<ScanSpec> specs;
  for (const ScanSpec &spec : cases()) {
    bool bare = spec.reverse && !spec.init && !spec.readout && !spec.matrix;
    if (spec.structure == "higher_order<2>" || (!spec.init && !bare) ||
        spec.perElement || (spec.matrix && !spec.factored) ||
        (spec.factored && !spec.reverse))
      continue;
    bool scanned = spec.structure == "diagonal" || spec.structure == "dplr<2>";
    if (spec.schedule == ScheduleKind::Sequential ||
        (spec.factored && spec.schedule == ScheduleKind::Chunked) ||
        (spec.factored && scanned))
      specs.push_back(spec);
  }
  return specs;
}

std::string specName(const ::testing::TestParamInfo<ScanSpec> &info) {
  return specTestName(info.param);
}

INSTANTIATE_TEST_SUITE_P(AllStructures, AdjointExecution,
                         ::testing::ValuesIn(cases()), specName);
INSTANTIATE_TEST_SUITE_P(AllStructures, AdjointCheckpointed,
                         ::testing::ValuesIn(checkpointCases()), specName);
INSTANTIATE_TEST_SUITE_P(AllStructures, AdjointPacked,
                         ::testing::ValuesIn(packedCases()), specName);

} // namespace
