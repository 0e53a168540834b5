//===- ScanSpec.cpp - A recurrence.scan described as plain data -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/ScanSpec.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::recurrence;

std::string ScanSpec::describe() const {
  std::string text = structure;
  if (matrix)
    text += ".matrix";
  if (perElement)
    text += ".per_element";
  if (factored)
    text += ".factored";
  if (reverse)
    text += ".reverse";
  if (init)
    text += ".init";
  if (readout)
    text += ".readout";
  if (finalState)
    text += ".final";
  if (offsets)
    text += ".packed";
  text += f64 ? ".f64" : ".f32";
  if (!operandType.empty())
    text += "." + operandType;
  text += ".batch" + std::to_string(batchRank);
  if (schedule != ScheduleKind::Auto)
    text += "." + stringifyScheduleKind(schedule).str();
  if (schedule == ScheduleKind::Chunked && chunkSize > 0)
    text += std::to_string(chunkSize);
  return text;
}

ScanSpec ScanSpec::fromOp(ScanOp op) {
  ScanSpec spec;
  std::string structure;
  llvm::raw_string_ostream os(structure);
  // The bare form, as the op prints it.
  if (isa<RecurrenceDialect>(op.getStructure().getDialect()))
    os << op.getStructure().getStructureName();
  else
    os << op.getStructure();
  spec.structure = structure;
  spec.schedule = op.getScheduleOrAuto().getKind();
  spec.chunkSize = op.getScheduleOrAuto().getChunkSize();
  spec.matrix = op.getMatrix();
  spec.factored = op.hasFactoredInput();
  spec.reverse = op.getReverse();
  spec.init = op.getInit() != nullptr;
  spec.readout = op.getReadout() != nullptr;
  spec.finalState = op.getFinalState() != nullptr;
  spec.offsets = op.getOffsets() != nullptr;
  spec.f64 = op.getStateType().isF64();
  if (op.getOperandType() != op.getStateType())
    llvm::raw_string_ostream(spec.operandType) << op.getOperandType();
  spec.batchRank = op.getBatchRank();
  spec.perElement = op.hasPerElementTransition();
  return spec;
}

RecurrenceStructureInterface ScanSpec::structureIn(MLIRContext *context) const {
  context->loadDialect<RecurrenceDialect>();
  std::string text = structure;
  if (!StringRef(text).starts_with("#"))
    text = "#recurrence." + text;
  Attribute attr = parseAttribute(text, context);
  auto result = dyn_cast_or_null<RecurrenceStructureInterface>(attr);
  if (attr && !result)
    emitError(UnknownLoc::get(context))
        << "'" << structure << "' is not a structure";
  return result;
}

std::optional<ScanSizes> mlir::recurrence::scanSizesOf(ScanOp op) {
  std::optional<ScanDims> dims = ScanDims::fromOp(op);
  if (!dims)
    return std::nullopt;
  ScanSizes sizes;
  sizes.batch.assign(dims->batch.begin(), dims->batch.end());
  sizes.steps = dims->steps;
  sizes.size = dims->size;
  sizes.columns = dims->columns;
  if (dims->sequences) {
    if (ShapedType::isDynamic(*dims->sequences))
      return std::nullopt;
    sizes.sequences = *dims->sequences;
  }
  for (int64_t size : sizes.batch)
    if (ShapedType::isDynamic(size))
      return std::nullopt;
  if (ShapedType::isDynamic(sizes.steps) || ShapedType::isDynamic(sizes.size) ||
      ShapedType::isDynamic(sizes.columns))
    return std::nullopt;
  return sizes;
}

/// ScanDims for a spec; `sizes` null means every size is dynamic.
static ScanDims dimsFor(RecurrenceStructureInterface structure,
                        const ScanSpec &spec, const ScanSizes *sizes) {
  ScanDims dims;
  dims.structure = structure;
  dims.matrix = spec.matrix;
  int64_t dyn = ShapedType::kDynamic;
  if (sizes) {
    dims.batch.assign(sizes->batch.begin(), sizes->batch.end());
    dims.steps = sizes->steps;
    dims.size = sizes->size;
    dims.columns = spec.matrix ? sizes->columns : 1;
  } else {
    dims.batch.assign(spec.batchRank, dyn);
    dims.steps = dims.size = dyn;
    dims.columns = spec.matrix ? dyn : 1;
  }
  if (spec.offsets)
    dims.sequences = sizes ? sizes->sequences : dyn;
  return dims;
}

/// The roles and shapes of every operand, from ScanDims.
static std::vector<ScanOperand> operandsFor(const ScanSpec &spec,
                                            const ScanDims &dims) {
  auto toVector = [](ArrayRef<int64_t> shape) {
    return std::vector<int64_t>(shape.begin(), shape.end());
  };
  std::vector<ScanOperand> operands;
  for (unsigned i = 0, e = dims.numTransitionOperands(); i < e; ++i)
    operands.push_back(
        {OperandRole::Transition, i,
         toVector(dims.perStep(dims.transitionStep(i, spec.perElement)))});
  if (spec.factored) {
    operands.push_back(
        {OperandRole::Key, 0, toVector(dims.perStep({dims.size}))});
    operands.push_back(
        {OperandRole::Value, 0, toVector(dims.perStep({dims.columns}))});
  } else {
    operands.push_back(
        {OperandRole::Input, 0, toVector(dims.perStep(dims.inputStep()))});
  }
  if (spec.init)
    operands.push_back({OperandRole::Init, 0, toVector(dims.stateShape())});
  if (spec.readout)
    operands.push_back(
        {OperandRole::Readout, 0, toVector(dims.perStep({dims.size}))});
  if (spec.offsets) {
    int64_t sequences = *dims.sequences;
    operands.push_back(
        {OperandRole::Offsets,
         0,
         {ShapedType::isDynamic(sequences) ? sequences : sequences + 1}});
  }
  return operands;
}

