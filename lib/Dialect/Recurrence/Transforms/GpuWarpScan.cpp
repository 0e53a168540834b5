//===- GpuWarpScan.cpp - A warp per sequence where time is contiguous -----===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GPU runs a sequential scan with a thread per channel, which reads
// neighbouring channels in neighbouring threads. Where the caller's buffers
// hold each channel's steps contiguously instead (Mamba's [B, N, T], passed
// as a [B, T, N] view), those threads read one element of 32 different
// lines per step. This pattern gives such a scan a warp per sequence: each
// lane takes `kStepsPerLane` consecutive steps of a tile of 32 of those
// runs, composes their transitions and inputs into one (A, B) pair, the
// lanes combine their pairs by shuffles (an inclusive scan over the warp),
// and each lane steps its own elements from the state its predecessors
// leave, and the tile's last state carries into the next tile. The lanes
// then read the steps of a tile together, contiguously.
//
// It applies to elementwise first-order scans (a diagonal composite given
// by the transition operand itself) on a vector state, or a matrix state
// of one column, with a plain input, with static shapes and an f32 state,
// that read views of the caller's buffers (`bufferization.to_tensor` of
// memrefs through slices and reshapes, time at unit stride): the warps read
// those buffers directly. They write the caller's buffers where the
// results are materialized there, else buffers the results then read.
//
//===----------------------------------------------------------------------===//

#include "ChunkStatus.h"
#include "GpuCallerBuffers.h"

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Dialect/Recurrence/Transforms/TensorSlicing.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_GPUWARPSCANPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::gpu_lowering;

namespace {
/// The consecutive steps one lane loads and composes per tile.
constexpr int64_t kStepsPerLane = 4;
/// The warps a scan is split into at least, where its sequences are long
/// enough (chunks of each sequence, a warp each): about 31 per SM of an
/// H200, enough loads in flight to stream from memory.
constexpr int64_t kWarpsWanted = 4096;

/// The unit column a matrix state of one column has, dropped from the
/// views of its input, init and results (a vector state has none).
int64_t unitColumn(ScanOp op) { return op.getMatrix() ? 1 : 0; }

/// Whether the results are written straight into the caller's buffers:
/// a vector state's results, all materialized there in the op's block.
/// Else the lowering writes buffers of its own, which the results become.
std::optional<CallerResults> callerResults(ScanOp op) {
  StringRef reason;
  FailureOr<CallerResults> results = CallerResults::of(op, reason);
  if (failed(results))
    return std::nullopt;
  return *results;
}

/// Why `op` does not take the warp lowering, or "" when it does.
StringRef unsupported(ScanOp op) {
  StringRef reason = warpScanUnsupportedStructure(op);
  if (!reason.empty())
    return reason;
  int64_t column = unitColumn(op);
  FailureOr<MemRefType> aView = callerViewType(op.getTransition().front());
  FailureOr<MemRefType> xView = callerViewType(op.getInput(), column);
  if (failed(aView) || failed(xView) ||
      (op.getInit() && failed(callerViewType(op.getInit(), column))))
    return "operands not read from the caller's buffers";
  int64_t time = op.getBatchRank();
  if (!isContiguousAlong(*aView, time) || !isContiguousAlong(*xView, time))
    return "time is not contiguous in the caller's buffers";
  return "";
}

/// Whether `lane` (i32) is a warp's first.
Value isFirstLane(OpBuilder &b, Location loc, Value lane) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane,
                               arith::ConstantIntOp::create(b, loc, 0, 32));
}

/// One lane's part of a warp scan: its pair (A, B) of h -> A h + B.
struct Pair {
  Value a, b;
};

/// (first, then `second`) composed: h -> A2 (A1 h + B1) + B2.
Pair compose(OpBuilder &b, Location loc, Pair first, Pair second) {
  Value offset = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, second.a, first.b), second.b);
  return {arith::MulFOp::create(b, loc, second.a, first.a), offset};
}

/// `pair` applied to `h`.
Value apply(OpBuilder &b, Location loc, Pair pair, Value h) {
  return arith::AddFOp::create(b, loc, arith::MulFOp::create(b, loc, pair.a, h),
                               pair.b);
}

