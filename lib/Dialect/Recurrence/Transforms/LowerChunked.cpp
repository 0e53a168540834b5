//===- LowerChunked.cpp - Chunked schedule --------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lowers chunked recurrence.scan ops in three phases: local end states and
// transition products per chunk (parallel), a carry across chunks
// (sequential in chunks), and the outputs per chunk from the carried start
// states (parallel).
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_LOWERCHUNKEDPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;

namespace {
/// The chunking of [0, T) into K chunks of C steps (the last one shorter).
struct Chunking {
  Value size, count; // C and K

  Chunking(OpBuilder &b, Location loc, Value steps, int64_t chunkSize) {
    size = arith::ConstantIndexOp::create(b, loc, chunkSize);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value sizeMinusOne = arith::SubIOp::create(b, loc, size, one);
    count = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, steps, sizeMinusOne), size);
  }

  /// The first logical step of chunk `c` and its number of steps.
  std::pair<Value, Value> bounds(OpBuilder &b, Location loc, Value c,
                                 Value steps) const {
    Value start = arith::MulIOp::create(b, loc, c, size);
    Value left = arith::SubIOp::create(b, loc, steps, start);
    return {start, arith::MinUIOp::create(b, loc, left, size)};
  }
};

/// The independent sequences the phases run over, lanes: one per batch
/// element, or with tiled channels one per batch element and channel block.
/// A lane reads its steps through a ScanIO: the op's own, or that of the
/// op's tile for the lane (made through its TilingInterface where a phase
/// needs it, and erased once the phases are built).
class Lanes {
public:
  Lanes(RewriterBase &rewriter, ScanOp op, const ScanIO &io, bool tiled)
      : rewriter(rewriter), op(op), io(io), tiled(tiled) {
    Location loc = op.getLoc();
    sizes = io.batchSizes(rewriter, loc);
    if (!tiled)
      return;
    SmallVector<Range> domain = op.getIterationDomain(rewriter);
    sizes.push_back(domain[op.getBatchRank()].size);
    if (op.getMatrix())
      columns = domain.back().size;
  }

  /// The lane space: batch sizes, then the channel blocks.
  ArrayRef<OpFoldResult> getSizes() const { return sizes; }

  /// A phase's loop space over lanes and `count` chunks: the chunks after
  /// the batch dims, the blocks last, so that neighbouring iterations read
  /// neighbouring channels.
  SmallVector<OpFoldResult> withChunks(Value count) const {
    SmallVector<OpFoldResult> space(sizes);
    space.insert(space.begin() + io.getBatchRank(), count);
    return space;
  }
  /// The lane and chunk of an iteration of a `withChunks` space.
  std::pair<SmallVector<Value>, Value> splitChunk(ValueRange ivs) const {
    SmallVector<Value> lane(ivs);
    Value chunk = lane[io.getBatchRank()];
    lane.erase(lane.begin() + io.getBatchRank());
    return {lane, chunk};
  }

  /// The steps of one lane: the ScanIO and the batch indices to read it at.
  struct Lane {
    ScanIO io;
    SmallVector<Value> batch;
  };
  Lane at(OpBuilder &b, Location loc, ValueRange lane) {
    if (!tiled)
      return {io, SmallVector<Value>(lane)};
    auto [offsets, tileSizes] = tileOf(b, lane);
    FailureOr<TilingResult> tile =
        op.getTiledImplementation(b, offsets, tileSizes);
    // The tiling of an independent-channel scan does not fail (the
    // sequential lowering relies on it too).
    auto tiledOp = cast<ScanOp>(tile->tiledOps.front());
    made.push_back(tiledOp);
    llvm::append_range(slices, tile->generatedSlices);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    return {ScanIO(b, tiledOp), SmallVector<Value>(io.getBatchRank(), zero)};
  }

  /// The write of a lane's `value` into the loop output that holds result
  /// `result` (at the same index): the lane's part of it, or with `offset`
  /// its rows [offset, offset + count) of the output.
  ParallelWrite write(OpBuilder &b, Value value, unsigned result,
                      ValueRange lane, OpFoldResult offset = {},
                      OpFoldResult count = {}) {
    if (!tiled)
      return offset ? ParallelWrite::rows(value, result, lane, offset, count)
                    : ParallelWrite::row(value, result, lane);
    auto [resultOffsets, resultSizes] = boxOf(b, result, lane, offset, count);
    return ParallelWrite::box(value, result, resultOffsets, resultSizes,
                              io.getBatchRank());
  }

