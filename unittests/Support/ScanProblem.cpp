//===- ScanProblem.cpp - Random scan problems for tests -------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ScanProblem.h"

#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/HostBuffer.h"

#include "mlir/IR/DialectRegistry.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

std::unique_ptr<MLIRContext> mlir::recurrence::testing::makeContext() {
  DialectRegistry registry;
  registerRecurrenceRuntimeDialects(registry);
  auto context = std::make_unique<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

int64_t
mlir::recurrence::testing::numElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

std::string mlir::recurrence::testing::specTestName(const ScanSpec &spec) {
  std::string name = spec.describe();
  for (char &c : name)
    if (!isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return name;
}

std::vector<std::vector<double>> mlir::recurrence::testing::runFunction(
    JitModule &jit, StringRef name,
    const std::vector<std::vector<double>> &args,
    const std::vector<std::vector<int64_t>> &argShapes,
    const std::vector<std::vector<int64_t>> &resultShapes) {
  const JitModule::Signature *signature = jit.getSignature(name);
  if (!signature) {
    ADD_FAILURE() << "no entry '" << name.str() << "'";
    return {};
  }
  std::vector<HostBuffer> inputs, outputs;
  std::vector<BufferView> argViews, resultViews;
  inputs.reserve(args.size());
  outputs.reserve(resultShapes.size());
  for (size_t i = 0; i < args.size(); ++i) {
    inputs.emplace_back(signature->argTypes[i], argShapes[i], args[i]);
    argViews.push_back(inputs.back().view());
  }
  // Poison the outputs so that unwritten elements are caught.
  for (auto [index, shape] : llvm::enumerate(resultShapes)) {
    outputs.emplace_back(signature->resultTypes[index], shape,
                         std::vector<double>(numElements(shape), NAN));
    resultViews.push_back(outputs.back().view());
  }
  if (llvm::Error error = jit.call(name, argViews, resultViews)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return {};
  }
  std::vector<std::vector<double>> results;
  for (const HostBuffer &buffer : outputs)
    results.push_back(buffer.values());
  return results;
}

RunResult mlir::recurrence::testing::runScan(
    JitModule &jit, const ScanSpec &spec, const ScanSizes &sizes,
    const std::vector<std::vector<double>> &operands) {
  std::vector<std::vector<int64_t>> argShapes;
  for (const ScanOperand &operand : referenceOperands(spec, sizes))
    argShapes.push_back(operand.shape);
  std::vector<std::vector<int64_t>> resultShapes = {
      referenceOutputShape(spec, sizes)};
  if (spec.finalState)
    resultShapes.push_back(referenceFinalStateShape(spec, sizes));
  std::vector<std::vector<double>> results =
      runFunction(jit, "scan", operands, argShapes, resultShapes);
  if (results.empty())
    return {};
  return {results[0], spec.finalState ? results[1] : std::vector<double>{}};
}

double
mlir::recurrence::testing::relativeError(const std::vector<double> &got,
                                         const std::vector<double> &want) {
  if (got.size() != want.size())
    return INFINITY;
  double squares = 0.0;
  for (double w : want)
    squares += w * w;
  double rms = want.empty() ? 0.0 : std::sqrt(squares / want.size());
  double worst = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    double difference = std::fabs(got[i] - want[i]);
    if (difference == 0.0)
      continue;
    double error = difference / (std::fabs(want[i]) + rms);
    if (!(error <= worst)) // NaN and division by zero propagate
      worst = std::isnan(error) || std::isinf(error) ? INFINITY : error;
  }
  return worst;
}

/// The roundings of one step, in units of eps: a product and a sum, the
/// step's contraction (up to N terms), a readout's contraction and, under
/// the chunked and scan schedules, the composed transitions. Measured
/// errors stay below a third of the tolerance this gives (0.3 at T = 1031
/// on long-memory inputs, 0.3 for readouts at T = 1).
static constexpr double kRoundingsPerStep = 8.0;

double mlir::recurrence::testing::toleranceFor(const ScanSpec &spec,
                                               const ScanSizes &sizes,
                                               InputFamily family) {
  double eps = spec.f64 ? 0x1p-53 : 0x1p-24;
  return kRoundingsPerStep * eps *
         std::sqrt(effectiveLength(spec, family, sizes));
}

double mlir::recurrence::testing::outputRoundingFor(const ScanSpec &spec) {
  if (spec.operandType == "bf16")
    return 0x1p-8;
  if (spec.operandType == "f16")
    return 0x1p-11;
  return 0.0;
}

void mlir::recurrence::testing::expectClose(const std::vector<double> &got,
                                            const std::vector<double> &want,
                                            double tolerance,
                                            const std::string &what) {
  double error = relativeError(got, want);
  EXPECT_LE(error, tolerance) << what << ": relative error " << error
                              << " over the tolerance " << tolerance;
  if (std::getenv("RECURRENCE_PRINT_ERRORS")) {
    const ::testing::TestInfo *test =
        ::testing::UnitTest::GetInstance()->current_test_info();
    std::printf("error/tolerance %.3f %s %s\n", error / tolerance,
                test ? test->name() : "", what.c_str());
  }
}

uint64_t mlir::recurrence::testing::stableHash(const std::string &text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

namespace {
/// Rows [lo, hi) of dim `at` of a row-major array of `shape`.
std::vector<double> rowsOf(const std::vector<double> &data,
                           const std::vector<int64_t> &shape, size_t at,
                           int64_t lo, int64_t hi) {
  int64_t rows = shape[at];
  int64_t outer = numElements({shape.begin(), shape.begin() + at});
  int64_t inner = numElements({shape.begin() + at + 1, shape.end()});
  std::vector<double> result;
  for (int64_t o = 0; o < outer; ++o)
    result.insert(result.end(), data.begin() + (o * rows + lo) * inner,
                  data.begin() + (o * rows + hi) * inner);
  return result;
}

/// Writes `part` into rows [lo, hi) of dim `at`.
void setRows(std::vector<double> &data, const std::vector<int64_t> &shape,
             size_t at, int64_t lo, int64_t hi,
             const std::vector<double> &part) {
  int64_t rows = shape[at];
  int64_t outer = numElements({shape.begin(), shape.begin() + at});
  int64_t inner = numElements({shape.begin() + at + 1, shape.end()});
  for (int64_t o = 0; o < outer; ++o)
    std::copy(part.begin() + o * (hi - lo) * inner,
              part.begin() + (o + 1) * (hi - lo) * inner,
              data.begin() + (o * rows + lo) * inner);
}
} // namespace

ReferenceResult mlir::recurrence::testing::referencePackedScan(
    const ScanSpec &spec, const ScanSizes &sizes,
    const std::vector<int64_t> &offsets,
    const std::vector<std::vector<double>> &operands) {
  size_t at = spec.batchRank;
  int64_t sequences = static_cast<int64_t>(offsets.size()) - 1;
  std::vector<ScanOperand> layout = referenceOperands(spec, sizes);
  std::vector<int64_t> outputShape = referenceOutputShape(spec, sizes);
  std::vector<int64_t> stateShape = referenceFinalStateShape(spec, sizes);
  stateShape.insert(stateShape.begin() + at, sequences);
  ReferenceResult result{std::vector<double>(numElements(outputShape)),
                         std::vector<double>(numElements(stateShape))};
  for (int64_t s = 0; s < sequences; ++s) {
    int64_t lo = offsets[s], hi = offsets[s + 1];
    std::vector<double> init(numElements(stateShape) /
                             std::max<int64_t>(1, sequences));
    std::vector<std::vector<double>> part;
    for (auto [operand, values] : llvm::zip(layout, operands)) {
      if (operand.role != OperandRole::Init) {
        part.push_back(rowsOf(values, operand.shape, at, lo, hi));
        continue;
      }
      init = rowsOf(values, stateShape, at, s, s + 1);
      part.push_back(init);
    }
    if (lo == hi) {
      setRows(result.finalState, stateShape, at, s, s + 1, init);
      continue;
    }
    ScanSizes alone = sizes;
    alone.steps = hi - lo;
    ReferenceResult one = referenceScan(spec, alone, part);
    setRows(result.output, outputShape, at, lo, hi, one.output);
    setRows(result.finalState, stateShape, at, s, s + 1, one.finalState);
  }
  return result;
}
