//===- GpuCallerBuffers.h - Scans that read and write the caller's memrefs ===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The GPU lowerings that bypass the tensor path (a warp per sequence, a lane
// per block row) read a scan's operands from the caller's memrefs and write
// its results into them directly, before bufferization. These helpers find
// those memrefs and build the few scalar conversions the lowerings share.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_LIB_TRANSFORMS_GPUCALLERBUFFERS_H
#define RECURRENCE_LIB_TRANSFORMS_GPUCALLERBUFFERS_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence::gpu_lowering {

/// The lanes of a warp, which shuffles exchange values among.
inline constexpr int64_t kWarpSize = 32;

/// The caller's buffer that `value` reads in place, or null.
Value callerBuffer(Value value);

/// Whether dim `dim` of buffers of `type` has a static unit stride.
bool isContiguousAlong(MemRefType type, int64_t dim);

/// The tensor that `view` shows in place: the source of an extract_slice
/// that keeps its rank, of an expand_shape or of a collapse_shape; else
/// null. (The adjoint reads its operands shifted by a step, dplr's factors
/// as [..., N, 1].)
Value viewedTensor(Value view);

/// The indices into viewedTensor(`view`) of `view`'s element at `indices`,
/// built at the builder's point.
SmallVector<Value> viewedIndices(OpBuilder &b, Location loc, Value view,
                                 ValueRange indices);

/// The type of the view of the caller's buffer that `tensor` is: the
/// memref of a `bufferization.to_tensor`, through the tensor views between
/// (extract_slice without rank reduction, expand_shape, collapse_shape),
/// with its last `dropUnitDims` dims (of one element) collapsed into the
/// one before; failure where it is no such view.
FailureOr<MemRefType> callerViewType(Value tensor, int64_t dropUnitDims = 0);

/// Builds that view (callerViewType succeeded) at the builder's point.
Value callerView(OpBuilder &b, Location loc, Value tensor,
                 int64_t dropUnitDims = 0);

/// `buffer` with its last `count` dims (of one element) collapsed into the
/// one before.
Value collapseTrailingUnitDims(OpBuilder &b, Location loc, Value buffer,
                               int64_t count);

/// The caller's buffer that `result`'s one use materializes it in, or null.
bufferization::MaterializeInDestinationOp callerDestination(Value result);

/// The writes of a scan's results into the caller's buffers.
struct CallerResults {
  bufferization::MaterializeInDestinationOp output, finalState; // or null

  /// The results' writes, when `op` (a vector-state scan) reads its
  /// transitions, input and init from the caller's buffers and its results
  /// are materialized in the caller's buffers in its block; else the reason
  /// it does not qualify.
  static FailureOr<CallerResults> of(ScanOp op, StringRef &reason);
  /// The results' writes alone: where `op`'s results are materialized in
  /// the caller's buffers in its block; else the reason they are not.
  static FailureOr<CallerResults> writes(ScanOp op, StringRef &reason);

  Value outputBuffer() { return output.getDest(); }
  Value finalStateBuffer() {
    return finalState ? finalState.getDest() : Value();
  }
  /// The later of the writes: where code that replaces them goes.
  Operation *later() const;
  /// Erases the writes and `op`, once code writing the buffers replaced them.
  void eraseWithScan(RewriterBase &rewriter, ScanOp op) const;
};

/// A result inserted into a longer tensor that is then materialized in a
/// caller's buffer (the adjoint's mu: the reverse scan's steps, with the
/// last step's cotangent inserted after them, written for b's gradient;
/// writeBeforeCollapse has made the buffer the inserted tensor's shape).
/// A lowering writes the result into that buffer's slice in place, and the
/// parts inserted before it (into an empty tensor) beside it.
struct InsertedResult {
  tensor::InsertSliceOp insert; // the result's one use
  /// The inserts that `insert`'s destination chains, from the empty tensor.
  SmallVector<tensor::InsertSliceOp> before;
  bufferization::MaterializeInDestinationOp write; // of insert's result

  /// `result`'s insertion, where its one use inserts it (static slice, unit
  /// strides) into a chain of inserts into an empty tensor whose result is
  /// written into a caller's buffer of its shape defined before `op`, in
  /// `op`'s block, contiguous along `time`; else none.
  static std::optional<InsertedResult> of(Operation *op, Value result,
                                          int64_t time);

  /// At `insert`: the parts inserted before written into the caller's
  /// buffer; returns the view of `insert`'s slice of it.
  Value writeBefore(OpBuilder &b, Location loc);
  /// Replaces the inserted tensor by the caller's buffer, which now holds
  /// it, and erases the inserts and the write.
  void replace(RewriterBase &rewriter, Location loc);
};

/// `value` (of a float type) as float `type`.
Value convertFloat(OpBuilder &b, Location loc, Value value, Type type);

/// Builds `then` where `valid` holds (an scf.if), or unguarded where it is
/// null.
void guarded(OpBuilder &b, Location loc, Value valid,
             function_ref<void(OpBuilder &)> then);

/// A float constant of `type`.
Value floatConstant(OpBuilder &b, Location loc, Type type, double value);

/// An index constant.
Value indexConstant(OpBuilder &b, Location loc, int64_t value);

/// An i32 constant (a shuffle's offset, width or lane).
Value i32Constant(OpBuilder &b, Location loc, int64_t value);

/// Whether `op`'s structure composes the step from its one transition
/// operand as it is (its composite of one step is that operand), in the
/// given form. `op` is not changed.
bool isCompositeByOperand(ScanOp op, CompositeForm form);

/// The coordinates (batch..., n) of sequence `row` of a scan with static
/// `batch` sizes and `channels`, batch elements outermost.
ValueRange sequenceCoords(OpBuilder &b, Location loc, ArrayRef<int64_t> batch,
                          int64_t channels, Value row);

/// The indices [batch..., t, rest...] of step `t` of the sequence at
/// `coords` (batch..., n): `rest` is n itself, or the indices of a
/// transition's entry for channel n.
SmallVector<Value> stepIndices(ValueRange coords, Value t, ValueRange rest);

/// A one-dim parallel loop over [0, count) whose body `body` builds.
scf::ParallelOp parallelLoop(OpBuilder &b, Location loc, int64_t count,
                             function_ref<void(OpBuilder &, Value)> body);

/// Applies `lower` to every sequential scan under `root` (collected first:
/// a lowering also erases the results' writes after the op, which a walk
/// would visit next). A scan that `lower` does not take stays as it is.
void lowerSequentialScans(
    Operation *root, function_ref<LogicalResult(RewriterBase &, ScanOp)> lower);

} // namespace mlir::recurrence::gpu_lowering

#endif // RECURRENCE_LIB_TRANSFORMS_GPUCALLERBUFFERS_H
