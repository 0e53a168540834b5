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

} // namespace mlir::recurrence

#endif // RECURRENCE_REFERENCE_SCANREFERENCE_H
