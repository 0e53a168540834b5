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
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

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

bool gpu_lowering::isContiguousAlong(MemRefType type, int64_t dim) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides[dim] == 1;
}

/// The reassociation that collapses the last `count` + 1 dims of `rank`.
static SmallVector<ReassociationIndices> trailingGroups(int64_t rank,
                                                        int64_t count) {
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i + count + 1 < rank; ++i)
    groups.push_back({i});
  ReassociationIndices last;
  for (int64_t i = std::max<int64_t>(rank - count - 1, 0); i < rank; ++i)
    last.push_back(i);
  groups.push_back(last);
  return groups;
}

Value gpu_lowering::viewedTensor(Value view) {
  if (auto slice = view.getDefiningOp<tensor::ExtractSliceOp>())
    return slice.getResultType().getRank() == slice.getSourceType().getRank()
               ? slice.getSource()
               : Value();
  if (auto expand = view.getDefiningOp<tensor::ExpandShapeOp>())
    return expand.getSrc();
  if (auto collapse = view.getDefiningOp<tensor::CollapseShapeOp>())
    return collapse.getSrc();
  return {};
}

SmallVector<Value> gpu_lowering::viewedIndices(OpBuilder &b, Location loc,
                                               Value view, ValueRange indices) {
  SmallVector<Value> at;
  if (auto slice = view.getDefiningOp<tensor::ExtractSliceOp>()) {
    // offset + index * stride, folded where they are constants, the index a
    // dim. (Upstream's affine::resolveIndicesIntoOpWithOffsetsAndStrides
    // binds it as a symbol, so makeComposedFoldedAffineApply asks
    // affine::isValidDim whether to demote it; for a block argument such as
    // a step loop's induction variable that walks up from its region, which
    // crashes while scf.for's body builder runs, the region not yet attached
    // to an op. memref::resolveSourceIndices{Expand,Collapse}Shape, the
    // counterparts of the cases below, take memref ops only.)
    AffineExpr index, offset, stride;
    bindDims(b.getContext(), index);
    bindSymbols(b.getContext(), offset, stride);
    for (auto [i, o, s] : llvm::zip_equal(indices, slice.getMixedOffsets(),
                                          slice.getMixedStrides()))
      at.push_back(getValueOrCreateConstantIndexOp(
          b, loc,
          affine::makeComposedFoldedAffineApply(b, loc, offset + index * stride,
                                                {i, o, s})));
    return at;
  }
  if (auto expand = view.getDefiningOp<tensor::ExpandShapeOp>()) {
    SmallVector<OpFoldResult> shape = expand.getMixedOutputShape();
    for (const ReassociationIndices &group : expand.getReassociationIndices()) {
      SmallVector<Value> parts;
      SmallVector<OpFoldResult> basis;
      for (int64_t dim : group) {
        parts.push_back(indices[dim]);
        basis.push_back(shape[dim]);
      }
      at.push_back(group.size() == 1
                       ? parts.front()
                       : affine::AffineLinearizeIndexOp::create(
                             b, loc, parts, basis, /*disjoint=*/true)
                             .getResult());
    }
    return at;
  }
  auto collapse = view.getDefiningOp<tensor::CollapseShapeOp>();
  for (auto [index, group] :
       llvm::zip_equal(indices, collapse.getReassociationIndices())) {
    if (group.size() == 1) {
      at.push_back(index);
      continue;
    }
    SmallVector<OpFoldResult> basis;
    for (int64_t dim : group)
      basis.push_back(tensor::getMixedSize(b, loc, collapse.getSrc(), dim));
    llvm::append_range(at, affine::AffineDelinearizeIndexOp::create(
                               b, loc, index, basis, /*hasOuterBound=*/true)
                               .getResults());
  }
  return at;
}