std::vector<ScanOperand>
mlir::recurrence::scanOperands(RecurrenceStructureInterface structure,
                               const ScanSpec &spec, const ScanSizes &sizes) {
  return operandsFor(spec, dimsFor(structure, spec, &sizes));
}

std::vector<int64_t>
mlir::recurrence::scanOutputShape(RecurrenceStructureInterface structure,
                                  const ScanSpec &spec,
                                  const ScanSizes &sizes) {
  ScanDims dims = dimsFor(structure, spec, &sizes);
  SmallVector<int64_t> shape = dims.perStep(dims.outputStep(spec.readout));
  return {shape.begin(), shape.end()};
}

std::vector<int64_t>
mlir::recurrence::scanFinalStateShape(RecurrenceStructureInterface structure,
                                      const ScanSpec &spec,
                                      const ScanSizes &sizes) {
  SmallVector<int64_t> shape = dimsFor(structure, spec, &sizes).stateShape();
  return {shape.begin(), shape.end()};
}

LogicalResult mlir::recurrence::setBufferLayouts(func::FuncOp func,
                                                 const ScanSizes &sizes) {
  StringRef name = bufferization::BufferizationDialect::kBufferLayoutAttrName;
  for (bool result : {false, true}) {
    const auto &all = result ? sizes.resultStrides : sizes.argStrides;
    TypeRange types = result ? func.getResultTypes() : func.getArgumentTypes();
    StringRef what = result ? "result" : "argument";
    if (all.size() > types.size())
      return emitError(func.getLoc())
             << "sizes: " << all.size() << " " << what << " layouts for "
             << types.size() << " " << what << "s";
    for (auto [i, strides] : llvm::enumerate(all)) {
      if (strides.empty())
        continue;
      auto type = cast<RankedTensorType>(types[i]);
      if (static_cast<int64_t>(strides.size()) != type.getRank() ||
          llvm::any_of(strides, [](int64_t s) { return s < 1; }))
        return emitError(func.getLoc())
               << "sizes: the strides of " << what << " #" << i << " must be "
               << type.getRank() << " positive integers";
      auto layout = StridedLayoutAttr::get(func.getContext(), 0, strides);
      if (result)
        func.setResultAttr(i, name, layout);
      else
        func.setArgAttr(i, name, layout);
    }
  }
  return success();
}

OwningOpRef<ModuleOp>
mlir::recurrence::buildScanModule(MLIRContext *context, const ScanSpec &spec,
                                  StringRef name, const ScanSizes *sizes) {
  context->loadDialect<RecurrenceDialect, func::FuncDialect>();
  RecurrenceStructureInterface structure = spec.structureIn(context);
  if (!structure)
    return nullptr;
  OpBuilder b(context);
  Location loc = NameLoc::get(b.getStringAttr(spec.describe()));
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());

  Type stateType = spec.f64 ? Type(b.getF64Type()) : Type(b.getF32Type());
  Type operandType = stateType;
  if (spec.operandType == "bf16")
    operandType = b.getBF16Type();
  else if (spec.operandType == "f16")
    operandType = b.getF16Type();
  else if (!spec.operandType.empty())
    return emitError(loc) << "unknown operand type '" << spec.operandType
                          << "' (bf16 or f16)",
           nullptr;
  ScanDims dims = dimsFor(structure, spec, sizes);
  auto tensorOf = [&](ArrayRef<int64_t> shape, Type element) -> Type {
    return RankedTensorType::get(shape, element);
  };
  std::vector<ScanOperand> operands = operandsFor(spec, dims);
  SmallVector<Type> argTypes;
  for (const ScanOperand &operand : operands)
    argTypes.push_back(
        tensorOf(operand.shape,
                 operand.role == OperandRole::Offsets ? Type(b.getI64Type())
                 : operand.role == OperandRole::Init  ? stateType
                                                      : operandType));
  SmallVector<Type> resultTypes = {
      tensorOf(dims.perStep(dims.outputStep(spec.readout)), operandType)};
  if (spec.finalState)
    resultTypes.push_back(tensorOf(dims.stateShape(), stateType));

  auto func = func::FuncOp::create(b, loc, name,
                                   b.getFunctionType(argTypes, resultTypes));
  if (sizes && failed(setBufferLayouts(func, *sizes)))
    return nullptr;
  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);
  OperandsByRole<Value> in;
  for (auto [operand, arg] : llvm::zip(operands, body->getArguments()))
    in.set(operand, arg);
  ScheduleAttr schedule;
  if (spec.schedule != ScheduleKind::Auto)
    schedule = ScheduleAttr::get(context, spec.schedule, spec.chunkSize);
  auto scan = ScanOp::create(
      b, loc, resultTypes[0], spec.finalState ? resultTypes[1] : Type(),
      structure, schedule, spec.matrix, spec.reverse, in.transition, in.input,
      in.key, in.value, in.init, in.readout, in.offsets, ValueRange(),
      operandType == stateType ? TypeAttr() : TypeAttr::get(stateType));
  scan.materializeDestinations(b);
  func::ReturnOp::create(b, loc, scan->getResults());
  return module;
}
