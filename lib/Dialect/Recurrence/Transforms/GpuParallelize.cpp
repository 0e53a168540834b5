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

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/WrittenBuffers.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_GPUPARALLELIZEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
/// Elements an elementwise kernel's thread takes: several, so that its
/// index arithmetic is spent once for them.
constexpr int64_t kElementsPerThread = 4;
/// The fewest threads in a block of a warp scan: 4 warps.
constexpr int64_t kWarpScanThreads = 128;

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

/// Orders `op`'s parallel dims before its reductions (generalizing a named
/// op, in place of it), so that its loops are a kernel over the parallel
/// dims with the reductions sequential in each thread. In the given order
/// a leading reduction (the gradient of a shared transition sums over
/// batch and time first) became a host loop around the kernels.
LogicalResult parallelDimsFirst(RewriterBase &rewriter, linalg::LinalgOp &op) {
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> order;
  for (bool parallel : {true, false})
    for (auto [dim, iterator] : llvm::enumerate(iterators))
      if ((iterator == utils::IteratorType::parallel) == parallel)
        order.push_back(dim);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return success();
  rewriter.setInsertionPoint(op);
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> general =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(general))
      return failure();
    generic = *general;
    // (The named op is gone.)
    op = cast<linalg::LinalgOp>(generic.getOperation());
  }
  FailureOr<linalg::GenericOp> ordered =
      linalg::interchangeGenericOp(rewriter, generic, order);
  if (failed(ordered))
    return failure();
  op = cast<linalg::LinalgOp>(ordered->getOperation());
  return success();
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
      if (failed(parallelDimsFirst(rewriter, op)))
        return op->emitError("could not order its parallel dims first");
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToParallelLoops(rewriter, op);
      if (failed(loops))
        return op->emitError("could not lower to parallel loops");
      auto kernel = dyn_cast<scf::ParallelOp>(loops->front());
      if (!kernel)
        return op->emitError("expected a parallel loop outermost");
      made.push_back(kernel);
    }
    rewriter.eraseOp(op);
  }
  return made;
}

/// Whether `loop` runs from 0 by 1 in every dim.
bool fromZeroByOne(scf::ParallelOp loop) {
  return llvm::all_of(loop.getLowerBound(),
                      [](Value v) { return isConstantIntValue(v, 0); }) &&
         llvm::all_of(loop.getStep(),
                      [](Value v) { return isConstantIntValue(v, 1); });
}

/// The product of `values`, at the rewriter's insertion point.
Value product(RewriterBase &rewriter, Location loc, ValueRange values) {
  Value total = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (Value size : values)
    total = arith::MulIOp::create(rewriter, loc, total, size);
  return total;
}

