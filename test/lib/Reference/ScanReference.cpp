//===- ScanReference.cpp - Float64 reference of recurrence.scan -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Reference/ScanReference.h"
#include "recurrence/Runtime/HostBuffer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mlir::recurrence;

namespace {
/// The structures the reference evaluates, read from the spec's text.
enum class Kind {
  Identity,
  Scalar,
  Diagonal,
  BlockDiagonal,
  Dplr,
  Dense,
  HigherOrder
};

std::optional<std::pair<Kind, int64_t>> readStructure(const ScanSpec &spec) {
  static const std::pair<const char *, Kind> names[] = {
      {"identity", Kind::Identity},
      {"scalar", Kind::Scalar},
      {"diagonal", Kind::Diagonal},
      {"block_diagonal", Kind::BlockDiagonal},
      {"dplr", Kind::Dplr},
      {"dense", Kind::Dense},
      {"higher_order", Kind::HigherOrder}};
  const std::string &text = spec.structure;
  size_t open = text.find('<');
  std::string name = text.substr(0, open);
  int64_t param = 0;
  if (open != std::string::npos)
    param = std::atoll(text.c_str() + open + 1);
  for (auto [known, kind] : names)
    if (name == known)
      return std::make_pair(kind, param);
  return std::nullopt;
}

Kind kindOf(const ScanSpec &spec) {
  std::optional<std::pair<Kind, int64_t>> parsed = readStructure(spec);
  if (!parsed)
    llvm::report_fatal_error(llvm::Twine("the reference does not know "
                                         "structure '") +
                             spec.structure + "'");
  return parsed->first;
}
int64_t paramOf(const ScanSpec &spec) {
  kindOf(spec); // reports an unknown structure
  return readStructure(spec)->second;
}
} // namespace

bool mlir::recurrence::referenceEvaluates(const ScanSpec &spec) {
  return readStructure(spec).has_value();
}

//===----------------------------------------------------------------------===//
// Operand layout, from the table of structures in DESIGN.md §1
//===----------------------------------------------------------------------===//

namespace {
/// Shapes of one problem: batch dims, then per-step or per-batch parts.
struct Layout {
  const ScanSpec &spec;
  const ScanSizes &sizes;

  std::vector<int64_t> perBatch(std::vector<int64_t> tail) const {
    std::vector<int64_t> shape = sizes.batch;
    shape.insert(shape.end(), tail.begin(), tail.end());
    return shape;
  }
  std::vector<int64_t> perStep(std::vector<int64_t> tail) const {
    tail.insert(tail.begin(), sizes.steps);
    return perBatch(std::move(tail));
  }
  /// h_t: [N] or [N, D].
  std::vector<int64_t> state() const {
    if (spec.matrix)
      return {sizes.size, sizes.columns};
    return {sizes.size};
  }
  /// What init and the final state hold: h, or the m newest states.
  std::vector<int64_t> memory() const {
    std::vector<int64_t> shape = state();
    if (kindOf(spec) == Kind::HigherOrder)
      shape.insert(shape.begin(), paramOf(spec));
    return shape;
  }
  /// The per-step shapes of A_t's operands.
  std::vector<std::vector<int64_t>> transitionSteps() const {
    const int64_t N = sizes.size, D = sizes.columns, p = paramOf(spec);
    switch (kindOf(spec)) {
    case Kind::Identity:
      return {};
    case Kind::Scalar:
      return {{}};
    case Kind::Diagonal:
      if (spec.perElement)
        return {{N, D}};
      return {{N}};
    case Kind::BlockDiagonal:
      return {{N / p, p, p}};
    case Kind::Dplr:
      return {{N}, {N, p}, {N, p}};
    case Kind::Dense:
      return {{N, N}};
    case Kind::HigherOrder:
      return {{p, N}};
    }
    return {};
  }
};
} // namespace

