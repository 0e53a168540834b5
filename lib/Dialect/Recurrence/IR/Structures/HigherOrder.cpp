//===- HigherOrder.cpp - higher_order<m> ----------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// h_t = sum_{i=1..m} a_{i,t} * h_{t-i} + b_t channelwise, a: [..., T, m, N].
// The state is the stack [m, N, D] of the m most recent states, newest
// first; products are one m x m companion block per channel.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::recurrence;

constexpr auto kPar = utils::IteratorType::parallel;
constexpr auto kRed = utils::IteratorType::reduction;

unsigned HigherOrderAttr::getNumTransitionOperands() const { return 1; }

SmallVector<int64_t> HigherOrderAttr::getTransitionStep(unsigned, int64_t size,
                                                        int64_t, bool) const {
  return {getOrder(), size};
}

int64_t HigherOrderAttr::getStateDepth() const { return getOrder(); }

int64_t HigherOrderAttr::getChannelGroup() const { return 1; }

std::optional<unsigned> HigherOrderAttr::getChannelDim(unsigned) const {
  return 1u;
}

Value HigherOrderAttr::buildApply(OpBuilder &b, Location loc,
                                  ValueRange operands, bool, Value state,
                                  const StepInput &input) const {
  // Loops (n, d, i): out[n, d] += a[i, n] * stack[i, n, d].
  return contract(b, loc, 3, operands[0], {2, 0}, state, {2, 0, 1},
                  materializeInput(b, loc, input), {0, 1}, {kPar, kPar, kRed});
}

CompositeForm HigherOrderAttr::getCompositeForm() const {
  return CompositeForm::Companion;
}

int64_t HigherOrderAttr::getCompositeBlockSize() const { return getOrder(); }

Value HigherOrderAttr::buildStepComposite(OpBuilder &b, Location loc,
                                          ValueRange operands, bool) const {
  return companionBlocks(b, loc, operands[0], getOrder());
}

StructureCosts HigherOrderAttr::getCosts(double n, double d, bool) const {
  double m = static_cast<double>(getOrder());
  return {2 * m * n * d, 2 * n * m * m * m, 2 * m * m * n * d,
          m * n,         n * m * m,         m * n * d};
}
