//===- Adjoint.cpp - The adjoint of a recurrence.scan ---------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// For h_t = A_t h_{t-1} + b_t with cotangents G_t of the states (G_t =
// c_t ybar_t^T under a readout) and F of the final state, the cotangents
// mu_s = dL/dh_s obey
//
//   mu_s = A_{s+1}^T mu_{s+1} + G_s,   mu_T = G_T + F,
//
// a recurrence of the same structure run in reverse. Running it one step
// further (m steps for a state of depth m) gives the cotangent of init too.
// The gradients follow from mu and the recomputed states:
//
//   db_t = mu_t   dA_t = P_A(mu_t h_{t-1}^T)   dinit = mu_0   dc_t = h_t ybar_t
//
// where P_A, the structure's projection, and the transposed transitions come
// from RecurrenceStructureInterface. The code works on a canonical form, one
// batch dim, a matrix state, forward in time, and maps every operand into it
// and every gradient back.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Adjoint.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::recurrence;

constexpr auto kPar = utils::IteratorType::parallel;
constexpr auto kRed = utils::IteratorType::reduction;

namespace {

Type elementTypeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getElementType();
}

/// A tensor type with the sizes that are constants static.
RankedTensorType typeOf(ArrayRef<OpFoldResult> sizes, Type elementType) {
  SmallVector<int64_t> shape;
  for (OpFoldResult size : sizes)
    shape.push_back(getConstantIntValue(size).value_or(ShapedType::kDynamic));
  return RankedTensorType::get(shape, elementType);
}

SmallVector<OpFoldResult> indexAttrs(OpBuilder &b, ArrayRef<int64_t> values) {
  SmallVector<OpFoldResult> attrs;
  for (int64_t value : values)
    attrs.push_back(b.getIndexAttr(value));
  return attrs;
}

/// The canonical form and the maps into and out of it.
class Canonical {
public:
  Canonical(OpBuilder &b, Location loc, int64_t batchRank, bool reverse)
      : b(b), loc(loc), batchRank(batchRank), reverse(reverse) {}

  /// `value` with its batch dims as one, with a trailing unit column when
  /// `column` (a vector state's [N] as [N, 1]), and forward in time when
  /// `perStep`.
  Value in(Value value, bool perStep, bool column = false) {
    if (batchRank == 0)
      value = expandDim(
          value, 0,
          {b.getIndexAttr(1), tensor::getMixedSize(b, loc, value, 0)});
    else if (batchRank > 1)
      value = collapseDims(value, 0, batchRank);
    if (column) {
      int64_t last = cast<RankedTensorType>(value.getType()).getRank() - 1;
      value = expandDim(
          value, last,
          {tensor::getMixedSize(b, loc, value, last), b.getIndexAttr(1)});
    }
    return perStep && reverse ? reverseSteps(value) : value;
  }

  /// The inverse of `in` for a gradient of `original`.
  Value out(Value value, Value original, bool perStep, bool column = false) {
    if (perStep && reverse)
      value = reverseSteps(value);
    if (column) {
      int64_t last = cast<RankedTensorType>(value.getType()).getRank() - 1;
      value = collapseDims(value, last - 1, 2);
    }
    if (batchRank == 0) {
      value = collapseDims(value, 0, 2);
    } else if (batchRank > 1) {
      SmallVector<OpFoldResult> batch;
      for (int64_t i = 0; i < batchRank; ++i)
        batch.push_back(tensor::getMixedSize(b, loc, original, i));
      value = expandDim(value, 0, batch);
    }
    // The types may know fewer (or more) sizes than the original's.
    if (value.getType() != original.getType())
      value = tensor::CastOp::create(b, loc, original.getType(), value);
    return value;
  }

