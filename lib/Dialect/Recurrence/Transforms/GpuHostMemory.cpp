//===- GpuHostMemory.cpp - Host and device memory of GPU kernels ---------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "GpuHostMemory.h"
#include "recurrence/Dialect/Recurrence/Transforms/WrittenBuffers.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::recurrence::gpu_host;

namespace {
/// A stream-ordered device allocation or release, waited for:
///   %s = gpu.wait async;  ... async [%s];  gpu.wait [...]
template <typename Build>
void onStream(RewriterBase &rewriter, Location loc, Build build) {
  Type token = gpu::AsyncTokenType::get(rewriter.getContext());
  Value stream =
      gpu::WaitOp::create(rewriter, loc, token, ValueRange()).getAsyncToken();
  Value done = build(token, stream);
  gpu::WaitOp::create(rewriter, loc, Type(), ValueRange{done});
}

/// Whether buffers of `type` hold data, which lives on the device: floats
/// and integers (a packed scan's sequence of each step). Other buffers are
/// the host's bookkeeping: the index and i1 flag lists through which the
/// buffer deallocation decides what to free.
bool holdsData(Type type) {
  Type element = cast<BaseMemRefType>(type).getElementType();
  return isa<FloatType>(element) ||
         (element.isSignlessInteger() && element.getIntOrFloatBitWidth() > 1);
}

/// Whether a kernel to be uses `buffer` or a buffer that may alias it.
bool usedByKernels(Value buffer, const BufferViewFlowAnalysis &aliases) {
  return llvm::any_of(aliases.resolve(buffer), [](Value alias) {
    return llvm::any_of(alias.getUsers(), inParallelLoop);
  });
}

/// Whether `buffer`, or a buffer that may alias it, leaves its block
/// through a terminator (a loop's carried value, an `scf.if` result) of the
/// host code. A view that a region inside a kernel yields (the Blelloch
/// scan's final state: init's row when T = 0, through an `scf.if`) stays in
/// that kernel; the kernel loop's own terminator still counts.
bool leavesBlock(Value buffer, const BufferViewFlowAnalysis &aliases) {
  return llvm::any_of(aliases.resolve(buffer), [](Value alias) {
    return llvm::any_of(alias.getUsers(), [](Operation *user) {
      return user->hasTrait<OpTrait::IsTerminator>() &&
             !inParallelLoop(user->getParentOp());
    });
  });
}

/// A device allocation like `op` (an alloc or alloca), on the call's
/// stream, at the rewriter's insertion point.
template <typename AllocLike>
Value allocateOnDevice(RewriterBase &rewriter, AllocLike op) {
  Value buffer;
  onStream(rewriter, op.getLoc(), [&](Type token, Value stream) {
    auto device = gpu::AllocOp::create(
        rewriter, op.getLoc(), op.getType(), token, ValueRange{stream},
        op.getDynamicSizes(), op.getSymbolOperands(), /*hostShared=*/false);
    buffer = device.getMemref();
    return device.getAsyncToken();
  });
  return buffer;
}

void freeOnDevice(RewriterBase &rewriter, Location loc, Value buffer) {
  onStream(rewriter, loc, [&](Type token, Value stream) {
    return gpu::DeallocOp::create(rewriter, loc, token, ValueRange{stream},
                                  buffer)
        .getAsyncToken();
  });
}

/// A stack buffer of data that kernels use (a scan without batch dims
/// keeps a step's temporaries there, in the host's time loop) as a device
/// allocation. A static one is allocated once, at the start of its
/// function, and freed at its returns; a dynamic one where it was, and
/// freed at the end of its block. One that leaves its block is an error.
LogicalResult stackToDevice(RewriterBase &rewriter, memref::AllocaOp alloca,
                            const BufferViewFlowAnalysis &aliases) {
  if (leavesBlock(alloca.getMemref(), aliases))
    return alloca->emitError("a stack buffer that GPU kernels use leaves its "
                             "block; not supported on the GPU yet");
  Location loc = alloca.getLoc();
  SmallVector<Operation *> ends;
  auto function = alloca->getParentOfType<FunctionOpInterface>();
  if (function && alloca.getDynamicSizes().empty() &&
      alloca.getSymbolOperands().empty()) {
    // One buffer for every iteration of the loops around it: it does not
    // leave its block, so no iteration sees another's.
    Region &body = function.getFunctionBody();
    rewriter.setInsertionPointToStart(&body.front());
    for (Block &block : body)
      if (!block.empty() && block.back().hasTrait<OpTrait::ReturnLike>())
        ends.push_back(&block.back());
  } else {
    rewriter.setInsertionPoint(alloca);
    ends.push_back(alloca->getBlock()->getTerminator());
  }
  Value buffer = allocateOnDevice(rewriter, alloca);
  rewriter.replaceOp(alloca, buffer);
  for (Operation *end : ends) {
    rewriter.setInsertionPoint(end);
    freeOnDevice(rewriter, loc, buffer);
  }
  return success();
}

/// The buffer that `memref` views.
Value rootOf(Value memref) {
  return memref::skipViewLikeOps(cast<MemrefValue>(memref));
}

/// Whether host code may access elements of `memref`: a stack buffer, or
/// bookkeeping rather than data.
bool isHostBuffer(Value memref) {
  return !holdsData(memref.getType()) ||
         rootOf(memref).getDefiningOp<memref::AllocaOp>();
}

/// Whether `memref` views an argument of its function: the caller's buffer,
/// which for a kernel's caller is on the device, flags included (the
/// buffer deallocation's helpers take host lists, but only host code reads
/// them).
bool viewsArgument(Value memref) {
  return isa_and_nonnull<BlockArgument>(recurrence::distinctBuffer(memref));
}

/// Whether `op` may write or free one of `buffers` (unknown ops: when
/// they take one).
bool mayWrite(Operation *op, const BufferViewFlowAnalysis::ValueSetT &buffers) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
           llvm::any_of(op->getOperands(),
                        [&](Value value) { return buffers.contains(value); });
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  return llvm::any_of(instances, [&](MemoryEffects::EffectInstance &effect) {
    return isa<MemoryEffects::Write, MemoryEffects::Free>(effect.getEffect()) &&
           (!effect.getValue() || buffers.contains(effect.getValue()));
  });
}

