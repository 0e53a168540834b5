//===- Differentiate.cpp - Gradient functions of scans --------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"
#include "recurrence/Dialect/Recurrence/Transforms/Adjoint.h"
#include "recurrence/Dialect/Recurrence/Transforms/CostModel.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_DIFFERENTIATEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {

/// x + y, or the one that is set.
Value accumulate(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x || !y)
    return x ? x : y;
  return linalg::AddOp::create(b, loc, ValueRange{x, y},
                               ValueRange{emptyLike(b, loc, x)})
      .getResult(0);
}

Value multiply(OpBuilder &b, Location loc, Value x, Value y) {
  return linalg::MulOp::create(b, loc, ValueRange{x, y},
                               ValueRange{emptyLike(b, loc, x)})
      .getResult(0);
}

Value negate(OpBuilder &b, Location loc, Value x) {
  return linalg::NegFOp::create(b, loc, ValueRange{x},
                                ValueRange{emptyLike(b, loc, x)})
      .getResult(0);
}

/// The ops whose derivatives the reverse sweep knows.
bool isDifferentiable(Operation &op) {
  if (isa<ScanOp, func::ReturnOp, arith::ConstantOp, tensor::EmptyOp,
          tensor::DimOp, linalg::FillOp, tensor::ExtractSliceOp,
          tensor::InsertSliceOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
          tensor::CastOp>(op))
    return true;
  // A generic of integers or booleans (sequence bounds, masks) carries no
  // cotangent, whatever it reads.
  auto integral = [](Type type) {
    return isa<IntegerType, IndexType>(getElementTypeOrSelf(type));
  };
  if (auto generic = dyn_cast<linalg::GenericOp>(op))
    return isDifferentiableGeneric(generic) || reversedStepsSource(generic) ||
           (generic.hasPureTensorSemantics() &&
            llvm::all_of(generic->getResultTypes(), integral));
  // Index and integer arithmetic (sizes, sequence bounds) carries no
  // cotangent.
  if (isPure(&op) && op.getNumRegions() == 0 &&
      llvm::all_of(op.getResultTypes(), integral))
    return true;
  return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::NegFOp>(op) &&
         llvm::all_of(op.getOperandTypes(), llvm::IsaPred<RankedTensorType>);
}

/// Checks that `func` can be differentiated: one block of the ops the sweep
/// knows, on ranked tensor arguments.
LogicalResult checkDifferentiable(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments())
    if (!isa<RankedTensorType>(arg.getType()))
      return emitError(arg.getLoc())
             << "recurrence-differentiate: argument #" << arg.getArgNumber()
             << " of @" << func.getSymName() << " is not a ranked tensor";
  if (!func.getBody().hasOneBlock())
    return func.emitError("recurrence-differentiate: @")
           << func.getSymName() << " has more than one block";
  for (Operation &op : func.getBody().front())
    if (!isDifferentiable(op))
      return op.emitError("recurrence-differentiate: cannot differentiate '")
             << op.getName()
             << "'; the sweep knows recurrence.scan, arith.addf, subf, mulf "
                "and negf on tensors, linalg ops of projected-permutation "
                "maps whose bodies are elementwise arithmetic, exp, log1p, "
                "abs, max, min and select or a sum of them, tensor slices, "
                "casts and reshapes, constants, tensor.empty, linalg.fill, "
                "tensor.dim, pure integer ops and generics of integers";
  return success();
}

/// The cotangents of the values of one function body, summed as they come.
class Cotangents {
public:
  /// `checkpoint` for every scan, or where 0, `target`'s choice (if any).
  Cotangents(RewriterBase &b, Location loc, int64_t checkpoint,
             const TargetModel *target)
      : b(b), loc(loc), checkpoint(checkpoint), target(target) {}

  /// Where the sweep reads `value` from an argument rather than
  /// recomputing it: a result of the function, given to its gradient.
  void give(Value value, Value argument) { given[value] = argument; }