  /// Dim `dim` of `value` split into `parts`.
  Value expandDim(Value value, int64_t dim, ArrayRef<OpFoldResult> parts) {
    SmallVector<OpFoldResult> sizes;
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0, e = cast<RankedTensorType>(value.getType()).getRank();
         i < e; ++i) {
      SmallVector<OpFoldResult> group(parts);
      if (i != dim)
        group = {tensor::getMixedSize(b, loc, value, i)};
      groups.emplace_back();
      for (OpFoldResult part : group) {
        groups.back().push_back(sizes.size());
        sizes.push_back(part);
      }
    }
    RankedTensorType type = typeOf(sizes, elementTypeOf(value));
    if (llvm::count_if(parts, [](OpFoldResult part) {
          return !getConstantIntValue(part);
        }) < 2)
      return tensor::ExpandShapeOp::create(b, loc, type, value, groups, sizes);
    // memref.expand_shape of a dim into several dynamic ones does not lower
    // (-expand-strided-metadata crashes in LLVM 22): reshape instead.
    SmallVector<Value> shape;
    for (OpFoldResult size : sizes)
      shape.push_back(getValueOrCreateConstantIndexOp(b, loc, size));
    Value shapeTensor = tensor::FromElementsOp::create(b, loc, shape);
    return tensor::ReshapeOp::create(b, loc, type, value, shapeTensor);
  }

  /// Dims [first, first + count) of `value` as one.
  Value collapseDims(Value value, int64_t first, int64_t count) {
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0, e = cast<RankedTensorType>(value.getType()).getRank();
         i < e; ++i) {
      if (i > first && i < first + count)
        groups.back().push_back(i);
      else
        groups.push_back({i});
    }
    return tensor::CollapseShapeOp::create(b, loc, value, groups);
  }

  /// `value` [B, T, ...] with its steps in the opposite order.
  Value reverseSteps(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t rank = type.getRank();
    Value last =
        arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, value, 1),
                              arith::ConstantIndexOp::create(b, loc, 1));
    auto generic = linalg::GenericOp::create(
        b, loc, type, ValueRange{}, ValueRange{emptyLike(b, loc, value)},
        SmallVector<AffineMap>{b.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, kPar),
        [&](OpBuilder &nb, Location nl, ValueRange) {
          SmallVector<Value> indices;
          for (int64_t i = 0; i < rank; ++i)
            indices.push_back(linalg::IndexOp::create(nb, nl, i));
          indices[1] = arith::SubIOp::create(nb, nl, last, indices[1]);
          linalg::YieldOp::create(
              nb, nl,
              tensor::ExtractOp::create(nb, nl, value, indices).getResult());
        });
    return generic.getResult(0);
  }

private:
  OpBuilder &b;
  Location loc;
  int64_t batchRank;
  bool reverse;
};

/// Slices of [B, S, ...] tensors along the steps.
struct Steps {
  OpBuilder &b;
  Location loc;

  /// value[:, offset : offset + count], keeping the step dim.
  Value slice(Value value, OpFoldResult offset, OpFoldResult count) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
    SmallVector<OpFoldResult> offsets(sizes.size(), b.getIndexAttr(0));
    offsets[1] = offset;
    sizes[1] = count;
    return tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes,
                                          strides(sizes.size()));
  }

  /// value[:, step] without the step dim. (Not a rank-reducing slice: which
  /// unit dim one drops is ambiguous, and memref lowering may pick another.)
  Value at(Value value, OpFoldResult step) {
    Value one = slice(value, step, b.getIndexAttr(1));
    SmallVector<ReassociationIndices> groups = {{0, 1}};
    for (int64_t i = 2, e = cast<RankedTensorType>(one.getType()).getRank();
         i < e; ++i)
      groups.push_back({i});
    return tensor::CollapseShapeOp::create(b, loc, one, groups);
  }

  /// `dest` with `source` (without the step dim) written at `step`.
  Value put(Value source, Value dest, OpFoldResult step) {
    auto type = cast<RankedTensorType>(source.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
    sizes.insert(sizes.begin() + 1, b.getIndexAttr(1));
    SmallVector<ReassociationIndices> groups = {{0, 1}};
    for (int64_t i = 1, e = type.getRank(); i < e; ++i)
      groups.push_back({i + 1});
    Value one = tensor::ExpandShapeOp::create(
        b, loc, typeOf(sizes, type.getElementType()), source, groups, sizes);
    return into(one, dest, step);
  }

  /// `dest` with `source` (a slice with the step dim) written from `step`.
  Value into(Value source, Value dest, OpFoldResult step) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, source);
    SmallVector<OpFoldResult> offsets(sizes.size(), b.getIndexAttr(0));
    offsets[1] = step;
    return tensor::InsertSliceOp::create(b, loc, source, dest, offsets, sizes,
                                         strides(sizes.size()));
  }

  SmallVector<OpFoldResult> strides(size_t rank) {
    return SmallVector<OpFoldResult>(rank, b.getIndexAttr(1));
  }

  OpFoldResult plus(OpFoldResult size, int64_t k) {
    return affine::makeComposedFoldedAffineApply(
        b, loc, b.getAffineSymbolExpr(0) + k, {size});
  }
};

} // namespace

