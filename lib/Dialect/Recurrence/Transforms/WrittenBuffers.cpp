//===- WrittenBuffers.cpp - The buffers a region writes -------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/WrittenBuffers.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

std::optional<DenseSet<Value>> mlir::recurrence::writtenBuffers(
    Region &region, function_ref<Value(Value)> bufferOf,
    function_ref<bool(Operation *)> writesNothing) {
  DenseSet<Value> written;
  WalkResult walk = region.walk([&](Operation *op) {
    if (writesNothing && writesNothing(op))
      return WalkResult::advance();
    // A linalg op on buffers states its own operands' effects, and its
    // body's ops are visited on their own.
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects && op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    if (!effects)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &instance : instances) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(instance.getEffect()))
        continue;
      Value buffer = bufferOf(instance.getValue());
      if (!buffer)
        return WalkResult::interrupt();
      written.insert(buffer);
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return std::nullopt;
  return written;
}

Value mlir::recurrence::distinctBuffer(Value value) {
  auto memref = dyn_cast_if_present<MemrefValue>(value);
  if (!memref)
    return nullptr;
  Value buffer = memref::skipViewLikeOps(memref);
  if (auto argument = dyn_cast<BlockArgument>(buffer)) {
    Block *owner = argument.getOwner();
    return owner->isEntryBlock() && isa<func::FuncOp>(owner->getParentOp())
               ? buffer
               : nullptr;
  }
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp, gpu::AllocOp>(
             buffer.getDefiningOp())
             ? buffer
             : nullptr;
}
