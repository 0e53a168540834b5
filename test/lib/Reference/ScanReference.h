//===- ScanReference.h - Float64 reference of recurrence.scan ---*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A plain float64 evaluation of h_t = A_t h_{t-1} + b_t written straight from
// the equations of the design (DESIGN.md §1), one step and one element at a
// time. Tests, the demo and the benchmarks check compiled code against it.
//
// It shares no shape code with the compiler: the operand list and every
// operand's layout are derived here again from the equations, so that a
// wrong operand order or shape in the compiler's ScanSpec/ScanDims makes the
// tests fail instead of agreeing with it. Only the plain data types of
// ScanSpec (the flags, the sizes, the operand roles) are shared.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_TEST_REFERENCE_SCANREFERENCE_H
#define RECURRENCE_TEST_REFERENCE_SCANREFERENCE_H

#include "recurrence/Runtime/ScanSpec.h"

#include <vector>

namespace mlir::recurrence {

struct ReferenceResult {
  std::vector<double> output;     // states or readout, row-major
  std::vector<double> finalState; // h_T (h_1 when reversed), or the stack
};

/// Whether the reference evaluates the spec's structure (the seven of
/// DESIGN.md §1); the other functions require it.
bool referenceEvaluates(const ScanSpec &spec);

/// The operands of a scan function in their documented order (transition
/// operands, then b or k and v, init, readout) with their row-major shapes,
/// derived from the equations alone.
std::vector<ScanOperand> referenceOperands(const ScanSpec &spec,
                                           const ScanSizes &sizes);
/// The shapes of the output (states or readout) and of the final state.
std::vector<int64_t> referenceOutputShape(const ScanSpec &spec,
                                          const ScanSizes &sizes);
std::vector<int64_t> referenceFinalStateShape(const ScanSpec &spec,
                                              const ScanSizes &sizes);

/// Evaluates the scan; `operands` are row-major, in referenceOperands()
/// order.
ReferenceResult referenceScan(const ScanSpec &spec, const ScanSizes &sizes,
                              const std::vector<std::vector<double>> &operands);

/// The half-width of the uniform range of transition operand `index` that
/// keeps every A_t's infinity norm below 0.95, so states stay bounded.
double transitionRange(const ScanSpec &spec, const ScanSizes &sizes,
                       unsigned index);

/// How random transitions are drawn.
enum class InputFamily {
  /// Uniform in transitionRange: every A_t has norm <= 0.95, so a state
  /// forgets its past within 10-30 steps.
  Contractive,
  /// Transitions at the edge of stability, so that a state remembers the
  /// whole sequence and every level of a scan tree and every chunk carry
  /// matters:
  ///  - scalar, diagonal: |a| in [0.97, 1] (an eighth negative), with runs
  ///    of exact 1s;
  ///  - block_diagonal, dense: random orthogonal blocks times a radius in
  ///    [0.98, 1], with runs of radius 1 (spectral radius about 0.99);
  ///  - dplr: rho (diag(d) - U V^T) with d in [0.995, 1], U = beta k,
  ///    V = k, k orthonormal, beta in [0, 0.02] (a slow, decayed delta
  ///    rule; symmetric, spectral radius rho in [0.97, 1] with runs of 1);
  ///  - higher_order: nonnegative coefficients summing to rho in [0.97, 1]
  ///    with runs of 1, so the companion has an eigenvalue near 1.
  LongMemory,
};

/// The number of steps over which a state remembers its inputs: 1 / (1 -
/// 0.95) for contractive transitions, 200 for long-memory ones (radii
/// average about 0.995), T for identity (a running sum); capped at T, at
/// least 1.
double effectiveLength(const ScanSpec &spec, InputFamily family,
                       const ScanSizes &sizes);

/// Random operands in referenceOperands() order, uniform in [-1, 1] except
/// the transitions (see InputFamily), rounded to f32 unless `spec.f64`.
std::vector<std::vector<double>>
randomScanOperands(const ScanSpec &spec, const ScanSizes &sizes, uint64_t seed,
                   InputFamily family = InputFamily::Contractive);

} // namespace mlir::recurrence

#endif // RECURRENCE_TEST_REFERENCE_SCANREFERENCE_H
