//===- SplitSequences.cpp - Packed sequences as one plain scan ------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A scan over packed sequences (`offsets`) is the plain scan of the same
// steps whose transition is zero where a sequence starts: nothing crosses a
// boundary, whatever the schedule does with the steps, so every lowering
// (sequential, chunked, scan, GPU) runs it unchanged. Each sequence's init
// enters as A_s h0_s added to the input of its first step, computed by a
// one-step scan over the sequences; each final state is read off the
// states at the sequence's last step.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/Sequences.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_SPLITSEQUENCESPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
SmallVector<int64_t> range(int64_t begin, int64_t end) {
  return llvm::to_vector(llvm::seq<int64_t>(begin, end));
}

/// The sizes of `value`, with `replaced` sizes put in at `at` instead of
/// `count` of them.
SmallVector<OpFoldResult> sizesWith(OpBuilder &b, Location loc, Value value,
                                    unsigned at, unsigned count,
                                    ArrayRef<OpFoldResult> replaced) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  sizes.erase(sizes.begin() + at, sizes.begin() + at + count);
  sizes.insert(sizes.begin() + at, replaced.begin(), replaced.end());
  return sizes;
}

struct Splitter {
  OpBuilder &b;
  Location loc;
  ScanOp op;
  int64_t batchRank;
  Value steps;            // T
  OpFoldResult sequences; // S
  Value zero;
  SequenceBounds bounds;
  Value starting; // [T] i64, see startingSequences

  Splitter(OpBuilder &b, ScanOp op)
      : b(b), loc(op.getLoc()), op(op), batchRank(op.getBatchRank()),
        steps(tensor::DimOp::create(b, loc, op.getShapeSource(), batchRank)),
        sequences(MixedScanDims(b, op).sequences),
        zero(arith::ConstantIndexOp::create(b, loc, 0)),
        bounds(op.getOffsets(), steps, sequences, op.getReverse()) {}

  /// The sequence starting at each step, or -1 ([T] i64), built once.
  Value startingSequences() {
    if (!starting)
      starting = bounds.startingSequences(b, loc);
    return starting;
  }

  /// The transition operands of `restarting` over the steps: those of the
  /// op (ones where it has none), zero where a sequence starts.
  SmallVector<Value>
  restartedTransitions(RecurrenceStructureInterface restarting,
                       ArrayRef<int64_t> onesStep) {
    SmallVector<Value> result;
    Type elementType = op.getOperandType();
    Value shapeSource = op.getShapeSource();
    for (unsigned i = 0, e = restarting.getNumTransitionOperands(); i < e;
         ++i) {
      Value given =
          op.getTransition().empty() ? Value() : op.getTransition()[i];
      SmallVector<OpFoldResult> sizes;
      if (given) {
        sizes = tensor::getMixedSizes(b, loc, given);
      } else {
        SmallVector<OpFoldResult> all =
            tensor::getMixedSizes(b, loc, shapeSource);
        sizes.assign(all.begin(), all.begin() + batchRank + 1);
        for (int64_t dim : onesStep)
          sizes.push_back(b.getIndexAttr(dim));
      }
      SmallVector<std::pair<Value, SmallVector<int64_t>>> inputs = {
          {startingSequences(), {batchRank}}};
      if (given)
        inputs.push_back({given, range(0, sizes.size())});
      result.push_back(generateTensor(
          b, loc, sizes, elementType, inputs,
          [&](OpBuilder &nb, Location nl, ValueRange args, ArrayRef<Value>) {
            Value kept = given ? args[1]
                               : arith::ConstantOp::create(
                                     nb, nl, nb.getFloatAttr(elementType, 1.0));
            Value cut = arith::ConstantOp::create(
                nb, nl, nb.getFloatAttr(elementType, 0.0));
            return arith::SelectOp::create(
                nb, nl, SequenceBounds::starts(nb, nl, args[0]), cut, kept);
          }));
    }
    return result;
  }

