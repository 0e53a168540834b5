//===- StructureAlgebra.cpp - Transitions as tensor computations ----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"
#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::recurrence;

using utils::IteratorType;

namespace {
/// Builds linalg.generic ops over a fixed loop nest with maps written as
/// lists of loop dims, e.g. {{0, 2}, {2, 1}, {0, 1}} for a matmul.
class GenericBuilder {
public:
  GenericBuilder(OpBuilder &b, Location loc, unsigned numLoops)
      : b(b), loc(loc), numLoops(numLoops) {}

  AffineMap map(ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> exprs;
    for (unsigned d : dims)
      exprs.push_back(b.getAffineDimExpr(d));
    return AffineMap::get(numLoops, 0, exprs, b.getContext());
  }

  /// One result written into `init`; the body gets the input elements and
  /// the current output element and returns the new output element.
  Value build(ValueRange inputs, ArrayRef<SmallVector<unsigned>> inputDims,
              Value init, ArrayRef<unsigned> initDims,
              ArrayRef<IteratorType> iterators,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
    SmallVector<AffineMap> maps;
    for (ArrayRef<unsigned> dims : inputDims)
      maps.push_back(map(dims));
    maps.push_back(map(initDims));
    auto op = linalg::GenericOp::create(
        b, loc, init.getType(), inputs, init, maps, iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          linalg::YieldOp::create(nb, nl, body(nb, nl, args));
        });
    return op.getResult(0);
  }

private:
  OpBuilder &b;
  Location loc;
  unsigned numLoops;
};

Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulFOp::create(b, loc, x, y);
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

constexpr auto kPar = IteratorType::parallel;
constexpr auto kRed = IteratorType::reduction;
} // namespace

Value mlir::recurrence::zeroTensor(OpBuilder &b, Location loc,
                                   ArrayRef<OpFoldResult> sizes,
                                   Type elementType) {
  Value empty = tensor::EmptyOp::create(b, loc, sizes, elementType);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

Value mlir::recurrence::materializeInput(OpBuilder &b, Location loc,
                                         const StepInput &input) {
  if (input.full && !input.into)
    return input.full;
  if (input.full)
    return linalg::CopyOp::create(b, loc, input.full, input.into).getResult(0);
  Value into = input.into;
  if (!into) {
    SmallVector<OpFoldResult> sizes = {
        tensor::getMixedSize(b, loc, input.key, 0),
        tensor::getMixedSize(b, loc, input.value, 0)};
    into = tensor::EmptyOp::create(b, loc, sizes, elementTypeOf(input.key));
  }
  return GenericBuilder(b, loc, 2).build(
      {input.key, input.value}, {{0}, {1}}, into, {0, 1}, {kPar, kPar},
      [](OpBuilder &nb, Location nl, ValueRange args) {
        return mul(nb, nl, args[0], args[1]);
      });
}

SmallVector<Value> mlir::recurrence::applyGate(
    OpBuilder &b, Location loc, Value gate, bool perElement, Value state,
    const StepInput &input, Value copy, std::optional<LowRankTerm> lowRank) {
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  Value scalar;
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, b.getContext());
  AffineMap rows =
      AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, b.getContext());
  AffineMap columns =
      AffineMap::get(2, 0, {b.getAffineDimExpr(1)}, b.getContext());
  bool hasGate = gate && isa<RankedTensorType>(gate.getType());
  if (gate && !hasGate) {
    scalar = gate;
  } else if (hasGate) {
    inputs.push_back(gate);
    maps.push_back(perElement ? id : rows);
  }
  if (input.full) {
    inputs.push_back(input.full);
    maps.push_back(id);
  } else {
    inputs.append({input.key, input.value});
    maps.append({rows, columns});
  }
  // U[n, j] and w[j, d] for each j, the rank written out in the maps.
  int64_t rank = 0;
  if (lowRank) {
    rank = lowRank->rank;
    for (int64_t j : llvm::seq(rank)) {
      AffineExpr n = b.getAffineDimExpr(0), d = b.getAffineDimExpr(1),
                 c = b.getAffineConstantExpr(j);
      inputs.append({lowRank->left, lowRank->projected});
      maps.append({AffineMap::get(2, 0, {n, c}, b.getContext()),
                   AffineMap::get(2, 0, {c, d}, b.getContext())});
    }
  }
  SmallVector<Value> outputs = {state};
  if (copy)
    outputs.push_back(copy);
  maps.append(outputs.size(), id);
  auto op = linalg::GenericOp::create(
      b, loc, ValueRange(outputs).getTypes(), inputs, outputs, maps,
      {kPar, kPar}, [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value h = args[inputs.size()];
        unsigned next = 0;
        if (hasGate)
          h = mul(nb, nl, args[next++], h);
        else if (scalar)
          h = mul(nb, nl, scalar, h);
        Value bt =
            input.full ? args[next] : mul(nb, nl, args[next], args[next + 1]);
        next += input.full ? 1 : 2;
        for (int64_t j = 0; j < rank; ++j, next += 2)
          h = add(nb, nl, h, mul(nb, nl, args[next], args[next + 1]));
        Value result = add(nb, nl, h, bt);
        linalg::YieldOp::create(nb, nl,
                                SmallVector<Value>(outputs.size(), result));
      });
  return op.getResults();
}

