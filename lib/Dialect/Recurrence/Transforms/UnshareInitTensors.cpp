//===- UnshareInitTensors.cpp - One init tensor per destination-style op --===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Empty-tensor elimination replaces a `tensor.empty` by the caller's buffer
// that a result is materialized in, and marks that buffer's tensor
// `restrict`: nothing else aliases it. When the same empty (or fill of an
// empty) is the init of two ops, both results then live in that buffer, and
// writing the first result out clobbers the second. Each init chain gets one
// use here (or one per exclusive branch), so that elimination never shares a
// caller's buffer.
//
// Elimination follows an init back to an empty tensor through casts only.
// A slice of an empty (what an earlier elimination leaves where the empty
// it sliced was a destination, replaced since), or a reshape of one,
// becomes an empty of its own first (upstream's tensor.empty folds), which
// the next elimination can then replace by its caller's buffer rather than
// leave a whole-sized temporary for one slice.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_UNSHAREINITTENSORSPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
/// The ops that compute `init` from nothing but an empty tensor (and
/// values defined before them), producer first: the empty, a cast of it
/// (which the folds of a reshape of an empty may leave), and a fill of
/// either. Empty when `init` is anything else.
SmallVector<Operation *, 3> initChain(Value init) {
  SmallVector<Operation *, 3> chain;
  Operation *def = init.getDefiningOp();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    chain.push_back(fill);
    def = fill.getOutputs().front().getDefiningOp();
  }
  if (auto cast = dyn_cast_or_null<tensor::CastOp>(def)) {
    chain.push_back(cast);
    def = cast.getSource().getDefiningOp();
  }
  if (!isa_and_nonnull<tensor::EmptyOp>(def))
    return {};
  chain.push_back(def);
  std::reverse(chain.begin(), chain.end());
  return chain;
}

struct UnshareInitTensorsPass
    : recurrence::impl::UnshareInitTensorsPassBase<UnshareInitTensorsPass> {
  void runOnOperation() override {
    RewritePatternSet folds(&getContext());
    tensor::populateFoldTensorEmptyPatterns(folds);
    walkAndApplyPatterns(getOperation(), std::move(folds));
    // The init uses of a shared chain that run after another kept one:
    // those not in a branch exclusive of it (the two branches of a
    // schedule chosen at run time may well write one buffer).
    SmallVector<OpOperand *> shared;
    DenseMap<Value, SmallVector<Operation *>> kept;
    getOperation()->walk([&](DestinationStyleOpInterface op) {
      for (OpOperand &init : op.getDpsInitsMutable()) {
        Value value = init.get();
        if (value.hasOneUse() || initChain(value).empty())
          continue;
        SmallVector<Operation *> &users = kept[value];
        if (llvm::all_of(users, [&](Operation *user) {
              return insideMutuallyExclusiveRegions(user, op);
            }))
          users.push_back(op);
        else
          shared.push_back(&init);
      }
    });
    for (OpOperand *use : shared) {
      OpBuilder b(use->getOwner());
      IRMapping mapping;
      Operation *clone = nullptr;
      for (Operation *op : initChain(use->get()))
        clone = b.clone(*op, mapping);
      use->set(clone->getResult(0));
    }
  }
};
} // namespace
