//===- recurrence-run.cpp - Compile, run and check a recurrence -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Compiles one function of an .mlir file on tensors with the CPU JIT, runs it
// on random seeded inputs and prints its largest error against a float64
// evaluation of the same function (recurrence.scan through the reference,
// the model ops through their equations written out, elementwise arith
// directly). Exits non-zero when an error is over the tolerance of the
// element type.
//
// An entry `<f>_grad` next to `<f>` (as -recurrence-differentiate emits it)
// is checked as a gradient instead: for random arguments and cotangents, the
// product of its gradients with a direction through each argument (and one
// through all) must match the central difference of the float64 reference
// of <f>'s loss sum(cotangent * result) along that direction.
//
//===----------------------------------------------------------------------===//

#include "Reference/ModelReference.h"
#include "Reference/ScanReference.h"
#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/HostBuffer.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <cmath>
#include <random>

using namespace mlir;
using namespace mlir::recurrence;

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string>
    entryName("entry", llvm::cl::desc("The function to run (default: the "
                                      "first function with a body)"));
static llvm::cl::opt<uint64_t> seed("seed", llvm::cl::desc("Random seed"),
                                    llvm::cl::init(1));

namespace {
using Array = std::vector<double>;

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

/// The elements of row-major `values` of `shape` whose index along `axis`
/// is in [begin, end).
Array sliceAlong(const Array &values, ArrayRef<int64_t> shape, int64_t axis,
                 int64_t begin, int64_t end) {
  int64_t outer = numElements(shape.take_front(axis));
  int64_t inner = numElements(shape.drop_front(axis + 1));
  Array slice;
  slice.reserve(outer * (end - begin) * inner);
  for (int64_t o = 0; o < outer; ++o)
    slice.insert(slice.end(),
                 values.begin() + (o * shape[axis] + begin) * inner,
                 values.begin() + (o * shape[axis] + end) * inner);
  return slice;
}

/// Writes `slice` (as sliceAlong gives it) into `values` of `shape` from
/// index `begin` along `axis`.
void placeAlong(Array &values, ArrayRef<int64_t> shape, int64_t axis,
                int64_t begin, const Array &slice) {
  int64_t outer = numElements(shape.take_front(axis));
  int64_t inner = numElements(shape.drop_front(axis + 1));
  int64_t count =
      static_cast<int64_t>(slice.size()) / std::max<int64_t>(outer * inner, 1);
  for (int64_t o = 0; o < outer; ++o)
    std::copy(slice.begin() + o * count * inner,
              slice.begin() + (o + 1) * count * inner,
              values.begin() + (o * shape[axis] + begin) * inner);
}

/// How an op reads packed sequences: its offsets, the axis of its steps
/// (its batch rank), the operands it reads per step along that axis, and
/// its states' (final state, init) pairs, each one per sequence along the
/// same axis. Null offsets for an op that takes none.
struct Packing {
  Value offsets;
  int64_t axis = 0;
  SmallVector<Value> steps;
  SmallVector<std::pair<Value, Value>> states;
};

Packing packingOf(Operation *op) {
  // A model op's result is [..., T, X].
  int64_t axis =
      op->getNumResults()
          ? cast<ShapedType>(op->getResult(0).getType()).getRank() - 2
          : 0;
  if (auto scan = dyn_cast<ScanOp>(op)) {
    SmallVector<Value> steps(scan.getTransition());
    for (Value operand : {scan.getInput(), scan.getInputKey(),
                          scan.getInputValue(), scan.getReadout()})
      steps.push_back(operand);
    return {scan.getOffsets(),
            scan.getBatchRank(),
            steps,
            {{scan.getFinalState(), scan.getInit()}}};
  }
  if (auto m = dyn_cast<LinearAttentionOp>(op))
    return {m.getOffsets(),
            axis,
            {m.getQuery(), m.getKey(), m.getValue()},
            {{m.getFinalState(), m.getInit()},
             {m.getFinalNormalizer(), m.getNormalizerInit()}}};
  if (auto m = dyn_cast<DeltaRuleOp>(op))
    return {m.getOffsets(),
            axis,
            {m.getQuery(), m.getKey(), m.getValue(), m.getBeta(), m.getGate()},
            {{m.getFinalState(), m.getInit()}}};
  if (auto m = dyn_cast<SelectiveSsmOp>(op))
    return {m.getOffsets(),
            axis,
            {m.getX(), m.getDelta(), m.getB(), m.getC()},
            {{m.getFinalState(), m.getInit()}}};
  if (auto m = dyn_cast<BdlruOp>(op))
    return {m.getOffsets(),
            axis,
            {m.getGates(), m.getInput()},
            {{m.getFinalState(), m.getInit()}}};
  return {};
}

/// Evaluates a function body in float64: recurrence.scan through the
/// reference, the model ops through their equations,
/// elementwise arith on tensors directly.
class ReferenceEvaluator {
public:
  LogicalResult run(func::FuncOp func, ArrayRef<Array> args,
                    std::vector<Array> &results) {
    for (auto [arg, values] : llvm::zip(func.getArguments(), args))
      env[arg] = values;
    for (Operation &op : func.getBody().front()) {
      if (auto scan = dyn_cast<ScanOp>(op)) {
        if (failed(evalScan(scan)))
          return failure();
      } else if (isa<LinearAttentionOp, DeltaRuleOp, SelectiveSsmOp, HlruOp,
                     BdlruOp, NormalizeGatesOp>(op)) {
        if (failed(evalModel(op)))
          return failure();
      } else if (isa<arith::MulFOp, arith::AddFOp, arith::SubFOp>(op)) {
        evalElementwise(op);
      } else if (isa<tensor::EmptyOp, tensor::DimOp>(op) ||
                 (isa<arith::ConstantOp>(op) &&
                  op.getResult(0).getType().isIndex())) {
        // A scan's destination and its sizes: the scan writes it and never
        // reads it (a dynamic one is refused at the scan).
      } else if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (Value value : ret.getOperands())
          results.push_back(env[value]);
      } else {
        return op.emitError("the float64 reference does not evaluate '")
               << op.getName() << "'";
      }
    }
    return success();
  }

private:
  LogicalResult evalScan(ScanOp scan) {
    std::optional<ScanSizes> sizes = scanSizesOf(scan);
    if (!sizes)
      return scan.emitError("recurrence-run needs static shapes");
    ScanSpec spec = ScanSpec::fromOp(scan);
    if (!referenceEvaluates(spec))
      return scan.emitError("the float64 reference does not evaluate "
                            "structure '")
             << spec.structure << "'";
    if (scan.getOffsets()) {
      // Each sequence alone: a scan of its steps, without offsets.
      spec.offsets = false;
      sizes->sequences = 1;
      Packing packing = packingOf(scan);
      return evalPacked(scan, packing, [&]() {
        sizes->steps = shapeOf(scan.getOutput())[packing.axis];
        evalScanOnce(scan, spec, *sizes);
        return success();
      });
    }
    evalScanOnce(scan, spec, *sizes);
    return success();
  }

