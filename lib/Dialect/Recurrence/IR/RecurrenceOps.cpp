//===- RecurrenceOps.cpp - Recurrence operations --------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::recurrence;

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// header ::= structure (`schedule` schedule)?
/// structure ::= a recurrence structure bare (`identity`,
///               `block_diagonal` `<` int `>`, ...) | any structure attribute
/// schedule ::= `sequential` | `chunked` `<` int `>` | `scan` | `auto`
static ParseResult
parseStructureAndSchedule(OpAsmParser &parser,
                          RecurrenceStructureInterface &structure,
                          ScheduleAttr &schedule) {
  structure = parseStructure(parser);
  if (!structure)
    return failure();
  if (failed(parser.parseOptionalKeyword("schedule")))
    return success();
  schedule =
      llvm::dyn_cast_or_null<ScheduleAttr>(ScheduleAttr::parseBody(parser));
  return success(schedule != nullptr);
}

static void printStructureAndSchedule(OpAsmPrinter &printer, ScanOp,
                                      RecurrenceStructureInterface structure,
                                      ScheduleAttr schedule) {
  printStructure(printer, structure);
  if (!schedule)
    return;
  printer << " schedule ";
  schedule.printBody(printer);
}

#define GET_OP_CLASSES
#include "recurrence/Dialect/Recurrence/IR/RecurrenceOps.cpp.inc"

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

ScheduleAttr ScanOp::getScheduleOrAuto() {
  if (ScheduleAttr schedule = getScheduleAttr())
    return schedule;
  return ScheduleAttr::get(getContext(), ScheduleKind::Auto, 0);
}

int64_t ScanOp::getBatchRank() {
  int64_t trailing = hasFactoredInput() ? 2 : (getMatrix() ? 3 : 2);
  return cast<RankedTensorType>(getShapeSource().getType()).getRank() -
         trailing;
}

SmallVector<OpFoldResult> ScanOp::getMixedResultSizes(OpBuilder &b,
                                                      bool finalState) {
  MixedScanDims dims(b, *this);
  return finalState ? dims.finalState() : dims.output();
}

void ScanOp::materializeDestinations(OpBuilder &b) {
  if (!getDestinations().empty())
    return;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(*this);
  ReifiedRankedShapedTypeDims shapes;
  (void)reifyResultShapes(b, shapes);
  SmallVector<Value> destinations;
  for (auto [result, sizes] : llvm::zip(getResults(), shapes)) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<Value> dynamic;
    for (auto [dim, size] : llvm::enumerate(sizes))
      if (type.isDynamicDim(dim))
        dynamic.push_back(cast<Value>(size));
    destinations.push_back(tensor::EmptyOp::create(b, getLoc(), type, dynamic));
  }
  getDestinationsMutable().assign(destinations);
}

bool ScanOp::hasPerElementTransition() {
  if (getTransition().empty() || !getMatrix() ||
      !getStructure().allowsPerElement())
    return false;
  int64_t rank = cast<RankedTensorType>(getTransition()[0].getType()).getRank();
  return rank == getBatchRank() + 3;
}

bool ScanOp::hasIndependentChannels() {
  return !getReadout() && getStructure().getChannelGroup() > 0;
}

LogicalResult
ScanOp::reifyResultShapes(OpBuilder &b,
                          ReifiedRankedShapedTypeDims &reifiedReturnShapes) {
  // Static dims as attributes and dynamic ones as values, whatever the
  // operands know, as the interface requires.
  for (Value result : getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<OpFoldResult> sizes =
        getMixedResultSizes(b, result == getFinalState());
    for (auto [dim, size] : llvm::enumerate(sizes))
      size =
          type.isDynamicDim(dim)
              ? OpFoldResult(getValueOrCreateConstantIndexOp(b, getLoc(), size))
              : OpFoldResult(b.getIndexAttr(type.getDimSize(dim)));
    reifiedReturnShapes.push_back(sizes);
  }
  return success();
}

namespace {
/// Checks operand and result shapes against ScanDims and reports the first
/// mismatch with the expected and the actual shape.
class ShapeChecker {
public:
  ShapeChecker(ScanOp op, const ScanDims &dims) : op(op), dims(dims) {}

  LogicalResult check(Value value, StringRef role, ArrayRef<int64_t> expected) {
    ArrayRef<int64_t> actual =
        cast<RankedTensorType>(value.getType()).getShape();
    if (shapesCompatible(actual, expected))
      return success();
    InFlightDiagnostic diag = op.emitOpError();
    diag << "expected " << role << " of shape " << formatShape(expected)
         << " for ";
    diag << dims.structure.getStructureName()
         << " with N = " << formatDim(dims.size);
    if (dims.matrix)
      diag << ", D = " << formatDim(dims.columns);
    diag << ", got " << formatShape(actual);
    return diag;
  }

private:
  ScanOp op;
  const ScanDims &dims;
};
} // namespace

/// Every operand with the role it plays, for diagnostics.
static SmallVector<std::pair<Value, std::string>> namedOperands(ScanOp op) {
  SmallVector<std::pair<Value, std::string>> named;
  for (auto [index, value] : llvm::enumerate(op.getTransition()))
    named.push_back({value, "transition operand #" + std::to_string(index)});
  std::pair<Value, const char *> others[] = {
      {op.getInput(), "input"},
      {op.getInputKey(), "factored input key"},
      {op.getInputValue(), "factored input value"},
      {op.getInit(), "init"},
      {op.getReadout(), "readout"},
      {op.getOutput(), "output"},
      {op.getFinalState(), "final state"}};
  for (auto [value, role] : others)
    if (value)
      named.push_back({value, role});
  return named;
}

