//===- GenericAdjoint.cpp - Reverse mode of linalg.generic ----------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The ops around the scans (model decompositions: feature maps, gates,
// normalizations, broadcasts, sums) are linalg.generic ops whose indexing
// maps are projected permutations and whose bodies are scalar arithmetic.
// For y[out(i)] = f(x_1[m_1(i)], ..., x_n[m_n(i)]) (or a sum of f over the
// loops out() does not name), the cotangent of x_k is
//
//   xbar_k[m_k(i)] += ybar[out(i)] * df/dx_k(i)
//
// over every loop i: a generic over the same loops, parallel in the dims of
// m_k and a reduction over the others (a broadcast operand sums back). Its
// body recomputes f and its derivative by forward mode from the seed ybar.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"
#include "recurrence/Dialect/Recurrence/Transforms/Adjoint.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::recurrence;

namespace {

/// The scalar ops whose derivatives `Tangents` knows.
bool isKnownScalarOp(Operation &op) {
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::SelectOp, arith::CmpFOp, arith::CmpIOp, arith::ConstantOp,
             math::ExpOp, math::Log1pOp, math::AbsFOp, linalg::IndexOp,
             linalg::YieldOp>(op);
}

/// Forward mode over a generic's body, whose ops were cloned with `clones`:
/// the tangents of its values (null for zero) when one block argument moves
/// by `seed`.
class Tangents {
public:
  Tangents(OpBuilder &b, Location loc, const IRMapping &clones)
      : b(b), loc(loc), clones(clones) {}

  /// The tangent of the value `body` yields.
  Value of(Block &body, BlockArgument moving, Value seed) {
    tangents[moving] = seed;
    for (Operation &op : body.without_terminator())
      if (Value tangent = derive(op))
        tangents[op.getResult(0)] = tangent;
    return tangents.lookup(body.getTerminator()->getOperand(0));
  }

private:
  Value t(Value v) const { return tangents.lookup(v); }
  Value m(Value v) const { return clones.lookupOrDefault(v); }
  Value zero(Type type) const {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  }
  Value orZero(Value tangent, Type type) const {
    return tangent ? tangent : zero(type);
  }
  Value add(Value x, Value y) const {
    if (!x || !y)
      return x ? x : y;
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value mul(Value x, Value y) const {
    return x ? Value(arith::MulFOp::create(b, loc, x, y)) : Value();
  }
  Value neg(Value x) const {
    return x ? Value(arith::NegFOp::create(b, loc, x)) : Value();
  }
  /// select(pred(x, y), tx, ty): the tangent of the one picked.
  Value pick(arith::CmpFPredicate pred, Value x, Value y, Value tx,
             Value ty) const {
    if (!tx && !ty)
      return Value();
    Value cond = arith::CmpFOp::create(b, loc, pred, x, y);
    return arith::SelectOp::create(b, loc, cond, orZero(tx, x.getType()),
                                   orZero(ty, x.getType()));
  }

  Value derive(Operation &op) const {
    if (op.getNumOperands() == 0 || op.getNumResults() != 1)
      return Value();
    Value a = op.getOperand(0);
    Value b2 = op.getNumOperands() > 1 ? op.getOperand(1) : Value();
    Value result = op.getResult(0);
    if (isa<arith::AddFOp>(op))
      return add(t(a), t(b2));
    if (isa<arith::SubFOp>(op))
      return add(t(a), neg(t(b2)));
    if (isa<arith::NegFOp>(op))
      return neg(t(a));
    if (isa<arith::MulFOp>(op))
      return add(mul(t(a), m(b2)), mul(t(b2), m(a)));
    if (isa<arith::DivFOp>(op)) {
      // (ta - r tb) / b for r = a / b.
      Value numerator = add(t(a), neg(mul(t(b2), m(result))));
      return numerator ? Value(arith::DivFOp::create(b, loc, numerator, m(b2)))
                       : Value();
    }
    if (isa<math::ExpOp>(op))
      return mul(t(a), m(result));
    if (isa<math::Log1pOp>(op)) {
      if (!t(a))
        return Value();
      Value one =
          arith::ConstantOp::create(b, loc, b.getFloatAttr(a.getType(), 1.0));
      return arith::DivFOp::create(b, loc, t(a),
                                   arith::AddFOp::create(b, loc, one, m(a)));
    }
    if (isa<math::AbsFOp>(op))
      return pick(arith::CmpFPredicate::OLT, m(a), zero(a.getType()), neg(t(a)),
                  t(a));
    if (isa<arith::MaximumFOp>(op))
      return pick(arith::CmpFPredicate::OGE, m(a), m(b2), t(a), t(b2));
    if (isa<arith::MinimumFOp>(op))
      return pick(arith::CmpFPredicate::OLE, m(a), m(b2), t(a), t(b2));
    if (auto select = dyn_cast<arith::SelectOp>(op)) {
      Value tx = t(select.getTrueValue()), ty = t(select.getFalseValue());
      if (!tx && !ty)
        return Value();
      return arith::SelectOp::create(b, loc, m(select.getCondition()),
                                     orZero(tx, result.getType()),
                                     orZero(ty, result.getType()));
    }
    return Value(); // constants and comparisons
  }

  OpBuilder &b;
  Location loc;
  const IRMapping &clones;
  DenseMap<Value, Value> tangents;
};

/// Whether every reduction loop of `op` runs once (a static size of 1), so
/// that a body that overwrites its output element is elementwise.
bool reducesOnlyUnitDims(linalg::GenericOp op) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [type, range] : llvm::zip(op.getIteratorTypesArray(), ranges))
    if (type == utils::IteratorType::reduction && range != 1)
      return false;
  return true;
}

} // namespace

