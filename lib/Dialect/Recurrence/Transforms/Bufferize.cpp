//===- Bufferize.cpp - One-shot bufferization for the pipelines -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotModuleBufferize.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_BUFFERIZEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
/// The buffer `view` shows through reshapes and casts. Each of those views
/// the whole of its source, its elements in the same row-major order.
Value reshapeBase(Value view) {
  while (true) {
    if (auto expand = view.getDefiningOp<memref::ExpandShapeOp>())
      view = expand.getSrc();
    else if (auto collapse = view.getDefiningOp<memref::CollapseShapeOp>())
      view = collapse.getSrc();
    else if (auto cast = view.getDefiningOp<memref::CastOp>())
      view = cast.getSource();
    else
      return view;
  }
}

/// Whether `a` and `b` view the same elements in the same order: the same
/// buffer (or tensor) through reshapes and casts, or equal subviews of such
/// buffers.
bool sameElements(Value a, Value b) {
  a = reshapeBase(a);
  b = reshapeBase(b);
  if (a == b)
    return true;
  // Mid-bufferization, each use of a tensor gets its own to_buffer.
  auto bufferA = a.getDefiningOp<bufferization::ToBufferOp>();
  auto bufferB = b.getDefiningOp<bufferization::ToBufferOp>();
  if (bufferA && bufferB)
    return bufferA.getTensor() == bufferB.getTensor() &&
           bufferA.getType() == bufferB.getType();
  auto viewA = a.getDefiningOp<memref::SubViewOp>();
  auto viewB = b.getDefiningOp<memref::SubViewOp>();
  if (!viewA || !viewB || viewA.getType() != viewB.getType() ||
      !sameElements(viewA.getSource(), viewB.getSource()))
    return false;
  auto equal = [](ArrayRef<OpFoldResult> x, ArrayRef<OpFoldResult> y) {
    return llvm::equal(x, y, [](OpFoldResult p, OpFoldResult q) {
      return isEqualConstantIntOrValue(p, q);
    });
  };
  return equal(viewA.getMixedOffsets(), viewB.getMixedOffsets()) &&
         equal(viewA.getMixedSizes(), viewB.getMixedSizes()) &&
         equal(viewA.getMixedStrides(), viewB.getMixedStrides());
}

struct BufferizePass : recurrence::impl::BufferizePassBase<BufferizePass> {
  using Base::Base;

  void runOnOperation() override {
    bufferization::OneShotBufferizationOptions options;
    options.bufferizeFunctionBoundaries = true;
    options.setFunctionBoundaryTypeConversion(
        bufferization::LayoutMapOption::IdentityLayoutMap);
    options.allowReturnAllocsFromLoops = true;
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                          Value to) -> LogicalResult {
      // A step that wrote its result in place, reshaped, is copied back
      // onto itself: the two views are the same elements in the same order.
      if (sameElements(from, to))
        return success();
      linalg::CopyOp::create(b, loc, from, to);
      return success();
    };
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotModuleBufferize(getOperation(), options,
                                                        state)))
      signalPassFailure();
  }
};
} // namespace
