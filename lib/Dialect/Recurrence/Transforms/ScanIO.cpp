//===- ScanIO.cpp - What schedules read and write of a scan ---------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::recurrence;

ScanIO::ScanIO(OpBuilder &b, ScanOp op)
    : op(op), structure(op.getStructure()), matrix(op.getMatrix()),
      batchRank(op.getBatchRank()) {
  perElement = op.hasPerElementTransition();
  steps = getValueOrCreateConstantIndexOp(b, op.getLoc(),
                                          MixedScanDims(b, op).steps);
}

Value ScanIO::toCanonical(OpBuilder &b, Location loc, Value row) const {
  return matrix ? row : appendUnitDim(b, loc, row);
}

Value ScanIO::fromCanonical(OpBuilder &b, Location loc, Value row) const {
  return matrix ? row : dropTrailingUnitDim(b, loc, row);
}

Value ScanIO::timeOf(OpBuilder &b, Location loc, Value tau) const {
  if (!op.getReverse())
    return tau;
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, steps, one);
  return arith::SubIOp::create(b, loc, last, tau);
}

Value ScanIO::toStateType(OpBuilder &b, Location loc, Value value) const {
  Type stateType = op.getStateType();
  if (!isa<RankedTensorType>(value.getType()))
    return value.getType() == stateType
               ? value
               : arith::ExtFOp::create(b, loc, stateType, value).getResult();
  return convertElementType(b, loc, value, stateType);
}

StepTransition ScanIO::transitionAt(OpBuilder &b, Location loc,
                                    ValueRange batch, Value t) const {
  SmallVector<Value> lead = appendIndex(batch, t);
  StepTransition transition{structure, {}, perElement};
  for (Value a : op.getTransition()) {
    // A rank-0 step is a scalar.
    if (cast<RankedTensorType>(a.getType()).getRank() ==
        static_cast<int64_t>(lead.size()))
      transition.operands.push_back(
          toStateType(b, loc, tensor::ExtractOp::create(b, loc, a, lead)));
    else
      transition.operands.push_back(
          toStateType(b, loc, extractRow(b, loc, a, lead)));
  }
  return transition;
}

StepInput ScanIO::inputAt(OpBuilder &b, Location loc, ValueRange batch,
                          Value t) const {
  SmallVector<Value> lead = appendIndex(batch, t);
  StepInput input;
  if (op.hasFactoredInput()) {
    input.key = toStateType(b, loc, extractRow(b, loc, op.getInputKey(), lead));
    input.value =
        toStateType(b, loc, extractRow(b, loc, op.getInputValue(), lead));
  } else {
    input.full = toCanonical(
        b, loc, toStateType(b, loc, extractRow(b, loc, op.getInput(), lead)));
  }
  return input;
}

Value ScanIO::zeroState(OpBuilder &b, Location loc) const {
  return zeroTensor(b, loc, stateSizes(b, loc), op.getStateType());
}

SmallVector<OpFoldResult> ScanIO::compositeSizes(OpBuilder &b,
                                                 Location loc) const {
  SmallVector<OpFoldResult> state = stateSizes(b, loc);
  OpFoldResult size = state[structure.getStateDepth() ? 1 : 0];
  OpFoldResult columns = state.back();
  int64_t param = structure.getCompositeBlockSize();
  switch (structure.getCompositeForm()) {
  case Composite::Form::Identity:
    return {};
  case Composite::Form::Scalar:
    return {b.getIndexAttr(1)};
  case Composite::Form::Diagonal:
    if (perElement)
      return {size, columns};
    return {size};
  case Composite::Form::Blocks: {
    AffineExpr s0 = b.getAffineSymbolExpr(0);
    return {affine::makeComposedFoldedAffineApply(b, loc, s0.floorDiv(param),
                                                  {size}),
            b.getIndexAttr(param), b.getIndexAttr(param)};
  }
  case Composite::Form::Dense:
    return {size, size};
  case Composite::Form::Companion:
    return {size, b.getIndexAttr(param), b.getIndexAttr(param)};
  }
  llvm_unreachable("unknown composite form");
}

Value ScanIO::inputAsState(OpBuilder &b, Location loc, ValueRange batch,
                           Value t) const {
  Value input = materializeInput(b, loc, inputAt(b, loc, batch, t));
  int64_t depth = structure.getStateDepth();
  if (depth == 0)
    return input;
  return embedInStack(b, loc, input, depth);
}

SmallVector<OpFoldResult> ScanIO::stateSizes(OpBuilder &b, Location) const {
  return MixedScanDims(b, op).canonicalState();
}

Value ScanIO::initialState(OpBuilder &b, Location loc, ValueRange batch) const {
  if (!op.getInit())
    return zeroState(b, loc);
  // init may be more or less static than the states the steps produce.
  Value state = toCanonical(b, loc, extractRow(b, loc, op.getInit(), batch));
  SmallVector<int64_t> shape;
  for (OpFoldResult size : stateSizes(b, loc))
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  auto type = RankedTensorType::get(shape, op.getStateType());
  if (state.getType() != type)
    state = tensor::CastOp::create(b, loc, type, state);
  return state;
}

std::pair<Value, Value> ScanIO::step(OpBuilder &b, Location loc,
                                     ValueRange batch, Value t,
                                     Value state) const {
  Value newest = applyTransition(b, loc, transitionAt(b, loc, batch, t), state,
                                 inputAt(b, loc, batch, t));
  return {advanceState(b, loc, structure, state, newest), newest};
}

