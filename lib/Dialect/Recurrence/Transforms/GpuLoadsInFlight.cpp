//===- GpuLoadsInFlight.cpp - Several steps' loads in flight per thread ---===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A sequential scan's GPU thread walks time with one dependent chain per
// step: load the step's operands, update the state, store the output. Each
// step then waits a full memory latency. Unrolling the time loop and issuing
// the unrolled steps' loads before any of their stores keeps several loads
// in flight per thread.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/WrittenBuffers.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_GPULOADSINFLIGHTPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;

namespace {
/// The buffers something in `launch` may write, or nullopt when an op's
/// effects are unknown, or a buffer written is not one whose SSA value
/// identifies it (then nothing is moved).
std::optional<DenseSet<Value>> writtenBuffers(gpu::LaunchOp launch) {
  return recurrence::writtenBuffers(
      launch.getBody(), recurrence::distinctBuffer,
      // A fence orders other accesses and writes nothing; what is moved
      // across one is a load of a buffer no thread of the launch writes.
      [](Operation *op) { return isa<LLVM::FenceOp>(op); });
}

/// Whether `load` reads a buffer that its SSA value tells apart from others
/// and that nothing in `launch` writes (not in `written`): the operand
/// loads of a step, which may move ahead of the step's stores.
bool readsReadOnly(memref::LoadOp load, const DenseSet<Value> &written) {
  // A buffer the load's value does not tell apart (an scf.if result) may
  // be one that is written.
  Value buffer = recurrence::distinctBuffer(load.getMemRef());
  return buffer && !written.contains(buffer);
}

/// Moves the loads of distinct buffers not in `written`, with the pure ops
/// of `block` they use, to the start of `block`, keeping their order.
/// Returns the first op that was not moved.
Operation *hoistReadOnlyLoads(Block &block, const DenseSet<Value> &written) {
  Operation *frontier = &block.front();
  SmallVector<memref::LoadOp> loads;
  for (Operation &op : block.without_terminator())
    if (auto load = dyn_cast<memref::LoadOp>(op);
        load && readsReadOnly(load, written))
      loads.push_back(load);
  for (memref::LoadOp load : loads) {
    // The load and what it needs from this block, all of which must be pure
    // (the load aside) to move.
    SetVector<Operation *> needed;
    SmallVector<Operation *> work = {load};
    bool movable = true;
    while (!work.empty() && movable) {
      Operation *op = work.pop_back_val();
      if (!needed.insert(op))
        continue;
      // Ops with regions could use values of this block that their operands
      // do not show: they stay.
      if (op != load.getOperation() && (!isPure(op) || op->getNumRegions()))
        movable = false;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp();
            def && def->getBlock() == &block)
          work.push_back(def);
    }
    if (!movable)
      continue;
    SmallVector<Operation *> ordered(needed.begin(), needed.end());
    llvm::sort(ordered, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    for (Operation *op : ordered) {
      if (op == frontier) {
        frontier = op->getNextNode();
        continue;
      }
      if (frontier->isBeforeInBlock(op))
        op->moveBefore(frontier);
    }
  }
  return frontier;
}

/// Gives the ops from `frontier` on their own copy of the pure arithmetic
/// before it that they read (a store's index, shared with a load's), so
/// that the arithmetic a pipelined iteration runs ahead is not carried to
/// the next one. Returns the new first op of that part.
Operation *unshareArithmetic(Block &block, Operation *frontier) {
  IRMapping copies;
  OpBuilder builder(frontier);
  Operation *first = frontier;
  std::function<Value(Value)> copyOf = [&](Value value) -> Value {
    Operation *def = value.getDefiningOp();
    if (!def || def->getBlock() != &block || !def->isBeforeInBlock(frontier) ||
        isa<memref::LoadOp>(def))
      return value;
    if (Value copied = copies.lookupOrNull(value))
      return copied;
    for (Value operand : def->getOperands())
      copies.map(operand, copyOf(operand));
    Operation *clone = builder.clone(*def, copies);
    if (first == frontier)
      first = clone;
    return copies.lookup(value);
  };
  for (Operation *op = frontier; op && !op->hasTrait<OpTrait::IsTerminator>();
       op = op->getNextNode()) {
    for (OpOperand &operand : op->getOpOperands())
      operand.set(copyOf(operand.get()));
  }
  return first;
}

/// The order of a two-stage pipelined loop body: the ops before `frontier`
/// (the moved loads and their index arithmetic) run one iteration ahead,
/// each next load placed right after the last op that reads its value of
/// this iteration, so that the register it frees takes the next one. A
/// thread then has `unroll` steps' loads in flight at all times, in the
/// registers of one unrolled body.
void interleavedSchedule(
    scf::ForOp loop, Operation *frontier,
    std::vector<std::pair<Operation *, unsigned>> &schedule) {
  Block &body = *loop.getBody();
  SmallVector<Operation *> ahead, rest;
  for (Operation &op : body.without_terminator())
    (op.isBeforeInBlock(frontier) ? ahead : rest).push_back(&op);
  DenseMap<Operation *, int64_t> position, anchor;
  for (auto [index, op] : llvm::enumerate(rest))
    position[op] = index;
  // A load's anchor is its last reader of this iteration; the arithmetic
  // of a load's index comes before the first load that needs it (-1: at the
  // start).
  for (Operation *op : llvm::reverse(ahead)) {
    bool isLoad = isa<memref::LoadOp>(op);
    int64_t at = isLoad ? -1 : INT64_MAX;
    for (Operation *user : op->getUsers()) {
      Operation *inBody = body.findAncestorOpInBlock(*user);
      if (!inBody)
        continue;
      if (auto it = position.find(inBody); isLoad && it != position.end())
        at = std::max(at, it->second);
      else if (auto it = anchor.find(inBody); !isLoad && it != anchor.end())
        at = std::min(at, it->second);
    }
    anchor[op] = at == INT64_MAX ? -1 : at;
  }
  auto emitAnchoredAt = [&](int64_t at) {
    for (Operation *op : ahead)
      if (anchor[op] == at)
        schedule.emplace_back(op, 0);
  };
  emitAnchoredAt(-1);
  for (auto [index, op] : llvm::enumerate(rest)) {
    schedule.emplace_back(op, 1);
    emitAnchoredAt(index);
  }
}

/// Pipelines `loop` in two stages with upstream's loop pipeliner: the loads
/// before `frontier` of iteration i + 1 are issued while iteration i
/// computes. Only loops of at least two iterations of static count (a
/// dynamic count would need the prologue's loads predicated).
/// Returns the loop that runs the steady state (`loop` where it was left).
scf::ForOp pipelineLoads(scf::ForOp loop, Operation *frontier) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  if (!trips || trips->getSExtValue() < 2 ||
      frontier == &loop.getBody()->front() ||
      frontier->hasTrait<OpTrait::IsTerminator>())
    return loop;
  // What runs ahead must not read a value the loop carries: the next
  // iteration's would come from this one's later stage.
  for (Operation &op : *loop.getBody()) {
    if (&op == frontier)
      break;
    if (llvm::any_of(op.getOperands(), [&](Value operand) {
          return llvm::is_contained(loop.getRegionIterArgs(), operand);
        }))
      return loop;
  }
  frontier = unshareArithmetic(*loop.getBody(), frontier);
  scf::PipeliningOption options;
  options.getScheduleFn =
      [frontier](scf::ForOp forOp,
                 std::vector<std::pair<Operation *, unsigned>> &schedule) {
        interleavedSchedule(forOp, frontier, schedule);
      };
  IRRewriter rewriter(loop);
  DictionaryAttr attributes = loop->getDiscardableAttrDictionary();
  // A loop the pipeliner refuses stays as it is, its loads still first.
  FailureOr<scf::ForOp> pipelined =
      scf::pipelineForLoop(rewriter, loop, options);
  if (failed(pipelined))
    return loop;
  (*pipelined)->setDiscardableAttrs(attributes);
  return *pipelined;
}

