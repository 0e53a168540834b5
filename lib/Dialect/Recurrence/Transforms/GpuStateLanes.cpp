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
// A diagonal plus low-rank step (dplr<r>: the delta rule's I - beta k k^T
// on a [64, 64] state per head) likewise: a thread per column left 512
// threads walking 64 states each at (8, 2048, 64, 64). Its lanes first add
// the column's r sums w_j = sum_n V[n, j] h[n, d] by butterfly, then each
// updates its states d[n] h + U[n, :] w + b. Where N is a multiple of a
// warp (at most 8 of them), a column takes a whole warp and each lane N / 32
// states, n = lane, lane + 32, ...
//
// Without a readout (the gradient's scans, whose states the transitions'
// gradients read), each lane stores its states every step, into the
// caller's buffer or one of the scan's own that replaces the result.
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
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

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
/// caller's buffer, a view of a readable tensor, or an elementwise op
/// produces it from readable ones.
bool readable(Value tensor) {
  if (callerBuffer(tensor))
    return true;
  if (Value source = viewedTensor(tensor))
    return readable(source);
  linalg::LinalgOp op = elementwiseProducer(tensor);
  return op && llvm::all_of(op.getDpsInputOperands(), [](OpOperand *input) {
           return !isa<RankedTensorType>(input->get().getType()) ||
                  readable(input->get());
         });
}

/// The element of `tensor` (readable) at `indices`: loaded from the
/// caller's buffer, read through the view, or its producer's body applied
/// to its operands' elements.
Value elementAt(OpBuilder &b, Location loc, Value tensor, ValueRange indices) {
  if (Value buffer = callerBuffer(tensor))
    return memref::LoadOp::create(b, loc, buffer, indices);
  if (Value source = viewedTensor(tensor))
    return elementAt(b, loc, source, viewedIndices(b, loc, tensor, indices));
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

/// The most states a lane holds (N / 32, for N a multiple of a warp), and
/// the highest rank of a low-rank term whose sums a step adds by butterfly.
constexpr int64_t kMaxStatesPerLane = 8;
constexpr int64_t kMaxLowRank = 4;

/// The scan's operands, buffers and static sizes.
struct StateLanes {
  ScanOp op;
  Value output, finalState; // the memrefs written (finalState: or null)
  // Whether the results go to buffers of the scan's own rather than the
  // caller's: `output` (null where nothing reads the states) then holds the
  // states column by column, [..., T, D, N] (so that a warp's stores are
  // contiguous), not [..., T, N, D].
  bool ownStates;
  SmallVector<int64_t> batch;
  int64_t steps, states, columns;
  int64_t rows;    // batch elements x columns
  int64_t lanes;   // a column's lanes: min(N, 32)
  int64_t perLane; // the states each lane holds: N / lanes
  int64_t lowRank; // r of A_t = diag(d) + U V^T; 0 for diag(a)
};

/// Why `op` does not take the state lanes, or "" when it does.
StringRef unsupported(ScanOp op) {
  if (!op.getMatrix())
    return "not a matrix state";
  if (op.getOffsets())
    return "packed sequences";
  if (!op.getStateType().isF32())
    return "the state is not f32";
  std::optional<int64_t> lowRank = op.getStructure().getLowRankUpdate();
  if (!lowRank && !isCompositeByOperand(op, CompositeForm::Diagonal))
    return "neither a diagonal step given by its transition operand nor a "
           "diagonal plus low rank";
  if (lowRank && *lowRank > kMaxLowRank)
    return "a low-rank term of too high a rank";
  if (lowRank &&
      (op.getTransition().size() != 3 ||
       op.getStructure().getStateDepth() != 0 ||
       cast<RankedTensorType>(op.getTransition().front().getType()).getRank() !=
           op.getBatchRank() + 2))
    return "a low-rank step not given as d, U, V of a first-order state";
  // A diagonal step's columns split into threads of a state each by tiling
  // where no readout sums them.
  if (!lowRank && !op.getReadout())
    return "a diagonal step without a readout";
  int64_t batchRank = op.getBatchRank();
  auto output = cast<RankedTensorType>(op.getOutput().getType());
  auto source = cast<RankedTensorType>(op.getShapeSource().getType());
  if (!output.hasStaticShape() || !source.hasStaticShape() ||
      (op.getFinalState() &&
       !cast<RankedTensorType>(op.getFinalState().getType()).hasStaticShape()))
    return "dynamic shapes";
  if (op.getReadout() &&
      (output.getRank() != batchRank + 2 ||
       cast<RankedTensorType>(op.getReadout().getType()).getRank() !=
           batchRank + 2))
    return "not a readout of a vector per step";
  int64_t n = source.getDimSize(batchRank + 1);
  if (n < 2 || (n <= kWarpSize
                    ? kWarpSize % n != 0
                    : n % kWarpSize != 0 || n / kWarpSize > kMaxStatesPerLane))
    return "states that neither divide a warp nor fill a few whole warps";
  if (output.getDimSize(batchRank) == 0)
    return "no steps";
  SmallVector<Value> operands(op.getTransition());
  if (op.getReadout())
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
  // The states themselves go to buffers of their own where no caller's
  // buffer takes them.
  StringRef reason;
  if (op.getReadout() && failed(CallerResults::writes(op, reason)))
    return reason;
  return "";
}
} // namespace