std::vector<ScanOperand>
mlir::recurrence::referenceOperands(const ScanSpec &spec,
                                    const ScanSizes &sizes) {
  Layout layout{spec, sizes};
  std::vector<ScanOperand> operands;
  unsigned index = 0;
  for (const std::vector<int64_t> &step : layout.transitionSteps())
    operands.push_back(
        {OperandRole::Transition, index++, layout.perStep(step)});
  if (spec.factored) {
    operands.push_back({OperandRole::Key, 0, layout.perStep({sizes.size})});
    operands.push_back(
        {OperandRole::Value, 0, layout.perStep({sizes.columns})});
  } else {
    operands.push_back({OperandRole::Input, 0, layout.perStep(layout.state())});
  }
  if (spec.init)
    operands.push_back(
        {OperandRole::Init, 0, layout.perBatch(layout.memory())});
  if (spec.readout)
    operands.push_back({OperandRole::Readout, 0, layout.perStep({sizes.size})});
  return operands;
}

std::vector<int64_t>
mlir::recurrence::referenceOutputShape(const ScanSpec &spec,
                                       const ScanSizes &sizes) {
  Layout layout{spec, sizes};
  if (!spec.readout)
    return layout.perStep(layout.state());
  if (spec.matrix)
    return layout.perStep({sizes.columns});
  return layout.perStep({});
}

std::vector<int64_t>
mlir::recurrence::referenceFinalStateShape(const ScanSpec &spec,
                                           const ScanSizes &sizes) {
  Layout layout{spec, sizes};
  return layout.perBatch(layout.memory());
}

//===----------------------------------------------------------------------===//
// Evaluation
//===----------------------------------------------------------------------===//

