//===- GpuBlockRows.cpp - A lane per row of a block of channels
//------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GPU runs a sequential scan with a thread per independent channel
// group. For a structure of m x m blocks (block_diagonal<m>) that thread
// walks the whole block each step, m^2 loads and FMAs in a chain, and there
// are only batch x N/m such threads. This lowering gives every row of a
// block k lanes instead (m / 2, as far as a block fits in a warp), m / k
// columns each: the m k
// lanes of a block sit in one warp; each loads its part of its row of A_t
// (consecutive lanes, consecutive entries) and the row's input, takes the
// state elements of its columns from their rows' lanes by shuffles
// (`gpu.shuffle idx`), and the row's lanes sum their products by butterfly
// (`gpu.shuffle xor`), so that each holds the row's element of the state.
// That is m k times the threads of a thread per block, each with m k times
// less to do.
//
// It applies to first-order structures whose step is their one transition
// operand read as m x m blocks (m dividing the warp), on a vector state with
// a plain input, with static shapes and an f32 state, that read the caller's
// buffers and whose results are materialized in the caller's buffers.
//
//===----------------------------------------------------------------------===//

#include "GpuCallerBuffers.h"

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_GPUBLOCKROWSPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::gpu_lowering;

namespace {
/// Independent partial sums of a row's products: a chain of m FMAs would
/// make each step wait m FMA latencies.
constexpr int64_t kPartialSums = 4;

/// The lanes per row of a block of m: more lanes are more threads, more
/// loads in flight and fewer shuffles each, but a longer butterfly a step.
/// Two columns a lane, as far as a block fits in a warp, ran fastest on the
/// H200 at (B, T, N) = (8, 4096, 512): m = 4, 8, 16 at 2, 4, 2 lanes per
/// row took 0.299, 0.368, 0.692 ms, against 0.352, 0.425, 1.157 at 1, 2, 1
/// and 0.316 at 4 for m = 4.
int64_t lanesPerRow(int64_t m) {
  return std::max<int64_t>(1, std::min(m / 2, kWarpSize / m));
}

/// The scan's buffers and static sizes.
struct BlockRows {
  bool reverse;
  Value a, x, init, output, finalState; // memrefs (init, finalState: or null)
  SmallVector<int64_t> batch;           // static batch sizes
  int64_t steps, channels, block;
  int64_t rows;        // batch elements x channels
  int64_t lanesPerRow; // k lanes per row, m / k columns each
};

/// Why `op` does not take the row lowering, or "" when it does.
StringRef unsupported(ScanOp op) {
  StringRef reason;
  if (failed(CallerResults::of(op, reason)))
    return reason;
  if (!op.getStateType().isF32())
    return "the state is not f32";
  if (!isCompositeByOperand(op, CompositeForm::Blocks))
    return "not a structure of blocks given by its transition operand";
  int64_t m = op.getStructure().getCompositeBlockSize();
  if (m < 2 || m > kWarpSize || kWarpSize % m != 0)
    return "blocks that do not divide a warp";
  auto type = cast<RankedTensorType>(op.getInput().getType());
  auto aType = cast<RankedTensorType>(op.getTransition().front().getType());
  if (!type.hasStaticShape() || !aType.hasStaticShape())
    return "dynamic shapes";
  if (type.getDimSize(op.getBatchRank()) == 0)
    return "no steps";
  SmallVector<int64_t> blocks(type.getShape().drop_back());
  blocks.append({type.getShape().back() / m, m, m});
  if (aType.getShape() != ArrayRef(blocks))
    return "transition not of the input's blocks";
  return "";
}

/// The lane with global index `global`: part global mod k of row
/// min(global / k, rows - 1), for k = lanesPerRow, whose writes only happen
/// where global < k rows. Every lane of a warp runs the shuffles, those past
/// the last row on copies of it.
void emitLane(OpBuilder &b, Location loc, const BlockRows &scan, Value global) {
  Type f32 = b.getF32Type();
  Type i32 = b.getI32Type();
  int64_t m = scan.block, k = scan.lanesPerRow, columns = m / k;
  // Lanes past the last row exist only when the rows do not fill the last
  // warp; they write nothing. Of a row's k lanes, the first writes.
  Value writes;
  auto both = [&](Value condition) {
    writes =
        writes ? arith::AndIOp::create(b, loc, writes, condition) : condition;
  };
  if (scan.rows * k % kWarpSize != 0)
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, global,
                               indexConstant(b, loc, scan.rows * k)));
  Value part = arith::RemUIOp::create(b, loc, global, indexConstant(b, loc, k));
  if (k > 1)
    both(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, part,
                               indexConstant(b, loc, 0)));
  Value row = arith::MinUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, global, indexConstant(b, loc, k)),
      indexConstant(b, loc, scan.rows - 1));
  ValueRange coords = sequenceCoords(b, loc, scan.batch, scan.channels, row);
  Value n = coords.back();
  Value group = arith::DivUIOp::create(b, loc, n, indexConstant(b, loc, m));
  Value inGroup = arith::RemUIOp::create(b, loc, n, indexConstant(b, loc, m));
  // The block's first lane: blocks start at multiples of m k in the warp.
  // Row j's lanes start at first + j k; each holds the row's state.
  Value lane =
      arith::RemUIOp::create(b, loc, global, indexConstant(b, loc, kWarpSize));
  Value first = arith::IndexCastOp::create(
      b, loc, i32,
      arith::SubIOp::create(
          b, loc, lane,
          arith::RemUIOp::create(b, loc, lane, indexConstant(b, loc, m * k))));
  Value firstColumn =
      arith::MulIOp::create(b, loc, part, indexConstant(b, loc, columns));
  Value sourceOffset = arith::MulIOp::create(
      b, loc, arith::IndexCastOp::create(b, loc, i32, firstColumn),
      i32Constant(b, loc, k));
  Value h0 = floatConstant(b, loc, f32, 0.0);
  if (scan.init)
    h0 = convertFloat(b, loc, memref::LoadOp::create(b, loc, scan.init, coords),
                      f32);
  Value last = indexConstant(b, loc, scan.steps - 1);
  Type outType = cast<MemRefType>(scan.output.getType()).getElementType();
  // Products and sums may fuse into FMAs.
  auto contract = arith::FastMathFlags::contract;
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, scan.steps),
      indexConstant(b, loc, 1), ValueRange{h0},
      [&](OpBuilder &nb, Location nl, Value s, ValueRange carried) {
        Value t = scan.reverse ? arith::SubIOp::create(nb, nl, last, s) : s;
        Value x = convertFloat(
            nb, nl,
            memref::LoadOp::create(nb, nl, scan.x, stepIndices(coords, t, n)),
            f32);
        // h_i <- x_i + sum_j A_ij h_j: this lane's columns in kPartialSums
        // interleaved sums, then the row's k lanes' sums by butterfly.
        Value width = i32Constant(nb, loc, kWarpSize);
        Value base = arith::AddIOp::create(nb, nl, first, sourceOffset);
        SmallVector<Value> sums;
        for (int64_t c = 0; c < columns; ++c) {
          Value j = arith::AddIOp::create(nb, nl, firstColumn,
                                          indexConstant(b, loc, c));
          Value aij = convertFloat(
              nb, nl,
              memref::LoadOp::create(
                  nb, nl, scan.a, stepIndices(coords, t, {group, inGroup, j})),
              f32);
          Value source =
              arith::AddIOp::create(nb, nl, base, i32Constant(nb, loc, c * k));
          Value hj = gpu::ShuffleOp::create(nb, nl, carried[0], source, width,
                                            gpu::ShuffleMode::IDX)
                         .getShuffleResult();
          Value product = arith::MulFOp::create(nb, nl, aij, hj, contract);
          int64_t slot = c % kPartialSums;
          if (slot == static_cast<int64_t>(sums.size()))
            sums.push_back(product);
          else
            sums[slot] =
                arith::AddFOp::create(nb, nl, sums[slot], product, contract);
        }
        Value sum = sums.front();
        for (Value other : ArrayRef(sums).drop_front())
          sum = arith::AddFOp::create(nb, nl, sum, other, contract);
        for (int64_t offset = 1; offset < k; offset *= 2) {
          Value other =
              gpu::ShuffleOp::create(nb, nl, sum, i32Constant(nb, loc, offset),
                                     width, gpu::ShuffleMode::XOR)
                  .getShuffleResult();
          sum = arith::AddFOp::create(nb, nl, sum, other);
        }
        Value h = arith::AddFOp::create(nb, nl, x, sum);
        guarded(nb, nl, writes, [&](OpBuilder &wb) {
          memref::StoreOp::create(wb, nl, convertFloat(wb, nl, h, outType),
                                  scan.output, stepIndices(coords, t, n));
        });
        scf::YieldOp::create(nb, nl, h);
      });
  if (scan.finalState)
    guarded(b, loc, writes, [&](OpBuilder &wb) {
      Type type = cast<MemRefType>(scan.finalState.getType()).getElementType();
      memref::StoreOp::create(wb, loc,
                              convertFloat(wb, loc, loop.getResult(0), type),
                              scan.finalState, coords);
    });
}
} // namespace