  /// A lane's rows [offset, offset + count) of the output `dest`.
  Value extractRows(OpBuilder &b, Location loc, Value dest, ValueRange lane,
                    OpFoldResult offset, OpFoldResult count) {
    if (!tiled)
      return recurrence::extractRows(b, loc, dest, lane, offset, count);
    auto [resultOffsets, resultSizes] = boxOf(b, 0, lane, offset, count);
    return extractBox(b, loc, dest, resultOffsets, resultSizes,
                      io.getBatchRank());
  }

  /// Erases the tiles made for reading, and the slices of their operands
  /// that the phases did not read.
  void eraseTiles() {
    for (ScanOp tile : made)
      rewriter.eraseOp(tile);
    for (Operation *slice : llvm::reverse(slices))
      if (slice->use_empty())
        rewriter.eraseOp(slice);
    made.clear();
    slices.clear();
  }

private:
  using Sizes = SmallVector<OpFoldResult>;
  std::pair<Sizes, Sizes> tileOf(OpBuilder &b, ValueRange lane) const {
    Sizes offsets(lane.begin(), lane.end());
    Sizes tileSizes(lane.size(), b.getIndexAttr(1));
    if (columns) {
      offsets.push_back(b.getIndexAttr(0));
      tileSizes.push_back(columns);
    }
    return {offsets, tileSizes};
  }
  /// The lane's box of result `result`; with `offset`, only its time rows
  /// [offset, offset + count).
  std::pair<Sizes, Sizes> boxOf(OpBuilder &b, unsigned result, ValueRange lane,
                                OpFoldResult offset, OpFoldResult count) {
    auto [offsets, tileSizes] = tileOf(b, lane);
    Sizes resultOffsets, resultSizes;
    (void)op.getResultTilePosition(b, result, offsets, tileSizes, resultOffsets,
                                   resultSizes);
    if (offset) {
      int64_t batchRank = io.getBatchRank();
      resultOffsets[batchRank] = offset;
      resultSizes[batchRank] = count;
    }
    return {resultOffsets, resultSizes};
  }

  RewriterBase &rewriter;
  ScanOp op;
  const ScanIO &io;
  bool tiled;
  SmallVector<OpFoldResult> sizes;
  OpFoldResult columns;
  SmallVector<ScanOp> made;
  SmallVector<Operation *> slices;
};

/// Sizes of a per-chunk buffer: lanes, K, then `inner`.
SmallVector<OpFoldResult> perChunk(ArrayRef<OpFoldResult> lanes, Value count,
                                   ArrayRef<OpFoldResult> inner) {
  SmallVector<OpFoldResult> sizes(lanes);
  sizes.push_back(count);
  llvm::append_range(sizes, inner);
  return sizes;
}

} // namespace

/// Marks a phase's loop over the steps of one chunk, whose trip count is
/// at most `chunkSize`: the GPU pipeline keeps fewer of its steps' loads in
/// flight per thread than in a sequential thread's loop over all steps
/// (recurrence-gpu-loads-in-flight), since such kernels have many threads.
static void markChunkLoop(scf::ForOp loop, int64_t chunkSize) {
  loop->setAttr(kChunkStepsAttrName,
                IntegerAttr::get(IndexType::get(loop.getContext()), chunkSize));
}

/// The most bytes of a thread's own state buffer: what promotion to the
/// stack takes (upstream's default limit, which the GPU pipeline keeps); a
/// larger buffer would be a device-heap allocation in every thread.
static constexpr int64_t kPrivateStateBytes = 1024;

