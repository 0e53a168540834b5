//===- Elementwise.cpp - identity, scalar and diagonal --------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The structures whose A_t scales each state element: identity (by 1),
// scalar (by a_t) and diagonal (by a_t[n], or a_t[n, d] per element). A step
// is one elementwise loop, which may also write its result into the output.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::recurrence;

/// A h + b_t with the given gate, and the same written into `copy`.
static std::pair<Value, Value> gateAndCopy(OpBuilder &b, Location loc,
                                           Value gate, bool perElement,
                                           Value state, const StepInput &input,
                                           Value copy) {
  SmallVector<Value> results =
      applyGate(b, loc, gate, perElement, state, input, copy);
  return {results[0], results[1]};
}

//===----------------------------------------------------------------------===//
// identity: h_t = h_{t-1} + b_t
//===----------------------------------------------------------------------===//

unsigned IdentityAttr::getNumTransitionOperands() const { return 0; }

SmallVector<int64_t> IdentityAttr::getTransitionStep(unsigned, int64_t, int64_t,
                                                     bool) const {
  return {};
}

int64_t IdentityAttr::getChannelGroup() const { return 1; }

/// A_t = a_t I with a_t = 1 inside a sequence and 0 where one starts.
Attribute IdentityAttr::getRestartingStructure() const {
  return ScalarAttr::get(getContext());
}

bool IdentityAttr::hasApplyAndCopy() const { return true; }

Value IdentityAttr::buildApply(OpBuilder &b, Location loc, ValueRange, bool,
                               Value state, const StepInput &input) const {
  return applyGate(b, loc, Value(), false, state, input).front();
}

std::optional<std::pair<Value, Value>>
IdentityAttr::buildApplyAndCopy(OpBuilder &b, Location loc, ValueRange, bool,
                                Value state, const StepInput &input,
                                Value copy) const {
  return gateAndCopy(b, loc, Value(), false, state, input, copy);
}

CompositeForm IdentityAttr::getCompositeForm() const {
  return CompositeForm::Identity;
}

Value IdentityAttr::buildStepComposite(OpBuilder &, Location, ValueRange,
                                       bool) const {
  return {};
}

StructureCosts IdentityAttr::getCosts(double n, double d, bool) const {
  return {n * d, 0, n * d, 0, 0, n * d};
}

//===----------------------------------------------------------------------===//
// scalar: h_t = a_t h_{t-1} + b_t, a: [..., T]
//===----------------------------------------------------------------------===//

unsigned ScalarAttr::getNumTransitionOperands() const { return 1; }

SmallVector<int64_t> ScalarAttr::getTransitionStep(unsigned, int64_t, int64_t,
                                                   bool) const {
  return {};
}

int64_t ScalarAttr::getChannelGroup() const { return 1; }

bool ScalarAttr::hasApplyAndCopy() const { return true; }

std::optional<unsigned> ScalarAttr::getChannelDim(unsigned) const {
  return std::nullopt;
}

bool ScalarAttr::isIdentity(ValueRange operands) const {
  return matchPattern(operands[0], m_OneFloat());
}

Value ScalarAttr::buildApply(OpBuilder &b, Location loc, ValueRange operands,
                             bool, Value state, const StepInput &input) const {
  return applyGate(b, loc, operands[0], false, state, input).front();
}

std::optional<std::pair<Value, Value>>
ScalarAttr::buildApplyAndCopy(OpBuilder &b, Location loc, ValueRange operands,
                              bool, Value state, const StepInput &input,
                              Value copy) const {
  return gateAndCopy(b, loc, operands[0], false, state, input, copy);
}

CompositeForm ScalarAttr::getCompositeForm() const {
  return CompositeForm::Scalar;
}

Value ScalarAttr::buildStepComposite(OpBuilder &b, Location loc,
                                     ValueRange operands, bool) const {
  return tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({1}, operands[0].getType()), operands[0]);
}

StructureCosts ScalarAttr::getCosts(double n, double d, bool) const {
  return {2 * n * d, 1, n * d, 1, 1, n * d};
}

