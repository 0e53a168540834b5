//===- Dense.cpp - dense --------------------------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A_t is a full N x N matrix, A: [..., T, N, N]. It couples every channel.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::recurrence;

constexpr auto kPar = utils::IteratorType::parallel;
constexpr auto kRed = utils::IteratorType::reduction;

unsigned DenseAttr::getNumTransitionOperands() const { return 1; }

SmallVector<int64_t> DenseAttr::getTransitionStep(unsigned, int64_t size,
                                                  int64_t, bool) const {
  return {size, size};
}

int64_t DenseAttr::getChannelGroup() const { return 0; }

Value DenseAttr::buildApply(OpBuilder &b, Location loc, ValueRange operands,
                            bool, Value state, const StepInput &input) const {
  // Loops (n, d, k): out[n, d] += A[n, k] * h[k, d].
  return contract(b, loc, 3, operands[0], {0, 2}, state, {2, 1},
                  materializeInput(b, loc, input), {0, 1}, {kPar, kPar, kRed});
}

CompositeForm DenseAttr::getCompositeForm() const {
  return CompositeForm::Dense;
}

Value DenseAttr::buildStepComposite(OpBuilder &, Location, ValueRange operands,
                                    bool) const {
  return operands[0];
}

StructureCosts DenseAttr::getCosts(double n, double d, bool) const {
  return {2 * n * n * d, 2 * n * n * n, 2 * n * n * d, n * n, n * n, n * d};
}

SmallVector<Value> DenseAttr::buildAdjointTransition(OpBuilder &b, Location loc,
                                                     ValueRange operands,
                                                     bool) const {
  return {transposeInner(b, loc, operands[0])};
}

SmallVector<Value> DenseAttr::buildTransitionGradient(OpBuilder &b,
                                                      Location loc,
                                                      ValueRange operands, bool,
                                                      Value cotangent,
                                                      Value previous) const {
  // Loops (b, t, i, j, d): dA[b, t, i, j] += lambda[b, t, i, d] h[b, t, j, d].
  return {contract(b, loc, 5, cotangent, {0, 1, 2, 4}, previous, {0, 1, 3, 4},
                   zerosLike(b, loc, operands[0]), {0, 1, 2, 3},
                   {kPar, kPar, kPar, kPar, kRed})};
}