/// A zero state in a buffer of the lane's own, where its size is static: a
/// GPU thread then accumulates its chunk's local state in registers (once
/// the buffer is promoted to the stack) and writes it out once, instead of
/// reading and writing the shared result in memory at every step (which
/// empty-tensor elimination would make of a tensor.empty).
static Value privateZeroState(OpBuilder &b, Location loc, const ScanIO &io) {
  std::optional<SmallVector<int64_t>> shape =
      getConstantIntValues(io.stateSizes(b, loc));
  Type elementType = io.getOp().getStateType();
  if (!shape || ShapedType::getNumElements(*shape) *
                        elementType.getIntOrFloatBitWidth() / 8 >
                    kPrivateStateBytes)
    return io.zeroState(b, loc);
  Value buffer = bufferization::AllocTensorOp::create(
      b, loc, RankedTensorType::get(*shape, elementType), ValueRange());
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return linalg::FillOp::create(b, loc, zero, buffer).getResult(0);
}

namespace {
/// What the phases of one chunked scan share: the chunking, the lanes, the
/// sizes of a lane's state and composite, and the two per-chunk walks over
/// steps that every form of the schedule runs.
class ChunkedScan {
public:
  ChunkedScan(RewriterBase &rewriter, ScanOp op, const ScanIO &io,
              int64_t chunkSize, bool tiled)
      : op(op), io(io), chunkSize(chunkSize), tiled(tiled),
        chunks(rewriter, op.getLoc(), io.getSteps(), chunkSize),
        lanes(rewriter, op, io, tiled) {
    Location loc = op.getLoc();
    // The sizes of one lane's state and composite.
    Lanes::Lane first = lanes.at(
        rewriter, loc,
        SmallVector<Value>(lanes.getSizes().size(),
                           arith::ConstantIndexOp::create(rewriter, loc, 0)));
    stateSizes = first.io.stateSizes(rewriter, loc);
    composite = first.io.compositeSizes(rewriter, loc);
    hasProducts = !composite.empty();
    chunkSpace = lanes.withChunks(chunks.count);
  }

  /// The local end state e_c of a lane's chunk `c`, run from a zero state,
  /// and its product P_c = A_end ... A_start (null without products).
  std::pair<Value, Value> local(OpBuilder &b, Location l,
                                const Lanes::Lane &lane, Value c) {
    const ScanIO &in = lane.io;
    ValueRange batchIvs = lane.batch;
    Value steps = io.getSteps();
    auto [start, length] = chunks.bounds(b, l, c, steps);
    Value t0 = in.timeOf(b, l, start);
    Value end = arith::AddIOp::create(b, l, start, length);
    Value one = arith::ConstantIndexOp::create(b, l, 1);
    Value start0 = tiled ? privateZeroState(b, l, in) : in.zeroState(b, l);
    Value first = in.step(b, l, batchIvs, t0, start0).first;
    Composite product =
        stepComposite(b, l, in.transitionAt(b, l, batchIvs, t0));
    SmallVector<Value> init = {first};
    if (hasProducts)
      init.push_back(product.value);
    auto loop = scf::ForOp::create(
        b, l, arith::AddIOp::create(b, l, start, one), end, one, init,
        [&](OpBuilder &nb, Location nl, Value tau, ValueRange args) {
          Value t = in.timeOf(nb, nl, tau);
          // Elementwise steps update the state in place; others build it
          // anew and copy it over the carried one, which so stays one
          // buffer (no allocation per step, none in a kernel).
          Value stepped = in.step(nb, nl, batchIvs, t, args[0]).first;
          if (!op.getStructure().hasApplyAndCopy())
            stepped = copyIntoRow(nb, nl, stepped, args[0], {});
          SmallVector<Value> next = {stepped};
          if (hasProducts) {
            Composite step =
                stepComposite(nb, nl, in.transitionAt(nb, nl, batchIvs, t));
            next.push_back(compose(nb, nl, step, compositeOf(args[1]),
                                   /*inPlace=*/true)
                               .value);
          }
          scf::YieldOp::create(nb, nl, next);
        });
    markChunkLoop(loop, chunkSize);
    return {loop.getResult(0), hasProducts ? loop.getResult(1) : Value()};
  }

