//===- GpuStateLanes.cpp - A lane per state of a matrix scan's column -----===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A diagonal scan of a matrix state [N, D] with a readout (the selective
// SSM: y_t[d] = sum_n c_t[n] h_t[n, d]) cannot split its N states over
// threads through tiling, since the readout sums them: the sequential
// lowering gives a thread each column, holding the column's N states, and
// at Mamba's shapes that is 3072 threads loading 2 N + 2 operands a step
// on a GPU that holds a quarter million. This lowering gives every state
// of a column a lane of its own instead: the column's N lanes (N dividing
// a warp) sit in one warp, each updates its state h[n, d] from its own
// loads, and the readout's products are added by butterfly
// (`gpu.shuffle xor`) within the column's lanes, whose first writes y_t[d].
//
// The operands are read where the caller's buffers hold them, or computed
// from those buffers where an elementwise linalg op produces them (the
// SSM's gates exp(delta A) and inputs delta x), element by element in the
// lane that reads them: no [B, T, N, D] tensor exists.
//
//===----------------------------------------------------------------------===//

#include "GpuCallerBuffers.h"

#include "recurrence/Dialect/Recurrence/Transforms/Lowerings.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::recurrence {
#define GEN_PASS_DEF_GPUSTATELANESPASS
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"
} // namespace mlir::recurrence

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::gpu_lowering;

namespace {
/// The elementwise linalg op that produces `tensor` from operands each of
/// which is read element by element (a projected permutation of its
/// loops, its output's loops being the result's dims: an identity map,
/// which leaves no loop to reduce), or null.
linalg::LinalgOp elementwiseProducer(Value tensor) {
  auto op = tensor.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op->getNumResults() != 1 ||
      op.hasIndexSemantics() ||
      !op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity() ||
      !op.getMatchingBlockArgument(op.getDpsInitOperand(0)).use_empty())
    return {};
  for (OpOperand *input : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(input).isProjectedPermutation())
      return {};
  bool pure = llvm::all_of(op.getBlock()->without_terminator(),
                           [](Operation &inner) { return isPure(&inner); });
  return pure ? op : linalg::LinalgOp();
}

/// Whether each element of `tensor` can be read (elementAt): it is a
/// caller's buffer, or an elementwise op produces it from such.
bool readable(Value tensor) {
  if (callerBuffer(tensor))
    return true;
  linalg::LinalgOp op = elementwiseProducer(tensor);
  return op && llvm::all_of(op.getDpsInputOperands(), [](OpOperand *input) {
           return !isa<RankedTensorType>(input->get().getType()) ||
                  readable(input->get());
         });
}

/// The element of `tensor` (readable) at `indices`: loaded from the
/// caller's buffer, or its producer's body applied to its operands'
/// elements.
Value elementAt(OpBuilder &b, Location loc, Value tensor, ValueRange indices) {
  if (Value buffer = callerBuffer(tensor))
    return memref::LoadOp::create(b, loc, buffer, indices);
  linalg::LinalgOp op = elementwiseProducer(tensor);
  IRMapping values;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value operand = input->get();
    Value element = operand;
    if (isa<RankedTensorType>(operand.getType())) {
      SmallVector<Value> at;
      for (AffineExpr result : op.getMatchingIndexingMap(input).getResults())
        at.push_back(indices[cast<AffineDimExpr>(result).getPosition()]);
      element = elementAt(b, loc, operand, at);
    }
    values.map(op.getMatchingBlockArgument(input), element);
  }
  for (Operation &inner : op.getBlock()->without_terminator())
    b.clone(inner, values);
  return values.lookupOrDefault(op.getBlock()->getTerminator()->getOperand(0));
}

/// The scan's operands, buffers and static sizes.
struct StateLanes {
  ScanOp op;
  Value output, finalState; // the caller's memrefs (finalState: or null)
  SmallVector<int64_t> batch;
  int64_t steps, states, columns;
  int64_t rows; // batch elements x columns
};

