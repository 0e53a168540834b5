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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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

SmallVector<Value> HigherOrderAttr::buildAdjointTransition(OpBuilder &b,
                                                           Location loc,
                                                           ValueRange operands,
                                                           bool) const {
  // Step p of the adjoint reads lag i of forward step p + i + 1 - m: each
  // lag's coefficients [B, T] move m - 1 - i steps later, in T + m steps.
  Value a = operands[0];
  int64_t m = getOrder();
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, a);
  SmallVector<OpFoldResult> padded(sizes);
  padded[1] = affine::makeComposedFoldedAffineApply(
      b, loc, b.getAffineSymbolExpr(0) + m, {sizes[1]});
  Value result = zeroTensor(
      b, loc, padded, cast<RankedTensorType>(a.getType()).getElementType());
  SmallVector<OpFoldResult> lagSizes(sizes);
  lagSizes[2] = b.getIndexAttr(1);
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  for (int64_t i = 0; i < m; ++i) {
    SmallVector<OpFoldResult> from = {b.getIndexAttr(0), b.getIndexAttr(0),
                                      b.getIndexAttr(i), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> to = {b.getIndexAttr(0),
                                    b.getIndexAttr(m - 1 - i),
                                    b.getIndexAttr(i), b.getIndexAttr(0)};
    Value lag =
        tensor::ExtractSliceOp::create(b, loc, a, from, lagSizes, strides);
    result = tensor::InsertSliceOp::create(b, loc, lag, result, to, lagSizes,
                                           strides);
  }
  return {result};
}

SmallVector<Value> HigherOrderAttr::buildTransitionGradient(
    OpBuilder &b, Location loc, ValueRange operands, bool, Value cotangent,
    Value previous) const {
  // Loops (b, t, i, n, d): da[b, t, i, n] += lambda[b, t, n, d] *
  // h_{t-1-i}[b, t, n, d], the lag-i state of the stack step t read.
  return {contract(b, loc, 5, cotangent, {0, 1, 3, 4}, previous,
                   {0, 1, 2, 3, 4}, zerosLike(b, loc, operands[0]),
                   {0, 1, 2, 3}, {kPar, kPar, kPar, kPar, kRed})};
}