  /// A_s h0_s for every sequence s: [..., S, 1, N(, D)] in the state type,
  /// from a one-step scan over the sequences of their first transitions
  /// (the op's own, or the restarting structure's filled with ones).
  Value initialSteps(RecurrenceStructureInterface restarting,
                     ArrayRef<int64_t> onesStep) {
    Value init = op.getInit();
    Type operandType = op.getOperandType();
    bool own = !op.getTransition().empty();
    SmallVector<Value> gathered;
    if (own) {
      for (Value operand : op.getTransition()) {
        // operand[..., start(s), step...] as [..., S, 1, step...].
        SmallVector<OpFoldResult> sizes = sizesWith(
            b, loc, operand, batchRank, 1, {sequences, b.getIndexAttr(1)});
        gathered.push_back(generateTensor(
            b, loc, sizes, operandType, {},
            [&](OpBuilder &nb, Location nl, ValueRange,
                ArrayRef<Value> indices) -> Value {
              SmallVector<Value> at(indices);
              auto [start, nonEmpty] =
                  bounds.boundaryOf(nb, nl, indices[batchRank], /*last=*/false);
              at.erase(at.begin() + batchRank, at.begin() + batchRank + 2);
              at.insert(at.begin() + batchRank, start);
              // (No step is read for an empty sequence: T may be 0.)
              Value unused = arith::ConstantOp::create(
                  nb, nl, nb.getFloatAttr(operandType, 0.0));
              return extractIf(nb, nl, nonEmpty, operand, at, unused);
            }));
      }
    } else {
      for (unsigned i = 0, e = restarting.getNumTransitionOperands(); i < e;
           ++i) {
        SmallVector<OpFoldResult> sizes = sizesWith(
            b, loc, init, batchRank,
            cast<RankedTensorType>(init.getType()).getRank() - batchRank,
            {sequences, b.getIndexAttr(1)});
        for (int64_t dim : onesStep)
          sizes.push_back(b.getIndexAttr(dim));
        gathered.push_back(
            generateTensor(b, loc, sizes, operandType, {},
                           [&](OpBuilder &nb, Location nl, ValueRange,
                               ArrayRef<Value>) -> Value {
                             return arith::ConstantOp::create(
                                 nb, nl, nb.getFloatAttr(operandType, 1.0));
                           }));
      }
    }
    SmallVector<OpFoldResult> inputSizes =
        sizesWith(b, loc, init, batchRank, 1, {sequences, b.getIndexAttr(1)});
    Value zeros = generateTensor(
        b, loc, inputSizes, operandType, {},
        [&](OpBuilder &nb, Location nl, ValueRange, ArrayRef<Value>) -> Value {
          return arith::ConstantOp::create(nb, nl,
                                           nb.getFloatAttr(operandType, 0.0));
        });
    Type stateType = op.getStateType();
    auto outputType = RankedTensorType::get(
        cast<RankedTensorType>(zeros.getType()).getShape(), stateType);
    RecurrenceStructureInterface structure =
        own ? op.getStructure() : restarting;
    auto scan = ScanOp::create(
        b, loc, outputType, Type(), structure,
        ScheduleAttr::get(b.getContext(), ScheduleKind::Sequential, 0),
        op.getMatrix(), /*reverse=*/false, gathered, zeros, Value(), Value(),
        init, Value(), Value(), ValueRange(),
        stateType == operandType ? TypeAttr() : TypeAttr::get(stateType));
    scan.materializeDestinations(b);
    return scan.getOutput();
  }