namespace {
/// `shape` [..., N, D] as [..., D, N].
SmallVector<int64_t> swapLastTwo(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> swapped(shape);
  std::swap(swapped[swapped.size() - 2], swapped.back());
  return swapped;
}

/// The sum of `value` over a column's `lanes` lanes (aligned within a
/// warp), by butterfly: every one of them gets it.
Value columnSum(OpBuilder &b, Location loc, Value value, int64_t lanes) {
  for (int64_t offset = lanes / 2; offset > 0; offset /= 2)
    value = arith::AddFOp::create(
        b, loc, value,
        gpu::ShuffleOp::create(b, loc, value, i32Constant(b, loc, offset),
                               i32Constant(b, loc, kWarpSize),
                               gpu::ShuffleMode::XOR)
            .getShuffleResult());
  return value;
}

/// sum_i x_i y_i over the `xs` and `ys` of a lane (fused where allowed).
Value dot(OpBuilder &b, Location loc, ValueRange xs, ValueRange ys) {
  auto contract = arith::FastMathFlags::contract;
  Value sum = arith::MulFOp::create(b, loc, xs[0], ys[0]);
  for (auto [x, y] : llvm::zip_equal(xs.drop_front(), ys.drop_front()))
    sum = arith::AddFOp::create(
        b, loc, sum, arith::MulFOp::create(b, loc, x, y, contract), contract);
  return sum;
}

/// Moves the ops of `loop`'s body that read the same at every step (pure
/// ops and loads of buffers other than `written`, all of whose operands
/// come from outside the loop) before it.
void hoistInvariants(scf::ForOp loop, Value written) {
  auto loopLike = cast<LoopLikeOpInterface>(loop.getOperation());
  moveLoopInvariantCode(
      loopLike.getLoopRegions(),
      [&](Value value, Region *) {
        return loopLike.isDefinedOutsideOfLoop(value);
      },
      [&](Operation *inner, Region *) {
        if (auto load = dyn_cast<memref::LoadOp>(inner))
          return load.getMemRef() != written;
        return inner->getNumRegions() == 0 && isPure(inner);
      },
      [&](Operation *inner, Region *) { loopLike.moveOutOfLoop(inner); });
}

/// The lane with global index `global`: lane `l = global mod L` of column
/// min(global / L, rows - 1), L = min(N, 32), holding the states
/// n = l, l + L, ... (N / L of them). Only lanes with global < L rows
/// write (those past it fill the last warp, running on copies of the last
/// column); of a column's lanes, each writes its final states and the
/// first the readout's sum. A low-rank term's r sums V^T h over the column
/// are added by butterfly too, before the step.
/// Returns the loop over the steps.
scf::ForOp emitLane(OpBuilder &b, Location loc, const StateLanes &scan,
                    Value global) {
  ScanOp op = scan.op;
  Type f32 = b.getF32Type();
  int64_t lanes = scan.lanes;
  Value inside;
  if (scan.rows * lanes % kWarpSize != 0)
    inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, global,
                                   indexConstant(b, loc, scan.rows * lanes));
  Value lane =
      arith::RemUIOp::create(b, loc, global, indexConstant(b, loc, lanes));
  // The column's first lane writes the readout's sum.
  Value readoutWrites;
  if (op.getReadout()) {
    readoutWrites = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          lane, indexConstant(b, loc, 0));
    if (inside)
      readoutWrites = arith::AndIOp::create(b, loc, inside, readoutWrites);
  }
  Value row = arith::MinUIOp::create(
      b, loc,
      arith::DivUIOp::create(b, loc, global, indexConstant(b, loc, lanes)),
      indexConstant(b, loc, scan.rows - 1));
  // (batch..., d)
  ValueRange coords = sequenceCoords(b, loc, scan.batch, scan.columns, row);
  Value d = coords.back();
  ValueRange batch = coords.drop_back();
  SmallVector<Value> states = {lane};
  for (int64_t i = 1; i < scan.perLane; ++i)
    states.push_back(
        arith::AddIOp::create(b, loc, lane, indexConstant(b, loc, i * lanes)));
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
  SmallVector<Value> h0;
  for (Value n : states)
    h0.push_back(op.getInit() ? read(b, op.getInit(), at({n, d}, {}))
                              : floatConstant(b, loc, f32, 0.0));
  Value last = indexConstant(b, loc, scan.steps - 1);
  Type outType = op.getOutput().getType().getElementType();
  auto contract = arith::FastMathFlags::contract;
  ValueRange transition = op.getTransition();
  bool perElement =
      cast<RankedTensorType>(transition.front().getType()).getRank() ==
      op.getBatchRank() + 3;
  auto loop = scf::ForOp::create(
      b, loc, indexConstant(b, loc, 0), indexConstant(b, loc, scan.steps),
      indexConstant(b, loc, 1), h0,
      [&](OpBuilder &nb, Location nl, Value s, ValueRange carried) {
        Value t = op.getReverse() ? arith::SubIOp::create(nb, nl, last, s) : s;
        // w_j = sum_n V[n, j] h[n] over the column, from the state before
        // the step.
        SmallVector<Value> sums;
        for (int64_t j = 0; j < scan.lowRank; ++j) {
          Value rank = indexConstant(nb, nl, j);
          SmallVector<Value> factors;
          for (Value n : states)
            factors.push_back(read(nb, transition[2], at({n, rank}, t)));
          sums.push_back(
              columnSum(nb, nl, dot(nb, nl, factors, carried), lanes));
        }
        SmallVector<Value> next;
        for (auto [n, h] : llvm::zip_equal(states, carried)) {
          Value a = read(nb, transition.front(),
                         perElement ? at({n, d}, t) : at({n}, t));
          Value x =
              op.hasFactoredInput()
                  ? arith::MulFOp::create(
                        nb, nl, read(nb, op.getInputKey(), at({n}, t)),
                        read(nb, op.getInputValue(), at({d}, t)), contract)
                  : read(nb, op.getInput(), at({n, d}, t));
          for (auto [j, w] : llvm::enumerate(sums)) {
            Value u =
                read(nb, transition[1], at({n, indexConstant(nb, nl, j)}, t));
            x = arith::AddFOp::create(
                nb, nl, x, arith::MulFOp::create(nb, nl, u, w, contract),
                contract);
          }
          next.push_back(arith::AddFOp::create(
              nb, nl, arith::MulFOp::create(nb, nl, a, h, contract), x,
              contract));
        }
        if (!op.getReadout()) {
          if (scan.output)
            guarded(nb, nl, inside, [&](OpBuilder &wb) {
              for (auto [n, h] : llvm::zip_equal(states, next))
                memref::StoreOp::create(
                    wb, nl, convertFloat(wb, nl, h, outType), scan.output,
                    scan.ownStates ? at({d, n}, t) : at({n, d}, t));
            });
          scf::YieldOp::create(nb, nl, next);
          return;
        }
        // y_t[d] = sum_n c_t[n] h_t[n, d], over the column's lanes; the
        // column's first lane writes it.
        SmallVector<Value> readout;
        for (Value n : states)
          readout.push_back(read(nb, op.getReadout(), at({n}, t)));
        Value sum = columnSum(nb, nl, dot(nb, nl, readout, next), lanes);
        guarded(nb, nl, readoutWrites, [&](OpBuilder &wb) {
          memref::StoreOp::create(wb, nl, convertFloat(wb, nl, sum, outType),
                                  scan.output, at({d}, t));
        });
        scf::YieldOp::create(nb, nl, next);
      });
  if (scan.finalState)
    guarded(b, loc, inside, [&](OpBuilder &wb) {
      Type type = cast<MemRefType>(scan.finalState.getType()).getElementType();
      for (auto [n, h] : llvm::zip_equal(states, loop.getResults()))
        memref::StoreOp::create(wb, loc, convertFloat(wb, loc, h, type),
                                scan.finalState, at({n, d}, {}));
    });
  return loop;
}
} // namespace