std::optional<std::pair<Value, Value>>
mlir::recurrence::applyTransitionAndCopy(OpBuilder &b, Location loc,
                                         const StepTransition &a, Value state,
                                         const StepInput &input, Value copy) {
  return a.structure.buildApplyAndCopy(b, loc, a.operands, a.perElement, state,
                                       input, copy);
}

/// acc + sum_k lhs[...] * rhs[...] for a contraction given by its maps.
Value mlir::recurrence::contract(OpBuilder &b, Location loc, unsigned numLoops,
                                 Value lhs, ArrayRef<unsigned> lhsDims,
                                 Value rhs, ArrayRef<unsigned> rhsDims,
                                 Value acc, ArrayRef<unsigned> accDims,
                                 ArrayRef<IteratorType> iterators) {
  SmallVector<SmallVector<unsigned>> inputDims = {
      SmallVector<unsigned>(lhsDims), SmallVector<unsigned>(rhsDims)};
  // Reducing only loops of one iteration (a vector state's unit column)
  // onto a fill, each element is the fill value plus one product: the fill
  // need not run (a full pass over the result), nor the result be read.
  auto unitLoop = [&](unsigned loop) {
    for (auto [operand, dims] : {std::pair(lhs, lhsDims), {rhs, rhsDims}}) {
      auto type = cast<RankedTensorType>(operand.getType());
      for (auto [i, dim] : llvm::enumerate(dims))
        if (dim == loop && type.getDimSize(i) == 1)
          return true;
    }
    return false;
  };
  auto fill = acc.getDefiningOp<linalg::FillOp>();
  bool oneProduct =
      fill &&
      fill.getInputs()[0].getType() ==
          cast<RankedTensorType>(acc.getType()).getElementType() &&
      llvm::all_of(llvm::seq(numLoops), [&](unsigned loop) {
        return iterators[loop] != IteratorType::reduction || unitLoop(loop);
      });
  if (oneProduct) {
    Value value = fill.getInputs()[0];
    bool zero = matchPattern(value, m_AnyZeroFloat());
    return GenericBuilder(b, loc, numLoops)
        .build({lhs, rhs}, inputDims, fill.getOutputs()[0], accDims, iterators,
               [&](OpBuilder &nb, Location nl, ValueRange args) {
                 Value product = mul(nb, nl, args[0], args[1]);
                 return zero ? product : add(nb, nl, value, product);
               });
  }
  // The sum may be reassociated: code generation can then keep partial sums
  // in vector registers (a dot product of N terms), as a user's
  // `omp simd reduction` loop would; the rounding error stays of the order
  // of the sequential sum's.
  return GenericBuilder(b, loc, numLoops)
      .build({lhs, rhs}, inputDims, acc, accDims, iterators,
             [](OpBuilder &nb, Location nl, ValueRange args) {
               return arith::AddFOp::create(nb, nl, args[2],
                                            mul(nb, nl, args[0], args[1]),
                                            arith::FastMathFlags::reassoc);
             });
}