/// A loop nest from [0, n_i) by 1 as one loop over [0, prod n_i), its
/// indices recovered by delinearization (the innermost fastest).
scf::ParallelOp flatten(RewriterBase &rewriter, scf::ParallelOp loop) {
  if (loop.getNumLoops() < 2 || !fromZeroByOne(loop))
    return loop;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value total = product(rewriter, loc, loop.getUpperBound());
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

/// The most blocks a grid's y dim may hold.
constexpr int64_t kMaxGridY = 65535;

/// The first dim of `loop`'s inner run: its last dynamic one.
int64_t runStart(scf::ParallelOp loop) {
  int64_t first = 0;
  for (auto [i, size] : llvm::enumerate(loop.getUpperBound()))
    if (!getConstantIntValue(size))
      first = i;
  return first;
}

/// An elementwise loop nest from [0, n_i) by 1 laid out as its data: the
/// dims up to the last dynamic one (exclusive) are rows, the rest one inner
/// run. Blocks cover (row, tile of the run); a block's `threads` threads
/// take neighbouring elements of the run, `perThread` each, `threads`
/// apart. Only the row is delinearized by run-time sizes, once per thread;
/// the run's static trailing dims by constants. (One flat index per element
/// spent most of an elementwise kernel's time dividing it by the sizes.)
/// Tiles beyond the grid's y limit are visited by a loop.
scf::ParallelOp rowsByTiles(RewriterBase &rewriter, scf::ParallelOp loop,
                            int64_t threads, int64_t perThread) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  ValueRange sizes = loop.getUpperBound();
  int64_t first = runStart(loop);
  ValueRange rowSizes = sizes.take_front(first);
  ValueRange runSizes = sizes.drop_front(first);
  Value rows = product(rewriter, loc, rowSizes);
  Value run = product(rewriter, loc, runSizes);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value width = arith::ConstantIndexOp::create(rewriter, loc, threads);
  Value count = arith::ConstantIndexOp::create(rewriter, loc, perThread);
  Value tileElements =
      arith::ConstantIndexOp::create(rewriter, loc, threads * perThread);
  Value tiles = arith::CeilDivUIOp::create(rewriter, loc, run, tileElements);
  Value gridY = arith::MinUIOp::create(
      rewriter, loc, tiles,
      arith::ConstantIndexOp::create(rewriter, loc, kMaxGridY));
  auto blocks =
      scf::ParallelOp::create(rewriter, loc, ValueRange{zero, zero},
                              ValueRange{rows, gridY}, ValueRange{one, one});
  rewriter.setInsertionPointToStart(blocks.getBody());
  auto lanes = scf::ParallelOp::create(rewriter, loc, zero, width, one);
  rewriter.setInsertionPointToStart(lanes.getBody());
  Value row = blocks.getInductionVars()[0];
  Value lane = lanes.getInductionVars()[0];
  SmallVector<Value> indices;
  if (rowSizes.size() == 1)
    indices.push_back(row);
  else if (rowSizes.size() > 1)
    llvm::append_range(indices, affine::AffineDelinearizeIndexOp::create(
                                    rewriter, loc, row, rowSizes,
                                    /*hasOuterBound=*/true)
                                    .getResults());
  // (A step of at least 1 even where no tile runs.)
  auto tileLoop =
      scf::ForOp::create(rewriter, loc, blocks.getInductionVars()[1], tiles,
                         arith::MaxUIOp::create(rewriter, loc, gridY, one));
  rewriter.setInsertionPointToStart(tileLoop.getBody());
  auto elementLoop = scf::ForOp::create(rewriter, loc, zero, count, one);
  rewriter.setInsertionPointToStart(elementLoop.getBody());
  // col = (tile * perThread + element) * threads + lane
  Value slot = arith::AddIOp::create(
      rewriter, loc,
      arith::MulIOp::create(rewriter, loc, tileLoop.getInductionVar(), count),
      elementLoop.getInductionVar());
  Value col = arith::AddIOp::create(
      rewriter, loc, arith::MulIOp::create(rewriter, loc, slot, width), lane);
  Value inside =
      arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, col, run);
  auto guard = scf::IfOp::create(rewriter, loc, inside);
  Block *then = guard.thenBlock();
  rewriter.setInsertionPointToStart(then);
  if (runSizes.size() == 1)
    indices.push_back(col);
  else
    llvm::append_range(indices, affine::AffineDelinearizeIndexOp::create(
                                    rewriter, loc, col, runSizes,
                                    /*hasOuterBound=*/true)
                                    .getResults());
  Operation *reduce = loop.getBody()->getTerminator();
  rewriter.inlineBlockBefore(loop.getBody(), then,
                             then->getTerminator()->getIterator(), indices);
  rewriter.eraseOp(reduce);
  rewriter.eraseOp(loop);
  return blocks;
}

/// The dim of `loop` that its element accesses step at unit stride most
/// often: each load or store votes for the loop dim whose induction
/// variable indexes its memref's dim of unit stride (and of more than one
/// element). None where that dim is innermost already, or no dim has more
/// votes than the last one.
std::optional<unsigned> unitStrideDim(scf::ParallelOp loop) {
  SmallVector<int64_t> votes(loop.getNumLoops(), 0);
  auto vote = [&](Value memref, OperandRange indices) {
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return;
    for (auto [dim, stride] : llvm::enumerate(strides)) {
      // (Through the identity affine.apply that linalg's loops index by.)
      Value index = indices[dim];
      if (auto apply = index.getDefiningOp<affine::AffineApplyOp>();
          apply && apply.getAffineMap().isIdentity())
        index = apply.getMapOperands().front();
      auto iv = dyn_cast<BlockArgument>(index);
      if (stride == 1 && type.getDimSize(dim) != 1 && iv &&
          iv.getOwner() == loop.getBody())
        ++votes[iv.getArgNumber()];
    }
  };
  loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      vote(load.getMemRef(), load.getIndices());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      vote(store.getMemRef(), store.getIndices());
  });
  auto best = llvm::max_element(votes);
  unsigned dim = best - votes.begin();
  // (Dims of one iteration after it leave it innermost already.)
  if (*best <= votes.back() ||
      llvm::all_of(loop.getUpperBound().drop_front(dim + 1),
                   [](Value size) { return isConstantIntValue(size, 1); }))
    return std::nullopt;
  return dim;
}

