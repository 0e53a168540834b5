//===- ModelOps.cpp - Model ops and their decompositions ------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each model op checks its operands in the model's own terms and decomposes
// into recurrence.scan and upstream ops. The gates stay elementwise
// linalg.generic ops, so that later fusion can move them into the scan's
// steps.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::recurrence;

namespace {

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// value[..., first : first + count] along the last dim.
Value sliceLast(OpBuilder &b, Location loc, Value value, int64_t first,
                int64_t count) {
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  SmallVector<OpFoldResult> offsets(sizes.size(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(sizes.size(), b.getIndexAttr(1));
  offsets.back() = b.getIndexAttr(first);
  sizes.back() = b.getIndexAttr(count);
  return tensor::ExtractSliceOp::create(b, loc, value, offsets, sizes, strides);
}

/// The last `count` dims of `value` as one.
Value collapseLast(OpBuilder &b, Location loc, Value value, int64_t count) {
  int64_t rank = tensorType(value).getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i < rank - count; ++i)
    groups.push_back({i});
  groups.emplace_back();
  for (int64_t i = rank - count; i < rank; ++i)
    groups.back().push_back(i);
  return tensor::CollapseShapeOp::create(b, loc, value, groups);
}

/// A recurrence.scan of the operands' element type, writing into new empty
/// tensors.
ScanOp createScan(OpBuilder &b, Location loc, Type output, Type finalState,
                  RecurrenceStructureInterface structure, ScheduleAttr schedule,
                  bool matrix, bool reverse, ValueRange transitions,
                  Value input, Value key, Value value, Value init,
                  Value readout, Value offsets = Value()) {
  auto scan = ScanOp::create(b, loc, output, finalState, structure, schedule,
                             matrix, reverse, transitions, input, key, value,
                             init, readout, offsets, ValueRange(), TypeAttr());
  scan.materializeDestinations(b);
  return scan;
}

/// The scan of a gated LRU: input a_0 * v; its output, then its final state
/// when `finalState` is set.
SmallVector<Value> gatedScan(OpBuilder &b, Location loc, Attribute structure,
                             ScheduleAttr schedule, Value transition,
                             Value gate, Value input, Value init,
                             Value finalState, Value offsets = Value()) {
  Value gated = linalg::MulOp::create(b, loc, ValueRange{gate, input},
                                      ValueRange{emptyLike(b, loc, input)})
                    .getResult(0);
  return createScan(b, loc, input.getType(),
                    finalState ? finalState.getType() : Type(),
                    cast<RecurrenceStructureInterface>(structure), schedule,
                    /*matrix=*/false, /*reverse=*/false, ValueRange{transition},
                    gated, Value(), Value(), init, Value(), offsets)
      ->getResults();
}

/// Checks `actual` against `expected` where both are known.
LogicalResult checkShape(Operation *op, StringRef name, Value value,
                         ArrayRef<int64_t> expected, StringRef layout) {
  ArrayRef<int64_t> actual = tensorType(value).getShape();
  if (shapesCompatible(actual, expected))
    return success();
  return op->emitOpError() << "expected " << name << " of shape "
                           << formatShape(expected) << " (" << layout
                           << "), got " << formatShape(actual);
}

/// Checks a model's optional states (named values, null where absent)
/// against the shape `state` and the model's element type.
LogicalResult checkStates(Operation *op, Type element,
                          ArrayRef<std::pair<StringRef, Value>> states,
                          ArrayRef<int64_t> state, StringRef layout) {
  for (auto [name, value] : states) {
    if (!value)
      continue;
    if (tensorType(value).getElementType() != element)
      return op->emitOpError()
             << "expected " << name << " of element type " << element
             << ", the operands', got " << tensorType(value).getElementType();
    if (failed(checkShape(op, name, value, state, layout)))
      return failure();
  }
  return success();
}

/// The sizes of two shapes of the same rank that either knows.
SmallVector<int64_t> knownSizes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  SmallVector<int64_t> sizes(a);
  for (auto [size, other] : llvm::zip(sizes, b))
    if (ShapedType::isDynamic(size))
      size = other;
  return sizes;
}

/// The static size of dim `dim` (from the back) of the gates.
FailureOr<int64_t> staticGateDim(Operation *op, Value gates, int64_t fromBack,
                                 StringRef what) {
  ArrayRef<int64_t> shape = tensorType(gates).getShape();
  int64_t size = shape[shape.size() - fromBack];
  if (ShapedType::isDynamic(size))
    return op->emitOpError()
           << "expected a static " << what << " in the gates' shape, got "
           << formatShape(shape);
  return size;
}

/// A state's shape [..., X(, Y)] (`trailing` dims after the batch) with
/// packed sequences: [..., S, X(, Y)], S read off the offsets [S + 1].
SmallVector<int64_t> perSequence(SmallVector<int64_t> state, Value offsets,
                                 int64_t trailing = 2) {
  if (!offsets)
    return state;
  state.insert(state.end() - trailing, sequenceCount(offsets));
  return state;
}

/// A state's layout as perSequence shapes it: "[..., S, dk, dv]" for
/// "[..., dk, dv]" under offsets.
std::string perSequence(StringRef layout, Value offsets) {
  if (!offsets || !layout.starts_with("[..., "))
    return layout.str();
  return ("[..., S, " + layout.drop_front(6)).str();
}

} // namespace

