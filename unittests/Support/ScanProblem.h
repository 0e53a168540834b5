//===- ScanProblem.h - Random scan problems for tests -----------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_UNITTESTS_SUPPORT_SCANPROBLEM_H
#define RECURRENCE_UNITTESTS_SUPPORT_SCANPROBLEM_H

#include "Reference/ScanReference.h"
#include "recurrence/Runtime/HostBuffer.h"
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

/// Runs function `name` of `jit` on `args` of the given shapes (converted to
/// the element types of its signature) and returns its results, of
/// `resultShapes`, in float64. Fails the current test (and returns nothing)
/// on a runtime error.
std::vector<std::vector<double>>
runFunction(JitModule &jit, StringRef name,
            const std::vector<std::vector<double>> &args,
            const std::vector<std::vector<int64_t>> &argShapes,
            const std::vector<std::vector<int64_t>> &resultShapes);

/// max_i |got_i - want_i| / (|want_i| + rms(want)): relative for elements
/// of typical size or larger, and relative to the typical size for those
/// near zero (cancellations, small readouts). NaN counts as infinite.
double relativeError(const std::vector<double> &got,
                     const std::vector<double> &want);

/// The rounding of an output stored in narrower operands' type (relative,
/// twice the unit roundoff): 2^-8 for bf16, 2^-11 for f16, else 0.
double outputRoundingFor(const ScanSpec &spec);

/// The tolerance on relativeError: the roundoff of the dtype, times the
/// roundings of one step, times the square root of the number of steps over
/// which a state remembers its inputs (each step's rounding errors, of
/// either sign, are carried that long and add up like a random walk):
///   tol = 8 * eps(dtype) * sqrt(effectiveLength(spec, family, sizes))
/// with eps = 2^-24 for f32 and 2^-53 for f64. A loss of precision of 10x
/// over what the schedules measure fails it.
double toleranceFor(const ScanSpec &spec, const ScanSizes &sizes,
                    InputFamily family);

/// Expects relativeError(got, want) <= tolerance. With the environment
/// variable RECURRENCE_PRINT_ERRORS set, also prints the error as a fraction
/// of the tolerance (to see the margins when a rule changes).
void expectClose(const std::vector<double> &got,
                 const std::vector<double> &want, double tolerance,
                 const std::string &what);

/// A hash of `text` that is the same in every run and on every platform
/// (FNV-1a), for seeds.
uint64_t stableHash(const std::string &text);

int64_t numElements(const std::vector<int64_t> &shape);

/// The float64 reference of `spec` over sequences packed along T by
/// `offsets` (S + 1 bounds): each sequence run alone by referenceScan.
/// `operands` are the plain spec's over all T steps, except init, which
/// holds one state per sequence, [batch..., S, state...] (ignored without
/// one). The result's final state is [batch..., S, state...], each
/// sequence's init (or zeros) when it is empty.
ReferenceResult
referencePackedScan(const ScanSpec &spec, const ScanSizes &sizes,
                    const std::vector<int64_t> &offsets,
                    const std::vector<std::vector<double>> &operands);

/// A GoogleTest name for a spec: its description with every character that
/// is not alphanumeric replaced by '_'.
std::string specTestName(const ScanSpec &spec);

} // namespace mlir::recurrence::testing

namespace mlir::recurrence {
/// Lets GoogleTest print a spec by name.
inline void PrintTo(const ScanSpec &spec, std::ostream *os) {
  *os << spec.describe();
}
} // namespace mlir::recurrence

#endif // RECURRENCE_UNITTESTS_SUPPORT_SCANPROBLEM_H
