//===- HandWritten.h - Plain -O3 loops the benchmarks compare with --------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The loops a programmer writes by hand for each recurrence, the way a user's
// OpenMP loop uses every core: parallel over batch elements and, where the
// channels do not mix (diagonal, block-diagonal in whole blocks), over tiles
// of channels; the state of a tile in a local array, time outermost, the
// channel loop vectorized. The benchmarks time them in the same run as the
// compiled code.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_BENCH_HANDWRITTEN_H
#define RECURRENCE_BENCH_HANDWRITTEN_H

#include <cstdint>

namespace mlir::recurrence::bench {

/// h_t[n] = a_t[n] h_{t-1}[n] + b_t[n]; a, b, h: [B, T, N].
void diagonalLoop(const float *a, const float *b, float *h, int64_t batch,
                  int64_t steps, int64_t size);

/// h_t = blockdiag(A_t) h_{t-1} + b_t; A: [B, T, N/m, m, m].
void blockDiagonalLoop(const float *a, const float *b, float *h, int64_t batch,
                       int64_t steps, int64_t size, int64_t block);

/// h_t = (diag(d_t) + u_t v_t^T) h_{t-1} + b_t (rank 1).
void dplrLoop(const float *d, const float *u, const float *v, const float *b,
              float *h, int64_t batch, int64_t steps, int64_t size);

/// h_t = A_t h_{t-1} + b_t; A: [B, T, N, N].
void denseLoop(const float *a, const float *b, float *h, int64_t batch,
               int64_t steps, int64_t size);

} // namespace mlir::recurrence::bench

#endif // RECURRENCE_BENCH_HANDWRITTEN_H