/// The operands share the element type E of the input; the state (init and
/// final state) is held in the accumulation type A (E without `accumulate`);
/// the output is stored as E or A.
static LogicalResult verifyElementTypes(ScanOp op) {
  Type operandType = op.getOperandType();
  Type stateType = op.getStateType();
  // Wider, or the same type: every operand value must be exact in it (bf16
  // and f16 do not hold each other's values).
  if (op.getAccumulateAttr() && stateType != operandType &&
      stateType.getIntOrFloatBitWidth() <= operandType.getIntOrFloatBitWidth())
    return op.emitOpError()
           << "expected an accumulation type at least as wide as the "
              "operands' "
           << operandType << ", got " << stateType;
  StringRef sourceRole = op.hasFactoredInput() ? "factored input key" : "input";
  for (auto [value, role] : namedOperands(op)) {
    Type type = cast<RankedTensorType>(value.getType()).getElementType();
    bool mixed = op.getAccumulateAttr() != nullptr;
    bool isState =
        mixed && (value == op.getInit() || value == op.getFinalState());
    bool isOutput = mixed && value == op.getOutput();
    if (isState && type != stateType)
      return op.emitOpError()
             << "expected " << role << " of element type " << stateType
             << " (the accumulation type), got " << type;
    if (isOutput && type != operandType && type != stateType)
      return op.emitOpError()
             << "expected output of element type " << operandType
             << " (that of the " << sourceRole << ") or " << stateType
             << " (the accumulation type), got " << type;
    if (!isState && !isOutput && type != operandType)
      return op.emitOpError()
             << "expected " << role << " of element type " << operandType
             << " (that of the " << sourceRole << "), got " << type;
  }
  return success();
}

LogicalResult ScanOp::verify() {
  if (getInput() && (getInputKey() || getInputValue()))
    return emitOpError("takes either `input` or `factored_input`, not both");
  if (!getInput() && !getInputKey() && !getInputValue())
    return emitOpError(
        "needs an input: `input(%b)` or `factored_input(%k, %v)`");
  if (!getInput() && !(getInputKey() && getInputValue()))
    return emitOpError("`factored_input` needs both a key and a value");
  if (hasFactoredInput() && !getMatrix())
    return emitOpError("`factored_input` builds b_t = k_t v_t^T, which needs "
                       "a matrix state: add the `matrix` keyword");
  if (failed(verifyElementTypes(*this)))
    return failure();

  std::optional<ScanDims> dims = ScanDims::fromOp(*this);
  if (!dims)
    return failure();
  RecurrenceStructureInterface structure = getStructure();
  unsigned expectedCount = structure.getNumTransitionOperands();
  if (getTransition().size() != expectedCount)
    return emitOpError() << "structure '" << structure.getStructureName()
                         << "' takes " << expectedCount
                         << " transition operand(s), got "
                         << getTransition().size();
  if (!ShapedType::isDynamic(dims->size) &&
      failed(
          structure.verifyStateSize(dims->size, [&] { return emitOpError(); })))
    return failure();

  ShapeChecker checker(*this, *dims);
  for (auto [index, operand] : llvm::enumerate(getTransition())) {
    int64_t rank = cast<RankedTensorType>(operand.getType()).getRank();
    bool perElement = index == 0 && dims->isPerElement(rank);
    std::string role = "transition operand #" + std::to_string(index);
    if (failed(checker.check(
            operand, role,
            dims->perStep(dims->transitionStep(index, perElement)))))
      return failure();
  }
  if (getInput() && failed(checker.check(getInput(), "input",
                                         dims->perStep(dims->inputStep()))))
    return failure();
  if (hasFactoredInput() &&
      (failed(checker.check(getInputKey(), "factored input key",
                            dims->perStep({dims->size}))) ||
       failed(checker.check(getInputValue(), "factored input value",
                            dims->perStep({dims->columns})))))
    return failure();
  if (getOffsets() && structure.getStateDepth() > 0)
    return emitOpError() << "`offsets` need a first-order structure; '"
                         << structure.getStructureName() << "' keeps "
                         << structure.getStateDepth() << " past states";
  if (getInit() && failed(checker.check(getInit(), "init", dims->stateShape())))
    return failure();
  if (getReadout() && failed(checker.check(getReadout(), "readout",
                                           dims->perStep({dims->size}))))
    return failure();
  if (failed(checker.check(
          getOutput(), getReadout() ? "output (readout)" : "output",
          dims->perStep(dims->outputStep(getReadout() != nullptr)))))
    return failure();
  if (getFinalState() &&
      failed(checker.check(getFinalState(), "final state", dims->stateShape())))
    return failure();
  // Checked here, before DestinationStyleOpInterface's own verifier, so
  // that the message names `outs` and the expected types.
  if (getDestinations().size() != getNumResults())
    return emitOpError() << "expected " << getNumResults()
                         << " destination(s) in `outs`, one per result, got "
                         << getDestinations().size();
  for (auto [index, pair] :
       llvm::enumerate(llvm::zip(getDestinations(), getResults()))) {
    auto [destination, result] = pair;
    if (destination.getType() != result.getType())
      return emitOpError() << "expected destination #" << index << " of type "
                           << result.getType() << " (that of its result), got "
                           << destination.getType();
  }
  return success();
}
