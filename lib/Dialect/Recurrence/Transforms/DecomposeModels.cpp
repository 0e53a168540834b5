//===- DecomposeModels.cpp - Model ops into scans -------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_DECOMPOSEMODELSPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

LogicalResult mlir::recurrence::decomposeModelOps(RewriterBase &rewriter,
                                                  Operation *root) {
  SmallVector<linalg::AggregatedOpInterface> models;
  root->walk([&](linalg::AggregatedOpInterface op) {
    if (isa<recurrence::RecurrenceDialect>(op->getDialect()))
      models.push_back(op);
  });
  for (linalg::AggregatedOpInterface op : models) {
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> values = op.decomposeOperation(rewriter);
    if (failed(values))
      return op->emitOpError("could not be decomposed");
    rewriter.replaceOp(op, *values);
  }
  return success();
}

namespace {
struct DecomposeModelsPass
    : recurrence::impl::DecomposeModelsPassBase<DecomposeModelsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    if (failed(recurrence::decomposeModelOps(rewriter, getOperation())))
      signalPassFailure();
  }
};
} // namespace