std::pair<Value, Value> ScanIO::stepAndWrite(OpBuilder &b, Location loc,
                                             ValueRange batch, Value t,
                                             Value state, Value block,
                                             Value row) const {
  // The output row can hold the state only when it has the state's type.
  bool rowHoldsState =
      !op.getReadout() && op.getOutputType() == op.getStateType();
  // Steps that run in place compute the state and its output row in one
  // loop.
  if (structure.hasApplyAndCopy() && rowHoldsState) {
    Value slot = toCanonical(b, loc, extractRow(b, loc, block, row));
    std::optional<std::pair<Value, Value>> fused =
        applyTransitionAndCopy(b, loc, transitionAt(b, loc, batch, t), state,
                               inputAt(b, loc, batch, t), slot);
    if (fused)
      return {
          fused->first,
          insertRow(b, loc, fromCanonical(b, loc, fused->second), block, row)};
  }
  // Others build A_t h + b_t in the output row and copy it into the carried
  // state, which so stays one buffer for the whole loop: no allocation per
  // step, and the step's reads (the state) and writes (the row) are
  // allocations LLVM can tell apart.
  if (rowHoldsState && structure.getStateDepth() == 0) {
    StepInput input = inputAt(b, loc, batch, t);
    input.into = toCanonical(b, loc, extractRow(b, loc, block, row));
    Value newest =
        applyTransition(b, loc, transitionAt(b, loc, batch, t), state, input);
    Value next = linalg::CopyOp::create(b, loc, newest, state).getResult(0);
    return {next, insertRow(b, loc, fromCanonical(b, loc, newest), block, row)};
  }
  auto [next, newest] = step(b, loc, batch, t, state);
  Value written = writeRow(b, loc, batch, t, newest, block, row);
  // A state built anew (a stack, a step with a readout, or an output of
  // another type than the state) is copied over the carried one, which so
  // stays one buffer.
  if (!structure.hasApplyAndCopy())
    next = linalg::CopyOp::create(b, loc, next, state).getResult(0);
  return {next, written};
}

Value ScanIO::newestOf(OpBuilder &b, Location loc, Value state) const {
  if (structure.getStateDepth() == 0)
    return state;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return extractRow(b, loc, state, zero);
}

Value ScanIO::writeRow(OpBuilder &b, Location loc, ValueRange batch, Value t,
                       Value newest, Value block, Value row) const {
  if (Value readout = op.getReadout()) {
    Value c =
        toStateType(b, loc, extractRow(b, loc, readout, appendIndex(batch, t)));
    if (!matrix) {
      Value y = applyReadout(b, loc, c, newest);
      Value zero = arith::ConstantIndexOp::create(b, loc, 0);
      Value scalar = tensor::ExtractOp::create(b, loc, y, zero);
      if (scalar.getType() != op.getOutputType())
        scalar = arith::TruncFOp::create(b, loc, op.getOutputType(), scalar);
      return tensor::InsertOp::create(b, loc, scalar, block, row);
    }
    // y_t is accumulated straight into its output row when that holds the
    // state's type, else in the state's type and rounded into the row.
    if (op.getOutputType() != op.getStateType())
      return copyIntoRow(b, loc, applyReadout(b, loc, c, newest), block, row);
    Value y = applyReadout(b, loc, c, newest, extractRow(b, loc, block, row));
    return insertRow(b, loc, y, block, row);
  }
  return copyIntoRow(b, loc, fromCanonical(b, loc, newest), block, row);
}

Value ScanIO::toResultLayout(OpBuilder &b, Location loc, Value state) const {
  return fromCanonical(b, loc, state);
}

SmallVector<OpFoldResult> ScanIO::batchSizes(OpBuilder &b, Location) const {
  return MixedScanDims(b, op).batch;
}

SmallVector<Value> ScanIO::replaceOp(RewriterBase &rewriter,
                                     ValueRange results) const {
  SmallVector<Value> cast;
  for (auto [result, value] : llvm::zip(op->getResults(), results)) {
    if (value.getType() != result.getType())
      value = tensor::CastOp::create(rewriter, op.getLoc(), result.getType(),
                                     value);
    cast.push_back(value);
  }
  rewriter.replaceOp(op, cast);
  return cast;
}

std::optional<SmallVector<Value>>
ScanIO::replaceIfEmpty(RewriterBase &rewriter) const {
  std::optional<ScanDims> dims = ScanDims::fromOp(op);
  if (!dims)
    return std::nullopt;
  bool noSteps = dims->steps == 0;
  bool noState = dims->size == 0 || (matrix && dims->columns == 0);
  if (!noSteps && !noState)
    return std::nullopt;
  Location loc = op.getLoc();
  SmallVector<Value> results(op.getDestinations());
  Value zero = arith::ConstantOp::create(
      rewriter, loc, rewriter.getZeroAttr(op.getStateType()));
  // A readout of an empty state is zero; with no steps there is nothing.
  if (op.getReadout() && !noSteps)
    results[0] =
        linalg::FillOp::create(rewriter, loc, zero, results[0]).getResult(0);
  // With no steps the final state is the initial one.
  if (op.getFinalState() && noSteps && !noState)
    results[1] = op.getInit()
                     ? Value(op.getInit())
                     : linalg::FillOp::create(rewriter, loc, zero, results[1])
                           .getResult(0);
  return replaceOp(rewriter, results);
}

FailureOr<SmallVector<Value>> mlir::recurrence::lowerScanWith(
    RewriterBase &rewriter, ScanOp op,
    function_ref<SmallVector<Value>(const ScanIO &io)> build) {
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(op);
  ScanIO io(rewriter, op);
  if (std::optional<SmallVector<Value>> empty = io.replaceIfEmpty(rewriter))
    return *empty;
  return io.replaceOp(rewriter, build(io));
}