  /// The scan's reference on env's values of its operands (but offsets).
  void evalScanOnce(ScanOp scan, const ScanSpec &spec, const ScanSizes &sizes) {
    std::vector<Array> operands;
    for (Value operand : scan.getDpsInputs())
      if (operand != scan.getOffsets())
        operands.push_back(env[operand]);
    ReferenceResult result = referenceScan(spec, sizes, operands);
    env[scan.getOutput()] = std::move(result.output);
    if (Value last = scan.getFinalState())
      env[last] = std::move(result.finalState);
  }

  /// The values of `value`, empty for a null one (an absent operand).
  Array valuesOf(Value value) { return value ? env[value] : Array(); }

  LogicalResult evalModel(Operation &op) {
    for (Type type : op.getOperandTypes())
      if (!cast<ShapedType>(type).hasStaticShape())
        return op.emitError("recurrence-run needs static shapes");
    Packing packing = packingOf(&op);
    if (packing.offsets)
      return evalPacked(&op, packing, [&]() { return evalModelOnce(op); });
    return evalModelOnce(op);
  }

  /// The shape `value` is evaluated at: its type's, or a packed sequence's.
  SmallVector<int64_t> shapeOf(Value value) {
    auto it = shapes.find(value);
    if (it != shapes.end())
      return it->second;
    return SmallVector<int64_t>(cast<ShapedType>(value.getType()).getShape());
  }