  /// The input with each sequence's A_s h0_s added at its first step (and
  /// k v^T formed where it was factored).
  Value inputWithInits(Value firstSteps) {
    Type operandType = op.getOperandType();
    bool factored = op.hasFactoredInput();
    SmallVector<OpFoldResult> sizes;
    SmallVector<std::pair<Value, SmallVector<int64_t>>> inputs = {
        {startingSequences(), {batchRank}}};
    if (factored) {
      sizes = tensor::getMixedSizes(b, loc, op.getInputKey());
      sizes.push_back(
          tensor::getMixedSize(b, loc, op.getInputValue(), batchRank + 1));
      inputs.push_back({op.getInputKey(), range(0, batchRank + 2)});
      SmallVector<int64_t> valueDims = range(0, batchRank + 1);
      valueDims.push_back(batchRank + 2);
      inputs.push_back({op.getInputValue(), valueDims});
    } else {
      sizes = tensor::getMixedSizes(b, loc, op.getInput());
      inputs.push_back({op.getInput(), range(0, sizes.size())});
    }
    return generateTensor(
        b, loc, sizes, operandType, inputs,
        [&](OpBuilder &nb, Location nl, ValueRange args,
            ArrayRef<Value> indices) -> Value {
          Value given =
              factored
                  ? arith::MulFOp::create(nb, nl, args[1], args[2]).getResult()
                  : args[1];
          Value starting = args[0];
          // contribution[..., s, 0, n(, d)] at s = max(sequence, 0).
          Value sequence = SequenceBounds::indexOf(nb, nl, starting);
          SmallVector<Value> at(indices);
          at[batchRank] = zero;
          at.insert(at.begin() + batchRank, sequence);
          Value first = tensor::ExtractOp::create(nb, nl, firstSteps, at);
          first = convertScalarToDtype(nb, nl, first, operandType,
                                       /*isUnsignedCast=*/false);
          Value sum = arith::AddFOp::create(nb, nl, given, first);
          return arith::SelectOp::create(
              nb, nl, SequenceBounds::starts(nb, nl, starting), sum, given);
        });
  }

  /// [..., S, N(, D)]: each sequence's state at its last step, or its init
  /// (zeros without one) when it is empty.
  Value finalStates(Value states) {
    Type stateType = op.getStateType();
    Value init = op.getInit();
    SmallVector<OpFoldResult> sizes =
        sizesWith(b, loc, states, batchRank, 1, {sequences});
    return generateTensor(
        b, loc, sizes, stateType, {},
        [&](OpBuilder &nb, Location nl, ValueRange,
            ArrayRef<Value> indices) -> Value {
          auto [end, nonEmpty] =
              bounds.boundaryOf(nb, nl, indices[batchRank], /*last=*/true);
          SmallVector<Value> at(indices);
          at[batchRank] = end;
          Type statesType =
              cast<RankedTensorType>(states.getType()).getElementType();
          Value unused = arith::ConstantOp::create(
              nb, nl, nb.getFloatAttr(statesType, 0.0));
          Value last = convertScalarToDtype(
              nb, nl, extractIf(nb, nl, nonEmpty, states, at, unused),
              stateType, /*isUnsignedCast=*/false);
          Value empty =
              init
                  ? tensor::ExtractOp::create(nb, nl, init, indices).getResult()
                  : arith::ConstantOp::create(nb, nl,
                                              nb.getFloatAttr(stateType, 0.0))
                        .getResult();
          return arith::SelectOp::create(nb, nl, nonEmpty, last, empty);
        });
  }

  /// y_t = c_t^T h_t over the states [..., T, N(, D)], in `elementType`.
  Value readOut(Value states, Type elementType) {
    Type stateType = op.getStateType();
    Value readout = op.getReadout();
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, states);
    SmallVector<OpFoldResult> outSizes(sizes);
    outSizes.erase(outSizes.begin() + batchRank + 1);
    Value zeroValue =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(stateType, 0.0));
    Value init =
        linalg::FillOp::create(
            b, loc, zeroValue,
            ValueRange{tensor::EmptyOp::create(b, loc, outSizes, stateType)})
            .getResult(0);
    unsigned rank = sizes.size();
    SmallVector<AffineExpr> all, readoutDims, outDims;
    for (unsigned d = 0; d < rank; ++d) {
      all.push_back(b.getAffineDimExpr(d));
      if (d <= batchRank + 1)
        readoutDims.push_back(b.getAffineDimExpr(d));
      if (d != batchRank + 1)
        outDims.push_back(b.getAffineDimExpr(d));
    }
    SmallVector<AffineMap> maps = {
        AffineMap::get(rank, 0, readoutDims, b.getContext()),
        AffineMap::get(rank, 0, all, b.getContext()),
        AffineMap::get(rank, 0, outDims, b.getContext())};
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    iterators[batchRank + 1] = utils::IteratorType::reduction;
    auto sum = linalg::GenericOp::create(
        b, loc, init.getType(), ValueRange{readout, states}, ValueRange{init},
        maps, iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value c = convertScalarToDtype(nb, nl, args[0], stateType, false);
          Value h = convertScalarToDtype(nb, nl, args[1], stateType, false);
          Value product = arith::MulFOp::create(nb, nl, c, h);
          linalg::YieldOp::create(
              nb, nl,
              arith::AddFOp::create(nb, nl, product, args[2]).getResult());
        });
    return convertElementType(b, loc, sum.getResult(0), elementType);
  }
};
} // namespace