Value mlir::recurrence::splitDim(OpBuilder &b, Location loc, Value value,
                                 unsigned dim, int64_t m) {
  auto type = cast<RankedTensorType>(value.getType());
  AffineExpr s0 = b.getAffineSymbolExpr(0);
  OpFoldResult blocks = affine::makeComposedFoldedAffineApply(
      b, loc, s0.floorDiv(m), {tensor::getMixedSize(b, loc, value, dim)});
  // A size known as a constant must be static in the types too.
  if (std::optional<int64_t> known = getConstantIntValue(blocks);
      known && type.isDynamicDim(dim)) {
    SmallVector<int64_t> shape(type.getShape());
    shape[dim] = *known * m;
    type = RankedTensorType::get(shape, type.getElementType());
    value = tensor::CastOp::create(b, loc, type, value);
  }
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> sizes;
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i) {
    int64_t n = type.getDimSize(i);
    if (i != dim) {
      groups.push_back({static_cast<int64_t>(shape.size())});
      shape.push_back(n);
      sizes.push_back(tensor::getMixedSize(b, loc, value, i));
      continue;
    }
    int64_t first = shape.size();
    groups.push_back({first, first + 1});
    shape.append({ShapedType::isDynamic(n) ? n : n / m, m});
    sizes.append({blocks, b.getIndexAttr(m)});
  }
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      groups, sizes);
}

/// Views an [N, D] tensor as [N/m, m, D].
static Value viewAsBlocks(OpBuilder &b, Location loc, Value value, int64_t m) {
  return splitDim(b, loc, value, 0, m);
}

Value mlir::recurrence::applyBlocks(OpBuilder &b, Location loc, int64_t m,
                                    Value blocks, Value state, Value acc) {
  // Loops (g, i, d, j): out[g, i, d] += A[g, i, j] * h[g, j, d].
  Value result = contract(
      b, loc, 4, blocks, {0, 1, 3}, viewAsBlocks(b, loc, state, m), {0, 3, 2},
      viewAsBlocks(b, loc, acc, m), {0, 1, 2}, {kPar, kPar, kPar, kRed});
  return tensor::CollapseShapeOp::create(
      b, loc, result, SmallVector<ReassociationIndices>{{0, 1}, {2}});
}

Value mlir::recurrence::applyTransition(OpBuilder &b, Location loc,
                                        const StepTransition &a, Value state,
                                        const StepInput &input) {
  return a.structure.buildApply(b, loc, a.operands, a.perElement, state, input);
}

Value mlir::recurrence::advanceState(OpBuilder &b, Location loc,
                                     RecurrenceStructureInterface structure,
                                     Value state, Value newest) {
  int64_t order = structure.getStateDepth();
  if (order == 0)
    return newest;
  auto stackType = cast<RankedTensorType>(state.getType());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, state);
  Value stack =
      tensor::EmptyOp::create(b, loc, sizes, stackType.getElementType());
  SmallVector<OpFoldResult> one(3, b.getIndexAttr(1));
  auto offsetsAt = [&](int64_t row) {
    return SmallVector<OpFoldResult>{b.getIndexAttr(row), b.getIndexAttr(0),
                                     b.getIndexAttr(0)};
  };
  SmallVector<OpFoldResult> rowSizes = {b.getIndexAttr(1), sizes[1], sizes[2]};
  stack = tensor::InsertSliceOp::create(b, loc, newest, stack, offsetsAt(0),
                                        rowSizes, one);
  if (order == 1)
    return stack;
  SmallVector<OpFoldResult> olderSizes = {b.getIndexAttr(order - 1), sizes[1],
                                          sizes[2]};
  Value older = tensor::ExtractSliceOp::create(b, loc, state, offsetsAt(0),
                                               olderSizes, one);
  return tensor::InsertSliceOp::create(b, loc, older, stack, offsetsAt(1),
                                       olderSizes, one);
}

