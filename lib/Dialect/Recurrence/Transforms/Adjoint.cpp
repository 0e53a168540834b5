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
// a recurrence of the same structure run in reverse. Running it m steps
// further for a state of depth m gives the cotangent of init too; for a
// first-order state it starts from mu_T, over transitions one step into the
// transposes (a view), and one more step gives init's.
// The gradients follow from mu and the recomputed states:
//
//   db_t = mu_t   dA_t = P_A(mu_t h_{t-1}^T)   dinit = mu_0   dc_t = h_t ybar_t
//
// where P_A, the structure's projection, and the transposed transitions come
// from RecurrenceStructureInterface. The code works on a canonical form, one
// batch dim, a matrix state, forward in time, and maps every operand into it
// and every gradient back.
//
// Without transitions (identity) and with a factored input and a readout,
// each gradient is a readout of a scan (of mu, or of the transposed mu or h)
// and no [T, N, D] tensor is built.
//
// Over packed sequences (`offsets`) the same holds within each sequence s:
// h_{t-1} at its first step o_s is init_s, the cotangent of its last state
// is G_t + F_s, and no A^T crosses a boundary, so mu is a reverse scan over
// the same packed sequences, restarting from zero, with F_s added at each
// sequence's last step; dinit_s = A_{o_s}^T mu_{o_s} (F_s when s is empty).
// Its reads across steps (init_s and F_s at each step of s, the sum of
// A_t^T mu_t kept at first steps) are identity scans over the same
// sequences and selects under step masks, not gathers, so that the sweep
// differentiates the adjoint again: the double backward.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Adjoint.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"
#include "recurrence/Dialect/Recurrence/Transforms/Sequences.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
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
  Canonical(OpBuilder &b, Location loc, int64_t batchRank, bool reverse,
            Type stateType)
      : b(b), loc(loc), batchRank(batchRank), reverse(reverse),
        stateType(stateType) {}

  /// `value` with its batch dims as one, with a trailing unit column when
  /// `column` (a vector state's [N] as [N, 1]), and forward in time when
  /// `perStep`.
  /// Narrower operands (`accumulate`) are extended to the state type.
  Value in(Value value, bool perStep, bool column = false) {
    value = convertElementType(b, loc, value, stateType);
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
    value = convertElementType(
        b, loc, value,
        cast<RankedTensorType>(original.getType()).getElementType());
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

  /// The bounds of packed sequences as the canonical form sees them: when
  /// reversed, sequence s is S - 1 - s and o'_i = T - o_{S-i}.
  Value inOffsets(Value offsets, OpFoldResult steps) {
    if (!reverse)
      return offsets;
    Type type = cast<RankedTensorType>(offsets.getType()).getElementType();
    Value last =
        arith::SubIOp::create(b, loc, tensor::DimOp::create(b, loc, offsets, 0),
                              arith::ConstantIndexOp::create(b, loc, 1));
    Value total = arith::IndexCastOp::create(
        b, loc, type, getValueOrCreateConstantIndexOp(b, loc, steps));
    return generateTensor(
        b, loc, {tensor::getMixedSize(b, loc, offsets, 0)}, type, {},
        [&](OpBuilder &nb, Location nl, ValueRange, ArrayRef<Value> indices) {
          Value mirrored = arith::SubIOp::create(nb, nl, last, indices[0]);
          Value bound = tensor::ExtractOp::create(nb, nl, offsets, mirrored);
          return arith::SubIOp::create(nb, nl, total, bound).getResult();
        });
  }

  Value reverseSteps(Value value) { return buildReverseSteps(b, loc, value); }

private:
  OpBuilder &b;
  Location loc;
  int64_t batchRank;
  bool reverse;
  Type stateType;
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
    // No steps: an empty tensor. (A static slice at offset S of S steps,
    // the rest after the last one, is out of bounds for the verifier even
    // when empty.)
    if (isZeroInteger(count))
      return tensor::EmptyOp::create(
          b, loc, sizes,
          cast<RankedTensorType>(value.getType()).getElementType());
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

  /// `value` (without the step dim) as one step: at's inverse.
  Value one(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
    sizes.insert(sizes.begin() + 1, b.getIndexAttr(1));
    SmallVector<ReassociationIndices> groups = {{0, 1}};
    for (int64_t i = 1, e = type.getRank(); i < e; ++i)
      groups.push_back({i + 1});
    return tensor::ExpandShapeOp::create(
        b, loc, typeOf(sizes, type.getElementType()), value, groups, sizes);
  }

  /// `dest` with `source` (without the step dim) written at `step`.
  Value put(Value source, Value dest, OpFoldResult step) {
    return into(one(source), dest, step);
  }

  /// `dest` with `source` (a slice with the step dim) written from `step`;
  /// `sizes` are source's, when known without asking it.
  Value into(Value source, Value dest, OpFoldResult step,
             ArrayRef<OpFoldResult> knownSizes = {}) {
    SmallVector<OpFoldResult> sizes(knownSizes);
    if (sizes.empty())
      sizes = tensor::getMixedSizes(b, loc, source);
    // No steps: nothing to write. (At a static offset past the last step,
    // the verifier refuses even an empty slice.)
    if (isZeroInteger(sizes[1]))
      return dest;
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

namespace {

/// The gradients of the canonical operands over a range of steps.
struct StepGradients {
  SmallVector<Value> transitions;
  Value input, key, value, readout;
};

/// The adjoint of one scan in the canonical form.
class AdjointBuilder {
public:
  AdjointBuilder(OpBuilder &b, ScanOp op, Canonical &canon)
      : b(b), loc(op.getLoc()), op(op), canon(canon), steps{b, loc},
        structure(op.getStructure()), elementType(op.getStateType()),
        perElement(op.hasPerElementTransition()),
        depth(structure.getStateDepth()) {}

  /// Reads the operands and cotangents into the canonical form, and the
  /// scan's `output` (null when not given) where it holds the states.
  void load(Value outputCotangent, Value finalStateCotangent, Value output) {
    vector = !(op.getMatrix() || op.hasFactoredInput());
    for (Value operand : op.getTransition())
      transitions.push_back(canon.in(operand, /*perStep=*/true));
    if (op.hasFactoredInput()) {
      key = canon.in(op.getInputKey(), true);
      value = canon.in(op.getInputValue(), true);
    } else {
      input = canon.in(op.getInput(), true, vector);
    }
    // Per-sequence states run along their first dim like steps do.
    bool packed = op.getOffsets() != nullptr;
    if (op.getInit())
      init = canon.in(op.getInit(), packed, vector);
    if (op.getReadout())
      readout = canon.in(op.getReadout(), true);
    if (outputCotangent)
      ybar = canon.in(outputCotangent, true, vector);
    if (finalStateCotangent)
      last = canon.in(finalStateCotangent, packed, vector);
    Value source = input ? input : key;
    batch = tensor::getMixedSize(b, loc, source, 0);
    length = tensor::getMixedSize(b, loc, source, 1);
    size = tensor::getMixedSize(b, loc, source, 2);
    columns = input ? tensor::getMixedSize(b, loc, input, 3)
                    : tensor::getMixedSize(b, loc, value, 2);
    if (packed) {
      offsets = canon.inOffsets(op.getOffsets(), length);
      sequences = MixedScanDims(b, op).sequences;
    }
    // The output is the states where nothing reads them out, and holds them
    // exactly where it has the state's type (not rounded to a narrower
    // one).
    if (output && !readout && !depth && elementTypeOf(output) == elementType)
      givenStates = canon.in(output, true, vector);
  }

  /// Whether the states come from the scan's output, not recomputed.
  bool hasGivenStates() const { return givenStates != nullptr; }

  /// The gradients of every operand, with all states recomputed at once.
  SmallVector<Value> whole();
  /// The same for a first-order state: the adjoint scan starts from mu_T.
  SmallVector<Value> firstOrder();
  /// The same with states recomputed chunk by chunk from checkpoints.
  SmallVector<Value> checkpointed(int64_t chunk);
  /// The same over packed sequences (a first-order state).
  SmallVector<Value> packed();

  /// Whether every gradient is a readout of a scan: no transition operands
  /// (the only structure without any is the identity), a factored input and
  /// a readout with its cotangent, not packed. Then no [T, N, D] tensor is
  /// built (see transposedReadouts).
  bool readsOutOnly() const {
    return transitions.empty() && depth == 0 && key && readout && ybar &&
           !offsets;
  }
  /// The gradients as readouts of three scans, two of them transposed.
  SmallVector<Value> transposedReadouts();

  bool hasDepth() const { return depth > 0; }
  bool isPacked() const { return offsets != nullptr; }

private:
  /// One state per batch element: [B, N, D].
  SmallVector<OpFoldResult> stateSizes() { return {batch, size, columns}; }

  SmallVector<OpFoldResult> statesSizes(OpFoldResult count) {
    return {batch, count, size, columns};
  }

  /// A scan of the op's structure and schedule in the canonical form.
  /// Over the packed sequences of `scanOffsets` when set, and with
  /// `scanBatch` batch elements when set.
  ScanOp scan(OpFoldResult count, bool reverse, ValueRange scanTransitions,
              Value scanInput, Value scanKey, Value scanValue, Value scanInit,
              bool withFinalState, Value scanOffsets = Value(),
              OpFoldResult scanBatch = OpFoldResult()) {
    if (!scanBatch)
      scanBatch = batch;
    SmallVector<OpFoldResult> finalSizes = {scanBatch, size, columns};
    if (depth)
      finalSizes.insert(finalSizes.begin() + 1, b.getIndexAttr(depth));
    if (scanOffsets)
      finalSizes.insert(finalSizes.begin() + 1, sequences);
    auto scan = ScanOp::create(
        b, loc, typeOf({scanBatch, count, size, columns}, elementType),
        withFinalState ? typeOf(finalSizes, elementType) : Type(),
        op.getStructureAttr(), op.getScheduleAttr(),
        /*matrix=*/true, reverse, scanTransitions, scanInput, scanKey,
        scanValue, scanInit, Value(), scanOffsets, ValueRange(), TypeAttr());
    scan.materializeDestinations(b);
    return scan;
  }

  /// A scan of the identity structure in the canonical form with the state
  /// key_t value_t^T [B, R, C] (after `scanInit`), read out by `by` [B, T, R]
  /// along R: [B, T, C], and the final state when `withFinalState`.
  ScanOp readoutScan(bool reverse, Value scanKey, Value scanValue,
                     Value scanInit, Value by, bool withFinalState) {
    OpFoldResult rows = tensor::getMixedSize(b, loc, scanKey, 2);
    OpFoldResult cols = tensor::getMixedSize(b, loc, scanValue, 2);
    auto scan = ScanOp::create(
        b, loc, typeOf({batch, length, cols}, elementType),
        withFinalState ? typeOf({batch, rows, cols}, elementType) : Type(),
        op.getStructureAttr(), op.getScheduleAttr(), /*matrix=*/true, reverse,
        ValueRange(), Value(), scanKey, scanValue, scanInit, by, Value(),
        ValueRange(), TypeAttr());
    scan.materializeDestinations(b);
    return scan;
  }

  /// The adjoint's transitions over T + max(1, m) steps: the structure's
  /// over T + m, a first-order one with a zero step behind.
  SmallVector<Value> adjointTransitions() {
    SmallVector<Value> result =
        structure.buildAdjointTransition(b, loc, transitions, perElement);
    if (depth == 0)
      for (Value &operand : result)
        operand = padSteps(b, loc, operand, 0, 1);
    return result;
  }

  /// [B, count + 1, N, D] with `first` at step 0, to take the states at
  /// steps 1 .. count: built before they are, so that the scan computing
  /// them can write there in place.
  Value historyFront(OpFoldResult count, Value first) {
    SmallVector<OpFoldResult> sizes = statesSizes(steps.plus(count, 1));
    Value history = tensor::EmptyOp::create(b, loc, sizes, elementType);
    return steps.put(first, history, b.getIndexAttr(0));
  }

  /// G_t over `count` steps: ybar, or c_t ybar_t^T under a readout.
  Value direct(Value readoutSteps, Value ybarSteps, OpFoldResult count) {
    Value zeros = zeroTensor(b, loc, statesSizes(count), elementType);
    if (!ybarSteps)
      return zeros;
    if (!readoutSteps)
      return ybarSteps;
    return contract(b, loc, 4, readoutSteps, {0, 1, 2}, ybarSteps, {0, 1, 3},
                    zeros, {0, 1, 2, 3}, {kPar, kPar, kPar, kPar});
  }

  Value add(Value x, Value y) {
    return linalg::AddOp::create(b, loc, ValueRange{x, y},
                                 ValueRange{emptyLike(b, loc, x)})
        .getResult(0);
  }

  /// A mask (i8, since i1 buffers are the host's bookkeeping on the GPU) of
  /// `count` elements, each `flag(args, index)` of the elements `args` of
  /// `tables` there: a constant of the differentiation, as it reads only
  /// the offsets.
  Value
  mask(OpFoldResult count, ValueRange tables,
       function_ref<Value(OpBuilder &, Location, ValueRange, Value)> flag) {
    SmallVector<std::pair<Value, SmallVector<int64_t>>> inputs;
    for (Value table : tables)
      inputs.push_back({table, {0}});
    return generateTensor(
        b, loc, {count}, b.getI8Type(), inputs,
        [&](OpBuilder &nb, Location nl, ValueRange args, ArrayRef<Value> at) {
          return arith::ExtUIOp::create(nb, nl, nb.getI8Type(),
                                        flag(nb, nl, args, at[0]))
              .getResult();
        });
  }

  /// Whether each step starts a sequence of `bounds`: the flags of its
  /// table of the sequence starting at each step (the one the split
  /// gates read).
  Value stepMask(const SequenceBounds &bounds) {
    return mask(length, bounds.startingSequences(b, loc),
                [](OpBuilder &nb, Location nl, ValueRange args, Value) {
                  return SequenceBounds::starts(nb, nl, args[0]);
                });
  }

  /// `x` where `flags` (a mask read along dim 1: steps, or sequences) is
  /// set, else `y`: a select in an elementwise generic, which the sweep
  /// differentiates, so that a second-order adjoint needs no gathers.
  Value select(Value flags, Value x, Value y) {
    return generateTensor(
        b, loc, tensor::getMixedSizes(b, loc, x), elementType,
        {{flags, {1}}, {x, {0, 1, 2, 3}}, {y, {0, 1, 2, 3}}},
        [&](OpBuilder &nb, Location nl, ValueRange args, ArrayRef<Value>) {
          Value set = arith::CmpIOp::create(
              nb, nl, arith::CmpIPredicate::ne, args[0],
              arith::ConstantIntOp::create(nb, nl, nb.getI8Type(), 0));
          return arith::SelectOp::create(nb, nl, set, args[1], args[2])
              .getResult();
        });
  }

  /// A scan of the identity structure (h_t = h_{t-1} + x_t) in the
  /// canonical form over the op's packed sequences: of zeros from each
  /// sequence's `scanInit`, that init at each of its steps; with no init,
  /// the sums of `scanInput` over each sequence, as its final state.
  ScanOp sequenceScan(bool reverse, Value scanInput, Value scanInit,
                      bool withFinalState) {
    auto scan = ScanOp::create(
        b, loc, typeOf(statesSizes(length), elementType),
        withFinalState ? typeOf({batch, sequences, size, columns}, elementType)
                       : Type(),
        IdentityAttr::get(b.getContext()), op.getScheduleAttr(),
        /*matrix=*/true, reverse, ValueRange(), scanInput, Value(), Value(),
        scanInit, Value(), offsets, ValueRange(), TypeAttr());
    scan.materializeDestinations(b);
    return scan;
  }

  /// [B, T, ...] as [B, T, 1, ...]: each step as a sequence of one.
  Value unitDim(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, value);
    sizes.insert(sizes.begin() + 2, b.getIndexAttr(1));
    SmallVector<ReassociationIndices> groups = {{0}, {1, 2}};
    for (int64_t i = 2, e = type.getRank(); i < e; ++i)
      groups.push_back({i + 1});
    return tensor::ExpandShapeOp::create(
        b, loc, typeOf(sizes, type.getElementType()), value, groups, sizes);
  }

  /// The gradients over a range of steps, from its operands, the cotangents
  /// `mu` of its states, the states and the state each step read.
  StepGradients gradientsOf(ValueRange rangeTransitions, Value rangeKey,
                            Value rangeValue, Value rangeReadout,
                            Value rangeYbar, Value mu, Value states,
                            Value previous) {
    StepGradients g = operandGradientsOf(rangeKey, rangeValue, rangeReadout,
                                         rangeYbar, mu, states);
    g.transitions = structure.buildTransitionGradient(b, loc, rangeTransitions,
                                                      perElement, mu, previous);
    return g;
  }

  /// The same but for the transitions' gradients, which the caller builds.
  StepGradients operandGradientsOf(Value rangeKey, Value rangeValue,
                                   Value rangeReadout, Value rangeYbar,
                                   Value mu, Value states) {
    StepGradients g;
    if (input) {
      g.input = mu;
    } else {
      // dk_t = mu_t v_t and dv_t = mu_t^T k_t.
      g.key = contract(b, loc, 4, mu, {0, 1, 2, 3}, rangeValue, {0, 1, 3},
                       zerosLike(b, loc, rangeKey), {0, 1, 2},
                       {kPar, kPar, kPar, kRed});
      g.value = contract(b, loc, 4, mu, {0, 1, 2, 3}, rangeKey, {0, 1, 2},
                         zerosLike(b, loc, rangeValue), {0, 1, 3},
                         {kPar, kPar, kRed, kPar});
    }
    if (readout) {
      // dc_t = h_t ybar_t.
      g.readout = zerosLike(b, loc, rangeReadout);
      if (rangeYbar)
        g.readout =
            contract(b, loc, 4, states, {0, 1, 2, 3}, rangeYbar, {0, 1, 3},
                     g.readout, {0, 1, 2}, {kPar, kPar, kPar, kRed});
    }
    return g;
  }

  /// The steps split as min(T, 1) and T - min(T, 1): the first and the
  /// rest, either possibly empty.
  std::pair<OpFoldResult, OpFoldResult> firstAndRest() {
    OpFoldResult first = affine::makeComposedFoldedAffineMin(
        b, loc,
        AffineMap::get(0, 1,
                       {b.getAffineSymbolExpr(0), b.getAffineConstantExpr(1)},
                       b.getContext()),
        {length});
    OpFoldResult rest = affine::makeComposedFoldedAffineApply(
        b, loc, b.getAffineSymbolExpr(0) - b.getAffineSymbolExpr(1),
        {length, first});
    return {first, rest};
  }

  /// The transitions' gradients from the given states: step 0 read init
  /// (or zeros), step t >= 1 the output's step t - 1. Two pieces written
  /// into one tensor, so that no [B, T + 1, N, D] history is copied.
  SmallVector<Value> transitionGradientsOfGiven(Value mu) {
    OpFoldResult zero = b.getIndexAttr(0);
    auto [first, rest] = firstAndRest();
    Value before;
    if (init) {
      before = steps.slice(steps.one(init), zero, first);
    } else {
      before = zeroTensor(b, loc, statesSizes(first), elementType);
    }
    // Each piece is written into the gradients; an empty one (a static T of
    // 0 or 1) is not, its slice at T being out of bounds for the verifier.
    SmallVector<Value> gradients;
    for (Value operand : transitions)
      gradients.push_back(emptyLike(b, loc, operand));
    auto piece = [&](OpFoldResult from, OpFoldResult count, Value previous) {
      if (isZeroInteger(count))
        return;
      SmallVector<Value> ranged;
      for (Value operand : transitions)
        ranged.push_back(steps.slice(operand, from, count));
      SmallVector<Value> pieces = structure.buildTransitionGradient(
          b, loc, ranged, perElement, steps.slice(mu, from, count), previous);
      for (auto [whole, part] : llvm::zip_equal(gradients, pieces))
        whole = steps.into(part, whole, from);
    };
    piece(zero, first, before);
    piece(first, rest, steps.slice(givenStates, zero, rest));
    return gradients;
  }

  /// The operands' gradients in their own forms.
  SmallVector<Value> finish(const StepGradients &g, Value dInit) {
    SmallVector<Value> gradients;
    for (auto [gradient, operand] :
         llvm::zip_equal(g.transitions, op.getTransition()))
      gradients.push_back(canon.out(gradient, operand, true));
    if (input) {
      gradients.push_back(canon.out(g.input, op.getInput(), true, vector));
    } else {
      gradients.push_back(canon.out(g.key, op.getInputKey(), true));
      gradients.push_back(canon.out(g.value, op.getInputValue(), true));
    }
    if (init)
      gradients.push_back(canon.out(dInit, op.getInit(), isPacked(), vector));
    if (readout)
      gradients.push_back(canon.out(g.readout, op.getReadout(), true));
    return gradients;
  }

  OpBuilder &b;
  Location loc;
  ScanOp op;
  Canonical &canon;
  Steps steps;
  RecurrenceStructureInterface structure;
  Type elementType;
  bool perElement, vector = false;
  int64_t depth;
  SmallVector<Value> transitions;
  Value input, key, value, init, readout, ybar, last, offsets, givenStates;
  OpFoldResult batch, length, size, columns, sequences;
};

SmallVector<Value> AdjointBuilder::firstOrder() {
  // The states h_1 .. h_T, given or recomputed after h_0 (init or zeros):
  // h_{t-1} for every step is then a view.
  Value states = givenStates, previous;
  if (!states) {
    Value history = historyFront(
        length, init ? init : zeroTensor(b, loc, stateSizes(), elementType));
    states = scan(length, false, transitions, input, key, value, init, false)
                 .getOutput();
    // (The sizes must not ask the scan, so that the write moves into it.)
    history =
        steps.into(states, history, b.getIndexAttr(1), statesSizes(length));
    previous = steps.slice(history, b.getIndexAttr(0), length);
  }
  // Step p maps mu_{p+2} to mu_{p+1}: A_{p+2}^T is step p + 1 of these.
  SmallVector<Value> transposed =
      structure.buildAdjointTransition(b, loc, transitions, perElement);

  // mu_T = G_T + F starts a reverse scan over the other T - 1 steps, whose
  // transitions are a view one step into the transposes: nothing is padded
  // or copied. Its final state mu_1 gives mu_0 = A_1^T mu_1, init's
  // cotangent. Without steps, init's cotangent is F. Under a readout,
  // G_t = c_t ybar_t^T is the scan's factored input, so that no [T, N, D]
  // tensor of it is built.
  Type muType = typeOf(statesSizes(length), elementType);
  Type initType = typeOf(stateSizes(), elementType);
  auto noSteps = [&]() -> std::pair<Value, Value> {
    Value mu =
        tensor::EmptyOp::create(b, loc, statesSizes(length), elementType);
    Value dInit = last ? last : zeroTensor(b, loc, stateSizes(), elementType);
    return {tensor::CastOp::create(b, loc, muType, mu),
            tensor::CastOp::create(b, loc, initType, dInit)};
  };
  auto someSteps = [&]() -> std::pair<Value, Value> {
    OpFoldResult end = steps.plus(length, -1);
    OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
    bool factored = readout && ybar;
    Value directs = factored ? Value() : direct(readout, ybar, length);
    Value muLast = factored ? steps.at(direct(steps.slice(readout, end, one),
                                              steps.slice(ybar, end, one), one),
                                       zero)
                            : steps.at(directs, end);
    if (last)
      muLast = add(muLast, last);
    // mu is built first, so that the scan writes its steps there in place.
    Value mu = steps.put(
        muLast,
        tensor::EmptyOp::create(b, loc, statesSizes(length), elementType), end);
    SmallVector<Value> shifted;
    for (Value operand : transposed)
      shifted.push_back(steps.slice(operand, one, end));
    ScanOp rest =
        scan(end, true, shifted,
             factored ? Value() : steps.slice(directs, zero, end),
             factored ? steps.slice(readout, zero, end) : Value(),
             factored ? steps.slice(ybar, zero, end) : Value(), muLast,
             /*withFinalState=*/true);
    mu = steps.into(rest.getOutput(), mu, zero, statesSizes(end));
    Value dInit;
    if (init) {
      SmallVector<Value> firstSteps;
      for (Value operand : transposed)
        firstSteps.push_back(steps.slice(operand, zero, one));
      Value muZero = scan(one, true, firstSteps,
                          zeroTensor(b, loc, statesSizes(one), elementType),
                          Value(), Value(), rest.getFinalState(), false)
                         .getOutput();
      dInit = steps.at(muZero, zero);
    } else {
      dInit = zeroTensor(b, loc, stateSizes(), elementType);
    }
    return {tensor::CastOp::create(b, loc, muType, mu),
            tensor::CastOp::create(b, loc, initType, dInit)};
  };
  Value mu, dInit;
  if (std::optional<int64_t> known = getConstantIntValue(length)) {
    std::tie(mu, dInit) = *known == 0 ? noSteps() : someSteps();
  } else {
    Value empty =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                              getValueOrCreateConstantIndexOp(b, loc, length),
                              arith::ConstantIndexOp::create(b, loc, 0));
    auto branch = scf::IfOp::create(b, loc, TypeRange{muType, initType}, empty,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(branch.thenBlock());
      auto [m, d] = noSteps();
      scf::YieldOp::create(b, loc, ValueRange{m, d});
      b.setInsertionPointToStart(branch.elseBlock());
      std::tie(m, d) = someSteps();
      scf::YieldOp::create(b, loc, ValueRange{m, d});
    }
    mu = branch.getResult(0);
    dInit = branch.getResult(1);
  }

  StepGradients g = operandGradientsOf(key, value, readout, ybar, mu, states);
  // h_{t-1}: a view of the recomputed history, or the given output's steps.
  g.transitions = previous ? structure.buildTransitionGradient(
                                 b, loc, transitions, perElement, mu, previous)
                           : transitionGradientsOfGiven(mu);
  return finish(g, init ? dInit : Value());
}

SmallVector<Value> AdjointBuilder::transposedReadouts() {
  // Without transitions, mu_t = sum_{s >= t} c_s ybar_s^T + F, a reverse
  // scan with the factored input (c_t, ybar_t) from F, and its final state
  // mu_1 is init's cotangent. dv_t = mu_t^T k_t is its readout by k_t.
  StepGradients g;
  ScanOp mu = readoutScan(/*reverse=*/true, readout, ybar, last, key,
                          /*withFinalState=*/init != nullptr);
  g.value = mu.getOutput();
  // dk_t = mu_t v_t reads mu_t along D: it is the readout by v_t of the
  // transposed adjoint, sum_{s >= t} ybar_s c_s^T + F^T.
  g.key = readoutScan(true, ybar, readout,
                      last ? transposeInner(b, loc, last) : last, value, false)
              .getOutput();
  // dc_t = h_t ybar_t likewise: the readout by ybar_t of the transposed
  // states, sum_{s <= t} v_s k_s^T + init^T.
  g.readout =
      readoutScan(false, value, key, init ? transposeInner(b, loc, init) : init,
                  ybar, false)
          .getOutput();
  return finish(g, init ? mu.getFinalState() : Value());
}

SmallVector<Value> AdjointBuilder::whole() {
  if (depth == 0)
    return firstOrder();
  // A state of depth m: the states h_1 .. h_T, recomputed.
  Value states =
      scan(length, false, transitions, input, key, value, init, false)
          .getOutput();

  // The direct cotangents of h_{1-m} .. h_T: G_t, then F on the states the
  // final state holds.
  Value directs = padSteps(b, loc, direct(readout, ybar, length), depth, 0);
  for (int64_t k = 0; last && k < depth; ++k) {
    // F[k] is the cotangent of h_{T-k}, at T - k + m - 1.
    OpFoldResult at = steps.plus(length, depth - 1 - k);
    directs =
        steps.put(add(steps.at(directs, at), steps.at(last, b.getIndexAttr(k))),
                  directs, at);
  }

  // mu: the adjoint recurrence, in reverse over T + m steps.
  SmallVector<Value> adjointOps = adjointTransitions();
  Value mu = scan(steps.plus(length, depth), true, adjointOps, directs, Value(),
                  Value(), Value(), false)
                 .getOutput();
  Value cotangents = steps.slice(mu, b.getIndexAttr(depth), length);

  // The stack each step read, h_{t-1} .. h_{t-m}.
  Value history = padSteps(b, loc, states, depth, 0);
  for (int64_t j = 0; init && j < depth; ++j)
    history = steps.put(steps.at(init, b.getIndexAttr(j)), history,
                        b.getIndexAttr(depth - 1 - j));
  SmallVector<OpFoldResult> stackSizes = {batch, length, b.getIndexAttr(depth),
                                          size, columns};
  Value previous = tensor::EmptyOp::create(b, loc, stackSizes, elementType);
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

  StepGradients g = gradientsOf(transitions, key, value, readout, ybar,
                                cotangents, states, previous);
  Value dInit;
  if (init) {
    dInit = emptyLike(b, loc, init);
    for (int64_t j = 0; j < depth; ++j)
      dInit = steps.put(steps.at(mu, b.getIndexAttr(depth - 1 - j)), dInit,
                        b.getIndexAttr(j));
  }
  return finish(g, dInit);
}

SmallVector<Value> AdjointBuilder::checkpointed(int64_t chunk) {
  // A state of depth 0 here: positions p = 0 .. T hold h_0 .. h_T.
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value chunkSize = arith::ConstantIndexOp::create(b, loc, chunk);
  Value total = getValueOrCreateConstantIndexOp(b, loc, length);
  Value count = arith::CeilDivSIOp::create(b, loc, total, chunkSize);
  auto rangeOf = [&](OpBuilder &nb, Value k) {
    Value start = arith::MulIOp::create(nb, loc, k, chunkSize);
    Value rest = arith::SubIOp::create(nb, loc, total, start);
    Value n = arith::MinSIOp::create(nb, loc, rest, chunkSize);
    return std::pair<Value, Value>(start, n);
  };
  auto sliceAll = [&](ValueRange values, Value start, Value n) {
    SmallVector<Value> slices;
    for (Value v : values)
      slices.push_back(steps.slice(v, start, n));
    return slices;
  };

  // Forward: the state before each chunk, [B, chunks, N, D].
  Value start0 = init ? init : zeroTensor(b, loc, stateSizes(), elementType);
  SmallVector<OpFoldResult> checkpointSizes = {batch, OpFoldResult(count), size,
                                               columns};
  Value checkpoints =
      tensor::EmptyOp::create(b, loc, checkpointSizes, elementType);
  auto forward = scf::ForOp::create(
      b, loc, zero, count, one, ValueRange{start0, checkpoints},
      [&](OpBuilder &nb, Location, Value k, ValueRange carried) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        auto [start, steps_] = rangeOf(b, k);
        Value saved = steps.put(carried[0], carried[1], k);
        SmallVector<Value> ops = sliceAll(transitions, start, steps_);
        auto [in, ks, vs] =
            std::tuple(input ? steps.slice(input, start, steps_) : Value(),
                       key ? steps.slice(key, start, steps_) : Value(),
                       value ? steps.slice(value, start, steps_) : Value());
        ScanOp chunkScan = scan(steps_, false, ops, in, ks, vs, carried[0],
                                /*withFinalState=*/true);
        scf::YieldOp::create(b, loc,
                             ValueRange{chunkScan.getFinalState(), saved});
      });
  checkpoints = forward.getResult(1);

  // The adjoint transitions over positions 0 .. T (step p maps mu_{p+1}).
  SmallVector<Value> adjointOps = adjointTransitions();

  // Backward, chunk by chunk from the last, carrying mu at the position
  // after the chunk; each chunk's gradients go into the full ones.
  SmallVector<Value> full;
  for (Value t : transitions)
    full.push_back(emptyLike(b, loc, t));
  for (Value v : {input, key, value, readout})
    if (v)
      full.push_back(emptyLike(b, loc, v));
  SmallVector<Value> initial = {zeroTensor(b, loc, stateSizes(), elementType)};
  llvm::append_range(initial, full);
  auto backward = scf::ForOp::create(
      b, loc, zero, count, one, initial,
      [&](OpBuilder &nb, Location, Value i, ValueRange carried) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nb.getInsertionBlock(), nb.getInsertionPoint());
        Value lastChunk = arith::SubIOp::create(b, loc, count, one);
        Value k = arith::SubIOp::create(b, loc, lastChunk, i);
        auto [start, steps_] = rangeOf(b, k);
        SmallVector<Value> ops = sliceAll(transitions, start, steps_);
        Value in = input ? steps.slice(input, start, steps_) : Value();
        Value ks = key ? steps.slice(key, start, steps_) : Value();
        Value vs = value ? steps.slice(value, start, steps_) : Value();
        Value cs = readout ? steps.slice(readout, start, steps_) : Value();
        Value ys = ybar ? steps.slice(ybar, start, steps_) : Value();
        Value before = steps.at(checkpoints, k);
        // h_{start} .. h_{start+n}: the state before the chunk, then its
        // states, written there in place, so that the state each step read
        // is a view.
        Value history = historyFront(steps_, before);
        Value states =
            scan(steps_, false, ops, in, ks, vs, before, false).getOutput();
        history =
            steps.into(states, history, b.getIndexAttr(1), statesSizes(steps_));
        Value previous = steps.slice(history, b.getIndexAttr(0), steps_);

        // G over the chunk, with F on h_T when this chunk ends at T. Without
        // F, G_t = c_t ybar_t^T enters the adjoint scan as a factored input
        // and is never built.
        bool factored = cs && ys && !last;
        Value directs = factored ? Value() : direct(cs, ys, steps_);
        if (last) {
          Value end = arith::SubIOp::create(b, loc, steps_, one);
          Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                               k, lastChunk);
          Value extra = arith::SelectOp::create(b, loc, isLast, last,
                                                zerosLike(b, loc, last));
          directs = steps.put(add(steps.at(directs, end), extra), directs, end);
        }
        Value from = arith::AddIOp::create(b, loc, start, one);
        SmallVector<Value> chunkOps = sliceAll(adjointOps, from, steps_);
        Value mu =
            scan(steps_, true, chunkOps, directs, factored ? cs : Value(),
                 factored ? ys : Value(), carried[0], false)
                .getOutput();

        StepGradients g =
            gradientsOf(ops, ks, vs, cs, ys, mu, states, previous);
        SmallVector<Value> parts(g.transitions);
        for (Value v : {g.input, g.key, g.value, g.readout})
          if (v)
            parts.push_back(v);
        SmallVector<Value> results = {steps.at(mu, b.getIndexAttr(0))};
        for (auto [part, whole] : llvm::zip_equal(parts, carried.drop_front()))
          results.push_back(steps.into(part, whole, start));
        scf::YieldOp::create(b, loc, results);
      });

  StepGradients g;
  unsigned next = 1;
  for (size_t i = 0; i < transitions.size(); ++i)
    g.transitions.push_back(backward.getResult(next++));
  for (Value *v : {&g.input, &g.key, &g.value, &g.readout})
    if ((v == &g.input && input) || (v == &g.key && key) ||
        (v == &g.value && value) || (v == &g.readout && readout))
      *v = backward.getResult(next++);

  Value dInit;
  if (init) {
    // mu_0 = A_1^T mu_1: one more step; with T = 0, the final state is init.
    Value mu =
        scan(b.getIndexAttr(1), true, sliceAll(adjointOps, zero, one),
             zeroTensor(b, loc, statesSizes(b.getIndexAttr(1)), elementType),
             Value(), Value(), backward.getResult(0), false)
            .getOutput();
    dInit = steps.at(mu, b.getIndexAttr(0));
    if (last) {
      Value empty =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, total, zero);
      dInit = add(dInit, arith::SelectOp::create(b, loc, empty, last,
                                                 zerosLike(b, loc, last)));
    }
  }
  return finish(g, dInit);
}