//===----------------------------------------------------------------------===//
// normalize_gates
//===----------------------------------------------------------------------===//

LogicalResult NormalizeGatesOp::verify() {
  if (tensorType(getRaw()).getRank() < 1)
    return emitOpError("expected raw gates of rank >= 1 ([..., K])");
  return success();
}

/// f(x) for one element.
static Value gateFunction(OpBuilder &b, Location loc, GateFunction function,
                          Value x) {
  switch (function) {
  case GateFunction::Exp:
    return math::ExpOp::create(b, loc, x);
  case GateFunction::Sigmoid: {
    Value one =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), 1.0));
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, one,
                                 arith::AddFOp::create(b, loc, one, e));
  }
  case GateFunction::Softplus:
    return math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
  case GateFunction::Abs:
    return math::AbsFOp::create(b, loc, x);
  }
  llvm_unreachable("unknown gate function");
}

FailureOr<SmallVector<Value>>
NormalizeGatesOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  Value raw = getRaw();
  int64_t rank = tensorType(raw).getRank();
  MLIRContext *context = b.getContext();
  AffineMap all = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap rows = all.dropResult(rank - 1);
  SmallVector<utils::IteratorType> parallel(rank,
                                            utils::IteratorType::parallel);
  SmallVector<utils::IteratorType> reduce(parallel);
  reduce.back() = utils::IteratorType::reduction;
  GateFunction function = getFunction();

  // w = f(raw); s = sum |w| over the last axis; w / s.
  Value gates = linalg::GenericOp::create(
                    b, loc, raw.getType(), ValueRange{raw},
                    ValueRange{emptyLike(b, loc, raw)},
                    ArrayRef<AffineMap>{all, all}, parallel,
                    [&](OpBuilder &nb, Location nl, ValueRange args) {
                      linalg::YieldOp::create(
                          nb, nl, gateFunction(nb, nl, function, args[0]));
                    })
                    .getResult(0);
  SmallVector<OpFoldResult> rowSizes = tensor::getMixedSizes(b, loc, raw);
  rowSizes.pop_back();
  Value zeros = zeroTensor(b, loc, rowSizes, tensorType(raw).getElementType());
  Value sums =
      linalg::GenericOp::create(
          b, loc, zeros.getType(), ValueRange{gates}, ValueRange{zeros},
          ArrayRef<AffineMap>{all, rows}, reduce,
          [](OpBuilder &nb, Location nl, ValueRange args) {
            Value magnitude = math::AbsFOp::create(nb, nl, args[0]);
            linalg::YieldOp::create(
                nb, nl,
                Value(arith::AddFOp::create(nb, nl, args[1], magnitude)));
          })
          .getResult(0);
  Value normalized =
      linalg::GenericOp::create(
          b, loc, raw.getType(), ValueRange{gates, sums},
          ValueRange{emptyLike(b, loc, raw)},
          ArrayRef<AffineMap>{all, rows, all}, parallel,
          [](OpBuilder &nb, Location nl, ValueRange args) {
            linalg::YieldOp::create(
                nb, nl, Value(arith::DivFOp::create(nb, nl, args[0], args[1])));
          })
          .getResult(0);
  return SmallVector<Value>{normalized};
}

//===----------------------------------------------------------------------===//
// hlru
//===----------------------------------------------------------------------===//