ReferenceResult
mlir::recurrence::referenceScan(const ScanSpec &spec, const ScanSizes &sizes,
                                const std::vector<std::vector<double>> &data) {
  // The operand arrays of this problem, looked up by role.
  OperandsByRole<const std::vector<double> *> in;
  std::vector<ScanOperand> roles = referenceOperands(spec, sizes);
  for (size_t i = 0; i < roles.size(); ++i)
    in.set(roles[i], &data[i]);
  int64_t batch = 1;
  for (int64_t size : sizes.batch)
    batch *= size;
  const int64_t T = sizes.steps, N = sizes.size;
  const int64_t D = spec.matrix ? sizes.columns : 1;
  const int64_t p = paramOf(spec);
  const Kind kind = kindOf(spec);
  const bool higher = kind == Kind::HigherOrder;
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
          switch (kind) {
          case Kind::Identity:
            ah = h(0, n, d);
            break;
          case Kind::Scalar:
            ah = A(0)[bt] * h(0, n, d);
            break;
          case Kind::Diagonal:
            ah = (spec.perElement ? A(0)[(bt * N + n) * D + d]
                                  : A(0)[bt * N + n]) *
                 h(0, n, d);
            break;
          case Kind::BlockDiagonal: {
            int64_t g = n / p, i = n % p;
            for (int64_t j = 0; j < p; ++j)
              ah += A(0)[((bt * (N / p) + g) * p + i) * p + j] *
                    h(0, g * p + j, d);
            break;
          }
          case Kind::Dplr: {
            ah = A(0)[bt * N + n] * h(0, n, d);
            for (int64_t j = 0; j < p; ++j) {
              double vh = 0.0;
              for (int64_t k = 0; k < N; ++k)
                vh += A(2)[(bt * N + k) * p + j] * h(0, k, d);
              ah += A(1)[(bt * N + n) * p + j] * vh;
            }
            break;
          }
          case Kind::Dense:
            for (int64_t k = 0; k < N; ++k)
              ah += A(0)[(bt * N + n) * N + k] * h(0, k, d);
            break;
          case Kind::HigherOrder:
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

//===----------------------------------------------------------------------===//
// Random problems
//===----------------------------------------------------------------------===//

/// The half-width of the uniform range of transition operand `index`, chosen
/// so that every A_t has infinity norm below 0.95.
double mlir::recurrence::transitionRange(const ScanSpec &spec,
                                         const ScanSizes &sizes,
                                         unsigned index) {
  double n = static_cast<double>(sizes.size);
  double p = static_cast<double>(paramOf(spec));
  switch (kindOf(spec)) {
  case Kind::Identity:
  case Kind::Scalar:
  case Kind::Diagonal:
    return 0.95;
  case Kind::BlockDiagonal:
  case Kind::HigherOrder:
    return 0.95 / p;
  case Kind::Dense:
    return 0.95 / n;
  case Kind::Dplr:
    return index == 0 ? 0.5 : std::sqrt(0.45 / (n * p));
  }
  return 1.0;
}

double mlir::recurrence::effectiveLength(const ScanSpec &spec,
                                         InputFamily family,
                                         const ScanSizes &sizes) {
  double steps = static_cast<double>(sizes.steps);
  // Contractive: norm <= 0.95. Long memory: radii average about 0.995
  // (half the steps in runs of exact 1s), so a state keeps about 200
  // steps. Identity is a running sum and keeps all of them.
  double memory =
      family == InputFamily::Contractive ? 1.0 / (1.0 - 0.95) : 200.0;
  if (kindOf(spec) == Kind::Identity)
    memory = steps;
  return std::max(1.0, std::min(steps, memory));
}

namespace {
using Engine = std::mt19937_64;

double uniform(Engine &engine, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(engine);
}

/// A radius along time for one lane: uniform in [lo, 1), or exactly 1
/// during runs of 4 to 64 steps that start at 1 step in 32.
class Radius {
public:
  explicit Radius(double lo) : lo(lo) {}
  double next(Engine &engine) {
    if (run > 0) {
      --run;
      return 1.0;
    }
    if (uniform(engine, 0.0, 1.0) < 1.0 / 32) {
      run = std::uniform_int_distribution<int64_t>(3, 63)(engine);
      return 1.0;
    }
    return uniform(engine, lo, 1.0);
  }

private:
  double lo;
  int64_t run = 0;
};

/// `count` orthonormal vectors of length n (rows; zero rows past n), by
/// Gram-Schmidt on Gaussian ones.
std::vector<std::vector<double>> orthonormal(Engine &engine, int64_t count,
                                             int64_t n) {
  std::normal_distribution<double> normal;
  std::vector<std::vector<double>> rows;
  for (int64_t i = 0; i < count; ++i) {
    std::vector<double> row(n, 0.0);
    if (i < n) {
      double norm = 0.0;
      do {
        for (double &x : row)
          x = normal(engine);
        for (const std::vector<double> &prev : rows) {
          double dot = 0.0;
          for (int64_t k = 0; k < n; ++k)
            dot += prev[k] * row[k];
          for (int64_t k = 0; k < n; ++k)
            row[k] -= dot * prev[k];
        }
        norm = 0.0;
        for (double x : row)
          norm += x * x;
        norm = std::sqrt(norm);
      } while (norm < 1e-6);
      for (double &x : row)
        x /= norm;
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

/// Fills the transition operands (row-major, [batch, T, step...]) with the
/// long-memory family of InputFamily.
void fillLongMemory(const ScanSpec &spec, const ScanSizes &sizes,
                    Engine &engine, std::vector<std::vector<double>> &a) {
  int64_t batch = 1;
  for (int64_t size : sizes.batch)
    batch *= size;
  const int64_t T = sizes.steps, N = sizes.size, p = paramOf(spec);
  const Kind kind = kindOf(spec);
  const int64_t D = spec.matrix ? sizes.columns : 1;
  const int64_t lanes = kind == Kind::Diagonal ? (spec.perElement ? N * D : N)
                        : kind == Kind::HigherOrder ? N
                                                    : 1;
  auto sign = [&] { return uniform(engine, 0.0, 1.0) < 0.125 ? -1.0 : 1.0; };
  for (int64_t bi = 0; bi < batch; ++bi) {
    std::vector<Radius> radius(lanes, Radius(0.97));
    if (kind == Kind::BlockDiagonal || kind == Kind::Dense)
      radius.assign(lanes, Radius(0.98));
    for (int64_t t = 0; t < T; ++t) {
      const int64_t bt = bi * T + t;
      switch (kind) {
      case Kind::Identity:
        break;
      case Kind::Scalar:
        a[0][bt] = sign() * radius[0].next(engine);
        break;
      case Kind::Diagonal:
        for (int64_t lane = 0; lane < lanes; ++lane)
          a[0][bt * lanes + lane] = sign() * radius[lane].next(engine);
        break;
      case Kind::BlockDiagonal:
      case Kind::Dense: {
        // Orthogonal blocks of m (or N) scaled by one radius per step.
        const int64_t m = kind == Kind::Dense ? N : p;
        const int64_t blocks = m == 0 ? 0 : N / m;
        double rho = radius[0].next(engine);
        for (int64_t g = 0; g < blocks; ++g) {
          std::vector<std::vector<double>> q = orthonormal(engine, m, m);
          for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < m; ++j)
              a[0][((bt * blocks + g) * m + i) * m + j] = rho * q[i][j];
        }
        break;
      }
      case Kind::Dplr: {
        // rho (diag(d) - sum_j beta_j k_j k_j^T): symmetric, spectrum in
        // [0.975 rho, rho]. (A larger beta with keys that change every step
        // would forget within tens of steps.)
        double rho = radius[0].next(engine);
        std::vector<std::vector<double>> k = orthonormal(engine, p, N);
        for (int64_t n = 0; n < N; ++n)
          a[0][bt * N + n] = rho * uniform(engine, 0.995, 1.0);
        for (int64_t j = 0; j < p; ++j) {
          double beta = uniform(engine, 0.0, 0.02);
          for (int64_t n = 0; n < N; ++n) {
            a[1][(bt * N + n) * p + j] = -rho * beta * k[j][n];
            a[2][(bt * N + n) * p + j] = k[j][n];
          }
        }
        break;
      }
      case Kind::HigherOrder:
        // Per channel: nonnegative coefficients summing to rho.
        for (int64_t n = 0; n < N; ++n) {
          double rho = radius[n].next(engine);
          std::vector<double> w(p);
          double sum = 0.0;
          for (double &x : w)
            sum += x = uniform(engine, 0.05, 1.0);
          for (int64_t i = 0; i < p; ++i)
            a[0][(bt * p + i) * N + n] = rho * w[i] / sum;
        }
        break;
      }
    }
  }
}
} // namespace

std::vector<std::vector<double>>
mlir::recurrence::randomScanOperands(const ScanSpec &spec,
                                     const ScanSizes &sizes, uint64_t seed,
                                     InputFamily family) {
  Engine engine(seed);
  std::vector<ScanOperand> layout = referenceOperands(spec, sizes);
  std::vector<std::vector<double>> operands;
  for (const ScanOperand &operand : layout) {
    int64_t count = 1;
    for (int64_t size : operand.shape)
      count *= size;
    operands.emplace_back(count);
  }
  if (family == InputFamily::LongMemory) {
    std::vector<std::vector<double>> a;
    for (size_t i = 0; i < layout.size(); ++i)
      if (layout[i].role == OperandRole::Transition)
        a.push_back(std::move(operands[i]));
    fillLongMemory(spec, sizes, engine, a);
    for (size_t i = 0, k = 0; i < layout.size(); ++i)
      if (layout[i].role == OperandRole::Transition)
        operands[i] = std::move(a[k++]);
  }
  for (auto [operand, values] : llvm::zip(layout, operands)) {
    bool drawn = family == InputFamily::LongMemory &&
                 operand.role == OperandRole::Transition;
    if (!drawn) {
      double scale = operand.role == OperandRole::Transition
                         ? transitionRange(spec, sizes, operand.index)
                         : 1.0;
      for (double &value : values)
        value = uniform(engine, -scale, scale);
    }
    ElementType type = spec.f64 ? ElementType::F64 : ElementType::F32;
    if (!spec.operandType.empty() && operand.role != OperandRole::Init)
      type = *elementTypeNamed(spec.operandType);
    for (double &value : values)
      value = roundTo(type, value);
  }
  return operands;
}
