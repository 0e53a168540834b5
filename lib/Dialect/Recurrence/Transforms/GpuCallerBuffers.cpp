//===- GpuCallerBuffers.cpp - Scans that read and write the caller's memrefs =//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GpuCallerBuffers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::gpu_lowering;

Value gpu_lowering::callerBuffer(Value value) {
  auto toTensor = value ? value.getDefiningOp<bufferization::ToTensorOp>()
                        : bufferization::ToTensorOp();
  if (!toTensor || !isa<MemRefType>(toTensor.getBuffer().getType()))
    return {};
  return toTensor.getBuffer();
}

bool gpu_lowering::isContiguousAlong(Value buffer, int64_t dim) {
  auto type = cast<MemRefType>(buffer.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides[dim] == 1;
}

/// The caller's buffer that `result`'s one use materializes it in, or null.
static bufferization::MaterializeInDestinationOp
callerDestination(Value result) {
  if (!result || !result.hasOneUse())
    return {};
  auto materialize =
      dyn_cast<bufferization::MaterializeInDestinationOp>(*result.user_begin());
  if (!materialize || !isa<MemRefType>(materialize.getDest().getType()))
    return {};
  return materialize;
}

FailureOr<CallerResults> CallerResults::of(ScanOp op, StringRef &reason) {
  if (op.getMatrix() || op.hasFactoredInput() || op.getReadout() ||
      op.getOffsets()) {
    reason = "not a vector state with a plain input";
    return failure();
  }
  if (llvm::any_of(op.getTransition(),
                   [](Value a) { return !callerBuffer(a); }) ||
      !callerBuffer(op.getInput()) ||
      (op.getInit() && !callerBuffer(op.getInit()))) {
    reason = "operands not read from the caller's buffers";
    return failure();
  }
  CallerResults results{callerDestination(op.getOutput()), {}};
  if (op.getFinalState()) {
    results.finalState = callerDestination(op.getFinalState());
    if (!results.finalState) {
      reason = "results not materialized in the caller's buffers";
      return failure();
    }
  }
  if (!results.output) {
    reason = "results not materialized in the caller's buffers";
    return failure();
  }
  if (results.output->getBlock() != op->getBlock() ||
      (results.finalState &&
       results.finalState->getBlock() != op->getBlock())) {
    reason = "results materialized in another block";
    return failure();
  }
  return results;
}

Operation *CallerResults::later() const {
  if (finalState && output->isBeforeInBlock(finalState))
    return finalState;
  return output;
}

void CallerResults::eraseWithScan(RewriterBase &rewriter, ScanOp op) const {
  rewriter.eraseOp(output);
  if (finalState)
    rewriter.eraseOp(finalState);
  rewriter.eraseOp(op);
}

Value gpu_lowering::convertFloat(OpBuilder &b, Location loc, Value value,
                                 Type type) {
  if (value.getType() == type)
    return value;
  if (value.getType().getIntOrFloatBitWidth() < type.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, type, value);
  return arith::TruncFOp::create(b, loc, type, value);
}

Value gpu_lowering::floatConstant(OpBuilder &b, Location loc, Type type,
                                  double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
}

bool gpu_lowering::isCompositeByOperand(ScanOp op, CompositeForm form) {
  RecurrenceStructureInterface structure = op.getStructure();
  if (structure.getCompositeForm() != form || structure.getStateDepth() != 0 ||
      op.getTransition().size() != 1)
    return false;
  // Built in a block of its own that nothing runs: whatever the structure
  // creates there is dropped with it.
  Value a = op.getTransition().front();
  Block scratch;
  OpBuilder b(op.getContext());
  b.setInsertionPointToStart(&scratch);
  bool byOperand = structure.buildStepComposite(b, op.getLoc(), a,
                                                /*perElement=*/false) == a;
  scratch.dropAllReferences();
  return byOperand;
}

ValueRange gpu_lowering::sequenceCoords(OpBuilder &b, Location loc,
                                        ArrayRef<int64_t> batch,
                                        int64_t channels, Value row) {
  SmallVector<int64_t> basis(batch);
  basis.push_back(channels);
  return affine::AffineDelinearizeIndexOp::create(b, loc, row, basis,
                                                  /*hasOuterBound=*/true)
      .getResults();
}

SmallVector<Value> gpu_lowering::stepIndices(ValueRange coords, Value t,
                                             ValueRange rest) {
  SmallVector<Value> indices(coords.drop_back());
  indices.push_back(t);
  llvm::append_range(indices, rest);
  return indices;
}

scf::ParallelOp
gpu_lowering::parallelLoop(OpBuilder &b, Location loc, int64_t count,
                           function_ref<void(OpBuilder &, Value)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value bound = arith::ConstantIndexOp::create(b, loc, count);
  return scf::ParallelOp::create(
      b, loc, ValueRange{zero}, ValueRange{bound}, ValueRange{one},
      [&](OpBuilder &nb, Location, ValueRange ivs) { body(nb, ivs[0]); });
}

void gpu_lowering::lowerSequentialScans(
    Operation *root,
    function_ref<LogicalResult(RewriterBase &, ScanOp)> lower) {
  SmallVector<ScanOp> scans;
  root->walk([&](ScanOp op) {
    if (op.getScheduleOrAuto().getKind() == ScheduleKind::Sequential)
      scans.push_back(op);
  });
  IRRewriter rewriter(root->getContext());
  for (ScanOp op : scans)
    (void)lower(rewriter, op);
}