/// Each field of `pair` shuffled within the warp by `mode` from `offset`.
Pair shuffle(OpBuilder &b, Location loc, Pair pair, int32_t offset,
             gpu::ShuffleMode mode) {
  auto one = [&](Value value) {
    return gpu::ShuffleOp::create(b, loc, value, offset, kWarpSize, mode)
        .getShuffleResult();
  };
  return {one(pair.a), one(pair.b)};
}

/// The scan's buffers and static sizes, and how its sequences are split.
struct WarpScan {
  bool reverse;
  Value a, b, init, output, finalState; // memrefs (init, finalState: or null)
  SmallVector<int64_t> batch;           // static batch sizes
  int64_t steps, channels;
  int64_t rows;       // sequences: batch elements x channels
  int64_t chunks;     // per sequence, a warp each
  int64_t chunkTiles; // tiles of kTile steps per chunk
  bool lookBack;      // chunks in one pass (else two sweeps and a carry)
  // Two sweeps: [rows, chunks, 2] (A, B) of each chunk, and [rows, chunks]
  // the state before each chunk. One pass, chunk-major: [chunks, rows, 2]
  // the chunks' pairs, [chunks, rows] their end states and statuses.
  Value aggregates, carries, statuses; // or null
};

constexpr int64_t kTile = kWarpSize * kStepsPerLane;

/// What a sweep over the chunks computes.
enum class Sweep {
  Aggregate, // each chunk's pair (A, B), written to `aggregates`
  Write,     // the outputs, from each chunk's start state
  OnePass,   // both, each chunk's start state from a look-back between
};

/// The lanes' part of one tile: their steps (loaded together, identity
/// past the end), the inclusive scan of their pairs over the warp, and the
/// validity and time of each step.
struct Tile {
  SmallVector<Pair> steps;
  SmallVector<Value> valid, times;
  Pair inclusive;
};

Tile emitTile(OpBuilder &b, Location loc, const WarpScan &scan,
              ValueRange coords, Value laneIndex, Value lane, Value tile) {
  Type f32 = b.getF32Type();
  Value zero = floatConstant(b, loc, f32, 0.0);
  Value one = floatConstant(b, loc, f32, 1.0);
  Value last = indexConstant(b, loc, std::max<int64_t>(scan.steps - 1, 0));
  Value first = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, tile, indexConstant(b, loc, kTile)),
      arith::MulIOp::create(b, loc, laneIndex,
                            indexConstant(b, loc, kStepsPerLane)));
  Tile result;
  for (int64_t j = 0; j < kStepsPerLane; ++j) {
    Value s = arith::AddIOp::create(b, loc, first, indexConstant(b, loc, j));
    result.valid.push_back(
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, s,
                              indexConstant(b, loc, scan.steps)));
    // Past the end, the last step is read and its pair replaced by the
    // identity.
    Value clamped = arith::MinUIOp::create(b, loc, s, last);
    result.times.push_back(
        scan.reverse ? arith::SubIOp::create(b, loc, last, clamped).getResult()
                     : clamped);
    SmallVector<Value> at =
        stepIndices(coords, result.times.back(), coords.back());
    Value a =
        convertFloat(b, loc, memref::LoadOp::create(b, loc, scan.a, at), f32);
    Value x =
        convertFloat(b, loc, memref::LoadOp::create(b, loc, scan.b, at), f32);
    result.steps.push_back(
        {arith::SelectOp::create(b, loc, result.valid.back(), a, one),
         arith::SelectOp::create(b, loc, result.valid.back(), x, zero)});
  }
  Pair inclusive = result.steps.front();
  for (Pair step : ArrayRef(result.steps).drop_front())
    inclusive = compose(b, loc, inclusive, step);
  for (int32_t offset = 1; offset < kWarpSize; offset *= 2) {
    Pair before = shuffle(b, loc, inclusive, offset, gpu::ShuffleMode::UP);
    Pair combined = compose(b, loc, before, inclusive);
    Value takes =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, lane,
                              arith::ConstantIntOp::create(b, loc, offset, 32));
    inclusive = {
        arith::SelectOp::create(b, loc, takes, combined.a, inclusive.a),
        arith::SelectOp::create(b, loc, takes, combined.b, inclusive.b)};
  }
  result.inclusive = inclusive;
  return result;
}