  /// The outputs of a lane's chunk `c`, run again from its true start
  /// `state` (which the walk updates), written into the loop output `dest`.
  ParallelWrite outputs(OpBuilder &b, Location l, const Lanes::Lane &lane,
                        ValueRange laneIvs, Value c, Value state, Value dest) {
    const ScanIO &in = lane.io;
    ValueRange batchIvs = lane.batch;
    Value steps = io.getSteps();
    auto [start, length] = chunks.bounds(b, l, c, steps);
    // Physical rows of the chunk: [start, start + length), mirrored when
    // reversed.
    Value rowOffset = start;
    if (op.getReverse())
      rowOffset = arith::SubIOp::create(
          b, l, steps, arith::AddIOp::create(b, l, start, length));
    Value block = lanes.extractRows(b, l, dest, laneIvs, rowOffset, length);
    Value end = arith::AddIOp::create(b, l, start, length);
    Value one = arith::ConstantIndexOp::create(b, l, 1);
    auto loop = scf::ForOp::create(
        b, l, start, end, one, ValueRange{state, block},
        [&](OpBuilder &nb, Location nl, Value tau, ValueRange args) {
          Value t = in.timeOf(nb, nl, tau);
          Value row = arith::SubIOp::create(nb, nl, t, rowOffset);
          auto [next, out] =
              in.stepAndWrite(nb, nl, batchIvs, t, args[0], args[1], row);
          scf::YieldOp::create(nb, nl, ValueRange{next, out});
        });
    markChunkLoop(loop, chunkSize);
    return lanes.write(b, loop.getResult(1), 0, laneIvs, rowOffset, length);
  }

  /// P state + acc, where acc is copied first (it may be a shared row).
  Value carry(OpBuilder &b, Location l, Value product, Value state, Value acc) {
    Value copied =
        linalg::CopyOp::create(b, l, acc, emptyLike(b, l, acc)).getResult(0);
    return applyComposite(b, l, compositeOf(product), state, copied);
  }

  Composite compositeOf(Value value) {
    return recurrence::compositeOf(op.getStructure(), value);
  }

  ScanOp op;
  const ScanIO &io;
  int64_t chunkSize;
  bool tiled;
  Chunking chunks;
  Lanes lanes;
  SmallVector<OpFoldResult> stateSizes, composite, chunkSpace;
  bool hasProducts;
};

/// The three phases: per chunk in parallel, per lane over chunks, per chunk
/// in parallel.
SmallVector<Value> lowerInThreePhases(RewriterBase &rewriter,
                                      ChunkedScan &scan) {
  ScanOp op = scan.op;
  const ScanIO &io = scan.io;
  Lanes &lanes = scan.lanes;
  Location loc = op.getLoc();
  Type elementType = op.getStateType();
  Value count = scan.chunks.count;

  // Phase 1: per chunk, the local end state e_c and the product P_c.
  SmallVector<Value> phase1Outs = {tensor::EmptyOp::create(
      rewriter, loc, perChunk(lanes.getSizes(), count, scan.stateSizes),
      elementType)};
  if (scan.hasProducts)
    phase1Outs.push_back(tensor::EmptyOp::create(
        rewriter, loc, perChunk(lanes.getSizes(), count, scan.composite),
        elementType));
  SmallVector<Value> local = buildParallelLoop(
      rewriter, loc, scan.chunkSpace, phase1Outs,
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange) {
        auto [laneIvs, c] = lanes.splitChunk(ivs);
        auto [end, product] = scan.local(b, l, lanes.at(b, l, laneIvs), c);
        SmallVector<Value> at = appendIndex(laneIvs, c);
        SmallVector<ParallelWrite> writes = {ParallelWrite::row(end, 0, at)};
        if (product)
          writes.push_back(ParallelWrite::row(product, 1, at));
        return writes;
      });

