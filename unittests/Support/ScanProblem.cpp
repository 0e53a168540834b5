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
  std::vector<ScanOperand> layout = scanOperands(spec, sizes);
  std::vector<TypedBuffer> inputs;
  std::vector<BufferView> args;
  inputs.reserve(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    inputs.emplace_back(spec.f64, operands[i]);
    args.push_back(
        BufferView::contiguous(inputs.back().data(), bits, layout[i].shape));
  }
  std::vector<int64_t> outShape = scanOutputShape(spec, sizes);
  std::vector<int64_t> lastShape = scanFinalStateShape(spec, sizes);
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
mlir::recurrence::testing::maxRelativeError(const std::vector<double> &got,
                                            const std::vector<double> &want) {
  if (got.size() != want.size())
    return INFINITY;
  double worst = 0.0;
  for (size_t i = 0; i < got.size(); ++i) {
    double error = std::fabs(got[i] - want[i]) / (1.0 + std::fabs(want[i]));
    if (!(error <= worst)) // NaN propagates
      worst = std::isnan(error) ? INFINITY : error;
  }
  return worst;
}