/// Writes the outputs of `tile` from `h`, the state before it.
void emitWrites(OpBuilder &b, Location loc, const WarpScan &scan,
                ValueRange coords, Value lane, const Tile &tile, Value h) {
  Type f32 = b.getF32Type();
  Type outType = cast<MemRefType>(scan.output.getType()).getElementType();
  // The state before the lane's first step: its predecessors' pairs
  // applied to the tile's start state.
  Pair exclusive = shuffle(b, loc, tile.inclusive, 1, gpu::ShuffleMode::UP);
  Value isFirst = isFirstLane(b, loc, lane);
  exclusive = {
      arith::SelectOp::create(b, loc, isFirst, floatConstant(b, loc, f32, 1.0),
                              exclusive.a),
      arith::SelectOp::create(b, loc, isFirst, floatConstant(b, loc, f32, 0.0),
                              exclusive.b)};
  h = apply(b, loc, exclusive, h);
  for (auto [step, isValid, t] :
       llvm::zip(tile.steps, tile.valid, tile.times)) {
    h = apply(b, loc, step, h);
    auto store = scf::IfOp::create(b, loc, isValid, /*else=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&store.getThenRegion().front());
    memref::StoreOp::create(b, loc, convertFloat(b, loc, h, outType),
                            scan.output, stepIndices(coords, t, coords.back()));
  }
}

/// Runs `then` in lane 0 only.
void inFirstLane(OpBuilder &b, Location loc, Value lane,
                 function_ref<void(OpBuilder &)> then) {
  auto branch =
      scf::IfOp::create(b, loc, isFirstLane(b, loc, lane), /*else=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  then(b);
}

/// The f32 state the sequence at `coords` starts from: init's, or zero.
Value initialState(OpBuilder &b, Location loc, const WarpScan &scan,
                   ValueRange coords) {
  if (!scan.init)
    return floatConstant(b, loc, b.getF32Type(), 0.0);
  return convertFloat(b, loc, memref::LoadOp::create(b, loc, scan.init, coords),
                      b.getF32Type());
}

/// Writes the sequence's final state `h` at `coords`.
void writeFinalState(OpBuilder &b, Location loc, const WarpScan &scan,
                     ValueRange coords, Value h) {
  Type type = cast<MemRefType>(scan.finalState.getType()).getElementType();
  memref::StoreOp::create(b, loc, convertFloat(b, loc, h, type),
                          scan.finalState, coords);
}

/// The pair of lanes' pairs composed in lane order, lane 31's first and
/// lane 0's last, in every lane: lane l's pair is that of the chunk l
/// before the look-back's window end, so this is the window's pair.
Pair composeWindow(OpBuilder &b, Location loc, Value lane, Pair pair) {
  // A tree over shuffles down: after `offset`, lane l holds lanes
  // [l, l + 2 offset) composed, the farther ones first.
  for (int32_t offset = 1; offset < kWarpSize; offset *= 2) {
    Pair farther = shuffle(b, loc, pair, offset, gpu::ShuffleMode::DOWN);
    Pair combined = compose(b, loc, farther, pair);
    Value takes = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ult, lane,
        arith::ConstantIntOp::create(b, loc, kWarpSize - offset, 32));
    pair = {arith::SelectOp::create(b, loc, takes, combined.a, pair.a),
            arith::SelectOp::create(b, loc, takes, combined.b, pair.b)};
  }
  return shuffle(b, loc, pair, 0, gpu::ShuffleMode::IDX);
}

/// The least of `value` (i32) over the warp, in every lane.
Value warpMin(OpBuilder &b, Location loc, Value value) {
  for (int32_t offset = kWarpSize / 2; offset > 0; offset /= 2) {
    Value other = gpu::ShuffleOp::create(b, loc, value, offset, kWarpSize,
                                         gpu::ShuffleMode::XOR)
                      .getShuffleResult();
    value = arith::MinUIOp::create(b, loc, value, other);
  }
  return value;
}

/// The state before chunk `chunk` (> 0) of sequence `row`, from the
/// chunks before it (decoupled look-back, a window of 32 chunks at a time):
/// lane l waits for chunk base - 1 - l to publish, takes its end state
/// where it has one (a constant pair (0, H)) and else its pair, lanes past
/// the nearest end state take the identity, and the window's pair is the
/// lanes' pairs composed; the walk goes on to the window before while no
/// lane found an end state. Chunk 0 always publishes one, so the walk ends.
Value lookBack(OpBuilder &b, Location loc, const WarpScan &scan, Value row,
               Value chunk, Value laneIndex, Value lane) {
  Type f32 = b.getF32Type();
  Value zero = floatConstant(b, loc, f32, 0.0);
  Value one = floatConstant(b, loc, f32, 1.0);
  auto walk = scf::WhileOp::create(
      b, loc, TypeRange{f32, f32, b.getIndexType()},
      ValueRange{one, zero, chunk},
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        // args: the pair of the chunks passed so far, and the window's end
        // (0 once an end state was found).
        Value more = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ne,
                                           args[2], indexConstant(b, loc, 0));
        scf::ConditionOp::create(nb, nl, more, args);
      },
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        Value base = args[2];
        Value valid = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult,
                                            laneIndex, base);
        auto read = scf::IfOp::create(
            nb, nl, valid,
            [&](OpBuilder &ib, Location il) {
              Value j = arith::SubIOp::create(
                  ib, il,
                  arith::SubIOp::create(ib, il, base, indexConstant(b, loc, 1)),
                  laneIndex);
              Value status =
                  waitForStatus(ib, il, scan.statuses, ValueRange{j, row});
              auto pair = scf::IfOp::create(
                  ib, il, isStatus(ib, il, status, ChunkStatus::Inclusive),
                  [&](OpBuilder &tb, Location tl) {
                    scf::YieldOp::create(
                        tb, tl,
                        ValueRange{floatConstant(tb, tl, f32, 0.0),
                                   memref::LoadOp::create(tb, tl, scan.carries,
                                                          ValueRange{j, row})});
                  },
                  [&](OpBuilder &eb, Location el) {
                    auto field = [&](int64_t f) -> Value {
                      return memref::LoadOp::create(
                          eb, el, scan.aggregates,
                          ValueRange{
                              j, row,
                              arith::ConstantIndexOp::create(eb, el, f)});
                    };
                    scf::YieldOp::create(eb, el,
                                         ValueRange{field(0), field(1)});
                  });
              scf::YieldOp::create(
                  ib, il,
                  ValueRange{status, pair.getResult(0), pair.getResult(1)});
            },
            [&](OpBuilder &eb, Location el) {
              scf::YieldOp::create(
                  eb, el,
                  ValueRange{statusConstant(eb, el, ChunkStatus::None),
                             floatConstant(eb, el, f32, 1.0),
                             floatConstant(eb, el, f32, 0.0)});
            });
        Value noLane = arith::ConstantIntOp::create(nb, nl, kWarpSize, 32);
        Value nearest =
            warpMin(nb, nl,
                    arith::SelectOp::create(nb, nl,
                                            isStatus(nb, nl, read.getResult(0),
                                                     ChunkStatus::Inclusive),
                                            lane, noLane));
        Value past = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ugt,
                                           lane, nearest);
        Pair pair{arith::SelectOp::create(nb, nl, past,
                                          floatConstant(nb, nl, f32, 1.0),
                                          read.getResult(1)),
                  arith::SelectOp::create(nb, nl, past,
                                          floatConstant(nb, nl, f32, 0.0),
                                          read.getResult(2))};
        Pair passed = compose(nb, nl, composeWindow(nb, nl, lane, pair),
                              {args[0], args[1]});
        Value found = arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::ult,
                                            nearest, noLane);
        Value before = arith::SubIOp::create(
            nb, nl, base,
            arith::MinUIOp::create(nb, nl, base,
                                   indexConstant(b, loc, kWarpSize)));
        scf::YieldOp::create(
            nb, nl,
            ValueRange{passed.a, passed.b,
                       arith::SelectOp::create(
                           nb, nl, found, indexConstant(b, loc, 0), before)});
      });
  // The pair passed maps the found end state's constant pair to the
  // state before this chunk: its offset is that state.
  return walk.getResult(1);
}

/// The lane with global index `global` in `sweep`: warp global / 32 runs
/// chunk (warp mod chunks) of sequence (warp / chunks), in tiles; in one
/// pass, chunk-major (chunk warp / rows of sequence warp mod rows), so that
/// the warps a chunk waits for start before it.
void emitLane(OpBuilder &b, Location loc, const WarpScan &scan, Sweep sweep,
              Value global) {
  Type f32 = b.getF32Type();
  Value warp =
      arith::DivUIOp::create(b, loc, global, indexConstant(b, loc, kWarpSize));
  Value laneIndex =
      arith::RemUIOp::create(b, loc, global, indexConstant(b, loc, kWarpSize));
  Value lane = arith::IndexCastOp::create(b, loc, b.getI32Type(), laneIndex);
  Value row, chunk;
  if (sweep == Sweep::OnePass) {
    row =
        arith::RemUIOp::create(b, loc, warp, indexConstant(b, loc, scan.rows));
    chunk =
        arith::DivUIOp::create(b, loc, warp, indexConstant(b, loc, scan.rows));
  } else {
    row = arith::DivUIOp::create(b, loc, warp,
                                 indexConstant(b, loc, scan.chunks));
    chunk = arith::RemUIOp::create(b, loc, warp,
                                   indexConstant(b, loc, scan.chunks));
  }
  ValueRange coords = sequenceCoords(b, loc, scan.batch, scan.channels, row);
  int64_t tiles = llvm::divideCeil(scan.steps, kTile);
  Value begin = arith::MulIOp::create(b, loc, chunk,
                                      indexConstant(b, loc, scan.chunkTiles));
  Value end = arith::MinUIOp::create(
      b, loc,
      arith::AddIOp::create(b, loc, begin,
                            indexConstant(b, loc, scan.chunkTiles)),
      indexConstant(b, loc, tiles));
  Value zero = floatConstant(b, loc, f32, 0.0);
  Value one = floatConstant(b, loc, f32, 1.0);
  // The chunk's tiles, carrying the chunk's pair so far (`aggregate`), or
  // the state.
  auto walkTiles = [&](bool aggregate, ValueRange start) {
    auto loop = scf::ForOp::create(
        b, loc, begin, end, indexConstant(b, loc, 1), start,
        [&](OpBuilder &nb, Location nl, Value tileIndex, ValueRange carried) {
          Tile tile =
              emitTile(nb, nl, scan, coords, laneIndex, lane, tileIndex);
          // The tile's pair: the last lane's inclusive one.
          Pair whole = shuffle(nb, nl, tile.inclusive, kWarpSize - 1,
                               gpu::ShuffleMode::IDX);
          if (aggregate) {
            Pair total = compose(nb, nl, {carried[0], carried[1]}, whole);
            scf::YieldOp::create(nb, nl, ValueRange{total.a, total.b});
            return;
          }
          emitWrites(nb, nl, scan, coords, lane, tile, carried[0]);
          scf::YieldOp::create(nb, nl, apply(nb, nl, whole, carried[0]));
        });
    // Tiles of 32 x kStepsPerLane steps: a loop of its own, not a time
    // loop to unroll further.
    loop->setAttr(kWarpTilesAttrName, b.getI64IntegerAttr(kTile));
    return loop;
  };
  if (sweep == Sweep::Aggregate) {
    scf::ForOp loop = walkTiles(/*aggregate=*/true, {one, zero});
    inFirstLane(b, loc, lane, [&](OpBuilder &nb) {
      for (int64_t field = 0; field < 2; ++field)
        memref::StoreOp::create(
            nb, loc, loop.getResult(field), scan.aggregates,
            ValueRange{row, chunk, indexConstant(b, loc, field)});
    });
    return;
  }
  Value start;
  if (sweep == Sweep::OnePass) {
    // The chunk's pair, published; its start state (init's for the first
    // chunk, else from the chunks before) and end state, published.
    scf::ForOp loop = walkTiles(/*aggregate=*/true, {one, zero});
    Pair total{loop.getResult(0), loop.getResult(1)};
    Value isFirstChunk = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                               chunk, indexConstant(b, loc, 0));
    auto branch = scf::IfOp::create(
        b, loc, isFirstChunk,
        [&](OpBuilder &nb, Location nl) {
          scf::YieldOp::create(nb, nl, initialState(nb, nl, scan, coords));
        },
        [&](OpBuilder &nb, Location nl) {
          inFirstLane(nb, nl, lane, [&](OpBuilder &fb) {
            Value fields[] = {total.a, total.b};
            for (int64_t field = 0; field < 2; ++field)
              memref::StoreOp::create(
                  fb, nl, fields[field], scan.aggregates,
                  ValueRange{chunk, row,
                             arith::ConstantIndexOp::create(fb, nl, field)});
            publishStatus(fb, nl, scan.statuses, ValueRange{chunk, row},
                          ChunkStatus::Aggregate);
          });
          scf::YieldOp::create(
              nb, nl, lookBack(nb, nl, scan, row, chunk, laneIndex, lane));
        });
    start = branch.getResult(0);
    inFirstLane(b, loc, lane, [&](OpBuilder &nb) {
      memref::StoreOp::create(nb, loc, apply(nb, loc, total, start),
                              scan.carries, ValueRange{chunk, row});
      publishStatus(nb, loc, scan.statuses, ValueRange{chunk, row},
                    ChunkStatus::Inclusive);
    });
  } else if (scan.chunks > 1) {
    start =
        memref::LoadOp::create(b, loc, scan.carries, ValueRange{row, chunk});
  } else {
    start = initialState(b, loc, scan, coords);
  }
  scf::ForOp loop = walkTiles(/*aggregate=*/false, {start});
  if (!scan.finalState)
    return;
  if (scan.chunks == 1) {
    inFirstLane(b, loc, lane, [&](OpBuilder &nb) {
      writeFinalState(nb, loc, scan, coords, loop.getResult(0));
    });
  } else if (sweep == Sweep::OnePass) {
    Value isLast = arith::AndIOp::create(
        b, loc, isFirstLane(b, loc, lane),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, chunk,
                              indexConstant(b, loc, scan.chunks - 1)));
    auto branch = scf::IfOp::create(b, loc, isLast, /*else=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    writeFinalState(b, loc, scan, coords, loop.getResult(0));
  }
}

/// The carry across chunks, a thread per sequence: the state before each
/// chunk from the chunks' pairs, and the final state.
void emitCarry(OpBuilder &b, Location loc, const WarpScan &scan, Value row) {
  ValueRange coords = sequenceCoords(b, loc, scan.batch, scan.channels, row);
  Value h0 = initialState(b, loc, scan, coords);
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, scan.chunks),
      indexConstant(b, loc, 1), ValueRange{h0},
      [&](OpBuilder &nb, Location nl, Value chunk, ValueRange carried) {
        memref::StoreOp::create(nb, nl, carried[0], scan.carries,
                                ValueRange{row, chunk});
        Pair pair{memref::LoadOp::create(
                      nb, nl, scan.aggregates,
                      ValueRange{row, chunk, indexConstant(b, loc, 0)}),
                  memref::LoadOp::create(
                      nb, nl, scan.aggregates,
                      ValueRange{row, chunk, indexConstant(b, loc, 1)})};
        scf::YieldOp::create(nb, nl, apply(nb, nl, pair, carried[0]));
      });
  if (scan.finalState)
    writeFinalState(b, loc, scan, coords, loop.getResult(0));
}

/// The chunks each sequence is split into: enough warps to fill the GPU
/// (kWarpsWanted over all sequences), each chunk whole tiles.
int64_t chunksFor(int64_t rows, int64_t steps) {
  int64_t tiles = std::max<int64_t>(1, llvm::divideCeil(steps, kTile));
  int64_t wanted = llvm::divideCeil(kWarpsWanted, std::max<int64_t>(rows, 1));
  int64_t chunks = std::clamp<int64_t>(wanted, 1, tiles);
  // As many as whole tiles per chunk make (the last chunk possibly short).
  return llvm::divideCeil(tiles, llvm::divideCeil(tiles, chunks));
}
} // namespace

namespace {
/// A buffer of a result's own, of `type`, where the warps write it: with
/// `time` (the steps' dim, or -1 for none) allocated last, so that lanes on
/// consecutive steps write contiguously, viewed in `type`'s dim order.
Value ownBuffer(OpBuilder &b, Location loc, RankedTensorType type,
                int64_t time) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> order = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  if (time >= 0) {
    order.erase(order.begin() + time);
    order.push_back(time);
  }
  Value buffer = memref::AllocOp::create(
      b, loc,
      MemRefType::get(llvm::map_to_vector(
                          order, [&](int64_t d) { return type.getDimSize(d); }),
                      type.getElementType()));
  if (time < 0)
    return buffer;
  // View dim i is allocated dim position(i).
  SmallVector<AffineExpr> dims;
  for (int64_t i = 0; i < rank; ++i)
    dims.push_back(b.getAffineDimExpr(llvm::find(order, i) - order.begin()));
  return memref::TransposeOp::create(
      b, loc, buffer,
      AffineMapAttr::get(AffineMap::get(rank, 0, dims, b.getContext())));
}
} // namespace

StringRef mlir::recurrence::warpScanUnsupportedStructure(ScanOp op) {
  if (op.hasFactoredInput() || op.getReadout() || op.getOffsets())
    return "not a plain input";
  if (!op.getStateType().isF32())
    return "the state is not f32";
  if (!isCompositeByOperand(op, CompositeForm::Diagonal))
    return "not an elementwise first-order structure";
  auto type = cast<RankedTensorType>(op.getInput().getType());
  if (!type.hasStaticShape())
    return "not of static shape";
  int64_t column = unitColumn(op);
  if (column && type.getShape().back() != 1)
    return "a matrix state of more than one column";
  Value a = op.getTransition().front();
  if (cast<RankedTensorType>(a.getType()).getShape() !=
      type.getShape().drop_back(column))
    return "transition and input not of one static shape";
  return "";
}

bool mlir::recurrence::takesWarpScan(ScanOp op) {
  return unsupported(op).empty();
}

LogicalResult mlir::recurrence::lowerScanToWarpScan(RewriterBase &rewriter,
                                                    ScanOp op,
                                                    int64_t lookBackTiles) {
  StringRef reason = unsupported(op);
  if (!reason.empty())
    return rewriter.notifyMatchFailure(op, reason);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t batchRank = op.getBatchRank();
  int64_t column = unitColumn(op);
  Location loc = op.getLoc();
  // Into the caller's buffers where the results are materialized there
  // (written where the later of them was, after the op in its block); else
  // into buffers of the results' own, written where the op was.
  // An output inserted into a longer tensor written into a caller's buffer
  // (the adjoint's mu) goes into that buffer's slice in place.
  std::optional<CallerResults> results =
      column ? std::nullopt : callerResults(op);
  std::optional<InsertedResult> inserted =
      results ? std::nullopt
              : InsertedResult::of(op, op.getOutput(), batchRank);
  rewriter.setInsertionPoint(results    ? results->later()
                             : inserted ? inserted->insert.getOperation()
                                        : op.getOperation());
  SmallVector<Value> owned; // by result, or null
  auto resultBuffer = [&](Value result, bool hasSteps) -> Value {
    if (!result)
      return {};
    owned.push_back(ownBuffer(rewriter, loc,
                              cast<RankedTensorType>(result.getType()),
                              hasSteps ? batchRank : -1));
    return collapseTrailingUnitDims(rewriter, loc, owned.back(), column);
  };
  Value output;
  if (results) {
    output = results->outputBuffer();
  } else if (inserted) {
    output = collapseTrailingUnitDims(
        rewriter, loc, inserted->writeBefore(rewriter, loc), column);
    owned.push_back({});
  } else {
    output = resultBuffer(op.getOutput(), true);
  }
  Value finalState = results ? results->finalStateBuffer()
                             : resultBuffer(op.getFinalState(), false);
  WarpScan scan{op.getReverse(),
                callerView(rewriter, loc, op.getTransition().front()),
                callerView(rewriter, loc, op.getInput(), column),
                op.getInit() ? callerView(rewriter, loc, op.getInit(), column)
                             : Value(),
                output,
                finalState,
                llvm::to_vector(type.getShape().take_front(batchRank)),
                type.getDimSize(batchRank),
                type.getDimSize(batchRank + 1),
                /*rows=*/0,
                /*chunks=*/1,
                /*chunkTiles=*/0,
                /*lookBack=*/false,
                {},
                {},
                {}};
  scan.rows = scan.channels;
  for (int64_t size : scan.batch)
    scan.rows *= size;
  int64_t tiles = llvm::divideCeil(scan.steps, kTile);
  scan.chunks = chunksFor(scan.rows, scan.steps);
  scan.chunkTiles = llvm::divideCeil(tiles, scan.chunks);
  // In one pass, chunks short enough that a chunk's steps are still in L2
  // when its warp reads them again after the look-back (4 tiles: 34 MB
  // over the 64 warps an H100's or H200's SM holds).
  scan.lookBack = scan.chunks > 1 && lookBackTiles > 0;
  if (scan.lookBack) {
    scan.chunkTiles = std::min(scan.chunkTiles, lookBackTiles);
    scan.chunks = llvm::divideCeil(tiles, scan.chunkTiles);
  }
  if (scan.rows > 0) {
    auto warps = [&](Sweep sweep) {
      parallelLoop(rewriter, loc, scan.rows * scan.chunks * kWarpSize,
                   [&](OpBuilder &b, Value global) {
                     emitLane(b, loc, scan, sweep, global);
                   })
          ->setAttr(kWarpLanesAttrName, rewriter.getUnitAttr());
    };
    Type f32 = rewriter.getF32Type();
    if (scan.lookBack) {
      // One kernel: each chunk's pair, published; its start state from
      // the chunks before; its outputs. The second read of a chunk's
      // operands finds them in L2.
      scan.aggregates = memref::AllocOp::create(
          rewriter, loc, MemRefType::get({scan.chunks, scan.rows, 2}, f32));
      scan.carries = memref::AllocOp::create(
          rewriter, loc, MemRefType::get({scan.chunks, scan.rows}, f32));
      scan.statuses = memref::AllocOp::create(
          rewriter, loc, MemRefType::get({scan.chunks, scan.rows}, f32));
      linalg::FillOp::create(rewriter, loc,
                             statusConstant(rewriter, loc, ChunkStatus::None),
                             scan.statuses);
      warps(Sweep::OnePass);
    } else if (scan.chunks > 1) {
      // Each chunk's pair, the carry over chunks, then the outputs from
      // each chunk's start state: the operands are read twice, with
      // enough warps in flight to stream them.
      scan.aggregates = memref::AllocOp::create(
          rewriter, loc, MemRefType::get({scan.rows, scan.chunks, 2}, f32));
      scan.carries = memref::AllocOp::create(
          rewriter, loc, MemRefType::get({scan.rows, scan.chunks}, f32));
      warps(Sweep::Aggregate);
      parallelLoop(rewriter, loc, scan.rows, [&](OpBuilder &b, Value row) {
        emitCarry(b, loc, scan, row);
      });
      warps(Sweep::Write);
    } else {
      warps(Sweep::Write);
    }
  }
  if (results) {
    results->eraseWithScan(rewriter, op);
    return success();
  }
  SmallVector<Value> tensors;
  for (auto [buffer, result] : llvm::zip(owned, op->getResults()))
    // Not writable: bufferization copies it before writing into it, so that
    // a later lowering that reads it as a caller's buffer reads what was
    // written here.
    tensors.push_back(buffer ? bufferization::ToTensorOp::create(
                                   rewriter, loc, result.getType(), buffer,
                                   /*restrict=*/true, /*writable=*/false)
                                   .getResult()
                             : Value());
  if (!inserted) {
    rewriter.replaceOp(op, tensors);
    return success();
  }
  // The output's one use, the insert, becomes the caller's buffer; the
  // final state, if any, is the buffer of its own.
  inserted->replace(rewriter, loc);
  if (Value finalState = op.getFinalState())
    rewriter.replaceAllUsesWith(finalState, tensors.back());
  rewriter.eraseOp(op);
  return success();
}

namespace {
struct GpuWarpScanPass
    : recurrence::impl::GpuWarpScanPassBase<GpuWarpScanPass> {
  using Base::Base;

  void runOnOperation() override {
    // A result inserted into a tensor that is collapsed, then written (the
    // adjoint's mu), is written before the collapse: InsertedResult then
    // finds the caller's buffer in the inserted tensor's shape. Other writes
    // keep their collapse until SinkMaterializeIntoBranches.
    getOperation()->walk([](bufferization::MaterializeInDestinationOp write) {
      writeBeforeCollapse(write, [](tensor::CollapseShapeOp collapse) {
        return isa_and_nonnull<tensor::InsertSliceOp>(
            collapse.getSrc().getDefiningOp());
      });
    });
    lowerSequentialScans(
        getOperation(), [&](RewriterBase &rewriter, ScanOp op) {
          return lowerScanToWarpScan(rewriter, op, lookBackTiles);
        });
  }
};
} // namespace
