//===- ScanReferenceTest.cpp - The reference against closed forms ---------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The reference is what every compiled schedule is judged by, so it is
// checked here against hand-computed values and against itself across
// structures that describe the same recurrence.
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "gtest/gtest.h"

using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

ScanSpec specOf(StructureKind kind, int64_t param = 0) {
  ScanSpec spec;
  spec.structure = kind;
  spec.param = param;
  spec.f64 = true;
  spec.finalState = true;
  return spec;
}

TEST(ScanReference, DiagonalClosedForm) {
  // h_t = 0.5 h_{t-1} + 1: 1, 1.5, 1.75.
  ScanSpec spec = specOf(StructureKind::Diagonal);
  ScanSizes sizes{{1}, 3, 1, 1};
  ReferenceResult r = referenceScan(spec, sizes, {{0.5, 0.5, 0.5}, {1, 1, 1}});
  EXPECT_EQ(r.output, (std::vector<double>{1.0, 1.5, 1.75}));
  EXPECT_EQ(r.finalState, (std::vector<double>{1.75}));
}

TEST(ScanReference, ReverseWithInit) {
  // Reverse: h_3 = 2 * 10 + 1 = 21, h_2 = 2 * 21 + 2 = 44, h_1 = 88 + 3.
  ScanSpec spec = specOf(StructureKind::Scalar);
  spec.reverse = spec.init = true;
  ScanSizes sizes{{1}, 3, 1, 1};
  ReferenceResult r = referenceScan(spec, sizes, {{2, 2, 2}, {3, 2, 1}, {10}});
  EXPECT_EQ(r.output, (std::vector<double>{91, 44, 21}));
  EXPECT_EQ(r.finalState, (std::vector<double>{91}));
}

TEST(ScanReference, HigherOrderFibonacci) {
  // h_t = h_{t-1} + h_{t-2} + 0 from init (h_0, h_{-1}) = (1, 0).
  ScanSpec spec = specOf(StructureKind::HigherOrder, 2);
  spec.init = true;
  ScanSizes sizes{{}, 5, 1, 1};
  spec.batchRank = 0;
  std::vector<double> a(5 * 2, 1.0), b(5, 0.0), init = {1.0, 0.0};
  ReferenceResult r = referenceScan(spec, sizes, {a, b, init});
  EXPECT_EQ(r.output, (std::vector<double>{1, 2, 3, 5, 8}));
  EXPECT_EQ(r.finalState, (std::vector<double>{8, 5}));
}

TEST(ScanReference, ReadoutOfMatrixState) {
  // Identity with b_t = k_t v_t^T accumulates S = sum k v^T; y = c^T S.
  ScanSpec spec = specOf(StructureKind::Identity);
  spec.matrix = spec.factored = spec.readout = true;
  ScanSizes sizes{{1}, 2, 2, 2};
  std::vector<double> k = {1, 0, 0, 1}, v = {1, 2, 3, 4}, c = {1, 1, 0, 1};
  ReferenceResult r = referenceScan(spec, sizes, {k, v, c});
  // S_1 = [[1, 2], [0, 0]], y_1 = [1, 2]; S_2 = [[1, 2], [3, 4]], y_2 = [3, 4].
  EXPECT_EQ(r.output, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(r.finalState, (std::vector<double>{1, 2, 3, 4}));
}

/// Dense, block_diagonal<N>, dplr with zero low rank and diagonal agree on
/// a diagonal transition.
TEST(ScanReference, StructuresAgreeOnDiagonalTransitions) {
  const int64_t T = 6, N = 3;
  ScanSizes sizes{{2}, T, N, 1};
  ScanSpec diagonal = specOf(StructureKind::Diagonal);
  auto operands = randomScanOperands(diagonal, sizes, 7);
  const std::vector<double> &a = operands[0], &b = operands[1];
  ReferenceResult want = referenceScan(diagonal, sizes, operands);

  std::vector<double> dense(2 * T * N * N, 0.0);
  for (int64_t bt = 0; bt < 2 * T; ++bt)
    for (int64_t n = 0; n < N; ++n)
      dense[(bt * N + n) * N + n] = a[bt * N + n];
  EXPECT_EQ(
      referenceScan(specOf(StructureKind::Dense), sizes, {dense, b}).output,
      want.output);
  EXPECT_EQ(
      referenceScan(specOf(StructureKind::BlockDiagonal, N), sizes, {dense, b})
          .output,
      want.output);
  std::vector<double> zeros(2 * T * N, 0.0);
  EXPECT_EQ(
      referenceScan(specOf(StructureKind::Dplr, 1), sizes, {a, zeros, zeros, b})
          .output,
      want.output);
}

TEST(ScanReference, DplrIsDiagonalPlusLowRank) {
  // N = 2, r = 1, d = (0.5, 0.25), u = (1, 0), v = (1, 2), h_0 = (1, 1):
  // A h_0 = (0.5, 0.25) + u (v^T h_0) = (3.5, 0.25); plus b = (1, 2).
  ScanSpec spec = specOf(StructureKind::Dplr, 1);
  spec.init = true;
  ScanSizes sizes{{1}, 1, 2, 1};
  ReferenceResult r =
      referenceScan(spec, sizes, {{0.5, 0.25}, {1, 0}, {1, 2}, {1, 2}, {1, 1}});
  EXPECT_EQ(r.output, (std::vector<double>{4.5, 2.25}));
}

} // namespace