int64_t mlir::recurrence::blockRowLanes(ScanOp op) {
  if (!unsupported(op).empty())
    return 0;
  auto type = cast<RankedTensorType>(op.getInput().getType());
  return type.getNumElements() / type.getDimSize(op.getBatchRank()) *
         lanesPerRow(op.getStructure().getCompositeBlockSize());
}

LogicalResult mlir::recurrence::lowerScanToBlockRows(RewriterBase &rewriter,
                                                     ScanOp op) {
  StringRef reason = unsupported(op);
  if (!reason.empty())
    return rewriter.notifyMatchFailure(op, reason);
  CallerResults results = *CallerResults::of(op, reason);
  auto type = cast<RankedTensorType>(op.getInput().getType());
  int64_t batchRank = op.getBatchRank();
  BlockRows scan{op.getReverse(),
                 callerBuffer(op.getTransition().front()),
                 callerBuffer(op.getInput()),
                 op.getInit() ? callerBuffer(op.getInit()) : Value(),
                 results.outputBuffer(),
                 results.finalStateBuffer(),
                 llvm::to_vector(type.getShape().take_front(batchRank)),
                 type.getDimSize(batchRank),
                 type.getDimSize(batchRank + 1),
                 op.getStructure().getCompositeBlockSize(),
                 /*rows=*/type.getDimSize(batchRank + 1),
                 /*lanesPerRow=*/1};
  for (int64_t size : scan.batch)
    scan.rows *= size;
  scan.lanesPerRow = lanesPerRow(scan.block);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(results.later());
  if (scan.rows > 0) {
    auto loop = parallelLoop(
        rewriter, loc, llvm::alignTo(scan.rows * scan.lanesPerRow, kWarpSize),
        [&](OpBuilder &b, Value global) { emitLane(b, loc, scan, global); });
    // A warp per block of threads: the rows are few (batch x N), and the
    // blocks then spread over every SM.
    loop->setAttr(kWarpLanesAttrName, rewriter.getI64IntegerAttr(kWarpSize));
  }
  results.eraseWithScan(rewriter, op);
  return success();
}

namespace {
struct GpuBlockRowsPass
    : recurrence::impl::GpuBlockRowsPassBase<GpuBlockRowsPass> {
  void runOnOperation() override {
    lowerSequentialScans(getOperation(), lowerScanToBlockRows);
  }
};
} // namespace
