//===- ChunkedScan.h - What the chunked lowerings share ---------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The chunking of a scan's steps, its lanes (batch elements, and channel
// blocks where channels are independent), and the two walks over one
// chunk's steps that both forms of the chunked schedule run: in three
// phases (LowerChunked.cpp) or in one pass (LowerChunkedOnePass.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_LIB_DIALECT_RECURRENCE_TRANSFORMS_CHUNKEDSCAN_H
#define RECURRENCE_LIB_DIALECT_RECURRENCE_TRANSFORMS_CHUNKEDSCAN_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/ScanIO.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::recurrence::chunked {

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
inline SmallVector<OpFoldResult> perChunk(ArrayRef<OpFoldResult> lanes,
                                          Value count,
                                          ArrayRef<OpFoldResult> inner) {
  SmallVector<OpFoldResult> sizes(lanes);
  sizes.push_back(count);
  llvm::append_range(sizes, inner);
  return sizes;
}

/// Marks a phase's loop over the steps of one chunk, whose trip count is
/// at most `chunkSize`: the GPU pipeline keeps fewer of its steps' loads in
/// flight per thread than in a sequential thread's loop over all steps
/// (recurrence-gpu-loads-in-flight), since such kernels have many threads.
inline void markChunkLoop(scf::ForOp loop, int64_t chunkSize) {
  loop->setAttr(kChunkStepsAttrName,
                IntegerAttr::get(IndexType::get(loop.getContext()), chunkSize));
}

/// The most bytes of a thread's own state buffer: what promotion to the
/// stack takes (upstream's default limit, which the GPU pipeline keeps); a
/// larger buffer would be a device-heap allocation in every thread.
inline constexpr int64_t kPrivateStateBytes = 1024;

/// A zero state in a buffer of the lane's own, where its size is static: a
/// GPU thread then accumulates its chunk's local state in registers (once
/// the buffer is promoted to the stack) and writes it out once, instead of
/// reading and writing the shared result in memory at every step (which
/// empty-tensor elimination would make of a tensor.empty).
inline Value privateZeroState(OpBuilder &b, Location loc, const ScanIO &io) {
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
          // In-place steps (elementwise, dplr) update the state; others build
          // it anew and copy it over the carried one, which so stays one buffer
          // (no allocation per step, none in a kernel).
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

  /// The three phases: per chunk in parallel, per lane over chunks, per
  /// chunk in parallel (LowerChunked.cpp).
  SmallVector<Value> inThreePhases(RewriterBase &rewriter);

  /// Whether a lane's state and composite have static sizes that a thread
  /// keeps in registers, as the one pass's look-back needs.
  bool fitsOnePass();

  /// One parallel loop whose chunks look back for their start states
  /// (LowerChunkedOnePass.cpp).
  SmallVector<Value> inOnePass(RewriterBase &rewriter);

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

} // namespace mlir::recurrence::chunked

#endif // RECURRENCE_LIB_DIALECT_RECURRENCE_TRANSFORMS_CHUNKEDSCAN_H
