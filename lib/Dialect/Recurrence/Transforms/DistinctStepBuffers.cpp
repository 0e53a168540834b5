//===- DistinctStepBuffers.cpp - A step loop's buffers stated apart -------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A step of a scan on buffers reads its operands' rows and writes its
// output's row in a loop over channels, which LLVM vectorizes. Where it
// cannot prove that the rows do not overlap, it versions that loop on
// run-time checks, and at sizes known only at run time it hoists those
// checks out of the time loop, where they cover every step's rows at once.
// A reverse scan's rows descend in memory, which the hoisted checks cannot
// clear, so every step took the scalar loop. Stating before the time loop
// which of its buffers are distinct objects removes the checks.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/WrittenBuffers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_DISTINCTSTEPBUFFERSPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {

/// States before `loop`, pair by pair, that each buffer it writes does not
/// overlap the other distinct buffers it accesses (the memrefs defined
/// outside it that its ops use), and has the loop use the stated values.
void stateDistinctBuffers(scf::ForOp loop) {
  std::optional<DenseSet<Value>> written =
      recurrence::writtenBuffers(loop.getRegion(), recurrence::distinctBuffer);
  if (!written || written->empty())
    return;
  SetVector<Value> outside;
  loop.getBody()->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) &&
          loop.isDefinedOutsideOfLoop(operand) &&
          recurrence::distinctBuffer(operand))
        outside.insert(operand);
  });
  OpBuilder b(loop);
  DenseMap<Value, Value> stated;
  auto current = [&](Value v) {
    Value now = stated.lookup(v);
    return now ? now : v;
  };
  for (auto [i, first] : llvm::enumerate(outside)) {
    for (Value second : outside.getArrayRef().drop_front(i + 1)) {
      Value one = recurrence::distinctBuffer(first),
            other = recurrence::distinctBuffer(second);
      if (one == other ||
          (!written->contains(one) && !written->contains(other)))
        continue;
      auto distinct = memref::DistinctObjectsOp::create(
          b, loop.getLoc(), ValueRange{current(first), current(second)});
      stated[first] = distinct.getResult(0);
      stated[second] = distinct.getResult(1);
    }
  }
  for (auto [value, replacement] : stated)
    value.replaceUsesWithIf(replacement, [&](OpOperand &use) {
      return loop->isAncestor(use.getOwner());
    });
}

struct DistinctStepBuffersPass
    : recurrence::impl::DistinctStepBuffersPassBase<DistinctStepBuffersPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(recurrence::kStepsAttrName) ||
          loop->hasAttr(recurrence::kChunkStepsAttrName))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      stateDistinctBuffers(loop);
  }
};
} // namespace