/// Why `op` does not take the state lanes, or "" when it does.
StringRef unsupported(ScanOp op) {
  if (!op.getMatrix() || !op.getReadout())
    return "not a matrix state with a readout";
  if (op.getOffsets())
    return "packed sequences";
  if (!op.getStateType().isF32())
    return "the state is not f32";
  if (!isCompositeByOperand(op, CompositeForm::Diagonal))
    return "not a diagonal step given by its transition operand";
  int64_t batchRank = op.getBatchRank();
  auto output = cast<RankedTensorType>(op.getOutput().getType());
  auto source = cast<RankedTensorType>(op.getShapeSource().getType());
  auto readout = cast<RankedTensorType>(op.getReadout().getType());
  if (!output.hasStaticShape() || !source.hasStaticShape())
    return "dynamic shapes";
  if (output.getRank() != batchRank + 2 || readout.getRank() != batchRank + 2)
    return "not a readout of a vector per step";
  int64_t n = source.getDimSize(batchRank + 1);
  if (n < 2 || n > kWarpSize || kWarpSize % n != 0)
    return "states that do not divide a warp";
  if (output.getDimSize(batchRank) == 0)
    return "no steps";
  SmallVector<Value> operands(op.getTransition());
  operands.push_back(op.getReadout());
  if (op.hasFactoredInput())
    llvm::append_range(operands,
                       ValueRange{op.getInputKey(), op.getInputValue()});
  else
    operands.push_back(op.getInput());
  if (op.getInit())
    operands.push_back(op.getInit());
  if (!llvm::all_of(operands, readable))
    return "operands neither the caller's buffers nor computed from them "
           "element by element";
  StringRef reason;
  if (failed(CallerResults::writes(op, reason)))
    return reason;
  return "";
}
} // namespace

namespace {
/// The lane with global index `global`: state `global mod N` of column
/// min(global / N, rows - 1). Only lanes with global < N rows write (those
/// past it fill the last warp, running on copies of the last column); of
/// a column's N lanes, each writes its final state and the first the
/// readout's sum.
void emitLane(OpBuilder &b, Location loc, const StateLanes &scan,
              Value global) {
  ScanOp op = scan.op;
  Type f32 = b.getF32Type();
  int64_t n = scan.states;
  Value inside;
  if (scan.rows * n % kWarpSize != 0)
    inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, global,
                                   indexConstant(b, loc, scan.rows * n));
  Value state =
      arith::RemUIOp::create(b, loc, global, indexConstant(b, loc, n));
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, state,
                                      indexConstant(b, loc, 0));
  Value readoutWrites =
      inside ? arith::AndIOp::create(b, loc, inside, first) : first;
  Value row = arith::MinUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, global, indexConstant(b, loc, n)),
      indexConstant(b, loc, scan.rows - 1));
  // (batch..., d)
  ValueRange coords = sequenceCoords(b, loc, scan.batch, scan.columns, row);
  Value d = coords.back();
  ValueRange batch = coords.drop_back();
  auto at = [&](ValueRange rest, Value t) {
    SmallVector<Value> indices(batch);
    if (t)
      indices.push_back(t);
    llvm::append_range(indices, rest);
    return indices;
  };
  auto read = [&](OpBuilder &nb, Value tensor, SmallVector<Value> indices) {
    return convertFloat(nb, loc, elementAt(nb, loc, tensor, indices), f32);
  };
  Value h0 = op.getInit() ? read(b, op.getInit(), at({state, d}, {}))
                          : floatConstant(b, loc, f32, 0.0);
  Value last = indexConstant(b, loc, scan.steps - 1);
  Type outType = cast<MemRefType>(scan.output.getType()).getElementType();
  auto contract = arith::FastMathFlags::contract;
  Value transition = op.getTransition().front();
  bool perElement = cast<RankedTensorType>(transition.getType()).getRank() ==
                    op.getBatchRank() + 3;
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, scan.steps),
      indexConstant(b, loc, 1), ValueRange{h0},
      [&](OpBuilder &nb, Location nl, Value s, ValueRange carried) {
        Value t = op.getReverse() ? arith::SubIOp::create(nb, nl, last, s) : s;
        Value a = read(nb, transition,
                       perElement ? at({state, d}, t) : at({state}, t));
        Value x = op.hasFactoredInput()
                      ? arith::MulFOp::create(
                            nb, nl, read(nb, op.getInputKey(), at({state}, t)),
                            read(nb, op.getInputValue(), at({d}, t)), contract)
                      : read(nb, op.getInput(), at({state, d}, t));
        Value h = arith::AddFOp::create(
            nb, nl, arith::MulFOp::create(nb, nl, a, carried[0], contract), x,
            contract);
        // y_t[d] = sum_n c_t[n] h_t[n, d], over the column's lanes.
        Value sum = arith::MulFOp::create(
            nb, nl, read(nb, op.getReadout(), at({state}, t)), h);
        for (int64_t offset = n / 2; offset > 0; offset /= 2)
          sum = arith::AddFOp::create(
              nb, nl, sum,
              gpu::ShuffleOp::create(nb, nl, sum, i32Constant(nb, loc, offset),
                                     i32Constant(nb, loc, kWarpSize),
                                     gpu::ShuffleMode::XOR)
                  .getShuffleResult());
        guarded(nb, nl, readoutWrites, [&](OpBuilder &wb) {
          memref::StoreOp::create(wb, nl, convertFloat(wb, nl, sum, outType),
                                  scan.output, at({d}, t));
        });
        scf::YieldOp::create(nb, nl, h);
      });
  // What a lane reads at every step alike (A[d, n]) is read once, before
  // its steps: the caller's buffers it reads are not the ones it writes.
  for (auto load :
       llvm::make_early_inc_range(loop.getBody()->getOps<memref::LoadOp>()))
    if (load.getMemRef() != scan.output &&
        llvm::all_of(load->getOperands(), [&](Value operand) {
          // (The enclosing loop is still being built: no region ancestry.)
          if (auto argument = dyn_cast<BlockArgument>(operand))
            return argument.getOwner() != loop.getBody();
          return !loop->isProperAncestor(operand.getDefiningOp());
        }))
      load->moveBefore(loop);
  if (scan.finalState)
    guarded(b, loc, inside, [&](OpBuilder &wb) {
      Type type = cast<MemRefType>(scan.finalState.getType()).getElementType();
      memref::StoreOp::create(wb, loc,
                              convertFloat(wb, loc, loop.getResult(0), type),
                              scan.finalState, at({state, d}, {}));
    });
}
} // namespace

