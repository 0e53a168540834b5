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

#include <algorithm>
#include <cmath>

using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

ScanSpec specOf(std::string structure) {
  ScanSpec spec;
  spec.structure = structure;
  spec.f64 = true;
  spec.finalState = true;
  return spec;
}

TEST(ScanReference, DiagonalClosedForm) {
  // h_t = 0.5 h_{t-1} + 1: 1, 1.5, 1.75.
  ScanSpec spec = specOf("diagonal");
  ScanSizes sizes{{1}, 3, 1, 1};
  ReferenceResult r = referenceScan(spec, sizes, {{0.5, 0.5, 0.5}, {1, 1, 1}});
  EXPECT_EQ(r.output, (std::vector<double>{1.0, 1.5, 1.75}));
  EXPECT_EQ(r.finalState, (std::vector<double>{1.75}));
}

TEST(ScanReference, ReverseWithInit) {
  // Reverse: h_3 = 2 * 10 + 1 = 21, h_2 = 2 * 21 + 2 = 44, h_1 = 88 + 3.
  ScanSpec spec = specOf("scalar");
  spec.reverse = spec.init = true;
  ScanSizes sizes{{1}, 3, 1, 1};
  ReferenceResult r = referenceScan(spec, sizes, {{2, 2, 2}, {3, 2, 1}, {10}});
  EXPECT_EQ(r.output, (std::vector<double>{91, 44, 21}));
  EXPECT_EQ(r.finalState, (std::vector<double>{91}));
}

TEST(ScanReference, HigherOrderFibonacci) {
  // h_t = h_{t-1} + h_{t-2} + 0 from init (h_0, h_{-1}) = (1, 0).
  ScanSpec spec = specOf("higher_order<2>");
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
  ScanSpec spec = specOf("identity");
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
  ScanSpec diagonal = specOf("diagonal");
  auto operands = randomScanOperands(diagonal, sizes, 7);
  const std::vector<double> &a = operands[0], &b = operands[1];
  ReferenceResult want = referenceScan(diagonal, sizes, operands);

  std::vector<double> dense(2 * T * N * N, 0.0);
  for (int64_t bt = 0; bt < 2 * T; ++bt)
    for (int64_t n = 0; n < N; ++n)
      dense[(bt * N + n) * N + n] = a[bt * N + n];
  EXPECT_EQ(referenceScan(specOf("dense"), sizes, {dense, b}).output,
            want.output);
  EXPECT_EQ(referenceScan(specOf("block_diagonal<" + std::to_string(N) + ">"),
                          sizes, {dense, b})
                .output,
            want.output);
  std::vector<double> zeros(2 * T * N, 0.0);
  EXPECT_EQ(
      referenceScan(specOf("dplr<1>"), sizes, {a, zeros, zeros, b}).output,
      want.output);
}

TEST(ScanReference, DplrIsDiagonalPlusLowRank) {
  // N = 2, r = 1, d = (0.5, 0.25), u = (1, 0), v = (1, 2), h_0 = (1, 1):
  // A h_0 = (0.5, 0.25) + u (v^T h_0) = (3.5, 0.25); plus b = (1, 2).
  ScanSpec spec = specOf("dplr<1>");
  spec.init = true;
  ScanSizes sizes{{1}, 1, 2, 1};
  ReferenceResult r =
      referenceScan(spec, sizes, {{0.5, 0.25}, {1, 0}, {1, 2}, {1, 2}, {1, 1}});
  EXPECT_EQ(r.output, (std::vector<double>{4.5, 2.25}));
}

/// The compiler's operand list (ScanSpec, through ScanDims) and the
/// reference's (written from the equations) agree for every structure and
/// flag; the execution tests feed the compiled functions in the reference's
/// order, so a disagreement there fails numerically too.
TEST(ScanReference, CompilerOperandLayoutMatchesTheEquations) {
  std::vector<std::string> kinds = {"identity",          "scalar",  "diagonal",
                                    "block_diagonal<3>", "dplr<2>", "dense",
                                    "higher_order<2>"};
  std::unique_ptr<mlir::MLIRContext> owner = makeContext();
  mlir::MLIRContext &context = *owner;
  int checked = 0;
  for (const std::string &kind : kinds)
    for (int state = 0; state < 4; ++state)
      for (int flags = 0; flags < 4; ++flags)
        for (int64_t rank : {0, 1, 2}) {
          ScanSpec spec = specOf(kind);
          spec.matrix = state > 0;
          spec.factored = state == 2;
          spec.perElement = state == 3;
          if (spec.perElement && kind != "diagonal")
            continue;
          spec.init = flags & 1;
          spec.readout = flags & 2;
          spec.batchRank = rank;
          std::vector<int64_t> batch = {2, 5};
          batch.resize(rank);
          ScanSizes sizes{batch, 7, 6, 4};
          SCOPED_TRACE(spec.describe());
          RecurrenceStructureInterface structure = spec.structureIn(&context);
          std::vector<ScanOperand> compiler =
              scanOperands(structure, spec, sizes);
          std::vector<ScanOperand> reference = referenceOperands(spec, sizes);
          ASSERT_EQ(compiler.size(), reference.size());
          for (size_t i = 0; i < compiler.size(); ++i) {
            EXPECT_EQ(compiler[i].role, reference[i].role) << "operand " << i;
            EXPECT_EQ(compiler[i].index, reference[i].index) << "operand " << i;
            EXPECT_EQ(compiler[i].shape, reference[i].shape) << "operand " << i;
          }
          EXPECT_EQ(scanOutputShape(structure, spec, sizes),
                    referenceOutputShape(spec, sizes));
          EXPECT_EQ(scanFinalStateShape(structure, spec, sizes),
                    referenceFinalStateShape(spec, sizes));
          ++checked;
        }
  EXPECT_EQ(checked, 7 * 3 * 4 * 3 + 4 * 3);
}

/// The long-memory family remembers: an impulse at t = 1 still has at least
/// a thousandth of its size after 257 steps, and never grows more than the
/// runs of exact 1s allow (the transitions have spectral radius <= 1).
TEST(ScanReference, LongMemoryFamilyRemembersAndStaysBounded) {
  std::vector<std::string> kinds = {"scalar",  "diagonal", "block_diagonal<3>",
                                    "dplr<2>", "dense",    "higher_order<2>"};
  const int64_t T = 257, N = 6;
  ScanSizes sizes{{1}, T, N, 1};
  for (const std::string &kind : kinds) {
    ScanSpec spec = specOf(kind);
    SCOPED_TRACE(spec.describe());
    auto operands =
        randomScanOperands(spec, sizes, 11, InputFamily::LongMemory);
    std::vector<double> &b = operands.back();
    std::fill(b.begin() + N, b.end(), 0.0); // b_1 only
    std::vector<double> h = referenceScan(spec, sizes, operands).output;
    auto norm = [&](int64_t t) {
      double sum = 0.0;
      for (int64_t n = 0; n < N; ++n)
        sum += h[t * N + n] * h[t * N + n];
      return std::sqrt(sum);
    };
    // higher_order's bound is on the infinity norm of the stacked history.
    double growth = kind == "higher_order<2>" ? std::sqrt(N) : 1.0;
    for (int64_t t = 1; t < T; ++t)
      ASSERT_LE(norm(t), growth * norm(0) * (1 + 1e-12)) << "t = " << t;
    EXPECT_GE(norm(T - 1), 1e-3 * norm(0));
  }
}

} // namespace