  // Phase 2: carry H_c = P_c H_{c-1} + e_c across chunks, per lane,
  // recording every chunk's start state.
  SmallVector<Value> phase2Outs = {tensor::EmptyOp::create(
      rewriter, loc, perChunk(lanes.getSizes(), count, scan.stateSizes),
      elementType)};
  if (op.getFinalState())
    phase2Outs.push_back(io.resultDestinations(rewriter, loc)[1]);
  SmallVector<Value> carried = buildParallelLoop(
      rewriter, loc, lanes.getSizes(), phase2Outs,
      [&](OpBuilder &b, Location l, ValueRange laneIvs, ValueRange shared) {
        Lanes::Lane lane = lanes.at(b, l, laneIvs);
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value one = arith::ConstantIndexOp::create(b, l, 1);
        Value starts = extractRow(b, l, shared[0], laneIvs);
        auto loop = scf::ForOp::create(
            b, l, zero, count, one,
            ValueRange{lane.io.initialState(b, l, lane.batch), starts},
            [&](OpBuilder &nb, Location nl, Value c, ValueRange args) {
              SmallVector<Value> at = appendIndex(laneIvs, c);
              Value recorded = insertRow(nb, nl, args[0], args[1], c);
              // P_c H_{c-1} + e_c in a temporary of the iteration, then
              // copied over H_{c-1}: the carried state keeps one buffer
              // (no allocation per chunk, none in a GPU kernel).
              Value sum = scan.carry(
                  nb, nl,
                  scan.hasProducts ? extractRow(nb, nl, local[1], at) : Value(),
                  args[0], extractRow(nb, nl, local[0], at));
              Value next = copyIntoRow(nb, nl, sum, args[0], {});
              scf::YieldOp::create(nb, nl, ValueRange{next, recorded});
            });
        SmallVector<ParallelWrite> writes = {
            ParallelWrite::row(loop.getResult(1), 0, laneIvs)};
        if (op.getFinalState())
          writes.push_back(lanes.write(
              b, lane.io.toResultLayout(b, l, loop.getResult(0)), 1, laneIvs));
        return writes;
      });

  // Phase 3: per chunk, rerun the steps from the true start state and
  // write the outputs.
  SmallVector<Value> output = buildParallelLoop(
      rewriter, loc, scan.chunkSpace, {io.resultDestinations(rewriter, loc)[0]},
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
        auto [laneIvs, c] = lanes.splitChunk(ivs);
        Lanes::Lane lane = lanes.at(b, l, laneIvs);
        Value state = extractRow(b, l, carried[0], appendIndex(laneIvs, c));
        return SmallVector<ParallelWrite>{
            scan.outputs(b, l, lane, laneIvs, c, state, shared[0])};
      });

  SmallVector<Value> results = {output[0]};
  if (op.getFinalState())
    results.push_back(carried[1]);
  return results;
}

/// A buffer of `sizes` outside tensor land: the single pass's chunks
/// publish their states in it for others to read while the pass runs.
Value allocateBuffer(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                     Type elementType) {
  SmallVector<int64_t> shape;
  SmallVector<Value> dynamic;
  dispatchIndexOpFoldResults(sizes, dynamic, shape);
  return memref::AllocOp::create(b, loc, MemRefType::get(shape, elementType),
                                 dynamic);
}

/// The slot `buffer`[at..., :...] as a view of the trailing dims.
Value slotOf(OpBuilder &b, Location loc, Value buffer, ValueRange at) {
  auto type = cast<MemRefType>(buffer.getType());
  ArrayRef<int64_t> inner = type.getShape().drop_front(at.size());
  SmallVector<OpFoldResult> offsets(at.begin(), at.end());
  SmallVector<OpFoldResult> sizes(at.size(), b.getIndexAttr(1));
  for (int64_t size : inner) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(size));
  }
  SmallVector<OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  MemRefType slotType = memref::SubViewOp::inferRankReducedResultType(
      inner, type, offsets, sizes, strides);
  return memref::SubViewOp::create(b, loc, slotType, buffer, offsets, sizes,
                                   strides);
}

/// The published slot `buffer`[at] as a tensor (read only: whatever writes
/// to it copies it first).
Value readSlot(OpBuilder &b, Location loc, Value buffer, ValueRange at) {
  Value slot = slotOf(b, loc, buffer, at);
  auto type = cast<MemRefType>(slot.getType());
  return bufferization::ToTensorOp::create(
      b, loc, RankedTensorType::get(type.getShape(), type.getElementType()),
      slot, /*restrict=*/true);
}

/// Writes `value` into the slot `buffer`[at].
void writeSlot(OpBuilder &b, Location loc, Value value, Value buffer,
               ValueRange at) {
  bufferization::MaterializeInDestinationOp::create(
      b, loc, TypeRange(), value, slotOf(b, loc, buffer, at),
      /*restrict=*/true, /*writable=*/true);
}

/// `value` as `type` (a tensor.cast where the static sizes differ).
Value castTo(OpBuilder &b, Location loc, Value value, Type type) {
  if (value.getType() == type)
    return value;
  return tensor::CastOp::create(b, loc, type, value);
}

