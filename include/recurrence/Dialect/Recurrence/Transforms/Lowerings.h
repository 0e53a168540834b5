//===- Lowerings.h - Entry points of the schedule lowerings -----*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Each schedule's lowering as a function on one op, in the style of upstream
// `linalg::linalgOpToLoops`: a downstream pipeline can call them without our
// passes. They lower the op the way they are named, whatever schedule the op
// carries (the caller has decided), replace it, and return the values that
// replaced it; they fail, changing nothing, where the schedule is not legal
// for the op. Our patterns match a concrete schedule and call them; none of
// them reads `auto`, which only -recurrence-select-schedule resolves.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_LOWERINGS_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_LOWERINGS_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence {

/// The discardable attribute on a chunked phase's loop over the steps of one
/// chunk: the chunk size, which bounds its trip count.
inline constexpr llvm::StringLiteral kChunkStepsAttrName =
    "recurrence.chunk_steps";

/// The discardable attribute on a sequential scan's loop over its steps.
inline constexpr llvm::StringLiteral kStepsAttrName = "recurrence.steps";

/// The discardable attribute on the plain scan that -recurrence-split-
/// sequences makes of a scan over packed sequences. The GPU runs it
/// sequentially: its chunk phases would allocate a tile of the restarted
/// transitions in every thread.
inline constexpr llvm::StringLiteral kPackedAttrName = "recurrence.packed";

/// The discardable attribute on the parallel loop of a warp scan (see
/// lowerScanToWarpScan, lowerScanToBlockRows): one iteration per lane, whose
/// blocks must hold whole warps; an integer value is the block's size.
inline constexpr llvm::StringLiteral kWarpLanesAttrName =
    "recurrence.warp_lanes";

/// The discardable attribute on a warp scan's loop over tiles of steps: the
/// steps of a tile, which the warp's lanes share (not a time loop to
/// unroll).
inline constexpr llvm::StringLiteral kWarpTilesAttrName =
    "recurrence.warp_tiles";

/// scf.forall over the batch (and over channel tiles, per `tiling`) around
/// an scf.for over time.
FailureOr<SmallVector<Value>>
lowerScanToSequential(RewriterBase &rewriter, ScanOp op,
                      const ChannelTiling &tiling = {});

/// Whether, with a tile per GPU thread (ChannelTiling's `fixedTile`), each
/// column of `op`'s matrix state runs on a thread of its own: every matrix
/// state, since a transition acts on every column alike. Where the channels
/// cannot be split (a readout sums over them, a dense or dplr transition
/// mixes them) a thread holds its column's N states; where they are
/// independent, its channel block's states of that column.
bool threadPerColumn(ScanOp op);

/// On the GPU, a sequential scan whose caller's buffers hold each
/// sequence's steps contiguously (an elementwise first-order structure on
/// a vector state, static shapes, an f32 state, operands read from and
/// results materialized in the caller's memrefs) as an scf.parallel over
/// lanes, 32 per sequence, marked kWarpLanesAttrName: each warp scans one
/// sequence in tiles, its lanes combining their steps by shuffles. The
/// results' materializations are replaced by the loop's writes. Where
/// there are too few sequences to fill the GPU, each is split into chunks,
/// run in two sweeps around a carry; or, with `lookBackTiles` > 0, chunks
/// of at most that many tiles of 128 steps in one pass whose chunks look
/// back for their start states. Fails, changing nothing, where the scan does
/// not qualify.
LogicalResult
lowerScanToWarpScan(RewriterBase &rewriter, ScanOp op,
                    int64_t lookBackTiles = kDefaultLookBackTiles);

/// Whether lowerScanToWarpScan takes `op` (whatever its schedule).
bool takesWarpScan(ScanOp op);

/// Why lowerScanToWarpScan would not take `op` whatever buffers it reads
/// (its structure, state type, input or shapes), or "" when it takes it
/// once its operands are views of the caller's buffers with time at unit
/// stride.
StringRef warpScanUnsupportedStructure(ScanOp op);

