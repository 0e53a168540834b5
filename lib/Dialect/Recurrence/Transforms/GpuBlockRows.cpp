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
// block a lane of its own instead: the m lanes of a block sit in one warp,
// each loads its row of A_t (m contiguous values, a warp's rows one
// contiguous run) and its input, takes the block's state from its
// neighbours by shuffles (`gpu.shuffle idx`), and keeps its own element of
// the state. That is m times the threads, each with m times less to do.
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
constexpr int64_t kWarpSize = 32;
/// Independent partial sums of a row's products: a chain of m FMAs would
/// make each step wait m FMA latencies.
constexpr int64_t kPartialSums = 4;

/// The scan's buffers and static sizes.
struct BlockRows {
  bool reverse;
  Value a, x, init, output, finalState; // memrefs (init, finalState: or null)
  SmallVector<int64_t> batch;           // static batch sizes
  int64_t steps, channels, block;
  int64_t rows; // batch elements x channels, a lane each
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

/// The indices [batch..., t, rest...] of step `t` at `coords` (batch...,
/// n) with n replaced by `rest`.
SmallVector<Value> stepIndices(ValueRange coords, Value t, ValueRange rest) {
  SmallVector<Value> indices(coords.drop_back());
  indices.push_back(t);
  llvm::append_range(indices, rest);
  return indices;
}

/// Runs `then` only where `valid` holds, or always when it is null.
void guarded(OpBuilder &b, Location loc, Value valid,
             function_ref<void(OpBuilder &)> then) {
  if (!valid)
    return then(b);
  auto branch = scf::IfOp::create(b, loc, valid, /*else=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  then(b);
}

/// The lane with global index `global`: row min(global, rows - 1), whose
/// writes only happen where global < rows. Every lane of a warp runs the
/// shuffles, those past the last row on copies of it.
void emitLane(OpBuilder &b, Location loc, const BlockRows &scan, Value global) {
  Type f32 = b.getF32Type();
  Type i32 = b.getI32Type();
  int64_t m = scan.block;
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  // Lanes past the last row exist only when the rows do not fill the last
  // warp; they write nothing.
  Value valid;
  if (scan.rows % kWarpSize != 0)
    valid = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, global,
                                  index(scan.rows));
  Value row = arith::MinUIOp::create(b, loc, global, index(scan.rows - 1));
  SmallVector<int64_t> basis(scan.batch);
  basis.push_back(scan.channels);
  ValueRange coords = affine::AffineDelinearizeIndexOp::create(
                          b, loc, row, basis, /*hasOuterBound=*/true)
                          .getResults();
  Value n = coords.back();
  Value group = arith::DivUIOp::create(b, loc, n, index(m));
  Value inGroup = arith::RemUIOp::create(b, loc, n, index(m));
  // The block's first lane: rows start at multiples of m in the warp.
  Value lane = arith::RemUIOp::create(b, loc, global, index(kWarpSize));
  Value first = arith::IndexCastOp::create(
      b, loc, i32,
      arith::SubIOp::create(b, loc, lane,
                            arith::RemUIOp::create(b, loc, lane, index(m))));
  Value h0 = floatConstant(b, loc, f32, 0.0);
  if (scan.init)
    h0 = convertFloat(b, loc, memref::LoadOp::create(b, loc, scan.init, coords),
                      f32);
  Value last = index(scan.steps - 1);
  Type outType = cast<MemRefType>(scan.output.getType()).getElementType();
  // Products and sums may fuse into FMAs.
  auto contract = arith::FastMathFlags::contract;
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(scan.steps), index(1), ValueRange{h0},
      [&](OpBuilder &nb, Location nl, Value s, ValueRange carried) {
        Value t = scan.reverse ? arith::SubIOp::create(nb, nl, last, s) : s;
        Value x = convertFloat(
            nb, nl,
            memref::LoadOp::create(nb, nl, scan.x, stepIndices(coords, t, n)),
            f32);
        // h_i <- x_i + sum_j A_ij h_j, in kPartialSums interleaved sums.
        SmallVector<Value> sums;
        for (int64_t j = 0; j < m; ++j) {
          Value aij = convertFloat(
              nb, nl,
              memref::LoadOp::create(
                  nb, nl, scan.a,
                  stepIndices(coords, t, {group, inGroup, index(j)})),
              f32);
          Value source = arith::AddIOp::create(
              nb, nl, first, arith::ConstantIntOp::create(nb, nl, j, 32));
          Value hj = gpu::ShuffleOp::create(
                         nb, nl, carried[0], source,
                         arith::ConstantIntOp::create(nb, nl, kWarpSize, 32),
                         gpu::ShuffleMode::IDX)
                         .getShuffleResult();
          Value product = arith::MulFOp::create(nb, nl, aij, hj, contract);
          int64_t k = j % kPartialSums;
          if (k == static_cast<int64_t>(sums.size()))
            sums.push_back(product);
          else
            sums[k] = arith::AddFOp::create(nb, nl, sums[k], product, contract);
        }
        Value h = x;
        for (Value sum : sums)
          h = arith::AddFOp::create(nb, nl, h, sum, contract);
        guarded(nb, nl, valid, [&](OpBuilder &wb) {
          memref::StoreOp::create(wb, nl, convertFloat(wb, nl, h, outType),
                                  scan.output, stepIndices(coords, t, n));
        });
        scf::YieldOp::create(nb, nl, h);
      });
  if (scan.finalState)
    guarded(b, loc, valid, [&](OpBuilder &wb) {
      Type type = cast<MemRefType>(scan.finalState.getType()).getElementType();
      memref::StoreOp::create(wb, loc,
                              convertFloat(wb, loc, loop.getResult(0), type),
                              scan.finalState, coords);
    });
}
} // namespace

bool mlir::recurrence::takesBlockRows(ScanOp op) {
  return unsupported(op).empty();
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
                 /*rows=*/type.getDimSize(batchRank + 1)};
  for (int64_t size : scan.batch)
    scan.rows *= size;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(results.later());
  if (scan.rows > 0) {
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value lanes = arith::ConstantIndexOp::create(
        rewriter, loc, llvm::alignTo(scan.rows, kWarpSize));
    auto loop = scf::ParallelOp::create(
        rewriter, loc, ValueRange{zero}, ValueRange{lanes}, ValueRange{one},
        [&](OpBuilder &b, Location, ValueRange ivs) {
          emitLane(b, loc, scan, ivs[0]);
        });
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
    // Collected first: a rewrite also erases the results' writes after the
    // op, which a walk would visit next.
    SmallVector<ScanOp> scans;
    getOperation()->walk([&](ScanOp op) {
      if (op.getScheduleOrAuto().getKind() == ScheduleKind::Sequential)
        scans.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (ScanOp op : scans)
      (void)lowerScanToBlockRows(rewriter, op);
  }
};
} // namespace
