//===- HandWritten.cpp - Plain -O3 loops the benchmarks compare with ------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"

#include <vector>

using namespace mlir::recurrence::bench;

void mlir::recurrence::bench::diagonalLoop(const float *a, const float *b,
                                           float *h, int64_t batch,
                                           int64_t steps, int64_t size) {
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<float> state(size, 0.0f);
    for (int64_t t = 0; t < steps; ++t) {
      int64_t row = (i * steps + t) * size;
      for (int64_t n = 0; n < size; ++n) {
        state[n] = a[row + n] * state[n] + b[row + n];
        h[row + n] = state[n];
      }
    }
  }
}

void mlir::recurrence::bench::blockDiagonalLoop(const float *a, const float *b,
                                                float *h, int64_t batch,
                                                int64_t steps, int64_t size,
                                                int64_t m) {
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<float> state(size, 0.0f), next(size);
    for (int64_t t = 0; t < steps; ++t) {
      int64_t row = (i * steps + t) * size;
      const float *blocks = a + row * m;
      for (int64_t n = 0; n < size; ++n) {
        int64_t g = n / m, r = n % m;
        float sum = b[row + n];
        for (int64_t j = 0; j < m; ++j)
          sum += blocks[(g * m + r) * m + j] * state[g * m + j];
        next[n] = sum;
      }
      for (int64_t n = 0; n < size; ++n)
        h[row + n] = state[n] = next[n];
    }
  }
}

void mlir::recurrence::bench::dplrLoop(const float *d, const float *u,
                                       const float *v, const float *b, float *h,
                                       int64_t batch, int64_t steps,
                                       int64_t size) {
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<float> state(size, 0.0f);
    for (int64_t t = 0; t < steps; ++t) {
      int64_t row = (i * steps + t) * size;
      float vh = 0.0f;
      for (int64_t n = 0; n < size; ++n)
        vh += v[row + n] * state[n];
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
  for (int64_t i = 0; i < batch; ++i) {
    std::vector<float> state(size, 0.0f), next(size);
    for (int64_t t = 0; t < steps; ++t) {
      int64_t row = (i * steps + t) * size;
      const float *matrix = a + row * size;
      for (int64_t n = 0; n < size; ++n) {
        float sum = b[row + n];
        for (int64_t k = 0; k < size; ++k)
          sum += matrix[n * size + k] * state[k];
        next[n] = sum;
      }
      for (int64_t n = 0; n < size; ++n)
        h[row + n] = state[n] = next[n];
    }
  }
}