/// The value `value` of `loop`'s body takes at the induction variable that
/// `map` maps the loop's to (some iterations ahead): the pure arithmetic of
/// the body it comes from, recomputed by `b`, or null where it reads
/// anything else the loop changes (a carried value, a load).
Value valueAhead(OpBuilder &b, scf::ForOp loop, Value value, IRMapping &map) {
  if (Value known = map.lookupOrNull(value))
    return known;
  Block *body = loop.getBody();
  if (auto argument = dyn_cast<BlockArgument>(value))
    return argument.getOwner() == body ? Value() : value;
  Operation *def = value.getDefiningOp();
  if (!body->findAncestorOpInBlock(*def))
    return value;
  if (!isPure(def) || def->getNumRegions() || def->getBlock() != body)
    return {};
  for (Value operand : def->getOperands())
    if (!valueAhead(b, loop, operand, map))
      return {};
  b.clone(*def, map);
  return map.lookup(value);
}

/// Has each read-only load of `loop`'s body prefetch into L2 what it will
/// read `distance` iterations later, where those are still in the loop:
/// the data is then on its way without holding a register, and the load
/// that reads it waits for L2 rather than memory.
void prefetchAhead(scf::ForOp loop, int64_t distance,
                   const DenseSet<Value> &written) {
  Block *body = loop.getBody();
  // One prefetch per line: loads that differ only by a constant in their
  // last index (a block row's columns) read the same lines, and an L2
  // prefetch, unlike a load, is not merged in L1.
  auto lineOf = [](memref::LoadOp load) {
    SmallVector<Value> key = {load.getMemRef()};
    llvm::append_range(key, load.getIndices());
    if (key.size() > 1)
      if (auto add = key.back().getDefiningOp<arith::AddIOp>();
          add && matchPattern(add.getRhs(), m_Constant()))
        key.back() = add.getLhs();
    return key;
  };
  SmallVector<memref::LoadOp> loads;
  SmallVector<SmallVector<Value>> lines;
  for (Operation &op : body->without_terminator()) {
    auto load = dyn_cast<memref::LoadOp>(op);
    if (!load || !readsReadOnly(load, written) ||
        !load.getMemRefType().isStrided())
      continue;
    SmallVector<Value> line = lineOf(load);
    if (llvm::is_contained(lines, line))
      continue;
    loads.push_back(load);
    lines.push_back(std::move(line));
  }
  if (loads.empty())
    return;
  Location loc = loop.getLoc();
  OpBuilder b(body->getTerminator());
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value step = loop.getStep();
  Value ahead = arith::AddIOp::create(
      b, loc, loop.getInductionVar(),
      arith::MulIOp::create(b, loc, step, index(distance)));
  // A pipelined body loads the next iteration's operands too: two
  // iterations from `ahead` must still be in the loop.
  Value reach = arith::AddIOp::create(
      b, loc, ahead, arith::MulIOp::create(b, loc, step, index(2)));
  Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, reach,
                                       loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  IRMapping map;
  map.map(loop.getInductionVar(), ahead);
  auto pointerType = LLVM::LLVMPointerType::get(b.getContext());
  for (memref::LoadOp load : loads) {
    Value memref = valueAhead(b, loop, load.getMemRef(), map);
    SmallVector<Value> indices;
    for (Value index : load.getIndices())
      indices.push_back(valueAhead(b, loop, index, map));
    if (!memref || llvm::is_contained(indices, Value()))
      continue;
    auto metadata = memref::ExtractStridedMetadataOp::create(b, loc, memref);
    Value element = metadata.getOffset();
    for (auto [at, stride] : llvm::zip(indices, metadata.getStrides()))
      element = arith::AddIOp::create(
          b, loc, element, arith::MulIOp::create(b, loc, at, stride));
    int64_t bytes = load.getMemRefType().getElementTypeBitWidth() / 8;
    Value address = arith::AddIOp::create(
        b, loc, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref),
        arith::MulIOp::create(b, loc, element, index(bytes)));
    Value pointer = LLVM::IntToPtrOp::create(
        b, loc, pointerType,
        arith::IndexCastOp::create(b, loc, b.getI64Type(), address)
            .getResult());
    NVVM::PrefetchOp::create(b, loc,
                             NVVM::PrefetchCacheLevelAttr::get(
                                 b.getContext(), NVVM::PrefetchCacheLevel::L2),
                             /*evictPriority=*/nullptr, pointer,
                             /*predicate=*/Value());
  }
}