Value mlir::recurrence::applyReadout(OpBuilder &b, Location loc, Value readout,
                                     Value state, Value into) {
  Value zeros;
  if (into) {
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(elementTypeOf(state)));
    zeros = linalg::FillOp::create(b, loc, zero, into).getResult(0);
  } else {
    SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, state, 1)};
    zeros = zeroTensor(b, loc, sizes, elementTypeOf(state));
  }
  // Loops (d, n): y[d] += c[n] * h[n, d].
  return contract(b, loc, 2, readout, {1}, state, {1, 0}, zeros, {0},
                  {kPar, kRed});
}

//===----------------------------------------------------------------------===//
// Composition
//===----------------------------------------------------------------------===//

using Form = Composite::Form;

Value mlir::recurrence::emptyLike(OpBuilder &b, Location loc, Value like) {
  return tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, like),
                                 elementTypeOf(like));
}

Value mlir::recurrence::eyeLike(OpBuilder &b, Location loc, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  int64_t rank = type.getRank();
  Type elementType = type.getElementType();
  SmallVector<unsigned> all;
  for (int64_t i = 0; i < rank; ++i)
    all.push_back(i);
  return GenericBuilder(b, loc, rank)
      .build({}, {}, emptyLike(b, loc, like), all,
             SmallVector<IteratorType>(rank, kPar),
             [&](OpBuilder &nb, Location nl, ValueRange) -> Value {
               Value one = arith::ConstantOp::create(
                   nb, nl, nb.getFloatAttr(elementType, 1.0));
               if (rank < 2)
                 return one;
               Value zero = arith::ConstantOp::create(
                   nb, nl, nb.getFloatAttr(elementType, 0.0));
               Value i = linalg::IndexOp::create(nb, nl, rank - 2);
               Value j = linalg::IndexOp::create(nb, nl, rank - 1);
               Value same = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::eq, i, j);
               return arith::SelectOp::create(nb, nl, same, one, zero);
             });
}

Value mlir::recurrence::companionBlocks(OpBuilder &b, Location loc,
                                        Value coefficients, int64_t order) {
  auto type = cast<RankedTensorType>(coefficients.getType());
  SmallVector<OpFoldResult> sizes = {
      tensor::getMixedSize(b, loc, coefficients, 1), b.getIndexAttr(order),
      b.getIndexAttr(order)};
  Value empty = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  // Loops (n, r, c).
  return GenericBuilder(b, loc, 3).build(
      {coefficients}, {{2, 0}}, empty, {0, 1, 2}, {kPar, kPar, kPar},
      [&](OpBuilder &nb, Location nl, ValueRange args) -> Value {
        Type elementType = type.getElementType();
        Value one =
            arith::ConstantOp::create(nb, nl, nb.getFloatAttr(elementType, 1));
        Value zero =
            arith::ConstantOp::create(nb, nl, nb.getFloatAttr(elementType, 0));
        Value r = linalg::IndexOp::create(nb, nl, 1);
        Value c = linalg::IndexOp::create(nb, nl, 2);
        Value c0 = arith::ConstantIndexOp::create(nb, nl, 0);
        Value c1 = arith::ConstantIndexOp::create(nb, nl, 1);
        Value top =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, r, c0);
        Value below =
            arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::eq, c,
                                  arith::SubIOp::create(nb, nl, r, c1));
        Value shift = arith::SelectOp::create(nb, nl, below, one, zero);
        return arith::SelectOp::create(nb, nl, top, args[0], shift);
      });
}

Composite mlir::recurrence::compositeOf(RecurrenceStructureInterface structure,
                                        Value value) {
  return {structure.getCompositeForm(), value,
          structure.getCompositeBlockSize()};
}

Composite mlir::recurrence::stepComposite(OpBuilder &b, Location loc,
                                          const StepTransition &a) {
  Value value;
  if (a.structure.getCompositeForm() != Form::Identity)
    value = a.structure.buildStepComposite(b, loc, a.operands, a.perElement);
  return compositeOf(a.structure, value);
}

