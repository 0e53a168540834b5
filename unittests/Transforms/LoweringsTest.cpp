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
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Verifier.h"
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

/// Compiles `module` (whose @scan computes `spec`) and checks it on
/// long-memory inputs of `sizes` against the float64 reference.
void runAgainstReference(ModuleOp module, const ScanSpec &spec,
                         const ScanSizes &sizes) {
  auto jit = JitModule::compile(module, {"scan"});
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  auto operands = randomScanOperands(spec, sizes, stableHash(spec.describe()),
                                     InputFamily::LongMemory);
  ReferenceResult want = referenceScan(spec, sizes, operands);
  RunResult got = runScan(**jit, spec, sizes, operands);
  double tolerance = toleranceFor(spec, sizes, InputFamily::LongMemory);
  expectClose(got.output, want.output, tolerance, "output");
  if (spec.finalState)
    expectClose(got.finalState, want.finalState, tolerance, "final state");
}

/// Lowers an `auto` block_diagonal<3> scan with init and final state by
/// `lower`, checks how many scf.forall it made, then runs it.
void checkLowering(const Lowering &lower, int64_t foralls, bool reverse) {
  std::unique_ptr<MLIRContext> context = makeContext();
  ScanSpec spec;
  spec.structure = "block_diagonal<3>";
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

  runAgainstReference(*module, spec, ScanSizes{{2}, 301, 6, 1});
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
  spec.structure = "dplr<1>";
  // dplr densifies for the scan and refuses N > 256.
  ScanSizes sizes{{2}, 4, 257, 1};
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

//===----------------------------------------------------------------------===//
// TilingInterface: upstream scf::tileUsingSCF tiles a scan into an scf.forall
// of smaller scans on slices (batch, independent channels, columns).
//===----------------------------------------------------------------------===//

/// Tiles the scan of `spec` with `tiles` (one per loop of its iteration
/// domain) into an scf.forall, checks the number of loops, then runs it on
/// long-memory inputs of `sizes` against the reference.
void checkTiling(ScanSpec spec, ArrayRef<int64_t> tiles, int64_t loops,
                 const ScanSizes &sizes) {
  std::unique_ptr<MLIRContext> context = makeContext();
  spec.schedule = ScheduleKind::Sequential;
  OwningOpRef<ModuleOp> module = buildScanModule(context.get(), spec);
  ScanOp op = theScan(*module);
  auto tileable = cast<TilingInterface>(op.getOperation());
  EXPECT_EQ(static_cast<int64_t>(tileable.getLoopIteratorTypes().size()),
            loops);
  IRRewriter rewriter(context.get());
  rewriter.setInsertionPoint(op);
  scf::SCFTilingOptions options;
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  SmallVector<OpFoldResult> sizesOf;
  for (int64_t tile : tiles)
    sizesOf.push_back(rewriter.getIndexAttr(tile));
  options.setTileSizes(sizesOf);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, tileable, options);
  ASSERT_TRUE(succeeded(tiled));
  rewriter.replaceOp(op, tiled->replacements);
  EXPECT_EQ(count(*module, "scf.forall"), 1);
  EXPECT_EQ(count(*module, "recurrence.scan"), 1);
  ASSERT_TRUE(succeeded(verify(*module)));

  runAgainstReference(*module, spec, sizes);
}

ScanSpec tilingSpec(std::string structure) {
  ScanSpec spec;
  spec.structure = structure;
  spec.init = spec.finalState = true;
  spec.f64 = true;
  return spec;
}

TEST(Tiling, DiagonalOverBatchAndChannels) {
  // Loops: batch, channels; tiles of 1 x 4 channels, the last one short
  // (N = 10), reversed, with init and final state.
  ScanSpec spec = tilingSpec("diagonal");
  spec.reverse = true;
  checkTiling(spec, {1, 4}, 2, ScanSizes{{3}, 67, 10, 1});
}

TEST(Tiling, BlockDiagonalInWholeBlocks) {
  // The channel loop counts blocks of 3: tiles of 2 blocks (6 channels).
  checkTiling(tilingSpec("block_diagonal<3>"), {2, 2}, 2,
              ScanSizes{{3}, 67, 12, 1});
}

TEST(Tiling, HigherOrderStacksAndMatrixColumns) {
  // higher_order<2> on a factored matrix state: batch, channels, columns.
  ScanSpec spec = tilingSpec("higher_order<2>");
  spec.matrix = spec.factored = true;
  checkTiling(spec, {1, 3, 2}, 3, ScanSizes{{2}, 41, 7, 5});
}

TEST(Tiling, MixingStructuresTileBatchAndColumnsOnly) {
  // dense mixes channels and a readout sums over them: no channel loop.
  ScanSpec dense = tilingSpec("dense");
  dense.matrix = true;
  checkTiling(dense, {1, 2}, 2, ScanSizes{{3}, 41, 5, 3});
  ScanSpec readout = tilingSpec("diagonal");
  readout.matrix = readout.readout = true;
  checkTiling(readout, {2, 1}, 2, ScanSizes{{3}, 41, 5, 3});
}

} // namespace