/// On the GPU, a sequential scan of m x m blocks given by its transition
/// operand (m dividing a warp; a vector state, static shapes, an f32 state,
/// operands read from and results materialized in the caller's memrefs) as
/// an scf.parallel with a lane per row of each block, marked
/// kWarpLanesAttrName with a warp per GPU block: the m lanes of a block
/// share its state by shuffles. The results' materializations are replaced
/// by the loop's writes. Fails, changing nothing, where the scan does not
/// qualify.
LogicalResult lowerScanToBlockRows(RewriterBase &rewriter, ScanOp op);

/// The lanes lowerScanToBlockRows gives `op` (whatever its schedule), 0
/// where it does not take it.
int64_t blockRowLanes(ScanOp op);

/// On the GPU, a sequential scan of a matrix state [N, D] whose step is
/// diagonal (with a readout) or diagonal plus low rank (getLowRankUpdate;
/// with a readout or not), N dividing a warp or a multiple of it up to 256
/// (static shapes, an f32 state, operands that are the caller's memrefs,
/// static views of them or elementwise linalg ops of them), as an
/// scf.parallel with lanes per column, marked kWarpLanesAttrName: a lane
/// per state, or a warp per column with N / 32 states a lane. The column's
/// lanes add the low-rank sums and the readout's products by shuffles.
/// Elementwise producers are applied per element where the lanes read
/// them. The results' materializations in the caller's memrefs are
/// replaced by the loop's writes; states read otherwise go to buffers of
/// the scan's own. Fails, changing nothing, where the scan does not
/// qualify.
LogicalResult lowerScanToStateLanes(RewriterBase &rewriter, ScanOp op);

/// The three phases over chunks of `chunkSize` steps (>= 1): local end
/// states and products per chunk, the carry across chunks, the outputs per
/// chunk from the carried start states. With `tileChannels`, where channels
/// are independent, every phase also runs per channel block. With `onePass`
/// too (GPU only: its chunks wait for each other), where a lane's state and
/// composite are small and static, one parallel loop does all three, each
/// chunk looking back over the chunks before it for its start state.
FailureOr<SmallVector<Value>> lowerScanToChunks(RewriterBase &rewriter,
                                                ScanOp op, int64_t chunkSize,
                                                bool tileChannels = false,
                                                bool onePass = false);

/// A scan over packed sequences (`offsets`) as the plain scan of the same
/// steps with a zero transition where each sequence starts (so that every
/// schedule lowers it), each sequence's init added to the input of its
/// first step, and the final states read off the states. Returns the op's
/// replacement values.
FailureOr<SmallVector<Value>> splitSequences(RewriterBase &rewriter, ScanOp op);

/// Replaces every model op under `root` (linear_attention, delta_rule, ...)
/// by its decomposition into recurrence.scan and upstream ops. Fails, after
/// a diagnostic, on an op that cannot be decomposed.
LogicalResult decomposeModelOps(RewriterBase &rewriter, Operation *root);

/// A Blelloch (up-sweep / down-sweep) scan over the pairs (A_t, b_t). Fails
/// where the structure refuses the scan schedule (checkSchedule).
FailureOr<SmallVector<Value>> lowerScanToBlellochScan(RewriterBase &rewriter,
                                                      ScanOp op);

/// Rewrites a step's batch of small block products, `out[g, i, 0] +=
/// A[g, i, j] * h[g, j, 0]` over loops (g, i, d, j) with m x m blocks, m at
/// most `maxBlock`, into a loop over groups of blocks that fill a vector of
/// `vectorBits`, and the same generic over the blocks left over
/// (-recurrence-vectorize-block-steps). Fails, changing nothing, on any
/// other generic.
LogicalResult vectorizeBlockProduct(RewriterBase &rewriter,
                                    linalg::GenericOp op, int64_t vectorBits,
                                    int64_t maxBlock);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_LOWERINGS_H