Composite mlir::recurrence::identityLike(OpBuilder &b, Location loc,
                                         const Composite &like) {
  if (like.form == Form::Identity)
    return like;
  if (like.form == Form::Scalar || like.form == Form::Diagonal) {
    Type elementType = elementTypeOf(like.value);
    Value one =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(elementType, 1.0));
    return {like.form,
            linalg::FillOp::create(b, loc, one, emptyLike(b, loc, like.value))
                .getResult(0)};
  }
  return {like.form, eyeLike(b, loc, like.value)};
}

Value mlir::recurrence::zerosLike(OpBuilder &b, Location loc, Value like) {
  return zeroTensor(b, loc, tensor::getMixedSizes(b, loc, like),
                    elementTypeOf(like));
}

Value mlir::recurrence::padSteps(OpBuilder &b, Location loc, Value value,
                                 int64_t before, int64_t after) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> offsets(sizes.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  SmallVector<OpFoldResult> padded(sizes);
  padded[1] = affine::makeComposedFoldedAffineApply(
      b, loc, b.getAffineSymbolExpr(0) + (before + after), {sizes[1]});
  Type elementType = elementTypeOf(value);
  // Zeros in the pad steps only: the value's steps are written once.
  Value result = tensor::EmptyOp::create(b, loc, padded, elementType);
  auto zeros = [&](OpFoldResult at, int64_t count) {
    if (count == 0)
      return;
    SmallVector<OpFoldResult> padSizes(sizes);
    padSizes[1] = b.getIndexAttr(count);
    offsets[1] = at;
    result = tensor::InsertSliceOp::create(
        b, loc, zeroTensor(b, loc, padSizes, elementType), result, offsets,
        padSizes, strides);
  };
  zeros(b.getIndexAttr(0), before);
  zeros(affine::makeComposedFoldedAffineApply(
            b, loc, b.getAffineSymbolExpr(0) + before, {sizes[1]}),
        after);
  offsets[1] = b.getIndexAttr(before);
  return tensor::InsertSliceOp::create(b, loc, value, result, offsets, sizes,
                                       strides);
}

Value mlir::recurrence::transposeInner(OpBuilder &b, Location loc,
                                       Value value) {
  int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
  SmallVector<int64_t> permutation;
  for (int64_t i = 0; i < rank; ++i)
    permutation.push_back(i);
  std::swap(permutation[rank - 2], permutation[rank - 1]);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  std::swap(sizes[rank - 2], sizes[rank - 1]);
  Value init = tensor::EmptyOp::create(b, loc, sizes, elementTypeOf(value));
  return linalg::TransposeOp::create(b, loc, value, init, permutation)
      .getResult()[0];
}

Composite mlir::recurrence::compose(OpBuilder &b, Location loc,
                                    const Composite &later,
                                    const Composite &earlier, bool inPlace) {
  if (later.form == Form::Identity)
    return earlier;
  if (earlier.form == Form::Identity)
    return later;
  // A matrix product needs its own output; in place, it is then copied over
  // `earlier`, so that a loop-carried product stays one buffer (a temporary
  // of the iteration, not an allocation carried from step to step).
  auto intoEarlier = [&](Value product) {
    if (!inPlace)
      return product;
    return linalg::CopyOp::create(b, loc, product, earlier.value).getResult(0);
  };
  switch (later.form) {
  case Form::Identity:
    break;
  case Form::Scalar:
  case Form::Diagonal: {
    int64_t rank = cast<RankedTensorType>(later.value.getType()).getRank();
    SmallVector<unsigned> dims =
        rank == 1 ? SmallVector<unsigned>{0} : SmallVector<unsigned>{0, 1};
    // Elementwise: may be built in place of `earlier` when the caller owns
    // it (a loop-carried product).
    SmallVector<Value> inputs = {later.value};
    SmallVector<SmallVector<unsigned>> inputDims = {dims};
    if (!inPlace) {
      inputs.push_back(earlier.value);
      inputDims.push_back(dims);
    }
    Value product =
        GenericBuilder(b, loc, rank)
            .build(inputs, inputDims,
                   inPlace ? earlier.value : emptyLike(b, loc, later.value),
                   dims, SmallVector<IteratorType>(rank, kPar),
                   [](OpBuilder &nb, Location nl, ValueRange args) {
                     return mul(nb, nl, args[0], args[1]);
                   });
    return {later.form, product};
  }
  case Form::Blocks:
  case Form::Companion:
    // Loops (g, i, j, k): out[g, i, j] += L[g, i, k] * E[g, k, j].
    return {
        later.form,
        intoEarlier(contract(b, loc, 4, later.value, {0, 1, 3}, earlier.value,
                             {0, 3, 2}, zerosLike(b, loc, later.value),
                             {0, 1, 2}, {kPar, kPar, kPar, kRed})),
        later.blockSize};
  case Form::Dense:
    // Loops (i, j, k): out[i, j] += L[i, k] * E[k, j].
    return {later.form,
            intoEarlier(contract(b, loc, 3, later.value, {0, 2}, earlier.value,
                                 {2, 1}, zerosLike(b, loc, later.value), {0, 1},
                                 {kPar, kPar, kRed}))};
  }
  llvm_unreachable("unknown composite form");
}