/// `whenTrue` or `whenFalse` (states of one type) as `condition` says,
/// element by element, written into `into`.
Value selectState(OpBuilder &b, Location loc, Value condition, Value whenTrue,
                  Value whenFalse, Value into) {
  auto type = cast<RankedTensorType>(into.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{whenTrue, whenFalse}, ValueRange{into},
             SmallVector<AffineMap>(3, identity), iterators,
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(
                   nb, nl,
                   arith::SelectOp::create(nb, nl, condition, args[0], args[1])
                       .getResult());
             })
      .getResult(0);
}

/// The status of a chunk in the single pass: nothing yet, its local
/// aggregate (e_c, P_c), or its inclusive end state H_c. Held as floats,
/// like the data: every float buffer a kernel uses lives on the device.
enum class ChunkStatus { None = 0, Aggregate = 1, Inclusive = 2 };

Value statusConstant(OpBuilder &b, Location loc, ChunkStatus status) {
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(status)));
}

/// Publishes `status` for the chunk at `at`: an atomic exchange, which
/// orders the writes of what it announces before it (acquire-release; the
/// GPU pipeline fences it, recurrence-gpu-parallelize).
void publish(OpBuilder &b, Location loc, Value statuses, ValueRange at,
             ChunkStatus status) {
  memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::assign,
                              statusConstant(b, loc, status), statuses, at);
}

/// Waits until the chunk at `at` has published something, and returns its
/// status, read atomically, so that the reads of what it announces come
/// after.
Value waitFor(OpBuilder &b, Location loc, Value statuses, ValueRange at) {
  Value none = statusConstant(b, loc, ChunkStatus::None);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
  auto spin = scf::WhileOp::create(
      b, loc, TypeRange{b.getF32Type()}, ValueRange{},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value status = memref::AtomicRMWOp::create(
            nb, nl, arith::AtomicRMWKind::addf, zero, statuses, at);
        Value pending = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                              status, none);
        scf::ConditionOp::create(nb, nl, pending, ValueRange{status});
      },
      [&](OpBuilder &nb, Location nl, ValueRange) {
        scf::YieldOp::create(nb, nl, ValueRange{});
      });
  return spin.getResult(0);
}

