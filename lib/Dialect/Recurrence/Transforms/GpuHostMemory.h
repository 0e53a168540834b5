//===- GpuHostMemory.h - Host and device memory of GPU kernels -*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What -recurrence-gpu-parallelize does to memory once the parallel loops
// are to be kernels: data buffers move to the device, host reads that only
// kernels use move into them, and host code is checked never to touch an
// element of device memory, nor a kernel one of host memory.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_LIB_TRANSFORMS_GPUHOSTMEMORY_H
#define RECURRENCE_LIB_TRANSFORMS_GPUHOSTMEMORY_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::recurrence::gpu_host {

/// Whether `op` is in a loop to be a kernel (an scf.parallel).
inline bool inParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() != nullptr;
}

/// Host allocations of data as device ones, and the stack buffers of data
/// that kernels use.
LogicalResult allocationsToDevice(RewriterBase &rewriter, Operation *root);

/// Moves into the kernels the host reads of elements that only kernels
/// use, with the pure ops that compute on them (a scan of a vector state
/// without batch dims or independent channels reads its scalar transition,
/// and widens it, in the time loop, and steps its state in kernels), when
/// nothing writes the buffer between the read and those kernels (an
/// argument nothing writes, or the transitions the Blelloch adjoint's last
/// step reads after computing them): each use computes the element itself.
/// Reads of host buffers other than arguments stay.
void sinkReadsIntoKernels(RewriterBase &rewriter, Operation *root);

/// Host code that moves single elements of device buffers, which is what a
/// loop of one iteration leaves once folded away (a scan of one batch
/// element and channel over one step stores its state into its output), as
/// kernels of one thread: each such store, with the loads and pure ops
/// right before it that only compute its value, into an `scf.parallel` over
/// [0, 1). Kernels run in program order on the call's stream, as the host
/// code did. (Inside a host loop that is a kernel per iteration: slow, but
/// it runs, where the lowering used to refuse.)
void hostStoresToKernels(RewriterBase &rewriter, Operation *root);

/// Fails, with an error, where host code would still touch device memory
/// (an element access outside any loop to be a kernel: what a loop of one
/// iteration, folded away, leaves) or a kernel would read host memory (a
/// global constant).
LogicalResult checkHostAccesses(Operation *root);

} // namespace mlir::recurrence::gpu_host

#endif // RECURRENCE_LIB_TRANSFORMS_GPUHOSTMEMORY_H