  /// An op over packed sequences as the op on each sequence alone (`once`
  /// on env's values and shapeOf's shapes): its per-step operands sliced
  /// between the sequence's offsets along the packing's axis, its inits at
  /// the sequence's index along it; the result written at those steps, and
  /// each final state at that index. An empty sequence's final state is its
  /// init (or zero).
  LogicalResult evalPacked(Operation *op, const Packing &packing,
                           function_ref<LogicalResult()> once) {
    Array offsets = env[packing.offsets];
    Value result = op->getResult(0);
    SmallVector<int64_t> resultShape = shapeOf(result);
    int64_t axis = packing.axis;
    auto sizedAt = [&](Value value, int64_t size) {
      SmallVector<int64_t> shape = shapeOf(value);
      shape[axis] = size;
      shapes[value] = shape;
    };
    // The whole operands, restored afterwards; the whole results.
    llvm::DenseMap<Value, Array> whole;
    for (Value operand : op->getOperands())
      whole[operand] = env[operand];
    Array output(numElements(resultShape), 0.0);
    SmallVector<Array> finals;
    for (auto [last, init] : packing.states)
      finals.emplace_back(last ? numElements(shapeOf(last)) : 0, 0.0);
    for (size_t s = 0; s + 1 < offsets.size(); ++s) {
      auto begin = static_cast<int64_t>(offsets[s]);
      auto end = static_cast<int64_t>(offsets[s + 1]);
      int64_t index = static_cast<int64_t>(s);
      // (Sliced once where one value is several operands.)
      llvm::SmallDenseSet<Value> sliced;
      for (Value operand : packing.steps)
        if (operand && sliced.insert(operand).second) {
          env[operand] =
              sliceAlong(whole[operand], shapeOf(operand), axis, begin, end);
          sizedAt(operand, end - begin);
        }
      for (auto [last, init] : packing.states)
        if (init && sliced.insert(init).second) {
          env[init] =
              sliceAlong(whole[init], shapeOf(init), axis, index, index + 1);
          sizedAt(init, 1);
        }
      if (begin < end) {
        sizedAt(result, end - begin);
        for (auto [last, init] : packing.states)
          if (last)
            sizedAt(last, 1);
        if (failed(once()))
          return failure();
      }
      for (Value operand : op->getOperands())
        shapes.erase(operand);
      if (begin < end)
        placeAlong(output, resultShape, axis, begin, env[result]);
      for (auto [state, final] : llvm::zip(packing.states, finals)) {
        auto [last, init] = state;
        if (!last)
          continue;
        shapes.erase(last);
        if (begin < end)
          placeAlong(final, shapeOf(last), axis, index, env[last]);
        else if (init)
          placeAlong(final, shapeOf(last), axis, index, env[init]);
      }
      shapes.erase(result);
    }
    for (auto &[operand, values] : whole)
      env[operand] = std::move(values);
    env[result] = std::move(output);
    for (auto [state, final] : llvm::zip(packing.states, finals))
      if (state.first)
        env[state.first] = std::move(final);
    return success();
  }