/// One kernel: every chunk publishes its local aggregate, finds the end
/// state of the chunk before it by looking back over the chunks before that
/// (the first inclusive end state found, composed with the aggregates
/// passed on the way: decoupled look-back), publishes its own inclusive end
/// state and writes its outputs. The inputs are read once from memory (the
/// second walk over a short chunk finds them in cache), where the three
/// phases read them twice. A chunk only waits for chunks before it, whose
/// threads the GPU starts first (lower block indices); threads of one warp
/// that wait for each other progress independently (sm_70 and later).
SmallVector<Value> lowerInOnePass(RewriterBase &rewriter, ChunkedScan &scan) {
  ScanOp op = scan.op;
  const ScanIO &io = scan.io;
  Lanes &lanes = scan.lanes;
  Location loc = op.getLoc();
  Type elementType = op.getStateType();
  Value count = scan.chunks.count;

  SmallVector<OpFoldResult> perLaneAndChunk =
      perChunk(lanes.getSizes(), count, {});
  Value statuses =
      allocateBuffer(rewriter, loc, perLaneAndChunk, rewriter.getF32Type());
  linalg::FillOp::create(rewriter, loc,
                         statusConstant(rewriter, loc, ChunkStatus::None),
                         statuses);
  Value ends = allocateBuffer(
      rewriter, loc, perChunk(lanes.getSizes(), count, scan.stateSizes),
      elementType);
  Value inclusive = allocateBuffer(
      rewriter, loc, perChunk(lanes.getSizes(), count, scan.stateSizes),
      elementType);
  Value products;
  if (scan.hasProducts)
    products = allocateBuffer(rewriter, loc,
                              perChunk(lanes.getSizes(), count, scan.composite),
                              elementType);

  SmallVector<Value> output = buildParallelLoop(
      rewriter, loc, scan.chunkSpace, {io.resultDestinations(rewriter, loc)[0]},
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
        std::pair<SmallVector<Value>, Value> split = lanes.splitChunk(ivs);
        SmallVector<Value> laneIvs = split.first;
        Value c = split.second;
        Lanes::Lane lane = lanes.at(b, l, laneIvs);
        SmallVector<Value> at = appendIndex(laneIvs, c);
        std::pair<Value, Value> aggregate = scan.local(b, l, lane, c);
        Value end = aggregate.first, product = aggregate.second;
        writeSlot(b, l, end, ends, at);
        if (product)
          writeSlot(b, l, product, products, at);
        publish(b, l, statuses, at, ChunkStatus::Aggregate);

        // Look back from chunk c - 1 with the suffix (Q, s) of the chunks
        // passed, H_{c-1} = Q H_j + s, from the identity: while chunk j
        // has only its aggregate, (Q, s) <- (Q P_j, Q e_j + s).
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value one = arith::ConstantIndexOp::create(b, l, 1);
        Composite identity = identityLike(
            b, l, scan.compositeOf(product ? Value(product) : Value()));
        Value suffix0 = privateZeroState(b, l, lane.io);
        SmallVector<Value> carried = {c, suffix0};
        if (identity.value)
          carried.push_back(identity.value);
        auto walk = scf::WhileOp::create(
            b, l, ValueRange(carried).getTypes(), carried,
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              // args[0] is j + 1: stop at the first chunk, or at one with
              // its inclusive end state.
              Value more = arith::CmpIOp::create(
                  nb, nl, arith::CmpIPredicate::ne, args[0], zero);
              auto status = scf::IfOp::create(
                  nb, nl, more,
                  [&](OpBuilder &ib, Location il) {
                    Value j = arith::SubIOp::create(ib, il, args[0], one);
                    scf::YieldOp::create(
                        ib, il,
                        waitFor(ib, il, statuses, appendIndex(laneIvs, j)));
                  },
                  [&](OpBuilder &ib, Location il) {
                    scf::YieldOp::create(
                        ib, il, statusConstant(ib, il, ChunkStatus::Inclusive));
                  });
              Value passed = arith::CmpFOp::create(
                  nb, nl, arith::CmpFPredicate::OEQ, status.getResult(0),
                  statusConstant(nb, nl, ChunkStatus::Aggregate));
              scf::ConditionOp::create(nb, nl, passed, args);
            },
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value j = arith::SubIOp::create(nb, nl, args[0], one);
              SmallVector<Value> atJ = appendIndex(laneIvs, j);
              Composite suffix =
                  scan.compositeOf(identity.value ? args[2] : Value());
              SmallVector<Value> next = {
                  j, applyComposite(nb, nl, suffix, readSlot(nb, nl, ends, atJ),
                                    args[1])};
              if (identity.value) {
                Composite longer =
                    compose(nb, nl, suffix,
                            scan.compositeOf(readSlot(nb, nl, products, atJ)));
                next.push_back(copyIntoRow(nb, nl, longer.value, args[2], {}));
              }
              scf::YieldOp::create(nb, nl, next);
            });
        // The walk stopped at the first chunk (from init) or after chunk
        // j's inclusive end state. Both are read and one selected element
        // by element: a branch would yield either buffer, which keeps the
        // thread's own one out of registers. (At the first chunk, slot 0
        // is read and dropped.)
        Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            walk.getResult(0), zero);
        Value j = arith::SelectOp::create(
            b, l, first, zero,
            arith::SubIOp::create(b, l, walk.getResult(0), one));
        Value base =
            selectState(b, l, first,
                        castTo(b, l, lane.io.initialState(b, l, lane.batch),
                               suffix0.getType()),
                        readSlot(b, l, inclusive, appendIndex(laneIvs, j)),
                        privateZeroState(b, l, lane.io));
        Value start = applyComposite(
            b, l,
            scan.compositeOf(identity.value ? walk.getResult(2) : Value()),
            base, walk.getResult(1));

        // H_c = P_c H_{c-1} + e_c, for the chunks after this one.
        writeSlot(b, l, scan.carry(b, l, product, start, end), inclusive, at);
        publish(b, l, statuses, at, ChunkStatus::Inclusive);
        return SmallVector<ParallelWrite>{
            scan.outputs(b, l, lane, laneIvs, c, start, shared[0])};
      });
  SmallVector<Value> results = {output[0]};
  if (!op.getFinalState())
    return results;

  // The final state: the last chunk's inclusive end state (init when there
  // are no steps), per lane.
  SmallVector<Value> final = buildParallelLoop(
      rewriter, loc, lanes.getSizes(),
      {io.resultDestinations(rewriter, loc)[1]},
      [&](OpBuilder &b, Location l, ValueRange laneIvs, ValueRange) {
        Lanes::Lane lane = lanes.at(b, l, laneIvs);
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value none =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, count, zero);
        Value init = lane.io.initialState(b, l, lane.batch);
        auto state = scf::IfOp::create(
            b, l, none,
            [&](OpBuilder &ib, Location il) {
              scf::YieldOp::create(ib, il, init);
            },
            [&](OpBuilder &ib, Location il) {
              Value last = arith::SubIOp::create(
                  ib, il, count, arith::ConstantIndexOp::create(ib, il, 1));
              Value end =
                  readSlot(ib, il, inclusive, appendIndex(laneIvs, last));
              scf::YieldOp::create(ib, il, castTo(ib, il, end, init.getType()));
            });
        // The op's result 1, this loop's only output.
        ParallelWrite write = lanes.write(
            b, lane.io.toResultLayout(b, l, state.getResult(0)), 1, laneIvs);
        write.output = 0;
        return SmallVector<ParallelWrite>{write};
      });
  results.push_back(final[0]);
  return results;
}