bool mlir::recurrence::isDifferentiableGeneric(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 ||
      !isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return false;
  if (!llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isProjectedPermutation(); }))
    return false;
  Block &body = op.getRegion().front();
  if (!llvm::all_of(body, isKnownScalarOp))
    return false;
  // The output element is either not read (an elementwise op, reductions
  // over unit dims included) or the sum it accumulates into: yield(out +
  // x), out read nowhere else.
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  if (out.use_empty())
    return reducesOnlyUnitDims(op);
  auto sum = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  return out.hasOneUse() && sum && (sum.getLhs() == out || sum.getRhs() == out);
}

SmallVector<Value> mlir::recurrence::buildGenericAdjoint(OpBuilder &b,
                                                         linalg::GenericOp op,
                                                         Value cotangent) {
  Location loc = op.getLoc();
  int64_t numInputs = op.getNumDpsInputs();
  Block &body = op.getRegion().front();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  BlockArgument out = body.getArgument(numInputs);
  SmallVector<Value> gradients(numInputs + 1);
  // What is summed into the init reaches it unchanged.
  if (!out.use_empty())
    gradients[numInputs] = cotangent;
  SmallVector<Value> inputs(op.getDpsInputs());
  inputs.push_back(cotangent);
  for (int64_t k = 0; k < numInputs; ++k) {
    Value input = inputs[k];
    BlockArgument arg = body.getArgument(k);
    // Scalar operands (constants here: the function's arguments are
    // tensors) and integers get no cotangent.
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (arg.use_empty() || !type || !isa<FloatType>(type.getElementType()))
      continue;
    SmallVector<utils::IteratorType> iterators;
    for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d)
      iterators.push_back(maps[k].isFunctionOfDim(d)
                              ? utils::IteratorType::parallel
                              : utils::IteratorType::reduction);
    SmallVector<AffineMap> adjointMaps(maps.begin(), maps.end());
    adjointMaps.push_back(maps[k]);
    auto adjoint = linalg::GenericOp::create(
        b, loc, input.getType(), inputs, ValueRange{zerosLike(b, loc, input)},
        adjointMaps, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          // f recomputed (the output element, read only by a sum whose
          // derivative does not depend on it, as zero), then its tangent
          // along x_k seeded with ybar.
          IRMapping clones;
          for (int64_t j = 0; j < numInputs; ++j)
            clones.map(body.getArgument(j), args[j]);
          clones.map(out, arith::ConstantOp::create(
                              nb, nl, nb.getFloatAttr(out.getType(), 0.0)));
          for (Operation &inner : body.without_terminator())
            nb.clone(inner, clones);
          Value tangent =
              Tangents(nb, nl, clones).of(body, arg, args[numInputs]);
          Value acc = args[numInputs + 1];
          linalg::YieldOp::create(
              nb, nl,
              tangent ? Value(arith::AddFOp::create(nb, nl, acc, tangent))
                      : acc);
        });
    // f does not depend on x_k after all (it is read only by a comparison,
    // say): no cotangent, and no pass over zeros.
    if (adjoint.getRegion().front().getTerminator()->getOperand(0) ==
        adjoint.getRegion().front().getArguments().back()) {
      adjoint->erase();
      continue;
    }
    gradients[k] = adjoint.getResult(0);
  }
  return gradients;
}