/// callerViewType and callerView: the view's type, and with a builder the
/// view itself.
static FailureOr<MemRefType> viewOf(Value tensor, OpBuilder *b, Location loc,
                                    Value *view) {
  if (Value buffer = callerBuffer(tensor)) {
    if (view)
      *view = buffer;
    return cast<MemRefType>(buffer.getType());
  }
  Value viewed = viewedTensor(tensor);
  if (!viewed)
    return failure();
  Value source;
  FailureOr<MemRefType> sourceType =
      viewOf(viewed, b, loc, view ? &source : nullptr);
  if (failed(sourceType))
    return failure();
  Operation *op = tensor.getDefiningOp();
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
    MemRefType type = memref::SubViewOp::inferResultType(
        *sourceType, slice.getMixedOffsets(), slice.getMixedSizes(),
        slice.getMixedStrides());
    if (view)
      *view = memref::SubViewOp::create(
          *b, loc, type, source, slice.getMixedOffsets(), slice.getMixedSizes(),
          slice.getMixedStrides());
    return type;
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
    if (!expand.getResultType().hasStaticShape())
      return failure();
    FailureOr<MemRefType> type = memref::ExpandShapeOp::computeExpandedType(
        *sourceType, expand.getResultType().getShape(),
        expand.getReassociationIndices());
    if (failed(type))
      return failure();
    if (view)
      *view = memref::ExpandShapeOp::create(*b, loc, *type, source,
                                            expand.getReassociationIndices(),
                                            expand.getMixedOutputShape());
    return type;
  }
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
    SmallVector<ReassociationIndices> groups =
        collapse.getReassociationIndices();
    if (!memref::CollapseShapeOp::isGuaranteedCollapsible(*sourceType, groups))
      return failure();
    if (view)
      *view = memref::CollapseShapeOp::create(*b, loc, source, groups);
    return memref::CollapseShapeOp::computeCollapsedType(*sourceType, groups);
  }
  return failure();
}

FailureOr<MemRefType> gpu_lowering::callerViewType(Value tensor,
                                                   int64_t dropUnitDims) {
  FailureOr<MemRefType> type =
      viewOf(tensor, nullptr, tensor.getLoc(), nullptr);
  if (failed(type) || dropUnitDims == 0)
    return type;
  int64_t rank = type->getRank();
  if (rank <= dropUnitDims ||
      llvm::any_of(type->getShape().take_back(dropUnitDims),
                   [](int64_t size) { return size != 1; }))
    return failure();
  SmallVector<ReassociationIndices> groups = trailingGroups(rank, dropUnitDims);
  if (!memref::CollapseShapeOp::isGuaranteedCollapsible(*type, groups))
    return failure();
  return memref::CollapseShapeOp::computeCollapsedType(*type, groups);
}

Value gpu_lowering::callerView(OpBuilder &b, Location loc, Value tensor,
                               int64_t dropUnitDims) {
  Value view;
  if (failed(viewOf(tensor, &b, loc, &view)))
    return {};
  return collapseTrailingUnitDims(b, loc, view, dropUnitDims);
}

Value gpu_lowering::collapseTrailingUnitDims(OpBuilder &b, Location loc,
                                             Value buffer, int64_t count) {
  if (count == 0)
    return buffer;
  return memref::CollapseShapeOp::create(
      b, loc, buffer,
      trailingGroups(cast<MemRefType>(buffer.getType()).getRank(), count));
}

bufferization::MaterializeInDestinationOp
gpu_lowering::callerDestination(Value result) {
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
  return writes(op, reason);
}

