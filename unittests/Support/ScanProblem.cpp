//===- ScanProblem.cpp - Random scan problems for tests -------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ScanProblem.h"

#include "recurrence/Pipelines/Pipelines.h"

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
  registerAllRecurrenceDialects(registry);
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

namespace {
/// Holds one buffer in the kernel's element type.
struct TypedBuffer {
  std::vector<float> f32;
  std::vector<double> f64;
  bool isF64;

  TypedBuffer(bool isF64, const std::vector<double> &values) : isF64(isF64) {
    if (isF64)
      f64 = values;
    else
      f32.assign(values.begin(), values.end());
  }
  void *data() {
    return isF64 ? static_cast<void *>(f64.data())
                 : static_cast<void *>(f32.data());
  }
  std::vector<double> values() const {
    return isF64 ? f64 : std::vector<double>(f32.begin(), f32.end());
  }
};
} // namespace

RunResult mlir::recurrence::testing::runScan(
    JitModule &jit, const ScanSpec &spec, const ScanSizes &sizes,
    const std::vector<std::vector<double>> &operands) {
  unsigned bits = spec.f64 ? 64 : 32;
  std::vector<ScanOperand> layout = referenceOperands(spec, sizes);
  std::vector<TypedBuffer> inputs;
  std::vector<BufferView> args;
  inputs.reserve(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    inputs.emplace_back(spec.f64, operands[i]);
    args.push_back(
        BufferView::contiguous(inputs.back().data(), bits, layout[i].shape));
  }
  std::vector<int64_t> outShape = referenceOutputShape(spec, sizes);
  std::vector<int64_t> lastShape = referenceFinalStateShape(spec, sizes);
  // Poison the outputs so that unwritten elements are caught.
  TypedBuffer out(spec.f64, std::vector<double>(numElements(outShape), NAN));
  TypedBuffer last(spec.f64, std::vector<double>(numElements(lastShape), NAN));
  std::vector<BufferView> results = {
      BufferView::contiguous(out.data(), bits, outShape)};
  if (spec.finalState)
    results.push_back(BufferView::contiguous(last.data(), bits, lastShape));
  if (llvm::Error error = jit.call("scan", args, results)) {
    ADD_FAILURE() << llvm::toString(std::move(error));
    return {};
  }
  return {out.values(),
          spec.finalState ? last.values() : std::vector<double>{}};
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