LogicalResult HlruOp::verify() {
  ArrayRef<int64_t> shape = tensorType(getGates()).getShape();
  if (shape.size() < 3)
    return emitOpError() << "expected gates of rank >= 3 ([..., T, N, m+1]), "
                            "got "
                         << formatShape(shape);
  FailureOr<int64_t> gates = staticGateDim(*this, getGates(), 1, "m+1");
  if (failed(gates))
    return failure();
  if (*gates < 2)
    return emitOpError() << "expected at least 2 gates (m state gates and an "
                            "input gate) in the last dim, got "
                         << *gates;
  SmallVector<int64_t> inputShape(shape.drop_back());
  if (failed(checkShape(*this, "input", getInput(), inputShape,
                        "[..., T, N], the gates' without m+1")))
    return failure();
  // Batch and N as the gates or the input know them.
  SmallVector<int64_t> known =
      knownSizes(inputShape, tensorType(getInput()).getShape());
  SmallVector<int64_t> state(ArrayRef(known).drop_back(2));
  state.append({*gates - 1, known.back()});
  return checkStates(*this, tensorType(getGates()).getElementType(),
                     {{"init", getInit()}, {"final state", getFinalState()}},
                     state, "[..., m, N]");
}

FailureOr<SmallVector<Value>> HlruOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  int64_t order = tensorType(getGates()).getShape().back() - 1;
  // a [..., T, m, N] from the first m gates; a_0 [..., T, N] from the last.
  Value coefficients =
      transposeInner(b, loc, sliceLast(b, loc, getGates(), 0, order));
  Value gate = collapseLast(b, loc, sliceLast(b, loc, getGates(), order, 1), 2);
  return gatedScan(b, loc, HigherOrderAttr::get(b.getContext(), order),
                   getScheduleAttr(), coefficients, gate, getInput(), getInit(),
                   getFinalState());
}

//===----------------------------------------------------------------------===//
// bdlru
//===----------------------------------------------------------------------===//

LogicalResult BdlruOp::verify() {
  ArrayRef<int64_t> shape = tensorType(getGates()).getShape();
  if (shape.size() < 4)
    return emitOpError() << "expected gates of rank >= 4 ([..., T, H, m, "
                            "m+1]), got "
                         << formatShape(shape);
  FailureOr<int64_t> block =
      staticGateDim(*this, getGates(), 2, "block size m");
  FailureOr<int64_t> gates = staticGateDim(*this, getGates(), 1, "m+1");
  if (failed(block) || failed(gates))
    return failure();
  if (*block < 1 || *gates != *block + 1)
    return emitOpError() << "expected the last dim m+1 = " << *block + 1
                         << " for blocks of m = " << *block << ", got "
                         << *gates;
  int64_t heads = shape[shape.size() - 3];
  SmallVector<int64_t> inputShape(shape.drop_back(3));
  inputShape.push_back(ShapedType::isDynamic(heads) ? heads : heads * *block);
  if (failed(
          checkShape(*this, "input", getInput(), inputShape, "[..., T, H*m]")))
    return failure();
  SmallVector<int64_t> known =
      knownSizes(inputShape, tensorType(getInput()).getShape());
  SmallVector<int64_t> state(ArrayRef(known).drop_back(2));
  state.push_back(known.back());
  return checkStates(*this, tensorType(getGates()).getElementType(),
                     {{"init", getInit()}, {"final state", getFinalState()}},
                     perSequence(state, getOffsets(), 1),
                     perSequence("[..., H*m]", getOffsets()));
}

FailureOr<SmallVector<Value>> BdlruOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  int64_t block = tensorType(getGates()).getShape().back() - 1;
  // A [..., T, H, m, m] from the first m entries of each row; a_0 [..., T,
  // H*m] from the last.
  Value blocks = sliceLast(b, loc, getGates(), 0, block);
  Value gate = collapseLast(b, loc, sliceLast(b, loc, getGates(), block, 1), 3);
  return gatedScan(b, loc, BlockDiagonalAttr::get(b.getContext(), block),
                   getScheduleAttr(), blocks, gate, getInput(), getInit(),
                   getFinalState(), getOffsets());
}

//===----------------------------------------------------------------------===//
// Attention-like models on a matrix state
//===----------------------------------------------------------------------===//