/// Moves the static stack buffers of `launch` to the start of its body, the
/// kernel's entry block: LLVM promotes only entry-block allocas to
/// registers (others, e.g. below the thread's bounds check, stay in local
/// memory wherever a loop with a fence keeps it from forwarding them).
void hoistStaticAllocas(gpu::LaunchOp launch) {
  Block &entry = launch.getBody().front();
  SmallVector<memref::AllocaOp> allocas;
  launch.getBody().walk([&](memref::AllocaOp alloca) {
    auto scope = alloca->getParentOfType<memref::AllocaScopeOp>();
    if (alloca->getBlock() == &entry || !alloca.getType().hasStaticShape() ||
        alloca->getNumOperands() != 0 || (scope && launch->isAncestor(scope)))
      return;
    // One buffer for all iterations of a loop around it: only where no
    // iteration passes its buffer, or a view of it, on to the next (through
    // a terminator).
    SmallVector<Value> views = {alloca.getResult()};
    while (!views.empty()) {
      Value view = views.pop_back_val();
      for (Operation *user : view.getUsers()) {
        if (user->hasTrait<OpTrait::IsTerminator>())
          return;
        if (isa<ViewLikeOpInterface, CastOpInterface>(user))
          llvm::append_range(views, user->getResults());
      }
    }
    allocas.push_back(alloca);
  });
  for (memref::AllocaOp alloca : allocas)
    alloca->moveBefore(&entry.front());
}