  Value of(Value value) const { return map.lookup(value); }
  void add(Value value, Value cotangent) {
    if (cotangent && isa<FloatType>(getElementTypeOrSelf(value.getType())))
      map[value] = accumulate(b, loc, map.lookup(value), cotangent);
  }

  /// Sends the cotangents of `op`'s results to its operands.
  LogicalResult propagate(Operation &op) {
    if (auto scan = dyn_cast<ScanOp>(op)) {
      Value output = of(scan.getOutput());
      Value last = scan.getFinalState() ? of(scan.getFinalState()) : Value();
      if (!output && !last)
        return success();
      FailureOr<SmallVector<Value>> gradients =
          buildScanAdjoint(b, scan, output, last, checkpointOf(scan),
                           given.lookup(scan.getOutput()));
      if (failed(gradients))
        return failure();
      // One gradient per operand before the destinations, whose contents
      // the scan does not read.
      for (auto [operand, gradient] :
           llvm::zip(scan.getDpsInputs(), *gradients))
        add(operand, gradient);
      return success();
    }
    if (op.getNumResults() != 1 || !of(op.getResult(0)))
      return success();
    Value bar = of(op.getResult(0));
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && reversedStepsSource(generic)) {
      // A flip of the steps is its own adjoint.
      add(reversedStepsSource(generic), buildReverseSteps(b, loc, bar));
    } else if (generic) {
      for (auto [operand, gradient] :
           llvm::zip(op.getOperands(), buildGenericAdjoint(b, generic, bar)))
        add(operand, gradient);
    } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op)) {
      // The slice's cotangent, in place in zeros shaped like the source.
      add(slice.getSource(),
          tensor::InsertSliceOp::create(
              b, loc, bar, zerosLike(b, loc, slice.getSource()),
              slice.getMixedOffsets(), slice.getMixedSizes(),
              slice.getMixedStrides()));
    } else if (auto insert = dyn_cast<tensor::InsertSliceOp>(op)) {
      // The slice's part of the cotangent goes to the source, the rest to
      // the destination.
      add(insert.getSource(),
          tensor::ExtractSliceOp::create(
              b, loc, insert.getSourceType(), bar, insert.getMixedOffsets(),
              insert.getMixedSizes(), insert.getMixedStrides()));
      add(insert.getDest(),
          tensor::InsertSliceOp::create(
              b, loc, zerosLike(b, loc, insert.getSource()), bar,
              insert.getMixedOffsets(), insert.getMixedSizes(),
              insert.getMixedStrides()));
    } else if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      add(cast.getSource(),
          tensor::CastOp::create(b, loc, cast.getSource().getType(), bar));
    } else if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      add(collapse.getSrc(),
          tensor::ExpandShapeOp::create(
              b, loc, collapse.getSrcType(), bar,
              collapse.getReassociationIndices(),
              tensor::getMixedSizes(b, loc, collapse.getSrc())));
    } else if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      add(expand.getSrc(),
          tensor::CollapseShapeOp::create(b, loc, expand.getSrcType(), bar,
                                          expand.getReassociationIndices()));
    } else if (isa<arith::AddFOp>(op)) {
      add(op.getOperand(0), bar);
      add(op.getOperand(1), bar);
    } else if (isa<arith::SubFOp>(op)) {
      add(op.getOperand(0), bar);
      add(op.getOperand(1), negate(b, loc, bar));
    } else if (isa<arith::NegFOp>(op)) {
      add(op.getOperand(0), negate(b, loc, bar));
    } else if (isa<arith::MulFOp>(op)) {
      add(op.getOperand(0), multiply(b, loc, bar, op.getOperand(1)));
      add(op.getOperand(1), multiply(b, loc, bar, op.getOperand(0)));
    }
    return success();
  }

private:
  RewriterBase &b;
  Location loc;
  int64_t checkpointOf(ScanOp scan) const {
    if (checkpoint || !target)
      return checkpoint;
    return target->adjointCheckpoint(scan);
  }

  int64_t checkpoint;
  const TargetModel *target;
  DenseMap<Value, Value> map, given;
};