  LogicalResult evalModelOnce(Operation &op) {
    // [..., T, X]: (B, T, X), the batch dims flattened (a missing dim 1).
    auto sizes = [&](Value value) {
      SmallVector<int64_t> shape = shapeOf(value);
      while (shape.size() < 2)
        shape.insert(shape.begin(), 1);
      int64_t batch = 1;
      for (int64_t size : ArrayRef<int64_t>(shape).drop_back(2))
        batch *= size;
      return std::array<int64_t, 3>{batch, shape[shape.size() - 2],
                                    shape.back()};
    };
    std::vector<Array> results;
    if (auto model = dyn_cast<LinearAttentionOp>(op)) {
      auto [batch, steps, keys] = sizes(model.getQuery());
      results = referenceLinearAttention(
          batch, steps, keys, sizes(model.getValue())[2],
          model.getFeatureMap() == FeatureMap::Elu1, model.getNormalize(),
          model.getEps().convertToDouble(), env[model.getQuery()],
          env[model.getKey()], env[model.getValue()], valuesOf(model.getInit()),
          valuesOf(model.getNormalizerInit()));
    } else if (auto model = dyn_cast<DeltaRuleOp>(op)) {
      auto [batch, steps, keys] = sizes(model.getQuery());
      results = referenceDeltaRule(
          batch, steps, keys, sizes(model.getValue())[2], env[model.getQuery()],
          env[model.getKey()], env[model.getValue()], env[model.getBeta()],
          valuesOf(model.getGate()), valuesOf(model.getInit()));
    } else if (auto model = dyn_cast<SelectiveSsmOp>(op)) {
      auto [batch, steps, channels] = sizes(model.getX());
      results = referenceSelectiveSsm(
          batch, steps, channels, sizes(model.getB())[2], env[model.getX()],
          env[model.getDelta()], env[model.getA()], env[model.getB()],
          env[model.getC()], valuesOf(model.getD()), valuesOf(model.getInit()));
    } else if (auto model = dyn_cast<HlruOp>(op)) {
      auto [batch, steps, channels] = sizes(model.getInput());
      results =
          referenceHlru(batch, steps, channels, sizes(model.getGates())[2] - 1,
                        env[model.getGates()], env[model.getInput()],
                        valuesOf(model.getInit()));
    } else if (auto model = dyn_cast<BdlruOp>(op)) {
      auto [batch, steps, width] = sizes(model.getInput());
      int64_t block = sizes(model.getGates())[2] - 1;
      results = referenceBdlru(batch, steps, width / block, block,
                               env[model.getGates()], env[model.getInput()],
                               valuesOf(model.getInit()));
    } else {
      auto gates = cast<NormalizeGatesOp>(op);
      results = {referenceNormalizeGates(
          stringifyGateFunction(gates.getFunction()).str(),
          sizes(gates.getRaw())[2], env[gates.getRaw()])};
    }
    for (auto [result, values] : llvm::zip(op.getResults(), results))
      env[result] = std::move(values);
    return success();
  }