FailureOr<CallerResults> CallerResults::writes(ScanOp op, StringRef &reason) {
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

/// Whether `insert` puts a tensor of its destination's rank into a static
/// slice of unit strides.
static bool isStaticInsert(tensor::InsertSliceOp insert) {
  auto constant = [](OpFoldResult v) { return getConstantIntValue(v); };
  return insert.getSourceType().getRank() == insert.getDestType().getRank() &&
         insert.hasUnitStride() &&
         llvm::all_of(insert.getMixedOffsets(), constant) &&
         llvm::all_of(insert.getMixedSizes(), constant);
}

std::optional<InsertedResult> InsertedResult::of(Operation *op, Value result,
                                                 int64_t time) {
  if (!result || !result.hasOneUse())
    return std::nullopt;
  InsertedResult inserted;
  inserted.insert = dyn_cast<tensor::InsertSliceOp>(*result.user_begin());
  if (!inserted.insert || inserted.insert.getSource() != result ||
      !inserted.insert.getDestType().hasStaticShape() ||
      !isStaticInsert(inserted.insert))
    return std::nullopt;
  // The one write of the inserted tensor.
  for (Operation *user : inserted.insert->getUsers()) {
    auto write = dyn_cast<bufferization::MaterializeInDestinationOp>(user);
    if (!write || !isa<MemRefType>(write.getDest().getType()))
      continue;
    if (inserted.write)
      return std::nullopt;
    inserted.write = write;
  }
  if (!inserted.write || !inserted.write.getRestrict() ||
      inserted.write->getBlock() != op->getBlock())
    return std::nullopt;
  Value dest = inserted.write.getDest();
  Operation *destOp = dest.getDefiningOp();
  if (destOp ? (destOp->getBlock() != op->getBlock() ||
                !destOp->isBeforeInBlock(op))
             : cast<BlockArgument>(dest).getOwner() != op->getBlock())
    return std::nullopt;
  // The lowering runs at the insert: what uses the op's other results
  // (computed there too) must follow it.
  for (Value other : op->getResults()) {
    if (other == result)
      continue;
    for (Operation *user : other.getUsers()) {
      Operation *at = op->getBlock()->findAncestorOpInBlock(*user);
      if (!at || !inserted.insert->isBeforeInBlock(at))
        return std::nullopt;
    }
  }
  // The chain of inserts the result is inserted into, from an empty tensor.
  Value chain = inserted.insert.getDest();
  while (auto before = chain.getDefiningOp<tensor::InsertSliceOp>()) {
    if (!before->hasOneUse() || !isStaticInsert(before))
      return std::nullopt;
    inserted.before.insert(inserted.before.begin(), before);
    chain = before.getDest();
  }
  if (!chain.getDefiningOp<tensor::EmptyOp>())
    return std::nullopt;
  auto buffer = cast<MemRefType>(dest.getType());
  if (buffer.getShape() != inserted.insert.getDestType().getShape() ||
      !isContiguousAlong(buffer, time))
    return std::nullopt;
  return inserted;
}

Value InsertedResult::writeBefore(OpBuilder &b, Location loc) {
  auto sliceOf = [&](tensor::InsertSliceOp slice) -> Value {
    return memref::SubViewOp::create(
        b, loc, write.getDest(), slice.getMixedOffsets(), slice.getMixedSizes(),
        slice.getMixedStrides());
  };
  for (tensor::InsertSliceOp part : before) {
    auto copy = bufferization::MaterializeInDestinationOp::create(
        b, loc, part.getSource(), sliceOf(part));
    copy.setWritable(true);
  }
  return sliceOf(insert);
}

void InsertedResult::replace(RewriterBase &rewriter, Location loc) {
  rewriter.setInsertionPoint(insert);
  Value whole = bufferization::ToTensorOp::create(
      rewriter, loc, insert.getDestType(), write.getDest(), /*restrict=*/true,
      /*writable=*/false);
  rewriter.eraseOp(write);
  rewriter.replaceOp(insert, whole);
  for (tensor::InsertSliceOp part : llvm::reverse(before))
    rewriter.eraseOp(part);
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

Value gpu_lowering::indexConstant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value gpu_lowering::i32Constant(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}

void gpu_lowering::guarded(OpBuilder &b, Location loc, Value valid,
                           function_ref<void(OpBuilder &)> then) {
  if (!valid)
    return then(b);
  auto branch = scf::IfOp::create(b, loc, valid, /*else=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  then(b);
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
