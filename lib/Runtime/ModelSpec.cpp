//===- ModelSpec.cpp - A model op described as plain data -----------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/ModelSpec.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::recurrence;

/// `types` at the call's `shapes` (as many, of the same ranks, every size at
/// least 1 and equal to the types' static ones), or unchanged without shapes.
static LogicalResult atShapes(Location loc, MutableArrayRef<Type> types,
                              ArrayRef<std::vector<int64_t>> shapes,
                              StringRef what) {
  if (shapes.empty())
    return success();
  if (shapes.size() != types.size())
    return emitError(loc) << what << ": expected " << types.size()
                          << " shapes, got " << shapes.size();
  for (auto [i, pair] : llvm::enumerate(llvm::zip(types, shapes))) {
    auto &[type, shape] = pair;
    auto tensor = cast<RankedTensorType>(type);
    bool fits = static_cast<int64_t>(shape.size()) == tensor.getRank();
    bool overflows = false;
    int64_t elements = 1;
    for (auto [dim, size] : llvm::zip(tensor.getShape(), shape)) {
      fits &= size >= 1 && (ShapedType::isDynamic(dim) || dim == size);
      overflows |= llvm::MulOverflow(elements, size, elements);
    }
    if (fits && overflows)
      return emitError(loc) << what << "[" << i
                            << "]: expected fewer than 2^63 elements, got ["
                            << ArrayRef<int64_t>(shape) << "]";
    if (!fits)
      return emitError(loc)
             << what << "[" << i << "]: expected a shape that fits " << tensor
             << " with every size at least 1 (give no shapes "
             << "for an empty problem), got [" << ArrayRef<int64_t>(shape)
             << "]";
    type = tensor.clone(shape);
  }
  return success();
}