FailureOr<SmallVector<Value>>
mlir::recurrence::splitSequences(RewriterBase &rewriter, ScanOp op) {
  if (!op.getOffsets())
    return rewriter.notifyMatchFailure(op, "no offsets");
  auto restarting = dyn_cast_or_null<RecurrenceStructureInterface>(
      op.getStructure().getRestartingStructure());
  if (!restarting || op.getStructure().getStateDepth() > 0)
    return op.emitOpError("has no structure to restart its sequences with");
  // Where the op has no transition operands (A_t = I), the restarting
  // structure's are filled with ones: their step must be static.
  SmallVector<int64_t> onesStep;
  if (op.getTransition().empty() && restarting.getNumTransitionOperands() > 0) {
    std::optional<ScanDims> dims = ScanDims::fromOp(op);
    onesStep = restarting.getTransitionStep(0, dims->size, dims->columns,
                                            /*perElement=*/false);
    if (restarting.getNumTransitionOperands() > 1 ||
        llvm::any_of(onesStep, ShapedType::isDynamic))
      return op.emitOpError("cannot restart sequences with '")
             << restarting.getStructureName() << "'";
  }
  rewriter.setInsertionPoint(op);
  Splitter split(rewriter, op);
  Location loc = op.getLoc();
  SmallVector<Value> transitions =
      split.restartedTransitions(restarting, onesStep);

  Value input = op.getInput(), key = op.getInputKey(),
        value = op.getInputValue();
  if (op.getInit()) {
    Value firstSteps = split.initialSteps(restarting, onesStep);
    input = split.inputWithInits(firstSteps);
    key = value = Value();
  }

  // The states are needed whole to read the final ones off; a readout is
  // then applied to them after the scan.
  bool needStates = op.getFinalState() != nullptr;
  bool readout = op.getReadout() && !needStates;
  Type outputType = op.getOutput().getType();
  Type stateType = op.getStateType();
  Type scanOutputType = outputType;
  if (needStates) {
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(op.getShapeSource().getType()).getShape());
    if (op.hasFactoredInput())
      shape.push_back(cast<RankedTensorType>(op.getInputValue().getType())
                          .getShape()
                          .back());
    scanOutputType = RankedTensorType::get(shape, stateType);
  }
  auto scan = ScanOp::create(rewriter, loc, scanOutputType, Type(), restarting,
                             op.getScheduleAttr(), op.getMatrix(),
                             op.getReverse(), transitions, input, key, value,
                             Value(), readout ? op.getReadout() : Value(),
                             Value(), ValueRange(), op.getAccumulateAttr());
  scan.materializeDestinations(rewriter);
  scan->setAttr(kPackedAttrName, rewriter.getUnitAttr());

  SmallVector<Value> results;
  Value states = scan.getOutput();
  Type outputElement = cast<RankedTensorType>(outputType).getElementType();
  if (!needStates)
    results.push_back(states);
  else if (op.getReadout())
    results.push_back(split.readOut(states, outputElement));
  else
    results.push_back(convertElementType(rewriter, loc, states, outputElement));
  if (needStates)
    results.push_back(split.finalStates(states));
  for (auto [result, original] : llvm::zip(results, op->getResults()))
    result = castTo(rewriter, loc, result,
                    cast<RankedTensorType>(original.getType()));
  return results;
}

namespace {
struct SplitSequencesPass
    : recurrence::impl::SplitSequencesPassBase<SplitSequencesPass> {
  void runOnOperation() override {
    SmallVector<ScanOp> scans;
    getOperation()->walk([&](ScanOp op) {
      if (op.getOffsets())
        scans.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (ScanOp op : scans) {
      FailureOr<SmallVector<Value>> results = splitSequences(rewriter, op);
      if (failed(results))
        return signalPassFailure();
      rewriter.replaceOp(op, *results);
    }
  }
};
} // namespace