  void evalElementwise(Operation &op) {
    const Array &x = env[op.getOperand(0)], &y = env[op.getOperand(1)];
    Array z(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      z[i] = isa<arith::MulFOp>(op)   ? x[i] * y[i]
             : isa<arith::AddFOp>(op) ? x[i] + y[i]
                                      : x[i] - y[i];
    env[op.getResult(0)] = std::move(z);
  }

  llvm::DenseMap<Value, Array> env;
  llvm::DenseMap<Value, SmallVector<int64_t>> shapes;
};

/// The buffer element type of a tensor type that recurrence-run accepts.
ElementType dtypeOf(Type type) {
  return *elementTypeOf(cast<RankedTensorType>(type).getElementType());
}

/// The steps of the packed axis that `arg` delimits, if a scan or a model
/// op reads it as its offsets.
std::optional<int64_t> packedSteps(BlockArgument arg) {
  for (Operation *user : arg.getUsers()) {
    if (auto scan = dyn_cast<ScanOp>(user); scan && scan.getOffsets() == arg)
      if (std::optional<ScanSizes> sizes = scanSizesOf(scan))
        return sizes->steps;
    // A model op's result is [..., T, X].
    if (packingOf(user).offsets == arg)
      if (auto type = dyn_cast<RankedTensorType>(user->getResult(0).getType());
          type && type.getRank() >= 2 && type.hasStaticShape())
        return type.getDimSize(type.getRank() - 2);
  }
  return std::nullopt;
}

/// Offsets of `sequences` sequences over `steps` packed steps: the first
/// sequence empty and the second of one step (where there are that many),
/// the other bounds drawn at random, sorted.
Array randomOffsets(std::mt19937_64 &engine, int64_t sequences, int64_t steps) {
  if (sequences < 1)
    return Array(1, 0.0);
  Array offsets(sequences + 1, 0.0);
  offsets[sequences] = static_cast<double>(steps);
  int64_t fixed = std::min<int64_t>(2, sequences - 1);
  if (fixed == 2)
    offsets[2] = static_cast<double>(std::min<int64_t>(1, steps));
  std::uniform_int_distribution<int64_t> bound(
      static_cast<int64_t>(offsets[fixed]), steps);
  for (int64_t s = fixed + 1; s < sequences; ++s)
    offsets[s] = static_cast<double>(bound(engine));
  std::sort(offsets.begin() + fixed + 1, offsets.end() - 1);
  return offsets;
}

/// Random inputs; an argument used as a scan's transition is drawn from the
/// range that keeps that transition contractive, and one used as its
/// offsets is a valid set of bounds.
std::vector<Array> randomArguments(func::FuncOp func) {
  std::mt19937_64 engine(seed);
  std::vector<Array> args;
  for (BlockArgument arg : func.getArguments()) {
    if (std::optional<int64_t> steps = packedSteps(arg)) {
      args.push_back(randomOffsets(
          engine, cast<ShapedType>(arg.getType()).getNumElements() - 1,
          *steps));
      continue;
    }
    double range = 1.0;
    for (OpOperand &use : arg.getUses())
      if (auto scan = dyn_cast<ScanOp>(use.getOwner())) {
        unsigned index = use.getOperandNumber();
        if (index < scan.getTransition().size())
          if (std::optional<ScanSizes> sizes = scanSizesOf(scan))
            range = transitionRange(ScanSpec::fromOp(scan), *sizes, index);
      }
    auto type = cast<RankedTensorType>(arg.getType());
    if (isa<IntegerType>(type.getElementType())) {
      // Integers that are no scan's or model op's offsets: zeros.
      args.emplace_back(numElements(type.getShape()), 0.0);
      continue;
    }
    std::uniform_real_distribution<double> uniform(-range, range);
    Array values(numElements(type.getShape()));
    for (double &value : values) {
      value = uniform(engine);
      value = roundTo(dtypeOf(type), value);
    }
    args.push_back(std::move(values));
  }
  return args;
}

/// A buffer of `type` holding `values`.
HostBuffer bufferOf(Type type, const Array &values) {
  auto tensor = cast<RankedTensorType>(type);
  return HostBuffer(dtypeOf(type),
                    {tensor.getShape().begin(), tensor.getShape().end()},
                    values);
}

func::FuncOp findEntry(ModuleOp module) {
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() &&
        (entryName.empty() || func.getName() == entryName))
      return func;
  return {};
}

double elapsedMs(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - since)
      .count();
}
/// Runs `name` of `jit` on `args`; returns its results in float64.
FailureOr<std::vector<Array>> runJit(JitModule &jit, StringRef name,
                                     TypeRange argTypes, TypeRange resultTypes,
                                     ArrayRef<Array> args) {
  std::vector<HostBuffer> inputs, outputs;
  std::vector<BufferView> argViews, resultViews;
  for (auto [type, values] : llvm::zip(argTypes, args))
    inputs.push_back(bufferOf(type, values));
  for (Type type : resultTypes)
    outputs.push_back(bufferOf(
        type,
        Array(numElements(cast<RankedTensorType>(type).getShape()), NAN)));
  for (HostBuffer &buffer : inputs)
    argViews.push_back(buffer.view());
  for (HostBuffer &buffer : outputs)
    resultViews.push_back(buffer.view());
  if (llvm::Error error = jit.call(name, argViews, resultViews)) {
    llvm::errs() << "error: " << llvm::toString(std::move(error)) << "\n";
    return failure();
  }
  std::vector<Array> results;
  for (HostBuffer &buffer : outputs)
    results.push_back(buffer.values());
  return results;
}

double dot(const Array &x, const Array &y) {
  double sum = 0.0;
  for (size_t i = 0; i < x.size(); ++i)
    sum += x[i] * y[i];
  return sum;
}