SmallVector<Value> AdjointBuilder::packed() {
  Value total = getValueOrCreateConstantIndexOp(b, loc, length);
  // (Seen reversed, a sequence "starts" where it ends.)
  SequenceBounds starts(offsets, total, sequences, /*reverse=*/false);
  SequenceBounds ends(offsets, total, sequences, /*reverse=*/true);
  SmallVector<OpFoldResult> all = statesSizes(length);
  Value startMask = stepMask(starts), endMask = stepMask(ends);
  Value zeros = zeroTensor(b, loc, all, elementType);

  // The states h_1 .. h_T, each sequence from its own init (given, or
  // recomputed).
  Value states = givenStates;
  if (!states)
    states = scan(length, false, transitions, input, key, value, init, false,
                  offsets)
                 .getOutput();
  // The state each step read: its sequence's init where it starts (step 0
  // always does), else h_{t-1}. Steps 1 .. T - 1 select between views of
  // the inits and of the states' steps 0 .. T - 2, written after step 0
  // into one tensor: no [T + 1] history is filled and copied.
  Value inits =
      init ? sequenceScan(false, zeros, init, false).getOutput() : zeros;
  OpFoldResult zero = b.getIndexAttr(0);
  auto [first, rest] = firstAndRest();
  Value previous = steps.into(steps.slice(inits, zero, first),
                              emptyLike(b, loc, zeros), zero);
  if (!isZeroInteger(rest)) {
    Value restMask = tensor::ExtractSliceOp::create(
        b, loc, startMask, ArrayRef<OpFoldResult>{first},
        ArrayRef<OpFoldResult>{rest},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
    previous = steps.into(select(restMask, steps.slice(inits, first, rest),
                                 steps.slice(states, zero, rest)),
                          previous, first);
  }

  // G_t, with F_s on each sequence's last step.
  Value directs = direct(readout, ybar, length);
  if (last)
    directs =
        select(endMask,
               add(directs, sequenceScan(true, zeros, last, false).getOutput()),
               directs);

  // mu: step t maps mu_{t+1} by A_{t+1}^T, step t + 1 of the transposes
  // (padded with a zero step); at a sequence's last step the scan restarts
  // from zero and does not read it.
  SmallVector<Value> adjointOps = adjointTransitions();
  SmallVector<Value> shifted;
  for (Value operand : adjointOps)
    shifted.push_back(steps.slice(operand, b.getIndexAttr(1), length));
  Value mu = scan(length, true, shifted, directs, Value(), Value(), Value(),
                  /*withFinalState=*/false, offsets)
                 .getOutput();

  Value dInit;
  if (init) {
    // dinit_s = A_{o_s}^T mu_{o_s}: A_t^T mu_t at every step (one step of
    // the transposes for the [B, T] states as a batch), kept at each
    // sequence's first step and summed over the sequence: zero for an
    // empty one, whose init's cotangent is F_s.
    SmallVector<Value> own;
    for (Value operand : adjointOps)
      own.push_back(unitDim(steps.slice(operand, b.getIndexAttr(0), length)));
    SmallVector<OpFoldResult> oneStep = {batch, length, b.getIndexAttr(1), size,
                                         columns};
    auto step = ScanOp::create(
        b, loc, typeOf(oneStep, elementType), Type(), op.getStructureAttr(),
        op.getScheduleAttr(), /*matrix=*/true, /*reverse=*/true, own,
        zeroTensor(b, loc, oneStep, elementType), Value(), Value(), mu, Value(),
        Value(), ValueRange(), TypeAttr());
    step.materializeDestinations(b);
    Value applied = canon.collapseDims(step.getOutput(), 1, 2);
    dInit = sequenceScan(true, select(startMask, applied, zeros), Value(), true)
                .getFinalState();
    if (last) {
      Value nonEmpty = mask(
          sequences, {}, [&](OpBuilder &nb, Location nl, ValueRange, Value s) {
            return starts.boundaryOf(nb, nl, s, false).second;
          });
      dInit = select(nonEmpty, dInit, last);
    }
  }

  StepGradients g =
      gradientsOf(transitions, key, value, readout, ybar, mu, states, previous);
  return finish(g, dInit);
}

} // namespace

