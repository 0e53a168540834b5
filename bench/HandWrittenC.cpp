//===- HandWrittenC.cpp - The hand-written loops with C linkage -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The loops of HandWritten.cpp for bench/python_bench.py, which loads this
// library with ctypes and times them in the same run as recurrence.scan.
//
//===----------------------------------------------------------------------===//

#include "HandWritten.h"

using namespace mlir::recurrence::bench;

extern "C" {
__attribute__((visibility("default"))) void
recurrence_bench_diagonal(const float *a, const float *b, float *h,
                          int64_t batch, int64_t steps, int64_t size) {
  diagonalLoop(a, b, h, batch, steps, size);
}

__attribute__((visibility("default"))) void
recurrence_bench_block_diagonal(const float *a, const float *b, float *h,
                                int64_t batch, int64_t steps, int64_t size,
                                int64_t block) {
  blockDiagonalLoop(a, b, h, batch, steps, size, block);
}

__attribute__((visibility("default"))) void
recurrence_bench_dense(const float *a, const float *b, float *h, int64_t batch,
                       int64_t steps, int64_t size) {
  denseLoop(a, b, h, batch, steps, size);
}
}
