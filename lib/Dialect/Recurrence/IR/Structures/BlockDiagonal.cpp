//===- BlockDiagonal.cpp - block_diagonal<m> ------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A_t holds N/m independent m x m blocks on its diagonal, A: [..., T, N/m, m,
// m]. Products stay block diagonal, and each block is a channel group.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::recurrence;

constexpr auto kPar = utils::IteratorType::parallel;
constexpr auto kRed = utils::IteratorType::reduction;

unsigned BlockDiagonalAttr::getNumTransitionOperands() const { return 1; }

SmallVector<int64_t> BlockDiagonalAttr::getTransitionStep(unsigned,
                                                          int64_t size, int64_t,
                                                          bool) const {
  int64_t m = getBlockSize();
  return {ShapedType::isDynamic(size) ? size : size / m, m, m};
}

LogicalResult BlockDiagonalAttr::verifyStateSize(
    int64_t size, function_ref<InFlightDiagnostic()> emitError) const {
  if (size % getBlockSize() == 0)
    return success();
  return emitError() << getStructureName()
                     << " needs a state size N divisible by " << getBlockSize()
                     << ", got N = " << size;
}

int64_t BlockDiagonalAttr::getChannelGroup() const { return getBlockSize(); }

Value BlockDiagonalAttr::buildApply(OpBuilder &b, Location loc,
                                    ValueRange operands, bool, Value state,
                                    const StepInput &input) const {
  return applyBlocks(b, loc, getBlockSize(), operands[0], state,
                     materializeInput(b, loc, input));
}

CompositeForm BlockDiagonalAttr::getCompositeForm() const {
  return CompositeForm::Blocks;
}

int64_t BlockDiagonalAttr::getCompositeBlockSize() const {
  return getBlockSize();
}

Value BlockDiagonalAttr::buildStepComposite(OpBuilder &, Location,
                                            ValueRange operands, bool) const {
  return operands[0];
}

StructureCosts BlockDiagonalAttr::getCosts(double n, double d, bool) const {
  double m = static_cast<double>(getBlockSize());
  return {2 * m * n * d, 2 * n * m * m, 2 * m * n * d, n * m, n * m, n * d};
}

SmallVector<Value>
BlockDiagonalAttr::buildAdjointTransition(OpBuilder &b, Location loc,
                                          ValueRange operands, bool) const {
  return {transposeInner(b, loc, operands[0])};
}

SmallVector<Value> BlockDiagonalAttr::buildTransitionGradient(
    OpBuilder &b, Location loc, ValueRange operands, bool, Value cotangent,
    Value previous) const {
  // Loops (b, t, g, i, j, d): dA[b, t, g, i, j] += lambda[b, t, g, i, d] *
  // h[b, t, g, j, d], with channels viewed as [N/m, m].
  int64_t m = getBlockSize();
  return {contract(b, loc, 6, splitDim(b, loc, cotangent, 2, m),
                   {0, 1, 2, 3, 5}, splitDim(b, loc, previous, 2, m),
                   {0, 1, 2, 4, 5}, zerosLike(b, loc, operands[0]),
                   {0, 1, 2, 3, 4}, {kPar, kPar, kPar, kPar, kPar, kRed})};
}
