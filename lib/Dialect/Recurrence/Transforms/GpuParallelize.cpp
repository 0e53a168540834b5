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

#include "GpuCallerBuffers.h"
#include "GpuHostMemory.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/WrittenBuffers.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_GPUPARALLELIZEPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence::gpu_host;

namespace {
/// Elements an elementwise kernel's thread takes: several, so that its
/// index arithmetic is spent once for them.
constexpr int64_t kElementsPerThread = 4;
/// The fewest threads in a block of a warp scan: 4 warps.
constexpr int64_t kWarpScanThreads = 128;

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

/// Whether the ops in `loop` other than `skip` touch only buffers told
/// apart (distinctBuffer) from `buffer`: none then sees or changes what
/// `skip` reads and writes of it.
bool othersAvoid(scf::ForOp loop, Value buffer, ArrayRef<Operation *> skip) {
  WalkResult result = loop.getBody()->walk([&](Operation *op) {
    if (llvm::is_contained(skip, op) || isMemoryEffectFree(op) ||
        op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      return WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value other = recurrence::distinctBuffer(effect.getValue());
      if (!other || other == buffer)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// `index` through the identity affine.apply ops that linalg's loops
/// compute each index with.
Value throughIdentityApplies(Value index) {
  while (auto apply = index.getDefiningOp<affine::AffineApplyOp>()) {
    if (!apply.getAffineMap().isIdentity())
      break;
    index = apply.getMapOperands().front();
  }
  return index;
}

/// `index` of an access in `loop` as a value defined outside it or a
/// constant (of a constant affine.apply), through identity affine.apply
/// ops; nullopt where it varies in the loop.
std::optional<OpFoldResult> invariantIndex(Value index, scf::ForOp loop) {
  index = throughIdentityApplies(index);
  if (loop.isDefinedOutsideOfLoop(index))
    return OpFoldResult(index);
  if (auto apply = index.getDefiningOp<affine::AffineApplyOp>();
      apply && apply.getAffineMap().isSingleConstant())
    return OpFoldResult(IntegerAttr::get(
        index.getType(), apply.getAffineMap().getSingleConstantResult()));
  return std::nullopt;
}

/// The element of `loop`'s iterations that `memref`[`indices`] names, each
/// index invariant (invariantIndex); nullopt where one varies.
std::optional<SmallVector<OpFoldResult>>
invariantElement(Value memref, ValueRange indices, scf::ForOp loop) {
  if (!loop.isDefinedOutsideOfLoop(memref))
    return std::nullopt;
  SmallVector<OpFoldResult> element;
  for (Value index : indices) {
    std::optional<OpFoldResult> invariant = invariantIndex(index, loop);
    if (!invariant)
      return std::nullopt;
    element.push_back(*invariant);
  }
  return element;
}

/// An accumulator of a reduction's serial `loop`: a load of its body at an
/// element invariant in the loop that a later store of the body writes,
/// nothing else in the loop touching that buffer, with the element's
/// indices. Nullopt where there is none.
struct Accumulator {
  memref::LoadOp load;
  memref::StoreOp store;
  SmallVector<OpFoldResult> element;
};
std::optional<Accumulator> accumulator(scf::ForOp loop) {
  for (auto load : loop.getBody()->getOps<memref::LoadOp>()) {
    std::optional<SmallVector<OpFoldResult>> element =
        invariantElement(load.getMemRef(), load.getIndices(), loop);
    if (!element)
      continue;
    for (Operation *next = load->getNextNode(); next;
         next = next->getNextNode()) {
      auto store = dyn_cast<memref::StoreOp>(next);
      if (!store || store.getMemRef() != load.getMemRef() ||
          invariantElement(store.getMemRef(), store.getIndices(), loop) !=
              element)
        continue;
      Value buffer = recurrence::distinctBuffer(load.getMemRef());
      if (buffer && othersAvoid(loop, buffer, {load, store}))
        return Accumulator{load, store, *element};
      break;
    }
  }
  return std::nullopt;
}

/// A reduction's serial `loop` with its accumulators in registers: linalg's
/// loops load and store the output element at every step, a dependence
/// through memory that held each step of a thread's sum for a memory round
/// trip. Each accumulator becomes a value the loop carries, loaded once
/// before it and stored once after. (The element is one of the enclosing
/// parallel loops' outputs, so loading it where the loop runs no step
/// stays in bounds.) Applied to a nest's loops from the innermost out, the
/// accumulators leave each of them.
void accumulateInRegisters(RewriterBase &rewriter, scf::ForOp loop) {
  while (std::optional<Accumulator> found = accumulator(loop)) {
    Location loc = found->load.getLoc();
    rewriter.setInsertionPoint(loop);
    SmallVector<Value> indices =
        getValueOrCreateConstantIndexOp(rewriter, loc, found->element);
    Value memref = found->load.getMemRef();
    Value initial = memref::LoadOp::create(rewriter, loc, memref, indices);
    Value stored = found->store.getValueToStore();
    FailureOr<LoopLikeOpInterface> carried = loop.replaceWithAdditionalYields(
        rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
          return SmallVector<Value>{stored};
        });
    if (failed(carried))
      return;
    loop = cast<scf::ForOp>(carried->getOperation());
    rewriter.replaceOp(found->load, loop.getRegionIterArgs().back());
    rewriter.eraseOp(found->store);
    rewriter.setInsertionPointAfter(loop);
    memref::StoreOp::create(rewriter, loc, loop.getResults().back(), memref,
                            indices);
  }
}

/// The serial loops of a linalg op's loop nest `nest`, their accumulators
/// in registers (accumulateInRegisters).
void accumulateInRegisters(RewriterBase &rewriter, Operation *nest) {
  SmallVector<scf::ForOp> loops;
  nest->walk([&](scf::ForOp loop) { loops.push_back(loop); });
  for (scf::ForOp loop : loops)
    accumulateInRegisters(rewriter, loop);
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
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops))
        return op->emitError("could not lower to loops");
      if (!loops->empty())
        accumulateInRegisters(rewriter, loops->front());
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
      accumulateInRegisters(rewriter, single);
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
      accumulateInRegisters(rewriter, kernel);
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

/// Whether a serial loop (a reduction's) runs in each iteration of `loop`.
bool hasSerialLoop(scf::ParallelOp loop) {
  return loop.getBody()
      ->walk([](scf::ForOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Whether `value` is computed from the induction variable of `inner`:
/// through the ops in `inner` that define it (those outside cannot use it).
bool dependsOn(Value value, scf::ForOp inner) {
  Value iv = inner.getInductionVar();
  if (value == iv)
    return true;
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitBlockArguments = true;
  options.filter = [&](Operation *op) { return inner->isProperAncestor(op); };
  SetVector<Operation *> slice;
  if (failed(getBackwardSlice(value, &slice, options)))
    return true;
  return llvm::any_of(slice, [&](Operation *op) {
    return llvm::is_contained(op->getOperands(), iv);
  });
}

/// How many elements an access at `indices` touches in one iteration of
/// `loop`: the product of the trip counts of the serial loops between them
/// (a reduction's) whose induction variables the indices use, a dynamic
/// one taken as kAssumedTrips. (The accumulator a reduction loads and
/// stores at every step is one element.)
uint64_t elementsPerIteration(Operation *access, OperandRange indices,
                              scf::ParallelOp loop) {
  constexpr uint64_t kAssumedTrips = 16;
  uint64_t elements = 1;
  for (Operation *parent = access->getParentOp(); parent && parent != loop;
       parent = parent->getParentOp()) {
    auto inner = dyn_cast<scf::ForOp>(parent);
    if (!inner || llvm::none_of(indices, [&](Value index) {
          return dependsOn(index, inner);
        }))
      continue;
    std::optional<APInt> trips = inner.getStaticTripCount();
    uint64_t count =
        trips ? std::max<uint64_t>(trips->getLimitedValue(), 1) : kAssumedTrips;
    elements = llvm::SaturatingMultiply(elements, count);
  }
  return elements;
}

/// For each of `ivs` (induction variables of `loop` or of serial loops in
/// it), how often `loop`'s element accesses step at unit stride through
/// it: each load or store votes, with the elements it touches in an
/// iteration (the reads a thread's reduction sums outweigh its sum's), for
/// the induction variable that indexes its memref's dim of unit stride (and
/// of more than one element).
SmallVector<uint64_t> unitStrideVotes(scf::ParallelOp loop, ValueRange ivs) {
  SmallVector<uint64_t> votes(ivs.size(), 0);
  auto vote = [&](Operation *access, Value memref, OperandRange indices) {
    auto type = cast<MemRefType>(memref.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)))
      return;
    for (auto [dim, stride] : llvm::enumerate(strides)) {
      auto at = llvm::find(ivs, throughIdentityApplies(indices[dim]));
      if (stride == 1 && type.getDimSize(dim) != 1 && at != ivs.end()) {
        uint64_t &count = votes[at - ivs.begin()];
        count = llvm::SaturatingAdd(
            count, elementsPerIteration(access, indices, loop));
      }
    }
  };
  loop.getBody()->walk([&](Operation *op) {
    if (auto load = dyn_cast<memref::LoadOp>(op))
      vote(op, load.getMemRef(), load.getIndices());
    else if (auto store = dyn_cast<memref::StoreOp>(op))
      vote(op, store.getMemRef(), store.getIndices());
  });
  return votes;
}

/// The dim of `loop` that its element accesses step at unit stride most
/// often (unitStrideVotes). None where that dim is innermost already, or no
/// dim has more votes than the last one.
std::optional<unsigned> unitStrideDim(scf::ParallelOp loop) {
  SmallVector<uint64_t> votes = unitStrideVotes(loop, loop.getInductionVars());
  auto best = llvm::max_element(votes);
  unsigned dim = best - votes.begin();
  // (Dims of one iteration after it leave it innermost already.)
  if (*best <= votes.back() ||
      llvm::all_of(loop.getUpperBound().drop_front(dim + 1),
                   [](Value size) { return isConstantIntValue(size, 1); }))
    return std::nullopt;
  return dim;
}

/// The serial loop of a reduction `loop` (a kernel to be) whose sum a
/// warp's lanes may share (reduceAcrossLanes): the one loop of its body,
/// with no loop or write in it, of at least a warp's steps (or a dynamic
/// count), each value it carries an f32 sum (an addf of the value and a
/// term; f32, as the warp scans' shuffles), its results only stored, by the ops
/// that follow it; and its induction variable indexes the unit stride of what
/// the thread reads more often than any of `loop`'s dims does (a row's sum
/// along the row). Null otherwise.
scf::ForOp laneReducible(scf::ParallelOp loop) {
  auto serial = loop.getBody()->getOps<scf::ForOp>();
  if (loop.getNumReductions() || !llvm::hasSingleElement(serial))
    return {};
  scf::ForOp sum = *serial.begin();
  std::optional<APInt> trips = sum.getStaticTripCount();
  if (sum.getNumResults() == 0 ||
      (trips && trips->getSExtValue() < recurrence::gpu_lowering::kWarpSize))
    return {};
  WalkResult inner = sum.getBody()->walk([](Operation *op) {
    return isa<LoopLikeOpInterface>(op) || hasEffect<MemoryEffects::Write>(op)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (inner.wasInterrupted())
    return {};
  for (auto [carried, next] :
       llvm::zip(sum.getRegionIterArgs(), sum.getYieldedValues())) {
    auto add = next.getDefiningOp<arith::AddFOp>();
    if (!add || !carried.getType().isF32() || !carried.hasOneUse() ||
        (add.getLhs() != carried && add.getRhs() != carried))
      return {};
  }
  for (Operation *op = sum->getNextNode();
       op != loop.getBody()->getTerminator(); op = op->getNextNode())
    if (!isa<memref::StoreOp>(op))
      return {};
  for (Operation *user : sum->getUsers())
    if (!isa<memref::StoreOp>(user) || user->getBlock() != sum->getBlock())
      return {};
  SmallVector<Value> ivs(loop.getInductionVars());
  ivs.push_back(sum.getInductionVar());
  SmallVector<uint64_t> votes = unitStrideVotes(loop, ivs);
  return votes.back() > *llvm::max_element(ArrayRef(votes).drop_back())
             ? sum
             : scf::ForOp();
}

/// `loop` with a dim of a warp's lanes added innermost, which share the
/// steps of its serial loop `sum` (laneReducible): lane l takes steps l,
/// l + 32, ..., neighbouring lanes neighbouring elements of the rows it
/// sums; lane 0 starts from the sums' initial values and the others from
/// zero; a butterfly of shuffles adds the lanes' sums, and lane 0 stores
/// them. (A linalg reduction leaves its order free, as upstream's
/// splitReduction takes it to.)
scf::ParallelOp reduceAcrossLanes(RewriterBase &rewriter, scf::ParallelOp loop,
                                  scf::ForOp sum) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  Value warp = arith::ConstantIndexOp::create(
      rewriter, loc, recurrence::gpu_lowering::kWarpSize);
  auto withLane = [](ValueRange values, Value lane) {
    SmallVector<Value> all(values);
    all.push_back(lane);
    return all;
  };
  auto lanes = scf::ParallelOp::create(
      rewriter, loc, withLane(loop.getLowerBound(), zero),
      withLane(loop.getUpperBound(), warp), withLane(loop.getStep(), one));
  Block *body = lanes.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.mergeBlocks(loop.getBody(), body, body->getArguments().drop_back());
  rewriter.eraseOp(loop);
  Value lane = body->getArguments().back();

  rewriter.setInsertionPoint(sum);
  Value first = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      lane, zero);
  SmallVector<Value> inits;
  for (Value init : sum.getInitArgs())
    inits.push_back(arith::SelectOp::create(
        rewriter, loc, first, init,
        arith::ConstantOp::create(
            rewriter, loc,
            cast<TypedAttr>(rewriter.getZeroAttr(init.getType())))));
  Value start = rewriter.createOrFold<arith::AddIOp>(
      loc, sum.getLowerBound(),
      rewriter.createOrFold<arith::MulIOp>(loc, lane, sum.getStep()));
  Value stride = rewriter.createOrFold<arith::MulIOp>(loc, sum.getStep(), warp);
  rewriter.modifyOpInPlace(sum, [&] {
    sum.getInitArgsMutable().assign(inits);
    sum.setLowerBound(start);
    sum.setStep(stride);
  });

  rewriter.setInsertionPointAfter(sum);
  for (OpResult result : sum.getResults()) {
    SmallVector<OpOperand *> stored;
    for (OpOperand &use : result.getUses())
      stored.push_back(&use);
    Value total = result;
    for (int32_t offset = recurrence::gpu_lowering::kWarpSize / 2; offset > 0;
         offset /= 2)
      total = arith::AddFOp::create(
          rewriter, loc, total,
          gpu::ShuffleOp::create(rewriter, loc, total, offset,
                                 recurrence::gpu_lowering::kWarpSize,
                                 gpu::ShuffleMode::XOR)
              .getShuffleResult());
    for (OpOperand *use : stored)
      rewriter.modifyOpInPlace(use->getOwner(), [&] { use->set(total); });
  }
  auto stores = llvm::to_vector(llvm::map_range(
      llvm::make_filter_range(
          llvm::make_range(std::next(Block::iterator(sum)),
                           body->getTerminator()->getIterator()),
          [](Operation &op) { return isa<memref::StoreOp>(op); }),
      [](Operation &op) { return &op; }));
  auto byFirst = scf::IfOp::create(rewriter, loc, first);
  for (Operation *store : stores)
    rewriter.moveOpBefore(store, byFirst.thenBlock()->getTerminator());
  return lanes;
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
  // A row's sum along the row: a warp's lanes share it, innermost.
  if (scf::ForOp sum = laneReducible(loop);
      sum && threads % recurrence::gpu_lowering::kWarpSize == 0)
    loop = reduceAcrossLanes(rewriter, loop, sum);
  else if (std::optional<unsigned> dim = unitStrideDim(loop);
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
    // A thread that sums a reduction (a serial loop in it) has work enough
    // in one element: several would leave a fraction of the threads to hide
    // the latency of its loads.
    for (scf::ParallelOp loop : *elementwise)
      elementwiseToKernels(rewriter, loop, elementwiseThreads,
                           hasSerialLoop(loop) ? 1 : kElementsPerThread);
    if (failed(allocationsToDevice(rewriter, root)))
      return signalPassFailure();
    // Stores first: the reads further up that feed them then sink into the
    // kernels of one thread they become.
    hostStoresToKernels(rewriter, root);
    sinkReadsIntoKernels(rewriter, root);
    if (failed(checkHostAccesses(root)))
      signalPassFailure();
  }
};
} // namespace
