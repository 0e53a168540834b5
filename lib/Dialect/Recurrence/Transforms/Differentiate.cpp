//===- Differentiate.cpp - Gradient functions of scans --------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"
#include "recurrence/Dialect/Recurrence/Transforms/Adjoint.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_DIFFERENTIATEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {

/// The cotangents of one scan's two results.
struct ScanCotangents {
  Value output, finalState;
};

/// x + y, or the one that is set.
Value accumulate(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x || !y)
    return x ? x : y;
  return linalg::AddOp::create(b, loc, ValueRange{x, y},
                               ValueRange{emptyLike(b, loc, x)})
      .getResult(0);
}

/// Checks that `func` can be differentiated: its results come from scans of
/// its arguments, all of them ranked tensors.
LogicalResult checkDifferentiable(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments())
    if (!isa<RankedTensorType>(arg.getType()))
      return emitError(arg.getLoc())
             << "recurrence-differentiate: argument #" << arg.getArgNumber()
             << " of @" << func.getSymName() << " is not a ranked tensor";
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  for (OpOperand &result : ret->getOpOperands()) {
    auto scan = result.get().getDefiningOp<ScanOp>();
    if (!scan)
      return ret.emitError("recurrence-differentiate: result #")
             << result.getOperandNumber() << " of @" << func.getSymName()
             << " does not come from a recurrence.scan";
    for (OpOperand &operand : scan->getOpOperands()) {
      if (llvm::is_contained(scan.getDestinations(), operand.get()))
        continue;
      auto arg = dyn_cast<BlockArgument>(operand.get());
      if (!arg || arg.getOwner() != &func.getBody().front())
        return scan.emitError("recurrence-differentiate: operand #")
               << operand.getOperandNumber()
               << " is not an argument of the function; only scans of "
                  "arguments are differentiated";
    }
  }
  return success();
}

/// Adds `<name>_grad` for `func`.
LogicalResult differentiate(func::FuncOp func, SymbolTable &symbols) {
  std::string name = (func.getSymName() + "_grad").str();
  Location loc = func.getLoc();
  FunctionType type = func.getFunctionType();
  SmallVector<Type> argTypes(type.getInputs());
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

  // Each result's cotangent, summed per scan result.
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  llvm::MapVector<Operation *, ScanCotangents> scans;
  for (OpOperand &result : ret->getOpOperands()) {
    auto value = cast<OpResult>(result.get());
    Value cotangent =
        body->getArgument(type.getNumInputs() + result.getOperandNumber());
    ScanCotangents &slot = scans[value.getOwner()];
    Value &into = value.getResultNumber() == 0 ? slot.output : slot.finalState;
    into = accumulate(rewriter, loc, into, cotangent);
  }

  // Each scan's adjoint, on a copy of the scan that reads grad's arguments.
  IRMapping mapping;
  mapping.map(func.getArguments(),
              body->getArguments().take_front(type.getNumInputs()));
  SmallVector<Value> gradients(type.getNumInputs());
  for (auto &[op, cotangents] : scans) {
    auto copy = cast<ScanOp>(rewriter.clone(*op, mapping));
    FailureOr<SmallVector<Value>> adjoint = buildScanAdjoint(
        rewriter, copy, cotangents.output, cotangents.finalState);
    if (failed(adjoint))
      return failure();
    for (auto [operand, gradient] : llvm::zip(copy->getOperands(), *adjoint)) {
      unsigned index = cast<BlockArgument>(operand).getArgNumber();
      gradients[index] = accumulate(rewriter, loc, gradients[index], gradient);
    }
    rewriter.eraseOp(copy);
  }
  for (auto [gradient, arg] : llvm::zip(gradients, body->getArguments()))
    if (!gradient)
      gradient = zerosLike(rewriter, loc, arg);
  func::ReturnOp::create(rewriter, loc, gradients);
  return success();
}

struct DifferentiatePass
    : recurrence::impl::DifferentiatePassBase<DifferentiatePass> {
  using Base::Base;

  void runOnOperation() override {
    SymbolTable symbols(getOperation());
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && !func.getBody().getOps<ScanOp>().empty())
        funcs.push_back(func);
    for (func::FuncOp func : funcs)
      if (failed(checkDifferentiable(func)) ||
          failed(differentiate(func, symbols)))
        return signalPassFailure();
  }
};

} // namespace