namespace {

/// The map of a loop nest of `numLoops` that reads the listed dims.
AffineMap mapOf(MLIRContext *context, unsigned numLoops,
                ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> exprs;
  for (int64_t dim : dims)
    exprs.push_back(getAffineDimExpr(dim, context));
  return AffineMap::get(numLoops, 0, exprs, context);
}

/// The loops 0 .. n-1 except `skip`.
SmallVector<int64_t> loopsWithout(int64_t n, ArrayRef<int64_t> skip) {
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < n; ++i)
    if (!llvm::is_contained(skip, i))
      dims.push_back(i);
  return dims;
}

/// An elementwise linalg.generic writing a tensor shaped like `like`, whose
/// inputs are read through `maps`.
Value elementwise(OpBuilder &b, Location loc, Value like, ValueRange inputs,
                  ArrayRef<AffineMap> maps,
                  function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  int64_t rank = tensorType(like).getRank();
  SmallVector<AffineMap> all(maps);
  all.push_back(AffineMap::getMultiDimIdentityMap(rank, b.getContext()));
  return linalg::GenericOp::create(
             b, loc, like.getType(), inputs,
             ValueRange{emptyLike(b, loc, like)}, all,
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, body(nb, nl, args));
             })
      .getResult(0);
}

Value constantLike(OpBuilder &b, Location loc, Value x, double value) {
  return arith::ConstantOp::create(b, loc, b.getFloatAttr(x.getType(), value));
}

/// `value` with its last dim of size n viewed as [n, 1].
Value withUnitColumn(OpBuilder &b, Location loc, Value value) {
  auto type = tensorType(value);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
  sizes.push_back(b.getIndexAttr(1));
  SmallVector<int64_t> shape(type.getShape());
  shape.push_back(1);
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0; i + 1 < type.getRank(); ++i)
    groups.push_back({i});
  groups.push_back({type.getRank() - 1, type.getRank()});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), value,
      groups, sizes);
}

/// The shape of `value` without its last dim, then `tail`.
SmallVector<int64_t> prefixThen(Value value, int64_t drop,
                                ArrayRef<int64_t> tail) {
  SmallVector<int64_t> shape(tensorType(value).getShape().drop_back(drop));
  llvm::append_range(shape, tail);
  return shape;
}

int64_t lastDim(Value value) { return tensorType(value).getShape().back(); }

} // namespace

LogicalResult LinearAttentionOp::verify() {
  if (tensorType(getQuery()).getRank() < 2)
    return emitOpError("expected q of rank >= 2 ([..., T, dk])");
  if (getEps().convertToDouble() < 0)
    return emitOpError("expected eps >= 0");
  int64_t dk = lastDim(getQuery()), dv = lastDim(getValue());
  if (failed(checkShape(*this, "v", getValue(), prefixThen(getQuery(), 1, {dv}),
                        "[..., T, dv], with q's batch dims and T")))
    return failure();
  // The normalizer's state goes with S's: both or neither, and only when
  // normalized.
  if (!getNormalize() && (getNormalizerInit() || getFinalNormalizer()))
    return emitOpError("a normalizer state needs `normalize`");
  if (getNormalize() && (!getInit() != !getNormalizerInit()))
    return emitOpError("expected both init and normalizer_init or neither: "
                       "a normalized state is S and the normalizer c");
  if (getNormalize() && (!getFinalState() != !getFinalNormalizer()))
    return emitOpError("expected both final states (S and the normalizer) "
                       "or neither");
  Type element = tensorType(getQuery()).getElementType();
  if (failed(checkStates(
          *this, element,
          {{"init", getInit()}, {"final state", getFinalState()}},
          perSequence(prefixThen(getQuery(), 2, {dk, dv}), getOffsets()),
          perSequence("[..., dk, dv]", getOffsets()))))
    return failure();
  return checkStates(
      *this, element,
      {{"normalizer_init", getNormalizerInit()},
       {"final normalizer", getFinalNormalizer()}},
      perSequence(prefixThen(getQuery(), 2, {dk}), getOffsets(), 1),
      perSequence("[..., dk]", getOffsets()));
}