Value mlir::recurrence::applyComposite(OpBuilder &b, Location loc,
                                       const Composite &p, Value state,
                                       Value acc) {
  if (p.form == Form::Identity) {
    if (!acc)
      return state;
    return GenericBuilder(b, loc, 2).build(
        {state}, {{0, 1}}, acc, {0, 1}, {kPar, kPar},
        [](OpBuilder &nb, Location nl, ValueRange args) {
          return add(nb, nl, args[0], args[1]);
        });
  }
  if (!acc)
    acc = zerosLike(b, loc, state);
  switch (p.form) {
  case Form::Identity:
    break;
  case Form::Scalar:
  case Form::Diagonal: {
    // P is [1] (scalar), [N] or [N, D]; loops (n, d).
    int64_t rank = cast<RankedTensorType>(p.value.getType()).getRank();
    AffineMap id = AffineMap::getMultiDimIdentityMap(2, b.getContext());
    AffineExpr first = p.form == Form::Scalar ? b.getAffineConstantExpr(0)
                                              : b.getAffineDimExpr(0);
    AffineMap pMap =
        rank == 2 ? id : AffineMap::get(2, 0, {first}, b.getContext());
    auto op = linalg::GenericOp::create(
        b, loc, acc.getType(), ValueRange{p.value, state}, acc,
        ArrayRef<AffineMap>{pMap, id, id}, {kPar, kPar},
        [](OpBuilder &nb, Location nl, ValueRange args) {
          linalg::YieldOp::create(
              nb, nl, add(nb, nl, args[2], mul(nb, nl, args[0], args[1])));
        });
    return op.getResult(0);
  }
  case Form::Blocks:
    return applyBlocks(b, loc, p.blockSize, p.value, state, acc);
  case Form::Dense:
    // Loops (n, d, k): out[n, d] += P[n, k] * h[k, d].
    return contract(b, loc, 3, p.value, {0, 2}, state, {2, 1}, acc, {0, 1},
                    {kPar, kPar, kRed});
  case Form::Companion:
    // Loops (i, n, d, j): out[i, n, d] += P[n, i, j] * S[j, n, d].
    return contract(b, loc, 4, p.value, {1, 0, 3}, state, {3, 1, 2}, acc,
                    {0, 1, 2}, {kPar, kPar, kPar, kRed});
  }
  llvm_unreachable("unknown composite form");
}

Value mlir::recurrence::embedInStack(OpBuilder &b, Location loc, Value newest,
                                     int64_t order) {
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(order),
                                     tensor::getMixedSize(b, loc, newest, 0),
                                     tensor::getMixedSize(b, loc, newest, 1)};
  Value stack = zeroTensor(b, loc, sizes, elementTypeOf(newest));
  SmallVector<OpFoldResult> zeros(3, b.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(3, b.getIndexAttr(1));
  SmallVector<OpFoldResult> rowSizes = {b.getIndexAttr(1), sizes[1], sizes[2]};
  return tensor::InsertSliceOp::create(b, loc, newest, stack, zeros, rowSizes,
                                       ones);
}
