//===- ChunkStatus.h - Statuses that chunks publish to each other --------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A scan run in one pass over chunks (decoupled look-back) has each chunk
// publish what it knows behind a status that later chunks poll: its local
// aggregate, then its inclusive end state. The one-pass chunked schedule
// (a thread per chunk) and the warp scan (a warp per chunk) share them.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_LIB_TRANSFORMS_CHUNKSTATUS_H
#define RECURRENCE_LIB_TRANSFORMS_CHUNKSTATUS_H

#include "mlir/IR/Builders.h"

namespace mlir::recurrence {

/// The status of a chunk: nothing yet, its local aggregate, or its
/// inclusive end state. Held as floats, like the data: every float buffer
/// a kernel uses lives on the device.
enum class ChunkStatus { None = 0, Aggregate = 1, Inclusive = 2 };

/// `status` as the f32 constant the status buffers hold.
Value statusConstant(OpBuilder &b, Location loc, ChunkStatus status);

/// Publishes `status` at `statuses`[at]: an atomic exchange, which orders
/// the writes of what it announces before it (acquire-release; the GPU
/// pipeline fences it, recurrence-gpu-parallelize).
void publishStatus(OpBuilder &b, Location loc, Value statuses, ValueRange at,
                   ChunkStatus status);

/// Waits until `statuses`[at] is other than None and returns it (f32), read
/// atomically, so that the reads of what it announces come after.
Value waitForStatus(OpBuilder &b, Location loc, Value statuses, ValueRange at);

/// Whether `status` (f32, as waitForStatus returns) is `expected` (i1).
Value isStatus(OpBuilder &b, Location loc, Value status, ChunkStatus expected);

} // namespace mlir::recurrence

#endif // RECURRENCE_LIB_TRANSFORMS_CHUNKSTATUS_H