FailureOr<SmallVector<Value>>
LinearAttentionOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  MLIRContext *context = b.getContext();
  int64_t rank = tensorType(getQuery()).getRank();
  AffineMap all = AffineMap::getMultiDimIdentityMap(rank, context);
  auto phi = [&](Value x) -> Value {
    if (getFeatureMap() == FeatureMap::Identity)
      return x;
    // x + 1 for x > 0, else e^x.
    return elementwise(
        b, loc, x, {x}, {all}, [](OpBuilder &nb, Location nl, ValueRange a) {
          Value positive =
              arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OGT, a[0],
                                    constantLike(nb, nl, a[0], 0.0));
          Value shifted = arith::AddFOp::create(
              nb, nl, a[0], constantLike(nb, nl, a[0], 1.0));
          return Value(arith::SelectOp::create(
              nb, nl, positive, shifted, math::ExpOp::create(nb, nl, a[0])));
        });
  };
  Value query = phi(getQuery()), key = phi(getKey());
  auto identity = IdentityAttr::get(context);
  auto typeOr = [](Value value) { return value ? value.getType() : Type(); };
  ScanOp numerator =
      createScan(b, loc, getValue().getType(), typeOr(getFinalState()),
                 identity, getScheduleAttr(), /*matrix=*/true,
                 /*reverse=*/false, ValueRange(), Value(), key, getValue(),
                 getInit(), query, getOffsets());
  if (!getNormalize())
    return SmallVector<Value>(numerator->getResults());
  auto denominatorType = RankedTensorType::get(
      prefixThen(getQuery(), 1, {}), tensorType(getQuery()).getElementType());
  ScanOp denominator =
      createScan(b, loc, denominatorType, typeOr(getFinalNormalizer()),
                 identity, getScheduleAttr(),
                 /*matrix=*/false, /*reverse=*/false, ValueRange(), key,
                 Value(), Value(), getNormalizerInit(), query, getOffsets());
  double eps = getEps().convertToDouble();
  SmallVector<Value> results = {
      elementwise(b, loc, numerator.getOutput(),
                  {numerator.getOutput(), denominator.getOutput()},
                  {all, mapOf(context, rank, loopsWithout(rank, {rank - 1}))},
                  [&](OpBuilder &nb, Location nl, ValueRange a) {
                    Value floor = arith::MaximumFOp::create(
                        nb, nl, a[1], constantLike(nb, nl, a[1], eps));
                    return Value(arith::DivFOp::create(nb, nl, a[0], floor));
                  })};
  if (getFinalState())
    results.append({numerator.getFinalState(), denominator.getFinalState()});
  return results;
}

LogicalResult DeltaRuleOp::verify() {
  if (tensorType(getQuery()).getRank() < 2)
    return emitOpError("expected q of rank >= 2 ([..., T, dk])");
  int64_t dk = lastDim(getQuery()), dv = lastDim(getValue());
  if (failed(checkShape(*this, "v", getValue(), prefixThen(getQuery(), 1, {dv}),
                        "[..., T, dv], with q's batch dims and T")) ||
      failed(checkShape(*this, "beta", getBeta(), prefixThen(getQuery(), 1, {}),
                        "[..., T]")))
    return failure();
  if (getGate() &&
      failed(checkShape(*this, "gate", getGate(), prefixThen(getQuery(), 1, {}),
                        "[..., T]")))
    return failure();
  return checkStates(
      *this, tensorType(getQuery()).getElementType(),
      {{"init", getInit()}, {"final state", getFinalState()}},
      perSequence(prefixThen(getQuery(), 2, {dk, dv}), getOffsets()),
      perSequence("[..., dk, dv]", getOffsets()));
}

FailureOr<SmallVector<Value>> DeltaRuleOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  MLIRContext *context = b.getContext();
  Value key = getKey();
  int64_t rank = tensorType(key).getRank();
  AffineMap all = AffineMap::getMultiDimIdentityMap(rank, context);
  AffineMap steps = mapOf(context, rank, loopsWithout(rank, {rank - 1}));
  Value gate = getGate();
  // d = g (1 without a gate), U = -g beta k, V = k; b_t = (beta k) v^T.
  SmallVector<AffineMap> maps = {steps, all};
  if (gate)
    maps.push_back(steps);
  SmallVector<Value> inputs = {getBeta(), key};
  if (gate)
    inputs.push_back(gate);
  auto gateOf = [&](OpBuilder &nb, Location nl, ValueRange a) {
    return gate ? a[2] : constantLike(nb, nl, a[1], 1.0);
  };
  Value diagonal = elementwise(b, loc, key, inputs, maps, gateOf);
  Value left = elementwise(
      b, loc, key, inputs, maps, [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value scaled =
            arith::MulFOp::create(nb, nl, gateOf(nb, nl, a),
                                  arith::MulFOp::create(nb, nl, a[0], a[1]));
        return Value(arith::NegFOp::create(nb, nl, scaled));
      });
  Value scaledKey =
      elementwise(b, loc, key, {getBeta(), key}, {steps, all},
                  [](OpBuilder &nb, Location nl, ValueRange a) {
                    return Value(arith::MulFOp::create(nb, nl, a[0], a[1]));
                  });
  auto scan = createScan(
      b, loc, getValue().getType(),
      getFinalState() ? getFinalState().getType() : Type(),
      DplrAttr::get(context, 1), getScheduleAttr(), /*matrix=*/true,
      /*reverse=*/false,
      ValueRange{diagonal, withUnitColumn(b, loc, left),
                 withUnitColumn(b, loc, key)},
      Value(), scaledKey, getValue(), getInit(), getQuery(), getOffsets());
  return SmallVector<Value>(scan->getResults());
}