/// The loads in one iteration of `loop` of buffers that `launch` never
/// writes: the operand loads a step issues.
int64_t readOnlyLoads(scf::ForOp loop, const DenseSet<Value> &written) {
  int64_t loads = 0;
  loop.getBody()->walk(
      [&](memref::LoadOp load) { loads += readsReadOnly(load, written); });
  return loads;
}

/// Whether `loop` is a time loop worth unrolling by `factor`: innermost,
/// not a warp scan's tiles, and not a constant trip count of at most two
/// unrolled bodies (a block's m x m loops, or a sequence too short to
/// gain).
bool isTimeLoop(scf::ForOp loop, int64_t factor) {
  // A warp scan's tile already has its lanes' steps in flight together.
  if (loop->hasAttr(recurrence::kWarpTilesAttrName))
    return false;
  bool innermost = true;
  loop.getBody()->walk([&](scf::ForOp) { innermost = false; });
  if (!innermost)
    return false;
  std::optional<APInt> trips = loop.getStaticTripCount();
  return !trips || trips->getSExtValue() > 2 * factor;
}

struct GpuLoadsInFlightPass
    : recurrence::impl::GpuLoadsInFlightPassBase<GpuLoadsInFlightPass> {
  using Base::Base;

  void runOnOperation() override {
    if (prefetch < 0) {
      getOperation()->emitError() << "prefetch must not be negative, got "
                                  << static_cast<int64_t>(prefetch);
      return signalPassFailure();
    }
    if (unroll < 1 || chunkUnroll < 1 || maxLoads < 1) {
      getOperation()->emitError()
          << "unroll, chunk-unroll and loads must be positive, got "
          << static_cast<int64_t>(unroll) << ", "
          << static_cast<int64_t>(chunkUnroll) << " and "
          << static_cast<int64_t>(maxLoads);
      return signalPassFailure();
    }
    getOperation()->walk([&](gpu::LaunchOp launch) {
      hoistStaticAllocas(launch);
      std::optional<DenseSet<Value>> written = writtenBuffers(launch);
      if (!written)
        return;
      // A chunk's loop runs in one of many threads: fewer steps in flight
      // keep its registers, and so the threads resident, many; but at
      // least `chunk-loads` loads per unrolled body, so that a step of few
      // operands (diagonal's a_t and b_t) still keeps enough in flight.
      // A sequential thread's loop: `unroll` steps, or as many as issue
      // `loads` loads where that is fewer (a block row's m + 1 loads a
      // step), so that the loads in flight fit in its registers.
      auto factorOf = [&](scf::ForOp loop) -> int64_t {
        int64_t loads = std::max<int64_t>(1, readOnlyLoads(loop, *written));
        if (!loop->hasAttr(recurrence::kChunkStepsAttrName))
          return std::clamp<int64_t>(maxLoads / loads, 1, unroll);
        // At most a quarter of the chunk, so that a short chunk's loop
        // still has whole unrolled bodies to run.
        auto steps =
            loop->getAttrOfType<IntegerAttr>(recurrence::kChunkStepsAttrName);
        int64_t chunk =
            steps ? steps.getValue().getSExtValue() : chunkLoads * 4;
        return std::max<int64_t>(chunkUnroll,
                                 std::min(chunkLoads / loads, chunk / 4));
      };
      SmallVector<scf::ForOp> loops;
      launch.getBody().walk([&](scf::ForOp loop) {
        if (isTimeLoop(loop, factorOf(loop)))
          loops.push_back(loop);
      });
      for (scf::ForOp loop : loops) {
        int64_t factor = factorOf(loop);
        if (factor > 1) {
          FailureOr<UnrolledLoopInfo> unrolled =
              loopUnrollByFactor(loop, factor);
          if (succeeded(unrolled) && unrolled->mainLoopOp)
            loop = *unrolled->mainLoopOp;
        }
        Operation *frontier = hoistReadOnlyLoads(*loop.getBody(), *written);
        if (pipeline)
          loop = pipelineLoads(loop, frontier);
        if (prefetch > 0 && !loop->hasAttr(recurrence::kChunkStepsAttrName))
          prefetchAhead(loop, llvm::divideCeil(prefetch, factor), *written);
      }
    });
  }
};
} // namespace
