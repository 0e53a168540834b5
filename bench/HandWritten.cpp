//===- HandWritten.cpp - Plain -O3 OpenMP loops the benchmarks compare with
//===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"

#include <omp.h>

#include <algorithm>
#include <vector>

using namespace mlir::recurrence::bench;

/// Channels per task: the channels split so that batch x tiles covers the
/// threads, in whole `unit`s (cache lines, or blocks).
static int64_t channelTile(int64_t batch, int64_t size, int64_t unit) {
  int64_t threads = omp_get_max_threads();
  int64_t tiles = std::max<int64_t>(1, (threads + batch - 1) / batch);
  int64_t tile = (size + tiles - 1) / tiles;
  tile = (tile + unit - 1) / unit * unit;
  return std::max(tile, unit);
}

void mlir::recurrence::bench::diagonalLoop(const float *a, const float *b,
                                           float *h, int64_t batch,
                                           int64_t steps, int64_t size) {
  const int64_t tile = channelTile(batch, size, 16);
  const int64_t tiles = (size + tile - 1) / tile;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t c = 0; c < tiles; ++c) {
      const int64_t first = c * tile, last = std::min(size, first + tile);
      std::vector<float> state(last - first, 0.0f);
      float *s = state.data() - first;
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t row = (i * steps + t) * size;
#pragma omp simd
        for (int64_t n = first; n < last; ++n) {
          s[n] = a[row + n] * s[n] + b[row + n];
          h[row + n] = s[n];
        }
      }
    }
}

void mlir::recurrence::bench::blockDiagonalLoop(const float *a, const float *b,
                                                float *h, int64_t batch,
                                                int64_t steps, int64_t size,
                                                int64_t m) {
  const int64_t tile =
      channelTile(batch, size, m * std::max<int64_t>(1, 16 / m));
  const int64_t tiles = (size + tile - 1) / tile;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t i = 0; i < batch; ++i)
    for (int64_t c = 0; c < tiles; ++c) {
      const int64_t first = c * tile, last = std::min(size, first + tile);
      std::vector<float> state(last - first, 0.0f), next(last - first);
      float *s = state.data() - first, *x = next.data() - first;
      for (int64_t t = 0; t < steps; ++t) {
        const int64_t row = (i * steps + t) * size;
        const float *blocks = a + row * m;
        for (int64_t n = first; n < last; ++n) {
          const int64_t g = n / m, r = n % m;
          float sum = b[row + n];
          for (int64_t j = 0; j < m; ++j)
            sum += blocks[(g * m + r) * m + j] * s[g * m + j];
          x[n] = sum;
        }
        for (int64_t n = first; n < last; ++n)
          h[row + n] = s[n] = x[n];
      }
    }
}

void mlir::recurrence::bench::dplrLoop(const float *d, const float *u,
                                       const float *v, const float *b, float *h,
                                       int64_t batch, int64_t steps,
                                       int64_t size) {
  // v^T h sums over every channel: parallel over the batch only.
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<float> state(size, 0.0f);
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t row = (i * steps + t) * size;
      float vh = 0.0f;
#pragma omp simd reduction(+ : vh)
      for (int64_t n = 0; n < size; ++n)
        vh += v[row + n] * state[n];
#pragma omp simd
      for (int64_t n = 0; n < size; ++n) {
        state[n] = d[row + n] * state[n] + u[row + n] * vh + b[row + n];
        h[row + n] = state[n];
      }
    }
  }
}

void mlir::recurrence::bench::denseLoop(const float *a, const float *b,
                                        float *h, int64_t batch, int64_t steps,
                                        int64_t size) {
  // A_t mixes every channel: parallel over the batch only.
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<float> state(size, 0.0f), next(size);
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t row = (i * steps + t) * size;
      const float *matrix = a + row * size;
      for (int64_t n = 0; n < size; ++n) {
        float sum = b[row + n];
#pragma omp simd reduction(+ : sum)
        for (int64_t k = 0; k < size; ++k)
          sum += matrix[n * size + k] * state[k];
        next[n] = sum;
      }
      for (int64_t n = 0; n < size; ++n)
        h[row + n] = state[n] = next[n];
    }
  }
}
