//===- GpuParallelize.cpp - Host buffer code into GPU-mappable loops ------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GPU pipeline maps outermost scf.parallel loops to kernels, and runs
// everything else on the host, which cannot touch device memory. After
// bufferization, this pass leaves no buffer access outside a parallel loop:
// copies and elementwise ops (the adjoint's gradients, zero fills, copies
// into results) become parallel loops, and the buffers that host code
// allocates become device allocations on the call's stream.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_GPUPARALLELIZEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
bool inParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() != nullptr;
}

/// `linalg.copy` for every `memref.copy`: a loop nest rather than a host
/// memcpy.
void copiesToLinalg(RewriterBase &rewriter, Operation *root) {
  SmallVector<memref::CopyOp> copies;
  root->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    rewriter.setInsertionPoint(copy);
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                copy.getTarget());
  }
}

/// Linalg ops as loops: parallel ones at the host level (kernels to be),
/// sequential ones inside a thread. Returns the parallel loops made.
FailureOr<SmallVector<scf::ParallelOp>> linalgToLoops(RewriterBase &rewriter,
                                                      Operation *root) {
  SmallVector<linalg::LinalgOp> ops;
  root->walk([&](linalg::LinalgOp op) {
    if (op.hasPureBufferSemantics())
      ops.push_back(op);
  });
  SmallVector<scf::ParallelOp> made;
  for (linalg::LinalgOp op : ops) {
    rewriter.setInsertionPoint(op);
    if (inParallelLoop(op)) {
      if (failed(linalg::linalgOpToLoops(rewriter, op)))
        return op->emitError("could not lower to loops");
    } else if (op.getNumParallelLoops() == 0) {
      // A reduction to a scalar (or a 0-d op): one thread does it.
      Location loc = op.getLoc();
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto single = scf::ParallelOp::create(rewriter, loc, zero, one, one);
      rewriter.moveOpBefore(op, single.getBody()->getTerminator());
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToLoops(rewriter, op)))
        return op->emitError("could not lower to loops");
      made.push_back(single);
    } else {
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToParallelLoops(rewriter, op);
      if (failed(loops))
        return op->emitError("could not lower to parallel loops");
      made.push_back(cast<scf::ParallelOp>(loops->front()));
    }
    rewriter.eraseOp(op);
  }
  return made;
}

/// A loop nest from [0, n_i) by 1 as one loop over [0, prod n_i), its
/// indices recovered by delinearization (the innermost fastest).
scf::ParallelOp flatten(RewriterBase &rewriter, scf::ParallelOp loop) {
  if (loop.getNumLoops() < 2 ||
      !llvm::all_of(loop.getLowerBound(),
                    [](Value v) { return isConstantIntValue(v, 0); }) ||
      !llvm::all_of(loop.getStep(),
                    [](Value v) { return isConstantIntValue(v, 1); }))
    return loop;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value total = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (Value size : loop.getUpperBound())
    total = arith::MulIOp::create(rewriter, loc, total, size);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  auto flat = scf::ParallelOp::create(rewriter, loc, zero, total, one);
  Block *body = flat.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.setInsertionPointToEnd(body);
  auto indices = affine::AffineDelinearizeIndexOp::create(
      rewriter, loc, flat.getInductionVars().front(), loop.getUpperBound(),
      /*hasOuterBound=*/true);
  rewriter.inlineBlockBefore(loop.getBody(), body, body->end(),
                             indices.getResults());
  rewriter.eraseOp(loop);
  return flat;
}

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

/// Host allocations as device ones.
void allocationsToDevice(RewriterBase &rewriter, Operation *root) {
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::DeallocOp>(op) && !inParallelLoop(op) &&
        !op->getParentOfType<gpu::LaunchOp>())
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      Value buffer;
      onStream(rewriter, loc, [&](Type token, Value stream) {
        auto device = gpu::AllocOp::create(
            rewriter, loc, alloc.getType(), token, ValueRange{stream},
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            /*hostShared=*/false);
        buffer = device.getMemref();
        return device.getAsyncToken();
      });
      rewriter.replaceOp(alloc, buffer);
      continue;
    }
    auto dealloc = cast<memref::DeallocOp>(op);
    onStream(rewriter, loc, [&](Type token, Value stream) {
      return gpu::DeallocOp::create(rewriter, loc, token, ValueRange{stream},
                                    dealloc.getMemref())
          .getAsyncToken();
    });
    rewriter.eraseOp(dealloc);
  }
}

/// Fails, with an error, where host code would still touch device memory
/// (an element access outside any loop to be a kernel: what a loop of one
/// iteration, folded away, leaves) or a kernel would read host memory (a
/// global constant).
LogicalResult checkHostAccesses(Operation *root) {
  WalkResult walk = root->walk([&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemref();
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      memref = store.getMemref();
    if (memref && !inParallelLoop(op) &&
        !op->getParentOfType<gpu::LaunchOp>() &&
        !memref::skipViewLikeOps(cast<MemrefValue>(memref))
             .getDefiningOp<memref::AllocaOp>()) {
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

struct GpuParallelizePass
    : recurrence::impl::GpuParallelizePassBase<GpuParallelizePass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    Operation *root = getOperation();
    // The scans' (batch, channel) loops: the first dims one block each,
    // the last in blocks of `threads`.
    SmallVector<scf::ParallelOp> scans;
    root->walk([&](scf::ParallelOp loop) {
      if (!inParallelLoop(loop))
        scans.push_back(loop);
    });
    copiesToLinalg(rewriter, root);
    FailureOr<SmallVector<scf::ParallelOp>> elementwise =
        linalgToLoops(rewriter, root);
    if (failed(elementwise))
      return signalPassFailure();
    for (scf::ParallelOp loop : scans)
      scf::tileParallelLoop(loop, {1, threads}, /*noMinMaxBounds=*/true);
    for (scf::ParallelOp loop : *elementwise)
      scf::tileParallelLoop(flatten(rewriter, loop), {threads},
                            /*noMinMaxBounds=*/true);
    allocationsToDevice(rewriter, root);
    if (failed(checkHostAccesses(root)))
      signalPassFailure();
  }
};
} // namespace