/// Whether `op` or an op nested in it may write or free one of `buffers`.
bool writesWithin(Operation *op,
                  const BufferViewFlowAnalysis::ValueSetT &buffers) {
  return op
      ->walk([&](Operation *nested) {
        return mayWrite(nested, buffers) ? WalkResult::interrupt()
                                         : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether the element `load` reads is still the buffer's at each of its
/// uses, and at those of the pure ops computing on it: nothing from the
/// load to the last of them in its block (that one included) may write a
/// buffer aliasing it.
bool readStaysValid(memref::LoadOp load,
                    const BufferViewFlowAnalysis &aliases) {
  Block *block = load->getBlock();
  Operation *last = load;
  SmallVector<Operation *> users(load->getUsers());
  while (!users.empty()) {
    Operation *user = users.pop_back_val();
    Operation *at = block->findAncestorOpInBlock(*user);
    if (!at)
      return false;
    if (last->isBeforeInBlock(at))
      last = at;
    // What sinks with the read: pure ops on it, and reads it indexes
    // (which sink once their users have).
    if (!inParallelLoop(user) && (isPure(user) || isa<memref::LoadOp>(user)))
      users.append(user->user_begin(), user->user_end());
  }
  BufferViewFlowAnalysis::ValueSetT buffers =
      aliases.resolve(rootOf(load.getMemref()));
  for (Operation *op = load->getNextNode(); op && last != load;
       op = op->getNextNode()) {
    if (writesWithin(op, buffers))
      return false;
    if (op == last)
      break;
  }
  return true;
}
} // namespace

LogicalResult
mlir::recurrence::gpu_host::allocationsToDevice(RewriterBase &rewriter,
                                                Operation *root) {
  BufferViewFlowAnalysis aliases(root);
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    Value buffer;
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      buffer = alloc.getMemref();
    else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
      buffer = dealloc.getMemref();
    else if (auto alloca = dyn_cast<memref::AllocaOp>(op);
             alloca && usedByKernels(alloca.getMemref(), aliases))
      buffer = alloca.getMemref();
    if (buffer && holdsData(buffer.getType()) && !inParallelLoop(op) &&
        !op->getParentOfType<gpu::LaunchOp>())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      rewriter.replaceOp(alloc, allocateOnDevice(rewriter, alloc));
    } else if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
      if (failed(stackToDevice(rewriter, alloca, aliases)))
        return failure();
    } else {
      auto dealloc = cast<memref::DeallocOp>(op);
      freeOnDevice(rewriter, dealloc.getLoc(), dealloc.getMemref());
      rewriter.eraseOp(dealloc);
    }
  }
  return success();
}