/// Whether iter_arg `i` of `loop` only feeds itself: every op its value
/// reaches in the body is pure, and their values reach nothing but its own
/// operand of the yield.
bool feedsOnlyItself(scf::ForOp loop, unsigned i) {
  Operation *yield = loop.getBody()->getTerminator();
  SmallVector<Value> worklist = {loop.getRegionIterArgs()[i]};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      if (user == yield) {
        if (use.getOperandNumber() != i)
          return false;
        continue;
      }
      if (user->getBlock() != loop.getBody() || user->getNumRegions() ||
          !isMemoryEffectFree(user))
        return false;
      llvm::append_range(worklist, user->getResults());
    }
  }
  return true;
}

/// Drops from `func` the values that its loops carry but nothing reads (a
/// checkpointed adjoint's gradient of an operand that depends on no
/// argument, such as a model's constant gate, built chunk by chunk into a
/// result no one uses), with the work that only they needed.
void dropUnreadCarriedValues(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<Operation *> changed;
  func.walk([&](scf::ForOp loop) {
    auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
    for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
      BlockArgument arg = loop.getRegionIterArgs()[i];
      if (!loop.getResult(i).use_empty() || yield.getOperand(i) == arg ||
          !feedsOnlyItself(loop, i))
        continue;
      // Carried unchanged, the value is then dropped by the loop's folder.
      rewriter.modifyOpInPlace(yield, [&] { yield->setOperand(i, arg); });
      changed.push_back(loop);
    }
  });
  if (changed.empty())
    return;
  RewritePatternSet patterns(func.getContext());
  scf::ForOp::getCanonicalizationPatterns(patterns, func.getContext());
  GreedyRewriteConfig config;
  config.enableFolding(false).enableConstantCSE(false).setStrictness(
      GreedyRewriteStrictness::ExistingOps);
  (void)applyOpPatternsGreedily(changed, std::move(patterns), config);
  (void)runRegionDCE(rewriter, func.getBody());
}

/// Adds `<name>_grad` for `func`: a copy of its body, then the reverse sweep.
/// With `takeResults`, the gradient takes `func`'s results after its
/// arguments, and the scans it returns read their states there.
LogicalResult differentiate(func::FuncOp func, SymbolTable &symbols,
                            int64_t checkpoint, const TargetModel *target,
                            bool takeResults) {
  std::string name = (func.getSymName() + "_grad").str();
  Location loc = func.getLoc();
  FunctionType type = func.getFunctionType();
  SmallVector<Type> argTypes(type.getInputs());
  if (takeResults)
    llvm::append_range(argTypes, type.getResults());
  llvm::append_range(argTypes, type.getResults());
  IRRewriter rewriter(func.getContext());
  FunctionType gradType = rewriter.getFunctionType(argTypes, type.getInputs());
  // A declaration of the gradient (for calls in the same module) is defined
  // here; any other symbol of that name is an error.
  auto grad = dyn_cast_or_null<func::FuncOp>(symbols.lookup(name));
  if (grad && (!grad.isExternal() || grad.getFunctionType() != gradType))
    return grad.emitError("recurrence-differentiate: @")
           << name << " already exists; only a declaration of type " << gradType
           << " may precede its definition";
  if (!grad && symbols.lookup(name))
    return symbols.lookup(name)->emitError("recurrence-differentiate: @")
           << name << " already exists";
  if (!grad) {
    rewriter.setInsertionPointAfter(func);
    grad = func::FuncOp::create(rewriter, loc, name, gradType);
    grad.setVisibility(func.getVisibility());
    symbols.insert(grad);
  }
  Block *body = grad.addEntryBlock();
  rewriter.setInsertionPointToStart(body);

  // The primal computation, on grad's arguments.
  IRMapping mapping;
  mapping.map(func.getArguments(),
              body->getArguments().take_front(type.getNumInputs()));
  SmallVector<Operation *> primal;
  for (Operation &op : func.getBody().front().without_terminator())
    primal.push_back(rewriter.clone(op, mapping));

  // The sweep, from the results' cotangents back to the arguments.
  Cotangents cotangents(rewriter, loc, checkpoint, target);
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  unsigned cotangentsStart = type.getNumInputs();
  if (takeResults) {
    for (auto [index, result] : llvm::enumerate(ret.getOperands()))
      cotangents.give(mapping.lookupOrDefault(result),
                      body->getArgument(type.getNumInputs() + index));
    cotangentsStart += type.getNumResults();
  }
  for (auto [index, result] : llvm::enumerate(ret.getOperands()))
    cotangents.add(mapping.lookupOrDefault(result),
                   body->getArgument(cotangentsStart + index));
  for (Operation *op : llvm::reverse(primal))
    if (failed(cotangents.propagate(*op)))
      return failure();
  SmallVector<Value> gradients;
  for (BlockArgument arg : body->getArguments().take_front(type.getNumInputs()))
    gradients.push_back(cotangents.of(arg) ? cotangents.of(arg)
                                           : zerosLike(rewriter, loc, arg));
  func::ReturnOp::create(rewriter, loc, gradients);
  // The primal ops the sweep did not read.
  for (Operation *op : llvm::reverse(primal))
    if (isOpTriviallyDead(op))
      rewriter.eraseOp(op);
  dropUnreadCarriedValues(rewriter, grad);
  return success();
}

