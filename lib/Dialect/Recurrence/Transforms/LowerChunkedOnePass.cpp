//===- LowerChunkedOnePass.cpp - Chunked schedule in one pass -------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The chunked schedule as one parallel loop (GPU only): each chunk
// publishes its local aggregate behind an atomic status, looks back over
// the chunks before it for its start state (decoupled look-back), publishes
// its inclusive end state and writes its outputs.
//
//===----------------------------------------------------------------------===//

#include "ChunkStatus.h"
#include "ChunkedScan.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::chunked;

namespace {
/// A buffer of `sizes` outside tensor land: the chunks publish their states
/// in it for others to read while the pass runs.
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

} // namespace

/// One kernel: every chunk publishes its local aggregate, finds the end
/// state of the chunk before it by looking back over the chunks before that
/// (the first inclusive end state found, composed with the aggregates
/// passed on the way: decoupled look-back), publishes its own inclusive end
/// state and writes its outputs. The inputs are read once from memory (the
/// second walk over a short chunk finds them in cache), where the three
/// phases read them twice. A chunk only waits for chunks before it, whose
/// threads the GPU starts first (lower block indices); threads of one warp
/// that wait for each other progress independently (sm_70 and later).
SmallVector<Value> ChunkedScan::inOnePass(RewriterBase &rewriter) {
  Location loc = op.getLoc();
  Type elementType = op.getStateType();
  Value count = chunks.count;

  SmallVector<OpFoldResult> perLaneAndChunk =
      perChunk(lanes.getSizes(), count, {});
  Value statuses =
      allocateBuffer(rewriter, loc, perLaneAndChunk, rewriter.getF32Type());
  linalg::FillOp::create(rewriter, loc,
                         statusConstant(rewriter, loc, ChunkStatus::None),
                         statuses);
  Value ends = allocateBuffer(rewriter, loc,
                              perChunk(lanes.getSizes(), count, stateSizes),
                              elementType);
  Value inclusive = allocateBuffer(
      rewriter, loc, perChunk(lanes.getSizes(), count, stateSizes),
      elementType);
  Value products;
  if (hasProducts)
    products = allocateBuffer(rewriter, loc,
                              perChunk(lanes.getSizes(), count, composite),
                              elementType);

  SmallVector<Value> output = buildParallelLoop(
      rewriter, loc, chunkSpace, {op.getDestinations()[0]},
      [&](OpBuilder &b, Location l, ValueRange ivs, ValueRange shared) {
        std::pair<SmallVector<Value>, Value> split = lanes.splitChunk(ivs);
        SmallVector<Value> laneIvs = split.first;
        Value c = split.second;
        Lanes::Lane lane = lanes.at(b, l, laneIvs);
        SmallVector<Value> at = appendIndex(laneIvs, c);
        std::pair<Value, Value> aggregate = local(b, l, lane, c);
        Value end = aggregate.first, product = aggregate.second;
        writeSlot(b, l, end, ends, at);
        if (product)
          writeSlot(b, l, product, products, at);
        publishStatus(b, l, statuses, at, ChunkStatus::Aggregate);

        // Look back from chunk c - 1 with the suffix (Q, s) of the chunks
        // passed, H_{c-1} = Q H_j + s, from the identity: while chunk j
        // has only its aggregate, (Q, s) <- (Q P_j, Q e_j + s).
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value one = arith::ConstantIndexOp::create(b, l, 1);
        Composite identity = identityLike(b, l, compositeOf(product));
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
                        waitForStatus(ib, il, statuses,
                                      appendIndex(laneIvs, j)));
                  },
                  [&](OpBuilder &ib, Location il) {
                    scf::YieldOp::create(
                        ib, il, statusConstant(ib, il, ChunkStatus::Inclusive));
                  });
              Value passed =
                  isStatus(nb, nl, status.getResult(0), ChunkStatus::Aggregate);
              scf::ConditionOp::create(nb, nl, passed, args);
            },
            [&](OpBuilder &nb, Location nl, ValueRange args) {
              Value j = arith::SubIOp::create(nb, nl, args[0], one);
              SmallVector<Value> atJ = appendIndex(laneIvs, j);
              Composite suffix =
                  compositeOf(identity.value ? args[2] : Value());
              SmallVector<Value> next = {
                  j, applyComposite(nb, nl, suffix, readSlot(nb, nl, ends, atJ),
                                    args[1])};
              if (identity.value) {
                Composite longer =
                    compose(nb, nl, suffix,
                            compositeOf(readSlot(nb, nl, products, atJ)));
                next.push_back(copyIntoRow(nb, nl, longer.value, args[2], {}));
              }
              scf::YieldOp::create(nb, nl, next);
            });
        // The walk stopped at the first chunk (from init) or after chunk
        // j's inclusive end state. Both are read and one selected element
        // by element: a branch would yield either buffer, which keeps the
        // thread's own one out of registers. (At the first chunk, slot 0
        // is read and dropped, possibly while chunk 0 writes it: the value
        // read is never used.)
        Value first = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq,
                                            walk.getResult(0), zero);
        Value j = arith::SelectOp::create(
            b, l, first, zero,
            arith::SubIOp::create(b, l, walk.getResult(0), one));
        Value base =
            selectState(b, l, first,
                        castTo(b, l, lane.io.initialState(b, l, lane.batch),
                               cast<RankedTensorType>(suffix0.getType())),
                        readSlot(b, l, inclusive, appendIndex(laneIvs, j)),
                        privateZeroState(b, l, lane.io));
        Value start = applyComposite(
            b, l, compositeOf(identity.value ? walk.getResult(2) : Value()),
            base, walk.getResult(1));

        // H_c = P_c H_{c-1} + e_c, for the chunks after this one.
        writeSlot(b, l, carry(b, l, product, start, end), inclusive, at);
        publishStatus(b, l, statuses, at, ChunkStatus::Inclusive);
        return SmallVector<ParallelWrite>{
            outputs(b, l, lane, laneIvs, c, start, shared[0])};
      });
  SmallVector<Value> results = {output[0]};
  if (!op.getFinalState())
    return results;

  // The final state: the last chunk's inclusive end state (init when there
  // are no steps), per lane.
  SmallVector<Value> final = buildParallelLoop(
      rewriter, loc, lanes.getSizes(), {op.getDestinations()[1]},
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
              scf::YieldOp::create(
                  ib, il,
                  castTo(ib, il, end, cast<RankedTensorType>(init.getType())));
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

bool ChunkedScan::fitsOnePass() {
  if (!tiled)
    return false;
  Type elementType = op.getStateType();
  for (ArrayRef<OpFoldResult> sizes :
       {ArrayRef(stateSizes), ArrayRef(composite)}) {
    std::optional<SmallVector<int64_t>> shape = getConstantIntValues(sizes);
    if (!shape || ShapedType::getNumElements(*shape) *
                          elementType.getIntOrFloatBitWidth() / 8 >
                      kPrivateStateBytes)
      return false;
  }
  return true;
}