/// `loop` with its dim `dim` moved innermost (the others in their order):
/// a parallel loop's dims may be taken in any order.
scf::ParallelOp moveInnermost(RewriterBase &rewriter, scf::ParallelOp loop,
                              unsigned dim) {
  SmallVector<unsigned> order;
  for (unsigned i = 0, e = loop.getNumLoops(); i < e; ++i)
    if (i != dim)
      order.push_back(i);
  order.push_back(dim);
  auto permuted = [&](ValueRange values) {
    return llvm::map_to_vector(order, [&](unsigned i) { return values[i]; });
  };
  rewriter.setInsertionPoint(loop);
  auto moved = scf::ParallelOp::create(
      rewriter, loop.getLoc(), permuted(loop.getLowerBound()),
      permuted(loop.getUpperBound()), permuted(loop.getStep()));
  Block *body = moved.getBody();
  rewriter.eraseOp(body->getTerminator());
  SmallVector<Value> ivs(order.size());
  for (auto [position, i] : llvm::enumerate(order))
    ivs[i] = moved.getInductionVars()[position];
  rewriter.inlineBlockBefore(loop.getBody(), body, body->end(), ivs);
  rewriter.eraseOp(loop);
  return moved;
}

/// An elementwise loop nest as kernels, its dim of unit stride innermost:
/// rows by tiles of its inner run where the run fills a block of `threads`
/// (decided at run time when its size is dynamic); else, and for loops not from
/// 0 by 1, flattened and tiled by `threads`, since a short run would leave most
/// of a block idle.
void elementwiseToKernels(RewriterBase &rewriter, scf::ParallelOp loop,
                          int64_t threads, int64_t perThread) {
  // Laid out as the data is in memory: neighbouring threads take
  // neighbouring elements of the buffers (a time-contiguous [B, N, T]
  // array's [B, T, N] view is walked along T).
  if (std::optional<unsigned> dim = unitStrideDim(loop);
      dim && loop.getNumReductions() == 0)
    loop = moveInnermost(rewriter, loop, *dim);
  auto flat = [&](scf::ParallelOp nest) {
    scf::tileParallelLoop(flatten(rewriter, nest), {threads},
                          /*noMinMaxBounds=*/true);
  };
  if (!fromZeroByOne(loop))
    return flat(loop);
  ValueRange runSizes = loop.getUpperBound().drop_front(runStart(loop));
  std::optional<int64_t> known = 1;
  for (Value size : runSizes)
    if (std::optional<int64_t> n = getConstantIntValue(size); known && n)
      *known *= *n;
    else
      known = std::nullopt;
  if (known) {
    if (*known >= threads)
      rowsByTiles(rewriter, loop, threads, perThread);
    else
      flat(loop);
    return;
  }
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value run = product(rewriter, loc, runSizes);
  Value long_ = arith::CmpIOp::create(
      rewriter, loc, arith::CmpIPredicate::uge, run,
      arith::ConstantIndexOp::create(rewriter, loc, threads));
  auto choice = scf::IfOp::create(rewriter, loc, long_,
                                  /*withElseRegion=*/true);
  rewriter.moveOpBefore(loop, choice.thenBlock()->getTerminator());
  rewriter.setInsertionPoint(choice.elseBlock()->getTerminator());
  auto copy = cast<scf::ParallelOp>(rewriter.clone(*loop));
  rowsByTiles(rewriter, loop, threads, perThread);
  flat(copy);
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

/// Host allocations of data as device ones, and the stack buffers of data
/// that kernels use.
LogicalResult allocationsToDevice(RewriterBase &rewriter, Operation *root) {
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

/// Moves into the kernels the host reads of elements that only kernels
/// use, with the pure ops that compute on them (a scan of a vector state
/// without batch dims or independent channels reads its scalar transition,
/// and widens it, in the time loop, and steps its state in kernels), when
/// nothing writes the buffer between the read and those kernels (an
/// argument nothing writes, or the transitions the Blelloch adjoint's last
/// step reads after computing them): each use computes the element itself.
/// Reads of host buffers other than arguments stay.
void sinkReadsIntoKernels(RewriterBase &rewriter, Operation *root) {
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

/// Host code that moves single elements of device buffers, which is what a
/// loop of one iteration leaves once folded away (a scan of one batch
/// element and channel over one step stores its state into its output), as
/// kernels of one thread: each such store, with the loads and pure ops
/// right before it that only compute its value, into an `scf.parallel` over
/// [0, 1). Kernels run in program order on the call's stream, as the host
/// code did. (Inside a host loop that is a kernel per iteration: slow, but
/// it runs, where the lowering used to refuse.)
void hostStoresToKernels(RewriterBase &rewriter, Operation *root) {
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

/// Whether `atomic` only reads: an add of zero, which is how a chunk polls
/// another's status (ChunkStatus.h).
bool onlyReads(memref::AtomicRMWOp atomic) {
  return atomic.getKind() == arith::AtomicRMWKind::addf &&
         matchPattern(atomic.getValue(), m_AnyZeroFloat());
}

/// Orders every atomic in a kernel to be. memref.atomic_rmw is
/// acquire-release (its LLVM lowering says so), but the NVPTX backend emits
/// a relaxed `atom`: threads that publish data behind an atomic flag need a
/// release fence before the atomic, and those that read it after seeing the
/// flag an acquire fence after it. The scope is the device: the threads of
/// one kernel. A read (a poll) publishes nothing and gets no release fence;
/// one that spins in the condition of a loop gets its acquire fence once,
/// after the loop, as CUB's look-back does: each fence waits for the
/// thread's memory accesses in flight, so one per spin would stall every
/// poll. A write gets no acquire fence: a publisher reads what others
/// published only through polls of its own. (Buffer deallocation, which
/// runs before, refuses fences: they declare no memory effects.)
void orderAtomics(RewriterBase &rewriter, Operation *root) {
  root->walk([&](memref::AtomicRMWOp atomic) {
    if (!inParallelLoop(atomic))
      return;
    constexpr llvm::StringLiteral device = "device";
    if (!onlyReads(atomic)) {
      rewriter.setInsertionPoint(atomic);
      LLVM::FenceOp::create(rewriter, atomic.getLoc(),
                            LLVM::AtomicOrdering::release, device);
      return;
    }
    Operation *spin = atomic->getParentOp();
    if (isa<scf::WhileOp>(spin) &&
        atomic->getParentRegion() == &cast<scf::WhileOp>(spin).getBefore())
      rewriter.setInsertionPointAfter(spin);
    else
      rewriter.setInsertionPointAfter(atomic);
    LLVM::FenceOp::create(rewriter, atomic.getLoc(),
                          LLVM::AtomicOrdering::acquire, device);
  });
}

struct GpuParallelizePass
    : recurrence::impl::GpuParallelizePassBase<GpuParallelizePass> {
  using Base::Base;

  void runOnOperation() override {
    for (int64_t count : {static_cast<int64_t>(threads),
                          static_cast<int64_t>(elementwiseThreads)})
      if (count < 1 || count > 1024) {
        getOperation()->emitError()
            << "threads and elementwise-threads must be between 1 and 1024 "
               "(threads per block), got "
            << static_cast<int64_t>(threads) << " and "
            << static_cast<int64_t>(elementwiseThreads);
        return signalPassFailure();
      }
    IRRewriter rewriter(&getContext());
    Operation *root = getOperation();
    // The scans' loops over (batch, [chunk,] channel block or a matrix
    // state's column): flattened, the innermost dim fastest (neighbouring
    // threads read neighbouring channels or columns), in blocks of
    // `threads`. The elementwise loops: rows by tiles of their inner run
    // (or flat where the run is short), in blocks of `elementwise-threads`.
    SmallVector<scf::ParallelOp> scans;
    root->walk([&](scf::ParallelOp loop) {
      if (!inParallelLoop(loop))
        scans.push_back(loop);
    });
    orderAtomics(rewriter, root);
    copiesToLinalg(rewriter, root);
    FailureOr<SmallVector<scf::ParallelOp>> elementwise =
        linalgToLoops(rewriter, root);
    if (failed(elementwise))
      return signalPassFailure();
    for (scf::ParallelOp loop : scans) {
      // A warp scan's blocks hold whole warps (its lanes shuffle), and
      // several: an SM runs at most 32 blocks. A lowering that knows
      // better gives the block's size as the attribute's value.
      int64_t size = threads;
      if (auto lanes =
              loop->getAttrOfType<IntegerAttr>(recurrence::kWarpLanesAttrName))
        size = lanes.getInt();
      else if (loop->hasAttr(recurrence::kWarpLanesAttrName))
        size = std::max<int64_t>(llvm::alignTo(size, 32), kWarpScanThreads);
      scf::tileParallelLoop(flatten(rewriter, loop), {size},
                            /*noMinMaxBounds=*/true);
    }
    for (scf::ParallelOp loop : *elementwise)
      elementwiseToKernels(rewriter, loop, elementwiseThreads,
                           kElementsPerThread);
    if (failed(allocationsToDevice(rewriter, root)))
      return signalPassFailure();
    sinkReadsIntoKernels(rewriter, root);
    hostStoresToKernels(rewriter, root);
    if (failed(checkHostAccesses(root)))
      signalPassFailure();
  }
};
} // namespace
