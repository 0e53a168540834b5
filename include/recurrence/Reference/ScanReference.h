//===- ScanReference.h - Float64 reference of recurrence.scan ---*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A plain float64 evaluation of h_t = A_t h_{t-1} + b_t written straight from
// the equations, one step and one element at a time. Tests, the demo and the
// benchmarks check compiled code against it; it shares no code with the
// compiler beyond the operand order of ScanSpec.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_REFERENCE_SCANREFERENCE_H
#define RECURRENCE_REFERENCE_SCANREFERENCE_H

#include "recurrence/Runtime/ScanSpec.h"

#include <vector>

namespace mlir::recurrence {

struct ReferenceResult {
  std::vector<double> output;     // states or readout, row-major
  std::vector<double> finalState; // h_T (h_1 when reversed), or the stack
};

/// Evaluates the scan; `operands` are row-major, in scanOperands() order.
ReferenceResult referenceScan(const ScanSpec &spec, const ScanSizes &sizes,
                              const std::vector<std::vector<double>> &operands);

/// The half-width of the uniform range of transition operand `index` that
/// keeps every A_t's infinity norm below 0.95, so states stay bounded.
double transitionRange(const ScanSpec &spec, const ScanSizes &sizes,
                       unsigned index);

/// Random operands in scanOperands() order, uniform in [-1, 1] except the
/// transitions (see transitionRange), rounded to f32 unless `spec.f64`.
std::vector<std::vector<double>>
randomScanOperands(const ScanSpec &spec, const ScanSizes &sizes, uint64_t seed);

} // namespace mlir::recurrence

#endif // RECURRENCE_REFERENCE_SCANREFERENCE_H
