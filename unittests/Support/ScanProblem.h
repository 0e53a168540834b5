//===- ScanProblem.h - Random scan problems for tests -----------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_UNITTESTS_SUPPORT_SCANPROBLEM_H
#define RECURRENCE_UNITTESTS_SUPPORT_SCANPROBLEM_H

#include "recurrence/Reference/ScanReference.h"
#include "recurrence/Runtime/JitModule.h"
#include "recurrence/Runtime/ScanSpec.h"

#include "mlir/IR/MLIRContext.h"

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace mlir::recurrence::testing {

/// A context with every dialect and translation the pipelines need.
std::unique_ptr<MLIRContext> makeContext();

/// The result of running a compiled scan on one problem.
struct RunResult {
  std::vector<double> output, finalState;
};

/// Runs the `scan` entry of `jit` on `operands` (converted to the element
/// type). Fails the current test on a runtime error.
RunResult runScan(JitModule &jit, const ScanSpec &spec, const ScanSizes &sizes,
                  const std::vector<std::vector<double>> &operands);

/// max |got - want| / (1 + |want|).
double maxRelativeError(const std::vector<double> &got,
                        const std::vector<double> &want);

/// The tolerance on maxRelativeError for a dtype.
inline double toleranceFor(const ScanSpec &spec) {
  return spec.f64 ? 1e-10 : 2e-4;
}

int64_t numElements(const std::vector<int64_t> &shape);

} // namespace mlir::recurrence::testing

namespace mlir::recurrence {
/// Lets GoogleTest print a spec by name.
inline void PrintTo(const ScanSpec &spec, std::ostream *os) {
  *os << spec.describe();
}
} // namespace mlir::recurrence

#endif // RECURRENCE_UNITTESTS_SUPPORT_SCANPROBLEM_H
