//===- ModelReference.cpp - Float64 references of the model ops -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Reference/ModelReference.h"

#include <algorithm>
#include <cmath>

using namespace mlir::recurrence;

/// `init`, or zeros of `count` elements where it is empty.
static Values orZeros(const Values &init, size_t count) {
  return init.empty() ? Values(count, 0.0) : init;
}

std::vector<Values> mlir::recurrence::referenceLinearAttention(
    int64_t batch, int64_t steps, int64_t keys, int64_t values, bool elu1,
    bool normalize, double eps, const Values &q, const Values &k,
    const Values &v, const Values &init, const Values &normalizerInit) {
  auto phi = [&](double x) { return !elu1 ? x : x > 0 ? x + 1 : std::exp(x); };
  Values y(batch * steps * values);
  Values s = orZeros(init, batch * keys * values);
  Values c = orZeros(normalizerInit, batch * keys);
  for (int64_t bi = 0; bi < batch; ++bi) {
    double *state = &s[bi * keys * values], *sum = &c[bi * keys];
    for (int64_t t = 0; t < steps; ++t) {
      const double *qt = &q[(bi * steps + t) * keys];
      const double *kt = &k[(bi * steps + t) * keys];
      const double *vt = &v[(bi * steps + t) * values];
      double *yt = &y[(bi * steps + t) * values];
      double denominator = 0;
      for (int64_t n = 0; n < keys; ++n) {
        sum[n] += phi(kt[n]);
        denominator += sum[n] * phi(qt[n]);
        for (int64_t d = 0; d < values; ++d)
          state[n * values + d] += phi(kt[n]) * vt[d];
      }
      for (int64_t d = 0; d < values; ++d) {
        double numerator = 0;
        for (int64_t n = 0; n < keys; ++n)
          numerator += state[n * values + d] * phi(qt[n]);
        yt[d] = normalize ? numerator / std::max(denominator, eps) : numerator;
      }
    }
  }
  return {y, s, c};
}

std::vector<Values> mlir::recurrence::referenceDeltaRule(
    int64_t batch, int64_t steps, int64_t keys, int64_t values, const Values &q,
    const Values &k, const Values &v, const Values &beta, const Values &gate,
    const Values &init) {
  Values y(batch * steps * values);
  Values s = orZeros(init, batch * keys * values);
  for (int64_t bi = 0; bi < batch; ++bi) {
    double *state = &s[bi * keys * values];
    for (int64_t t = 0; t < steps; ++t) {
      int64_t step = bi * steps + t;
      const double *qt = &q[step * keys], *kt = &k[step * keys];
      const double *vt = &v[step * values];
      double g = gate.empty() ? 1.0 : gate[step];
      for (int64_t d = 0; d < values; ++d) {
        // The prediction k^T S' of column d, then its correction.
        double prediction = 0;
        for (int64_t n = 0; n < keys; ++n) {
          state[n * values + d] *= g;
          prediction += kt[n] * state[n * values + d];
        }
        for (int64_t n = 0; n < keys; ++n)
          state[n * values + d] += beta[step] * kt[n] * (vt[d] - prediction);
        double out = 0;
        for (int64_t n = 0; n < keys; ++n)
          out += state[n * values + d] * qt[n];
        y[step * values + d] = out;
      }
    }
  }
  return {y, s};
}

std::vector<Values> mlir::recurrence::referenceSelectiveSsm(
    int64_t batch, int64_t steps, int64_t channels, int64_t state,
    const Values &x, const Values &delta, const Values &a, const Values &b,
    const Values &c, const Values &d, const Values &init) {
  Values y(batch * steps * channels);
  Values h = orZeros(init, batch * state * channels);
  for (int64_t bi = 0; bi < batch; ++bi) {
    for (int64_t t = 0; t < steps; ++t) {
      int64_t step = bi * steps + t;
      for (int64_t ch = 0; ch < channels; ++ch) {
        double dt = delta[step * channels + ch], xt = x[step * channels + ch];
        double out = d.empty() ? 0.0 : d[ch] * xt;
        for (int64_t n = 0; n < state; ++n) {
          double &hn = h[(bi * state + n) * channels + ch];
          hn = std::exp(dt * a[ch * state + n]) * hn +
               dt * b[step * state + n] * xt;
          out += c[step * state + n] * hn;
        }
        y[step * channels + ch] = out;
      }
    }
  }
  return {y, h};
}

std::vector<Values>
mlir::recurrence::referenceHlru(int64_t batch, int64_t steps, int64_t channels,
                                int64_t order, const Values &gates,
                                const Values &v, const Values &init) {
  Values h(batch * steps * channels);
  Values history = orZeros(init, batch * order * channels);
  for (int64_t bi = 0; bi < batch; ++bi) {
    double *latest = &history[bi * order * channels];
    for (int64_t t = 0; t < steps; ++t) {
      int64_t step = bi * steps + t;
      for (int64_t n = 0; n < channels; ++n) {
        const double *g = &gates[(step * channels + n) * (order + 1)];
        double next = g[order] * v[step * channels + n];
        for (int64_t i = 0; i < order; ++i)
          next += g[i] * latest[i * channels + n];
        for (int64_t i = order - 1; i > 0; --i)
          latest[i * channels + n] = latest[(i - 1) * channels + n];
        latest[n] = next;
        h[step * channels + n] = next;
      }
    }
  }
  return {h, history};
}

std::vector<Values>
mlir::recurrence::referenceBdlru(int64_t batch, int64_t steps, int64_t blocks,
                                 int64_t block, const Values &gates,
                                 const Values &v, const Values &init) {
  int64_t width = blocks * block;
  Values h(batch * steps * width);
  Values state = orZeros(init, batch * width);
  for (int64_t bi = 0; bi < batch; ++bi) {
    double *last = &state[bi * width];
    for (int64_t t = 0; t < steps; ++t) {
      int64_t step = bi * steps + t;
      Values next(width);
      for (int64_t g = 0; g < blocks; ++g)
        for (int64_t i = 0; i < block; ++i) {
          const double *row =
              &gates[((step * blocks + g) * block + i) * (block + 1)];
          double sum = row[block] * v[step * width + g * block + i];
          for (int64_t j = 0; j < block; ++j)
            sum += row[j] * last[g * block + j];
          next[g * block + i] = sum;
        }
      std::copy(next.begin(), next.end(), last);
      std::copy(next.begin(), next.end(), &h[step * width]);
    }
  }
  return {h, state};
}

Values mlir::recurrence::referenceNormalizeGates(const std::string &function,
                                                 int64_t width,
                                                 const Values &raw) {
  auto f = [&](double x) {
    if (function == "exp")
      return std::exp(x);
    if (function == "sigmoid")
      return 1 / (1 + std::exp(-x));
    if (function == "softplus")
      return std::log1p(std::exp(x));
    return std::abs(x);
  };
  if (function != "exp" && function != "sigmoid" && function != "softplus" &&
      function != "abs")
    return {};
  Values w(raw.size());
  for (size_t row = 0; row * width < raw.size(); ++row) {
    double sum = 0;
    for (int64_t i = 0; i < width; ++i)
      sum += std::abs(w[row * width + i] = f(raw[row * width + i]));
    for (int64_t i = 0; i < width; ++i)
      w[row * width + i] /= sum;
  }
  return w;
}