/// Whether a lane's state and composite have static sizes that a thread
/// keeps in registers, as the single pass's look-back needs.
bool fitsOnePass(ChunkedScan &scan) {
  if (!scan.tiled)
    return false;
  Type elementType = scan.op.getStateType();
  for (ArrayRef<OpFoldResult> sizes :
       {ArrayRef(scan.stateSizes), ArrayRef(scan.composite)}) {
    std::optional<SmallVector<int64_t>> shape = getConstantIntValues(sizes);
    if (!shape || ShapedType::getNumElements(*shape) *
                          elementType.getIntOrFloatBitWidth() / 8 >
                      kPrivateStateBytes)
      return false;
  }
  return true;
}
} // namespace

FailureOr<SmallVector<Value>>
mlir::recurrence::lowerScanToChunks(RewriterBase &rewriter, ScanOp op,
                                    int64_t chunkSize, bool tileChannels,
                                    bool onePass) {
  if (chunkSize < 1)
    return rewriter.notifyMatchFailure(op, "the chunk size must be positive");
  bool tiled = tileChannels && op.hasIndependentChannels();
  return lowerScanWith(rewriter, op, [&](const ScanIO &io) {
    ChunkedScan scan(rewriter, op, io, chunkSize, tiled);
    SmallVector<Value> results = onePass && fitsOnePass(scan)
                                     ? lowerInOnePass(rewriter, scan)
                                     : lowerInThreePhases(rewriter, scan);
    scan.lanes.eraseTiles();
    return results;
  });
}

namespace {
/// Rewrites a chunked recurrence.scan with the three phases.
struct LowerChunkedScan : OpRewritePattern<ScanOp> {
  LowerChunkedScan(MLIRContext *context, bool tileChannels, bool onePass)
      : OpRewritePattern(context), tileChannels(tileChannels),
        onePass(onePass) {}

  LogicalResult matchAndRewrite(ScanOp op,
                                PatternRewriter &rewriter) const override {
    ScheduleAttr schedule = op.getScheduleOrAuto();
    if (schedule.getKind() != ScheduleKind::Chunked)
      return rewriter.notifyMatchFailure(op, "not a chunked schedule");
    return lowerScanToChunks(rewriter, op, schedule.getChunkSize(),
                             tileChannels, onePass);
  }

  bool tileChannels, onePass;
};

struct LowerChunkedPass
    : recurrence::impl::LowerChunkedPassBase<LowerChunkedPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerChunkedPatterns(patterns, tileChannels, onePass);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace

void mlir::recurrence::populateLowerChunkedPatterns(RewritePatternSet &patterns,
                                                    bool tileChannels,
                                                    bool onePass) {
  patterns.add<LowerChunkedScan>(patterns.getContext(), tileChannels, onePass);
}