/// Checks `grad` (<f>_grad) against central differences of `primal` (<f>)
/// in float64; returns the exit code.
int checkGradient(ModuleOp module, func::FuncOp primal, func::FuncOp grad) {
  unsigned numArgs = primal.getNumArguments();
  std::vector<Array> args = randomArguments(primal);
  std::mt19937_64 engine(seed + 1);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  // Directions and cotangents; integers (offsets) are not differentiated.
  auto draw = [&](Type type) {
    Array values(numElements(cast<RankedTensorType>(type).getShape()), 0.0);
    if (isa<IntegerType>(getElementTypeOrSelf(type)))
      return values;
    for (double &value : values) {
      value = uniform(engine);
      if (cast<RankedTensorType>(type).getElementType().isF32())
        value = static_cast<double>(static_cast<float>(value));
    }
    return values;
  };
  std::vector<Array> cotangents;
  for (Type type : primal.getResultTypes())
    cotangents.push_back(draw(type));

  auto start = std::chrono::steady_clock::now();
  // The JIT lowers the module it is given; the reference reads `primal`.
  OwningOpRef<ModuleOp> lowered = module.clone();
  auto jit = JitModule::compile(*lowered, {grad.getName().str()});
  if (!jit) {
    llvm::errs() << "error: " << llvm::toString(jit.takeError()) << "\n";
    return 1;
  }
  double compileMs = elapsedMs(start);
  std::vector<Array> gradArgs(args);
  gradArgs.insert(gradArgs.end(), cotangents.begin(), cotangents.end());
  start = std::chrono::steady_clock::now();
  FailureOr<std::vector<Array>> gradients =
      runJit(**jit, grad.getName(), grad.getArgumentTypes(),
             grad.getResultTypes(), gradArgs);
  if (failed(gradients))
    return 1;
  llvm::outs() << llvm::format("  compiled in %.1f ms, ran in %.3f ms\n",
                               compileMs, elapsedMs(start));

  // The loss sum(cotangent * result) of the float64 reference at x + s d.
  auto loss = [&](const std::vector<Array> &direction,
                  double step) -> FailureOr<double> {
    std::vector<Array> moved(args);
    for (unsigned i = 0; i < numArgs; ++i)
      for (size_t j = 0; j < moved[i].size(); ++j)
        moved[i][j] += step * direction[i][j];
    std::vector<Array> results;
    ReferenceEvaluator reference;
    if (failed(reference.run(primal, moved, results)))
      return failure();
    double sum = 0.0;
    for (auto [result, cotangent] : llvm::zip(results, cotangents))
      sum += dot(result, cotangent);
    return sum;
  };

  bool f32 = llvm::any_of(grad.getResultTypes(), [](Type type) {
    return cast<RankedTensorType>(type).getElementType().isF32();
  });
  constexpr double step = 1e-3;
  bool ok = true;
  for (unsigned along = 0; along <= numArgs; ++along) {
    if (along < numArgs && isa<IntegerType>(getElementTypeOrSelf(
                               primal.getArgumentTypes()[along])))
      continue;
    // A direction through argument `along`, or through all of them.
    std::vector<Array> direction;
    for (unsigned i = 0; i < numArgs; ++i) {
      direction.push_back(draw(primal.getArgumentTypes()[i]));
      if (along < numArgs && i != along)
        llvm::fill(direction.back(), 0.0);
    }
    // Central differences at steps s and s/2, extrapolated (Richardson);
    // their disagreement bounds the truncation error.
    double differences[2];
    for (int k = 0; k < 2; ++k) {
      double s = step / (1 << k);
      FailureOr<double> plus = loss(direction, s);
      FailureOr<double> minus = loss(direction, -s);
      if (failed(plus) || failed(minus))
        return 1;
      differences[k] = (*plus - *minus) / (2 * s);
    }
    double difference = (4 * differences[1] - differences[0]) / 3;
    double truncation = std::fabs(differences[1] - differences[0]);
    double exact = 0.0, scale = 0.0;
    for (unsigned i = 0; i < numArgs; ++i) {
      exact += dot((*gradients)[i], direction[i]);
      for (size_t j = 0; j < direction[i].size(); ++j)
        scale += std::fabs((*gradients)[i][j] * direction[i][j]);
    }
    // Rounding in the gradients is relative to sum |g_i d_i|.
    double error = std::fabs(exact - difference);
    double tolerance = (f32 ? 5e-7 : 1e-10) * scale + 1e-2 * truncation;
    bool pass = error <= tolerance;
    ok &= pass;
    std::string what = along < numArgs ? "argument #" + std::to_string(along)
                                       : std::string("all arguments");
    llvm::outs() << llvm::format(
        "  %-14s %s: <grad, d> = %.6e, central difference = %.6e, |error| = "
        "%.2e (tolerance %.1e) %s\n",
        what.c_str(), pass ? "ok" : "FAIL", exact, difference, error, tolerance,
        pass ? "" : "<--");
  }
  return ok ? 0 : 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv, "Compile, run and check a recurrence on the CPU\n");

  DialectRegistry registry;
  registerRecurrenceRuntimeDialects(registry);
  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    return 1;
  func::FuncOp entry = findEntry(*module);
  if (!entry) {
    llvm::errs() << "error: no function "
                 << (entryName.empty() ? "with a body" : "'" + entryName + "'")
                 << " in " << inputFile << "\n";
    return 1;
  }
  for (Type type : llvm::concat<const Type>(entry.getArgumentTypes(),
                                            entry.getResultTypes())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || !tensor.hasStaticShape() ||
        !elementTypeOf(tensor.getElementType()))
      return entry.emitError("recurrence-run needs static tensors of f32, "
                             "f64, f16 or bf16 (or i32, i64 offsets), got ")
                 << type,
             1;
  }
  std::string name = entry.getName().str();
  if (StringRef(name).ends_with("_grad")) {
    auto primal = module->lookupSymbol<func::FuncOp>(
        StringRef(name).drop_back(strlen("_grad")));
    if (primal && !primal.isExternal()) {
      llvm::outs() << "gradient " << inputFile << " @" << name << " of @"
                   << primal.getName() << "\n";
      return checkGradient(*module, primal, entry);
    }
  }
  llvm::outs() << "example " << inputFile << " @" << name << "\n";
  entry.walk([](ScanOp scan) {
    llvm::outs() << "  " << ScanSpec::fromOp(scan).describe() << "  "
                 << scan.getShapeSource().getType() << "\n";
  });

  std::vector<Array> args = randomArguments(entry);
  std::vector<Array> want;
  ReferenceEvaluator reference;
  if (failed(reference.run(entry, args, want)))
    return 1;
  SmallVector<Type> argTypes(entry.getArgumentTypes());
  SmallVector<Type> resultTypes(entry.getResultTypes());

  auto start = std::chrono::steady_clock::now();
  auto jit = JitModule::compile(*module, {name});
  if (!jit) {
    llvm::errs() << "error: " << llvm::toString(jit.takeError()) << "\n";
    return 1;
  }
  double compileMs = elapsedMs(start);

  start = std::chrono::steady_clock::now();
  FailureOr<std::vector<Array>> results =
      runJit(**jit, name, argTypes, resultTypes, args);
  if (failed(results))
    return 1;
  double runMs = elapsedMs(start);
  llvm::outs() << llvm::format("  compiled in %.1f ms, ran in %.3f ms\n",
                               compileMs, runMs);

  bool ok = true;
  for (auto [index, got] : llvm::enumerate(*results)) {
    // Relative to the largest reference value, by the result's precision.
    ElementType dtype = dtypeOf(resultTypes[index]);
    double worst = 0.0, scale = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
      double error = std::fabs(got[i] - want[index][i]);
      worst = std::isnan(error) ? INFINITY : std::max(worst, error);
      scale = std::max(scale, std::fabs(want[index][i]));
    }
    double tolerance = (dtype == ElementType::F64   ? 1e-10
                        : dtype == ElementType::F32 ? 2e-4
                        : dtype == ElementType::F16 ? 2e-3
                                                    : 1.6e-2) *
                       (1.0 + scale);
    bool pass = worst <= tolerance;
    ok &= pass;
    llvm::outs() << llvm::format(
        "  result #%zu %s: max |error| vs float64 reference = %.3e "
        "(tolerance %.1e) %s\n",
        index, pass ? "ok" : "FAIL", worst, tolerance, pass ? "" : "<--");
  }
  return ok ? 0 : 1;
}