void mlir::recurrence::gpu_host::sinkReadsIntoKernels(RewriterBase &rewriter,
                                                      Operation *root) {
  BufferViewFlowAnalysis aliases(root);
  SmallVector<Operation *> chain;
  root->walk([&](memref::LoadOp load) {
    if (!inParallelLoop(load) &&
        (!isHostBuffer(load.getMemref()) || viewsArgument(load.getMemref())) &&
        readStaysValid(load, aliases))
      chain.push_back(load);
  });
  DenseSet<Operation *> inChain(chain.begin(), chain.end());
  for (size_t i = 0; i < chain.size(); ++i)
    for (Operation *user : chain[i]->getUsers())
      if (!inParallelLoop(user) && isPure(user) && user->getNumResults() == 1 &&
          inChain.insert(user).second)
        chain.push_back(user);
  // A producer is sunk once all its users are: sweep until nothing moves.
  for (bool moved = true; moved;) {
    moved = false;
    for (Operation *&op : chain) {
      if (!op || !llvm::all_of(op->getUsers(), inParallelLoop))
        continue;
      for (OpOperand &use : llvm::make_early_inc_range(op->getUses())) {
        rewriter.setInsertionPoint(use.getOwner());
        Value copy = rewriter.clone(*op)->getResult(0);
        rewriter.modifyOpInPlace(use.getOwner(), [&] { use.set(copy); });
      }
      rewriter.eraseOp(op);
      op = nullptr;
      moved = true;
    }
  }
}

void mlir::recurrence::gpu_host::hostStoresToKernels(RewriterBase &rewriter,
                                                     Operation *root) {
  SmallVector<memref::StoreOp> stores;
  root->walk([&](memref::StoreOp store) {
    if (!inParallelLoop(store) && !store->getParentOfType<gpu::LaunchOp>() &&
        !isHostBuffer(store.getMemref()))
      stores.push_back(store);
  });
  for (memref::StoreOp store : stores) {
    SmallVector<Operation *> chain = {store};
    for (Operation *op = store->getPrevNode(); op; op = op->getPrevNode()) {
      auto load = dyn_cast<memref::LoadOp>(op);
      bool feeds = op->getNumResults() == 1 &&
                   (load ? !isHostBuffer(load.getMemref()) : isPure(op)) &&
                   llvm::all_of(op->getUsers(), [&](Operation *user) {
                     return llvm::is_contained(chain, user);
                   });
      if (!feeds)
        break;
      chain.push_back(op);
    }
    Location loc = store.getLoc();
    rewriter.setInsertionPoint(chain.back());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto kernel = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{one}, ValueRange{one});
    for (Operation *op : llvm::reverse(chain))
      rewriter.moveOpBefore(op, kernel.getBody()->getTerminator());
  }
}

LogicalResult mlir::recurrence::gpu_host::checkHostAccesses(Operation *root) {
  WalkResult walk = root->walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemref();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemref();
    if (Operation *source = memref ? rootOf(memref).getDefiningOp() : nullptr;
        source && inParallelLoop(op) &&
        isa<memref::AllocOp, memref::AllocaOp>(source) &&
        !inParallelLoop(source)) {
      op->emitError("a GPU kernel would access a buffer in host memory (of "
                    "index or i1 elements, the host's bookkeeping); not "
                    "supported on the GPU yet");
      return WalkResult::interrupt();
    }
    if (memref && !inParallelLoop(op) &&
        !op->getParentOfType<gpu::LaunchOp>() && !isHostBuffer(memref)) {
      op->emitError("host code accesses a buffer element outside any GPU "
                    "kernel (a parallel loop of one iteration folded away?); "
                    "not supported on the GPU yet");
      return WalkResult::interrupt();
    }
    if (auto global = dyn_cast<memref::GetGlobalOp>(op);
        global && !inParallelLoop(op)) {
      for (Operation *user : global->getUsers()) {
        if (!inParallelLoop(user) && !isa<ViewLikeOpInterface>(user))
          continue;
        // Folded constants lose their location; their readers keep theirs.
        Location loc = op->getLoc();
        if (isa<UnknownLoc>(loc))
          loc = user->getLoc();
        emitError(loc) << "a GPU kernel would read the dense constant @"
                       << global.getName()
                       << " from host memory; constants are not supported on "
                          "the GPU yet";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