FailureOr<SmallVector<Value>> mlir::recurrence::buildScanAdjoint(
    RewriterBase &rewriter, ScanOp op, Value outputCotangent,
    Value finalStateCotangent, int64_t checkpoint, Value output) {
  if (failed(op.verify()))
    return failure();
  Canonical canon(rewriter, op.getLoc(), op.getBatchRank(), op.getReverse(),
                  op.getStateType());
  AdjointBuilder builder(rewriter, op, canon);
  builder.load(outputCotangent, finalStateCotangent, output);
  if (builder.readsOutOnly())
    return builder.transposedReadouts();
  if (builder.isPacked())
    return builder.packed();
  // Given states take no memory beyond the caller's: no checkpoints.
  if (checkpoint > 0 && !builder.hasDepth() && !builder.hasGivenStates())
    return builder.checkpointed(checkpoint);
  return builder.whole();
}

/// The mark of a buildReverseSteps generic.
static constexpr StringLiteral kReverseSteps = "recurrence.reverse_steps";

Value mlir::recurrence::buildReverseSteps(OpBuilder &b, Location loc,
                                          Value value) {
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
  generic->setAttr(kReverseSteps, b.getUnitAttr());
  return generic.getResult(0);
}

Value mlir::recurrence::reversedStepsSource(linalg::GenericOp op) {
  if (!op->hasAttr(kReverseSteps) || op.getNumDpsInputs() != 0 ||
      op->getNumResults() != 1)
    return Value();
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  auto extract = yield.getNumOperands() == 1
                     ? yield.getOperand(0).getDefiningOp<tensor::ExtractOp>()
                     : tensor::ExtractOp();
  if (!extract || extract.getTensor().getType() != op->getResult(0).getType())
    return Value();
  return extract.getTensor();
}