OwningOpRef<ModuleOp> mlir::recurrence::buildModelModule(MLIRContext *context,
                                                         const ModelSpec &spec,
                                                         StringRef name) {
  context->loadDialect<RecurrenceDialect, func::FuncDialect>();
  OpBuilder b(context);
  Location loc = NameLoc::get(b.getStringAttr(spec.model));
  Type element = spec.f64 ? Type(b.getF64Type()) : Type(b.getF32Type());
  constexpr int64_t kDynamic = ShapedType::kDynamic;
  auto tensor = [&](ArrayRef<int64_t> shape) -> Type {
    return RankedTensorType::get(shape, element);
  };
  int64_t m = spec.param;
  bool packable = spec.model == "linear_attention" ||
                  spec.model == "delta_rule" || spec.model == "selective_ssm" ||
                  spec.model == "bdlru";
  if (spec.offsets && !packable) {
    emitError(loc) << "model '" << spec.model
                   << "' takes no offsets (linear_attention, delta_rule, "
                      "selective_ssm and bdlru do)";
    return nullptr;
  }
  // A matrix state: [B, X, Y], [B, S, X, Y] packed; a vector one (bdlru's,
  // linear attention's normalizer) [B, X], [B, S, X].
  Type stateType = tensor(SmallVector<int64_t>(spec.offsets ? 4 : 3, kDynamic));
  Type vectorStateType =
      tensor(SmallVector<int64_t>(spec.offsets ? 3 : 2, kDynamic));
  SmallVector<Type> args;
  // The states a model takes as init and returns as final states.
  SmallVector<Type> states;
  Type result;
  if (spec.model == "normalize_gates") {
    args = {tensor({kDynamic, kDynamic})};
    result = args[0];
  } else if (spec.model == "hlru" && m >= 1) {
    args = {tensor({kDynamic, kDynamic, kDynamic, m + 1}),
            tensor({kDynamic, kDynamic, kDynamic})};
    states = {tensor({kDynamic, m, kDynamic})};
    result = args[1];
  } else if (spec.model == "bdlru" && m >= 1) {
    args = {tensor({kDynamic, kDynamic, kDynamic, m, m + 1}),
            tensor({kDynamic, kDynamic, kDynamic})};
    states = {vectorStateType};
    result = args[1];
  } else if (spec.model == "linear_attention") {
    Type three = tensor({kDynamic, kDynamic, kDynamic});
    args = {three, three, three};
    states = {stateType};
    if (spec.normalize)
      states.push_back(vectorStateType);
    result = three;
  } else if (spec.model == "delta_rule") {
    Type three = tensor({kDynamic, kDynamic, kDynamic});
    Type two = tensor({kDynamic, kDynamic});
    args = {three, three, three, two};
    if (spec.gated)
      args.push_back(two);
    states = {stateType};
    result = three;
  } else if (spec.model == "selective_ssm") {
    Type three = tensor({kDynamic, kDynamic, kDynamic});
    args = {three, three, tensor({kDynamic, kDynamic}), three, three};
    if (spec.skip)
      args.push_back(tensor({kDynamic}));
    states = {stateType};
    result = three;
  } else {
    emitError(loc) << "unknown model '" << spec.model << "' (or a parameter "
                   << m << " below 1)";
    return nullptr;
  }
  if ((spec.init || spec.finalState) && states.empty()) {
    emitError(loc) << "model '" << spec.model << "' has no state";
    return nullptr;
  }
  int64_t numInputs = args.size();
  if (spec.init)
    llvm::append_range(args, states);
  SmallVector<Type> results = {result};
  if (spec.finalState)
    llvm::append_range(results, states);
  if (spec.offsets)
    args.push_back(RankedTensorType::get({kDynamic}, b.getI64Type()));
  if (spec.argShapes.empty() != spec.resultShapes.empty()) {
    emitError(loc) << "arg_shapes and result_shapes: give both (static "
                      "sizes) or neither";
    return nullptr;
  }
  if (failed(atShapes(loc, args, spec.argShapes, "arg_shapes")) ||
      failed(atShapes(loc, results, spec.resultShapes, "result_shapes")))
    return nullptr;
  result = results[0];

  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(b, loc, name, b.getFunctionType(args, results));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToEnd(body);
  ValueRange in = body->getArguments();
  ScheduleAttr schedule;
  if (spec.schedule != ScheduleKind::Auto)
    schedule = ScheduleAttr::get(context, spec.schedule, spec.chunkSize);
  Value offsets = spec.offsets ? in.back() : Value();
  // The inits, and the final states' types, null where absent.
  auto stateAt = [&](size_t i) {
    return spec.init && i < states.size() ? in[numInputs + i] : Value();
  };
  auto lastAt = [&](size_t i) {
    return i + 1 < results.size() ? results[i + 1] : Type();
  };
  Value init = stateAt(0);
  Type last = lastAt(0);
  SmallVector<Value> values;
  if (spec.model == "normalize_gates") {
    std::optional<GateFunction> function = symbolizeGateFunction(spec.function);
    if (!function) {
      emitError(loc) << "unknown gate function '" << spec.function
                     << "'; expected exp, sigmoid, softplus or abs";
      return nullptr;
    }
    values = {NormalizeGatesOp::create(b, loc, *function, in[0])};
  } else if (spec.model == "hlru") {
    values = HlruOp::create(b, loc, result, last, in[0], in[1], init, schedule)
                 ->getResults();
  } else if (spec.model == "bdlru") {
    values = BdlruOp::create(b, loc, result, last, in[0], in[1], init, offsets,
                             schedule)
                 ->getResults();
  } else if (spec.model == "linear_attention") {
    std::optional<FeatureMap> featureMap = symbolizeFeatureMap(spec.featureMap);
    if (!featureMap) {
      emitError(loc) << "unknown feature map '" << spec.featureMap
                     << "'; expected elu1 or identity";
      return nullptr;
    }
    values = LinearAttentionOp::create(
                 b, loc, result, last, lastAt(1), *featureMap, spec.normalize,
                 llvm::APFloat(spec.eps), in[0], in[1], in[2], init, stateAt(1),
                 offsets, schedule)
                 ->getResults();
  } else if (spec.model == "delta_rule") {
    Value gate = spec.gated ? in[4] : Value();
    values = DeltaRuleOp::create(b, loc, result, last, in[0], in[1], in[2],
                                 in[3], gate, init, offsets, schedule)
                 ->getResults();
  } else {
    Value skip = spec.skip ? in[5] : Value();
    values = SelectiveSsmOp::create(b, loc, result, last, in[0], in[1], in[2],
                                    in[3], in[4], skip, init, offsets, schedule)
                 ->getResults();
  }
  func::ReturnOp::create(b, loc, values);
  return module;
}