//===----------------------------------------------------------------------===//
// diagonal: h_t = a_t * h_{t-1} + b_t, a: [..., T, N] or [..., T, N, D]
//===----------------------------------------------------------------------===//

unsigned DiagonalAttr::getNumTransitionOperands() const { return 1; }

SmallVector<int64_t> DiagonalAttr::getTransitionStep(unsigned, int64_t size,
                                                     int64_t columns,
                                                     bool perElement) const {
  if (perElement)
    return {size, columns};
  return {size};
}

bool DiagonalAttr::allowsPerElement() const { return true; }

int64_t DiagonalAttr::getChannelGroup() const { return 1; }

bool DiagonalAttr::hasApplyAndCopy() const { return true; }

bool DiagonalAttr::isIdentity(ValueRange operands) const {
  return matchPattern(operands[0], m_OneFloat());
}

Value DiagonalAttr::buildApply(OpBuilder &b, Location loc, ValueRange operands,
                               bool perElement, Value state,
                               const StepInput &input) const {
  return applyGate(b, loc, operands[0], perElement, state, input).front();
}

std::optional<std::pair<Value, Value>>
DiagonalAttr::buildApplyAndCopy(OpBuilder &b, Location loc, ValueRange operands,
                                bool perElement, Value state,
                                const StepInput &input, Value copy) const {
  return gateAndCopy(b, loc, operands[0], perElement, state, input, copy);
}

CompositeForm DiagonalAttr::getCompositeForm() const {
  return CompositeForm::Diagonal;
}

Value DiagonalAttr::buildStepComposite(OpBuilder &, Location,
                                       ValueRange operands, bool) const {
  return operands[0];
}

StructureCosts DiagonalAttr::getCosts(double n, double d,
                                      bool perElement) const {
  double gates = perElement ? n * d : n;
  return {2 * n * d, gates, n * d, gates, gates, n * d};
}

//===----------------------------------------------------------------------===//
// Derivatives: an elementwise A_t is its own transpose
//===----------------------------------------------------------------------===//

/// sum lambda * previous over the loops of [B, T, N, D] that `gate` (the
/// loops it keeps, in order) does not index.
static Value gateGradient(OpBuilder &b, Location loc, Value gate,
                          ArrayRef<unsigned> gateDims, Value cotangent,
                          Value previous) {
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::reduction);
  for (unsigned dim : gateDims)
    iterators[dim] = utils::IteratorType::parallel;
  return contract(b, loc, 4, cotangent, {0, 1, 2, 3}, previous, {0, 1, 2, 3},
                  zerosLike(b, loc, gate), gateDims, iterators);
}

SmallVector<Value> IdentityAttr::buildAdjointTransition(OpBuilder &, Location,
                                                        ValueRange,
                                                        bool) const {
  return {};
}

SmallVector<Value> IdentityAttr::buildTransitionGradient(OpBuilder &, Location,
                                                         ValueRange, bool,
                                                         Value, Value) const {
  return {};
}

SmallVector<Value> ScalarAttr::buildAdjointTransition(OpBuilder &, Location,
                                                      ValueRange operands,
                                                      bool) const {
  return llvm::to_vector(operands);
}

SmallVector<Value> ScalarAttr::buildTransitionGradient(OpBuilder &b,
                                                       Location loc,
                                                       ValueRange operands,
                                                       bool, Value cotangent,
                                                       Value previous) const {
  return {gateGradient(b, loc, operands[0], {0, 1}, cotangent, previous)};
}

SmallVector<Value> DiagonalAttr::buildAdjointTransition(OpBuilder &, Location,
                                                        ValueRange operands,
                                                        bool) const {
  return llvm::to_vector(operands);
}

SmallVector<Value>
DiagonalAttr::buildTransitionGradient(OpBuilder &b, Location loc,
                                      ValueRange operands, bool perElement,
                                      Value cotangent, Value previous) const {
  if (perElement)
    return {
        gateGradient(b, loc, operands[0], {0, 1, 2, 3}, cotangent, previous)};
  return {gateGradient(b, loc, operands[0], {0, 1, 2}, cotangent, previous)};
}
