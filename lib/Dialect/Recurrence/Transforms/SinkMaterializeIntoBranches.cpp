//===- SinkMaterializeIntoBranches.cpp - Results written in each branch ---===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A schedule dispatched at run time is an `scf.if` between two lowerings
// that yield the scan's results, which the caller's wrapper then writes into
// its buffers. Empty-tensor elimination follows one branch back to the
// results' destinations, so the other branch would compute into a temporary
// that is copied whole afterwards. Writing the results inside each branch
// gives each its own path to the buffers. The same holds for a result
// inserted into a larger tensor (the adjoint's states, padded by a step).
//
// Likewise a result that is a reshape (the adjoint's gradients, computed in
// a canonical form with a unit column or one batch dim) is written by
// writing what it reshapes into the buffer reshaped the other way: the
// tensor behind the reshape then has the buffer as its destination.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_SINKMATERIALIZEINTOBRANCHESPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using bufferization::MaterializeInDestinationOp;

namespace {
/// The writes of every result of `op` into buffers, one per result, if they
/// follow `op` in its block with only memory-free ops in between, and their
/// buffers exist before `op`; else empty.
SmallVector<MaterializeInDestinationOp> resultWrites(scf::IfOp op,
                                                     DominanceInfo &dominance) {
  SmallVector<MaterializeInDestinationOp> writes;
  if (op.getNumResults() == 0 || op.getElseRegion().empty())
    return {};
  for (Value result : op.getResults()) {
    if (!result.hasOneUse())
      return {};
    auto write = dyn_cast<MaterializeInDestinationOp>(*result.user_begin());
    if (!write || write->getBlock() != op->getBlock() ||
        !isa<BaseMemRefType>(write.getDest().getType()) ||
        !dominance.properlyDominates(write.getDest(), op))
      return {};
    writes.push_back(write);
  }
  Operation *last = writes.front();
  for (MaterializeInDestinationOp write : writes)
    if (last->isBeforeInBlock(write))
      last = write;
  for (Operation *between = op->getNextNode(); between != last;
       between = between->getNextNode())
    if (!llvm::is_contained(writes, between) && !isMemoryEffectFree(between))
      return {};
  return writes;
}

/// An scf.if before `op` with `op`'s condition and branches (whose yields
/// already match `types`), which `op` no longer has.
scf::IfOp withResults(OpBuilder &b, scf::IfOp op, TypeRange types) {
  b.setInsertionPoint(op);
  auto replacement = scf::IfOp::create(b, op.getLoc(), types, op.getCondition(),
                                       /*withElse=*/false);
  replacement.getThenRegion().takeBody(op.getThenRegion());
  replacement.getElseRegion().takeBody(op.getElseRegion());
  return replacement;
}

/// Moves each `tensor.insert_slice` of a result of `op` (its only use) into
/// both branches, where its destination and bounds exist before `op`: the
/// branches yield the larger tensor, each with its own value inserted.
void sinkInsertSlices(scf::IfOp op, DominanceInfo &dominance) {
  if (op.getElseRegion().empty())
    return;
  SmallVector<std::pair<unsigned, tensor::InsertSliceOp>> inserts;
  for (OpResult result : op->getResults()) {
    if (!result.hasOneUse())
      continue;
    auto insert = dyn_cast<tensor::InsertSliceOp>(*result.user_begin());
    if (insert && insert.getSource() == result &&
        llvm::all_of(insert->getOperands().drop_front(), [&](Value operand) {
          return dominance.properlyDominates(operand, op);
        }))
      inserts.emplace_back(result.getResultNumber(), insert);
  }
  if (inserts.empty())
    return;
  OpBuilder b(op);
  SmallVector<Type> types(op.getResultTypes());
  for (auto [i, insert] : inserts)
    types[i] = insert.getType();
  for (Region *region : {&op.getThenRegion(), &op.getElseRegion()}) {
    auto yield = cast<scf::YieldOp>(region->front().getTerminator());
    b.setInsertionPoint(yield);
    for (auto [i, insert] : inserts) {
      IRMapping map;
      map.map(insert.getSource(), yield.getOperand(i));
      yield->setOperand(i, b.clone(*insert, map)->getResult(0));
    }
  }
  scf::IfOp sunk = withResults(b, op, types);
  for (auto [i, insert] : inserts) {
    insert.getResult().replaceAllUsesWith(sunk.getResult(i));
    insert->erase();
  }
  op->replaceAllUsesWith(sunk->getResults());
  op->erase();
}

struct SinkMaterializeIntoBranchesPass
    : recurrence::impl::SinkMaterializeIntoBranchesPassBase<
          SinkMaterializeIntoBranchesPass> {
  void runOnOperation() override {
    getOperation()->walk([](MaterializeInDestinationOp write) {
      recurrence::writeBeforeCollapse(write);
    });
    DominanceInfo dominance(getOperation());
    SmallVector<scf::IfOp> branches;
    // Outer ones first: the writes sunk into their branches then follow the
    // nested scf.if ops, which sink them further.
    getOperation()->walk<WalkOrder::PreOrder>(
        [&](scf::IfOp op) { branches.push_back(op); });
    for (scf::IfOp op : branches) {
      SmallVector<MaterializeInDestinationOp> writes =
          resultWrites(op, dominance);
      if (writes.empty()) {
        sinkInsertSlices(op, dominance);
        continue;
      }
      // The writes keep their order (destinations may alias without
      // `restrict`). A `restrict` write is cloned into both branches: only
      // one of them runs, so the buffer still has one writer.
      SmallVector<unsigned> order = llvm::to_vector(
          llvm::seq<unsigned>(0, static_cast<unsigned>(writes.size())));
      llvm::sort(order, [&](unsigned x, unsigned y) {
        return writes[x]->isBeforeInBlock(writes[y]);
      });
      OpBuilder b(op);
      for (Region *region : {&op.getThenRegion(), &op.getElseRegion()}) {
        auto yield = cast<scf::YieldOp>(region->front().getTerminator());
        b.setInsertionPoint(yield);
        for (unsigned i : order) {
          auto copy = cast<MaterializeInDestinationOp>(b.clone(*writes[i]));
          copy.getSourceMutable().assign(yield.getOperand(i));
        }
        yield.getResultsMutable().clear();
      }
      withResults(b, op, TypeRange());
      for (MaterializeInDestinationOp write : writes)
        write->erase();
      op->erase();
    }
  }
};
} // namespace
