//===- LoweringsTest.cpp - The schedule lowerings called directly ---------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A downstream pipeline calls lowerScanToSequential / lowerScanToChunks /
// lowerScanToBlellochScan on an op of its choice, without our passes: each
// lowers the op the way it is named whatever schedule it carries (here
// `auto`), and the result runs and matches the float64 reference on
// long-memory inputs.
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "gtest/gtest.h"

#include <functional>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

using Lowering =
    std::function<FailureOr<SmallVector<Value>>(RewriterBase &, ScanOp)>;

ScanOp theScan(ModuleOp module) {
  ScanOp found;
  module.walk([&](ScanOp op) { found = op; });
  return found;
}

int64_t count(ModuleOp module, StringRef name) {
  int64_t n = 0;
  module.walk(
      [&](Operation *op) { n += op->getName().getStringRef() == name; });
  return n;
}

/// Lowers an `auto` block_diagonal<3> scan with init and final state by
/// `lower`, checks how many scf.forall it made, then runs it.
void checkLowering(const Lowering &lower, int64_t foralls, bool reverse) {
  std::unique_ptr<MLIRContext> context = makeContext();
  ScanSpec spec;
  spec.structure = StructureKind::BlockDiagonal;
  spec.param = 3;
  spec.init = spec.finalState = true;
  spec.reverse = reverse;
  spec.f64 = true;
  ASSERT_EQ(spec.schedule, ScheduleKind::Auto);
  OwningOpRef<ModuleOp> module = buildScanModule(context.get(), spec);
  ScanOp op = theScan(*module);
  ASSERT_TRUE(op);
  IRRewriter rewriter(context.get());
  FailureOr<SmallVector<Value>> results = lower(rewriter, op);
  ASSERT_TRUE(succeeded(results));
  EXPECT_EQ(results->size(), 2u);
  EXPECT_FALSE(theScan(*module));
  EXPECT_EQ(count(*module, "scf.forall"), foralls);

  auto jit = JitModule::compile(*module, {"scan"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  ScanSizes sizes{{2}, 301, 6, 1};
  auto operands = randomScanOperands(spec, sizes, stableHash(spec.describe()),
                                     InputFamily::LongMemory);
  ReferenceResult want = referenceScan(spec, sizes, operands);
  RunResult got = runScan(**jit, spec, sizes, operands);
  double tolerance = toleranceFor(spec, sizes, InputFamily::LongMemory);
  expectClose(got.output, want.output, tolerance, "output");
  expectClose(got.finalState, want.finalState, tolerance, "final state");
}

TEST(Lowerings, SequentialOfAnAutoScan) {
  // One forall over the batch; one core, so no channel tiles.
  for (bool reverse : {false, true})
    checkLowering(
        [](RewriterBase &r, ScanOp op) { return lowerScanToSequential(r, op); },
        1, reverse);
}

TEST(Lowerings, ChunksOfAnAutoScan) {
  // Three phases: per chunk, the carry over the batch, per chunk.
  for (bool reverse : {false, true})
    checkLowering(
        [](RewriterBase &r, ScanOp op) { return lowerScanToChunks(r, op, 7); },
        3, reverse);
}

TEST(Lowerings, BlellochScanOfAnAutoScan) {
  // The pairs, the folded init, one forall per sweep level (inside two
  // loops), the outputs and the final state.
  for (bool reverse : {false, true})
    checkLowering([](RewriterBase &r,
                     ScanOp op) { return lowerScanToBlellochScan(r, op); },
                  6, reverse);
}

TEST(Lowerings, RefuseWhatIsNotLegalAndChangeNothing) {
  std::unique_ptr<MLIRContext> context = makeContext();
  ScanSpec spec;
  spec.structure = StructureKind::Dplr;
  spec.param = 1;
  ScanSizes sizes{{2}, 4, kMaxDenseDplrSize + 1, 1};
  OwningOpRef<ModuleOp> module =
      buildScanModule(context.get(), spec, "scan", &sizes);
  ScanOp op = theScan(*module);
  IRRewriter rewriter(context.get());
  EXPECT_TRUE(failed(lowerScanToBlellochScan(rewriter, op)));
  EXPECT_TRUE(failed(lowerScanToChunks(rewriter, op, 0)));
  EXPECT_EQ(theScan(*module), op);
  EXPECT_EQ(count(*module, "scf.forall"), 0);
  EXPECT_TRUE(succeeded(lowerScanToChunks(rewriter, op, 2)));
  EXPECT_FALSE(theScan(*module));
}

} // namespace