LogicalResult mlir::recurrence::lowerScanToStateLanes(RewriterBase &rewriter,
                                                      ScanOp op) {
  StringRef reason = unsupported(op);
  if (!reason.empty())
    return rewriter.notifyMatchFailure(op, reason);
  auto output = cast<RankedTensorType>(op.getOutput().getType());
  int64_t batchRank = op.getBatchRank();
  CallerResults results = *CallerResults::writes(op, reason);
  StateLanes scan{op,
                  results.outputBuffer(),
                  results.finalStateBuffer(),
                  llvm::to_vector(output.getShape().take_front(batchRank)),
                  output.getDimSize(batchRank),
                  cast<RankedTensorType>(op.getShapeSource().getType())
                      .getDimSize(batchRank + 1),
                  output.getDimSize(batchRank + 1),
                  /*rows=*/output.getDimSize(batchRank + 1)};
  for (int64_t size : scan.batch)
    scan.rows *= size;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(results.later());
  if (scan.rows > 0) {
    auto loop = parallelLoop(
        rewriter, loc, llvm::alignTo(scan.rows * scan.states, kWarpSize),
        [&](OpBuilder &b, Value global) { emitLane(b, loc, scan, global); });
    // Whole warps: a column's lanes shuffle.
    loop->setAttr(kWarpLanesAttrName, rewriter.getUnitAttr());
  }
  results.eraseWithScan(rewriter, op);
  return success();
}

namespace {
struct GpuStateLanesPass
    : recurrence::impl::GpuStateLanesPassBase<GpuStateLanesPass> {
  void runOnOperation() override {
    lowerSequentialScans(getOperation(), lowerScanToStateLanes);
  }
};
} // namespace