FailureOr<SmallVector<Value>>
mlir::recurrence::buildScanAdjoint(RewriterBase &rewriter, ScanOp op,
                                   Value outputCotangent,
                                   Value finalStateCotangent) {
  if (failed(op.verify()))
    return failure();
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  RecurrenceStructureInterface structure = op.getStructure();
  Type elementType = op.getElementType();
  bool matrix = op.getMatrix() || op.hasFactoredInput();
  bool vector = !matrix;
  bool perElement = op.hasPerElementTransition();
  int64_t depth = structure.getStateDepth();
  // The steps the adjoint runs before step 1: the init states it reaches.
  int64_t lead = std::max<int64_t>(1, depth);
  Canonical canon(b, loc, op.getBatchRank(), op.getReverse());
  Steps steps{b, loc};

  // The operands, canonical: one batch dim, [N, D] states, forward in time.
  SmallVector<Value> transitions;
  for (Value operand : op.getTransition())
    transitions.push_back(canon.in(operand, /*perStep=*/true));
  Value input, key, value;
  if (op.hasFactoredInput()) {
    key = canon.in(op.getInputKey(), true);
    value = canon.in(op.getInputValue(), true);
  } else {
    input = canon.in(op.getInput(), true, vector);
  }
  Value init = op.getInit() ? canon.in(op.getInit(), false, vector) : Value();
  Value readout = op.getReadout() ? canon.in(op.getReadout(), true) : Value();

  Value source = input ? input : key;
  OpFoldResult batch = tensor::getMixedSize(b, loc, source, 0);
  OpFoldResult length = tensor::getMixedSize(b, loc, source, 1);
  OpFoldResult size = tensor::getMixedSize(b, loc, source, 2);
  OpFoldResult columns = input ? tensor::getMixedSize(b, loc, input, 3)
                               : tensor::getMixedSize(b, loc, value, 2);
  SmallVector<OpFoldResult> stateSizes = {batch, length, size, columns};
  RankedTensorType statesType = typeOf(stateSizes, elementType);

  // The states h_1 .. h_T, recomputed.
  auto forward = ScanOp::create(b, loc, statesType, Type(),
                                op.getStructureAttr(), op.getScheduleAttr(),
                                /*matrix=*/true, /*reverse=*/false, transitions,
                                input, key, value, init, Value(), ValueRange());
  Value states = forward.getOutput();

  // The direct cotangents of h_{1-lead} .. h_T: G_t, then F on the states
  // the final state holds.
  Value ybar =
      outputCotangent ? canon.in(outputCotangent, true, vector) : Value();
  Value direct;
  if (!ybar) {
    direct = zeroTensor(b, loc, stateSizes, elementType);
  } else if (readout) {
    direct = contract(b, loc, 4, readout, {0, 1, 2}, ybar, {0, 1, 3},
                      zeroTensor(b, loc, stateSizes, elementType), {0, 1, 2, 3},
                      {kPar, kPar, kPar, kPar});
  } else {
    direct = ybar;
  }
  direct = padSteps(b, loc, direct, lead, 0);
  if (finalStateCotangent) {
    Value last = canon.in(finalStateCotangent, false, vector);
    for (int64_t k = 0; k < lead; ++k) {
      // F[k] is the cotangent of h_{T-k}, at T - k + lead - 1.
      Value held = depth ? steps.at(last, b.getIndexAttr(k)) : last;
      OpFoldResult at = steps.plus(length, lead - 1 - k);
      Value sum =
          linalg::AddOp::create(b, loc, ValueRange{steps.at(direct, at), held},
                                ValueRange{emptyLike(b, loc, held)})
              .getResult(0);
      direct = steps.put(sum, direct, at);
    }
  }

  // mu: the adjoint recurrence, in reverse over T + lead steps.
  SmallVector<Value> adjointTransitions =
      structure.buildAdjointTransition(b, loc, transitions, perElement);
  SmallVector<OpFoldResult> allSizes = {batch, steps.plus(length, lead), size,
                                        columns};
  auto adjoint =
      ScanOp::create(b, loc, typeOf(allSizes, elementType), Type(),
                     op.getStructureAttr(), op.getScheduleAttr(),
                     /*matrix=*/true, /*reverse=*/true, adjointTransitions,
                     direct, Value(), Value(), Value(), Value(), ValueRange());
  Value mu = adjoint.getOutput();
  Value cotangents = steps.slice(mu, b.getIndexAttr(lead), length);

  // The state each step read: h_{t-1}, or the stack h_{t-1} .. h_{t-m}.
  Value history = padSteps(b, loc, states, lead, 0);
  if (init && depth == 0)
    history = steps.put(init, history, b.getIndexAttr(0));
  for (int64_t j = 0; init && j < depth; ++j)
    history = steps.put(steps.at(init, b.getIndexAttr(j)), history,
                        b.getIndexAttr(depth - 1 - j));
  Value previous;
  if (depth == 0) {
    previous = steps.slice(history, b.getIndexAttr(0), length);
  } else {
    SmallVector<OpFoldResult> stackSizes = {
        batch, length, b.getIndexAttr(depth), size, columns};
    previous = tensor::EmptyOp::create(b, loc, stackSizes, elementType);
    SmallVector<OpFoldResult> lagSizes(stackSizes);
    lagSizes[2] = b.getIndexAttr(1);
    for (int64_t i = 0; i < depth; ++i) {
      Value lag = canon.expandDim(
          steps.slice(history, b.getIndexAttr(depth - 1 - i), length), 1,
          {length, b.getIndexAttr(1)});
      previous = tensor::InsertSliceOp::create(b, loc, lag, previous,
                                               indexAttrs(b, {0, 0, i, 0, 0}),
                                               lagSizes, steps.strides(5));
    }
  }

  // The gradients, canonical, then in the operands' own forms.
  SmallVector<Value> gradients;
  SmallVector<Value> transitionGradients = structure.buildTransitionGradient(
      b, loc, transitions, perElement, cotangents, previous);
  for (auto [gradient, operand] :
       llvm::zip_equal(transitionGradients, op.getTransition()))
    gradients.push_back(canon.out(gradient, operand, true));
  if (input) {
    gradients.push_back(canon.out(cotangents, op.getInput(), true, vector));
  } else {
    // dk_t = mu_t v_t and dv_t = mu_t^T k_t.
    Value dKey =
        contract(b, loc, 4, cotangents, {0, 1, 2, 3}, value, {0, 1, 3},
                 zerosLike(b, loc, key), {0, 1, 2}, {kPar, kPar, kPar, kRed});
    Value dValue =
        contract(b, loc, 4, cotangents, {0, 1, 2, 3}, key, {0, 1, 2},
                 zerosLike(b, loc, value), {0, 1, 3}, {kPar, kPar, kRed, kPar});
    gradients.push_back(canon.out(dKey, op.getInputKey(), true));
    gradients.push_back(canon.out(dValue, op.getInputValue(), true));
  }
  if (init) {
    Value dInit;
    if (depth == 0) {
      dInit = steps.at(mu, b.getIndexAttr(0));
    } else {
      dInit = emptyLike(b, loc, init);
      for (int64_t j = 0; j < depth; ++j)
        dInit = steps.put(steps.at(mu, b.getIndexAttr(depth - 1 - j)), dInit,
                          b.getIndexAttr(j));
    }
    gradients.push_back(canon.out(dInit, op.getInit(), false, vector));
  }
  if (readout) {
    Value dReadout = zerosLike(b, loc, readout);
    if (ybar)
      dReadout = contract(b, loc, 4, states, {0, 1, 2, 3}, ybar, {0, 1, 3},
                          dReadout, {0, 1, 2}, {kPar, kPar, kPar, kRed});
    gradients.push_back(canon.out(dReadout, op.getReadout(), true));
  }
  return gradients;
}