LogicalResult SelectiveSsmOp::verify() {
  auto x = tensorType(getX());
  if (x.getRank() < 2)
    return emitOpError("expected x of rank >= 2 ([..., T, Dm])");
  if (tensorType(getA()).getRank() != 2)
    return emitOpError() << "expected A of rank 2 ([Dm, N]), got "
                         << formatShape(tensorType(getA()).getShape());
  int64_t dm = x.getShape().back(), n = lastDim(getA());
  if (failed(checkShape(*this, "A", getA(), {dm, n}, "[Dm, N]")) ||
      failed(checkShape(*this, "B", getB(), prefixThen(getX(), 1, {n}),
                        "[..., T, N]")) ||
      failed(checkShape(*this, "C", getC(), prefixThen(getX(), 1, {n}),
                        "[..., T, N]")))
    return failure();
  if (getD() && failed(checkShape(*this, "D", getD(), {dm}, "[Dm]")))
    return failure();
  return checkStates(*this, x.getElementType(),
                     {{"init", getInit()}, {"final state", getFinalState()}},
                     perSequence(prefixThen(getX(), 2, {n, dm}), getOffsets()),
                     perSequence("[..., N, Dm]", getOffsets()));
}

FailureOr<SmallVector<Value>> SelectiveSsmOp::decomposeOperation(OpBuilder &b) {
  Location loc = getLoc();
  MLIRContext *context = b.getContext();
  Value x = getX();
  int64_t rank = tensorType(x).getRank();
  // Gates a[..., t, n, d] = exp(delta[..., t, d] A[d, n]), over loops
  // (batch..., t, n, d).
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes.insert(sizes.end() - 1, tensor::getMixedSize(b, loc, getA(), 1));
  Value gatesInit =
      tensor::EmptyOp::create(b, loc, sizes, tensorType(x).getElementType());
  Value gates =
      elementwise(b, loc, gatesInit, {getDelta(), getA()},
                  {mapOf(context, rank + 1, loopsWithout(rank + 1, {rank - 1})),
                   mapOf(context, rank + 1, {rank, rank - 1})},
                  [](OpBuilder &nb, Location nl, ValueRange a) {
                    return Value(math::ExpOp::create(
                        nb, nl, arith::MulFOp::create(nb, nl, a[0], a[1])));
                  });
  Value scaled = linalg::MulOp::create(b, loc, ValueRange{getDelta(), x},
                                       ValueRange{emptyLike(b, loc, x)})
                     .getResult(0);
  auto scan = createScan(
      b, loc, x.getType(), getFinalState() ? getFinalState().getType() : Type(),
      DiagonalAttr::get(context), getScheduleAttr(), /*matrix=*/true,
      /*reverse=*/false, ValueRange{gates}, Value(), getB(), scaled, getInit(),
      getC(), getOffsets());
  SmallVector<Value> results(scan->getResults());
  if (Value skip = getD()) {
    AffineMap all = AffineMap::getMultiDimIdentityMap(rank, context);
    results[0] = elementwise(
        b, loc, x, {results[0], skip, x},
        {all, mapOf(context, rank, {rank - 1}), all},
        [](OpBuilder &nb, Location nl, ValueRange a) {
          return Value(arith::AddFOp::create(
              nb, nl, a[0], arith::MulFOp::create(nb, nl, a[1], a[2])));
        });
  }
  return results;
}