struct DifferentiatePass
    : recurrence::impl::DifferentiatePassBase<DifferentiatePass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<TargetModel> model;
    if (!target.empty()) {
      FailureOr<TargetModel> named =
          TargetModel::getOrEmit(getOperation(), target, 0, 0);
      if (failed(named))
        return signalPassFailure();
      model = *named;
    }
    SymbolTable symbols(getOperation());
    // Functions of scans or model ops; the model ops are decomposed first,
    // in a copy, so that the function stays as written.
    SmallVector<func::FuncOp> funcs;
    // Or the functions named, each of which must exist.
    for (const std::string &name : functions) {
      auto func = symbols.lookup<func::FuncOp>(name);
      if (!func || func.isExternal()) {
        getOperation().emitError("recurrence-differentiate: no function @")
            << name << " with a body to differentiate";
        return signalPassFailure();
      }
      funcs.push_back(func);
    }
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal() || !functions.empty())
        continue;
      bool models = false;
      func.walk([&](linalg::AggregatedOpInterface op) {
        models |= isa<RecurrenceDialect>(op->getDialect());
      });
      if (models || !func.getBody().getOps<ScanOp>().empty())
        funcs.push_back(func);
    }
    IRRewriter rewriter(&getContext());
    for (func::FuncOp func : funcs) {
      // The copy sits next to the function (not in the symbol table) while
      // the gradient is derived from it, after it.
      rewriter.setInsertionPointAfter(func);
      auto copy = cast<func::FuncOp>(rewriter.clone(*func));
      LogicalResult derived =
          success(succeeded(decomposeModelOps(rewriter, copy)) &&
                  succeeded(generalizeNamedOps(rewriter, copy)) &&
                  succeeded(checkDifferentiable(copy)) &&
                  succeeded(differentiate(copy, symbols, checkpoint,
                                          model ? &*model : nullptr, results)));
      rewriter.eraseOp(copy);
      if (failed(derived))
        return signalPassFailure();
    }
  }

  /// Named linalg ops (linalg.mul, linalg.transpose, ...) as the generics
  /// they stand for, which the sweep differentiates; fills stay, their
  /// values being constants.
  static LogicalResult generalizeNamedOps(RewriterBase &rewriter,
                                          func::FuncOp func) {
    SmallVector<linalg::LinalgOp> named;
    for (auto op : func.getBody().getOps<linalg::LinalgOp>())
      if (!isa<linalg::GenericOp, linalg::FillOp>(op))
        named.push_back(op);
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op)))
        return op.emitError("recurrence-differentiate: cannot differentiate '")
               << op->getName() << "', which has no linalg.generic form";
    }
    return success();
  }
};

} // namespace