LogicalResult mlir::recurrence::lowerScanToStateLanes(RewriterBase &rewriter,
                                                      ScanOp op) {
  StringRef reason = unsupported(op);
  if (!reason.empty())
    return rewriter.notifyMatchFailure(op, reason);
  auto output = cast<RankedTensorType>(op.getOutput().getType());
  int64_t batchRank = op.getBatchRank();
  Location loc = op.getLoc();
  // The caller's buffers that the results are written into, or (the
  // states, which a gradient reads) buffers of their own, read as tensors.
  FailureOr<CallerResults> results = CallerResults::writes(op, reason);
  Value outputBuffer, finalStateBuffer;
  if (succeeded(results)) {
    outputBuffer = results->outputBuffer();
    finalStateBuffer = results->finalStateBuffer();
    rewriter.setInsertionPoint(results->later());
  } else {
    rewriter.setInsertionPoint(op);
    auto own = [&](ArrayRef<int64_t> shape, Type type) -> Value {
      return memref::AllocOp::create(rewriter, loc,
                                     MemRefType::get(shape, type));
    };
    // (States that nothing reads, where only the final state is, are not
    // stored.)
    if (!op.getOutput().use_empty())
      outputBuffer =
          own(swapLastTwo(output.getShape()), output.getElementType());
    if (op.getFinalState() && !op.getFinalState().use_empty()) {
      auto type = cast<RankedTensorType>(op.getFinalState().getType());
      finalStateBuffer = own(type.getShape(), type.getElementType());
    }
  }
  int64_t states = cast<RankedTensorType>(op.getShapeSource().getType())
                       .getDimSize(batchRank + 1);
  int64_t lanes = std::min(states, kWarpSize);
  StateLanes scan{op,
                  outputBuffer,
                  finalStateBuffer,
                  /*ownStates=*/failed(results),
                  llvm::to_vector(output.getShape().take_front(batchRank)),
                  output.getDimSize(batchRank),
                  states,
                  output.getShape().back(),
                  /*rows=*/output.getShape().back(),
                  lanes,
                  states / lanes,
                  op.getStructure().getLowRankUpdate().value_or(0)};
  for (int64_t size : scan.batch)
    scan.rows *= size;
  if (scan.rows > 0) {
    scf::ForOp steps;
    auto loop = parallelLoop(rewriter, loc,
                             llvm::alignTo(scan.rows * scan.lanes, kWarpSize),
                             [&](OpBuilder &b, Value global) {
                               steps = emitLane(b, loc, scan, global);
                             });
    // What a lane reads at every step alike (A[d, n]) is read once, before
    // its steps: the caller's buffers it reads are not the ones it writes.
    hoistInvariants(steps, scan.output);
    // Whole warps: a column's lanes shuffle.
    loop->setAttr(kWarpLanesAttrName, rewriter.getUnitAttr());
  }
  if (succeeded(results)) {
    results->eraseWithScan(rewriter, op);
    return success();
  }
  // The states read back in their order by one transpose, which writes
  // wherever the result goes (the adjoint's stack of shifted states).
  auto read = [&](Value buffer, ArrayRef<int64_t> shape) -> Value {
    return bufferization::ToTensorOp::create(
        rewriter, loc, RankedTensorType::get(shape, output.getElementType()),
        buffer, /*restrict=*/true, /*writable=*/false);
  };
  if (outputBuffer) {
    SmallVector<int64_t> swap =
        swapLastTwo(llvm::to_vector(llvm::seq<int64_t>(0, output.getRank())));
    Value ordered =
        linalg::TransposeOp::create(
            rewriter, loc, read(outputBuffer, swapLastTwo(output.getShape())),
            tensor::EmptyOp::create(rewriter, loc, output.getShape(),
                                    output.getElementType()),
            swap)
            ->getResult(0);
    rewriter.replaceAllUsesWith(op.getOutput(), ordered);
  }
  if (finalStateBuffer)
    rewriter.replaceAllUsesWith(
        op.getFinalState(),
        read(finalStateBuffer,
             cast<RankedTensorType>(op.getFinalState().getType()).getShape()));
  rewriter.eraseOp(op);
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
