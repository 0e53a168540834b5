//===- ScanReference.cpp - Float64 reference of recurrence.scan -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Reference/ScanReference.h"

#include <cmath>
#include <random>

using namespace mlir::recurrence;

ReferenceResult
mlir::recurrence::referenceScan(const ScanSpec &spec, const ScanSizes &sizes,
                                const std::vector<std::vector<double>> &data) {
  // The operand arrays of this problem, looked up by role.
  OperandsByRole<const std::vector<double> *> in;
  std::vector<ScanOperand> roles = scanOperands(spec, sizes);
  for (size_t i = 0; i < roles.size(); ++i)
    in.set(roles[i], &data[i]);

  int64_t batch = 1;
  for (int64_t size : sizes.batch)
    batch *= size;
  const int64_t T = sizes.steps, N = sizes.size;
  const int64_t D = spec.matrix ? sizes.columns : 1;
  const int64_t p = spec.param;
  const bool higher = spec.structure == StructureKind::HigherOrder;
  const int64_t depth = higher ? p : 1; // states remembered

  ReferenceResult result;
  const int64_t outPerStep = spec.readout ? D : N * D;
  result.output.assign(batch * T * outPerStep, 0.0);
  result.finalState.assign(batch * depth * N * D, 0.0);

  for (int64_t bi = 0; bi < batch; ++bi) {
    // hist[i][n][d] = h_{t-1-i}: the previous `depth` states, newest first.
    std::vector<double> hist(depth * N * D, 0.0);
    if (in.init)
      for (int64_t j = 0; j < depth * N * D; ++j)
        hist[j] = (*in.init)[bi * depth * N * D + j];

    for (int64_t step = 0; step < T; ++step) {
      const int64_t t = spec.reverse ? T - 1 - step : step;
      const int64_t bt = bi * T + t; // (batch, time) index
      auto h = [&](int64_t i, int64_t n, int64_t d) {
        return hist[(i * N + n) * D + d];
      };
      auto A = [&](int k) -> const std::vector<double> & {
        return *in.transition[k];
      };
      std::vector<double> next(N * D, 0.0);
      for (int64_t n = 0; n < N; ++n) {
        for (int64_t d = 0; d < D; ++d) {
          double ah = 0.0;
          switch (spec.structure) {
          case StructureKind::Identity:
            ah = h(0, n, d);
            break;
          case StructureKind::Scalar:
            ah = A(0)[bt] * h(0, n, d);
            break;
          case StructureKind::Diagonal:
            ah = (spec.perElement ? A(0)[(bt * N + n) * D + d]
                                  : A(0)[bt * N + n]) *
                 h(0, n, d);
            break;
          case StructureKind::BlockDiagonal: {
            int64_t g = n / p, i = n % p;
            for (int64_t j = 0; j < p; ++j)
              ah += A(0)[((bt * (N / p) + g) * p + i) * p + j] *
                    h(0, g * p + j, d);
            break;
          }
          case StructureKind::Dplr: {
            ah = A(0)[bt * N + n] * h(0, n, d);
            for (int64_t j = 0; j < p; ++j) {
              double vh = 0.0;
              for (int64_t k = 0; k < N; ++k)
                vh += A(2)[(bt * N + k) * p + j] * h(0, k, d);
              ah += A(1)[(bt * N + n) * p + j] * vh;
            }
            break;
          }
          case StructureKind::Dense:
            for (int64_t k = 0; k < N; ++k)
              ah += A(0)[(bt * N + n) * N + k] * h(0, k, d);
            break;
          case StructureKind::HigherOrder:
            for (int64_t i = 0; i < p; ++i)
              ah += A(0)[(bt * p + i) * N + n] * h(i, n, d);
            break;
          }
          double b = spec.factored
                         ? (*in.key)[bt * N + n] * (*in.value)[bt * D + d]
                         : (*in.input)[(bt * N + n) * D + d];
          next[n * D + d] = ah + b;
        }
      }
      // Shift the history and store h_t as the newest state.
      for (int64_t i = depth - 1; i > 0; --i)
        for (int64_t j = 0; j < N * D; ++j)
          hist[i * N * D + j] = hist[(i - 1) * N * D + j];
      for (int64_t j = 0; j < N * D; ++j)
        hist[j] = next[j];

      double *out = result.output.data() + bt * outPerStep;
      if (spec.readout) {
        for (int64_t d = 0; d < D; ++d)
          for (int64_t n = 0; n < N; ++n)
            out[d] += (*in.readout)[bt * N + n] * next[n * D + d];
      } else {
        for (int64_t j = 0; j < N * D; ++j)
          out[j] = next[j];
      }
    }
    for (int64_t j = 0; j < depth * N * D; ++j)
      result.finalState[bi * depth * N * D + j] = hist[j];
  }
  return result;
}

/// The half-width of the uniform range of transition operand `index`, chosen
/// so that every A_t has infinity norm below 0.95.
double mlir::recurrence::transitionRange(const ScanSpec &spec,
                                         const ScanSizes &sizes,
                                         unsigned index) {
  double n = static_cast<double>(sizes.size);
  double p = static_cast<double>(spec.param);
  switch (spec.structure) {
  case StructureKind::Identity:
  case StructureKind::Scalar:
  case StructureKind::Diagonal:
    return 0.95;
  case StructureKind::BlockDiagonal:
  case StructureKind::HigherOrder:
    return 0.95 / p;
  case StructureKind::Dense:
    return 0.95 / n;
  case StructureKind::Dplr:
    return index == 0 ? 0.5 : std::sqrt(0.45 / (n * p));
  }
  return 1.0;
}

std::vector<std::vector<double>>
mlir::recurrence::randomScanOperands(const ScanSpec &spec,
                                     const ScanSizes &sizes, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::vector<std::vector<double>> operands;
  for (const ScanOperand &operand : scanOperands(spec, sizes)) {
    double scale = operand.role == OperandRole::Transition
                       ? transitionRange(spec, sizes, operand.index)
                       : 1.0;
    std::uniform_real_distribution<double> uniform(-scale, scale);
    int64_t count = 1;
    for (int64_t size : operand.shape)
      count *= size;
    std::vector<double> values(count);
    for (double &value : values) {
      value = uniform(engine);
      if (!spec.f64)
        value = static_cast<double>(static_cast<float>(value));
    }
    operands.push_back(std::move(values));
  }
  return operands;
}
