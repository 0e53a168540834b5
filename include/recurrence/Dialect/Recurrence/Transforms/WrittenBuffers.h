//===- WrittenBuffers.h - The buffers a region writes -----------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Passes that reorder or separate memory accesses on buffers (GPU load
// hoisting, the CPU's distinct step buffers) first ask which buffers a
// region may write, each identified by its SSA value, and which values
// identify a buffer at all.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_WRITTENBUFFERS_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_WRITTENBUFFERS_H

#include "mlir/IR/Region.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>

namespace mlir::recurrence {

/// The buffers that ops in `region` may write or free, each as
/// `bufferOf(value)` for the value an effect names; or nullopt where an
/// op's effects are unknown, or `bufferOf` gives null (a buffer its value
/// does not identify, or an effect on no value in particular). Ops for
/// which `writesNothing` holds are skipped; an op with recursive effects
/// and no effects of its own stands for its body's ops, which are visited.
std::optional<llvm::DenseSet<Value>>
writtenBuffers(Region &region, llvm::function_ref<Value(Value)> bufferOf,
               llvm::function_ref<bool(Operation *)> writesNothing = nullptr);

/// The buffer that `value` (a memref) views through view-like ops, where
/// that buffer's SSA value tells it apart from every other buffer's in any
/// region of its function: the result of an allocation (memref.alloc,
/// memref.alloca, gpu.alloc) or an argument of the function. Distinct
/// arguments are taken not to overlap where one of them is written: the
/// calling convention (a result's buffer never overlaps an operand's, nor
/// another result's), which bufferizing a function's boundaries already
/// relies on when it writes a result in place in its argument's buffer.
/// Null otherwise, as for a non-memref: another block's argument (a loop's
/// may be the same buffer as a function argument or as another's), an
/// scf.if result, a loaded memref.
Value distinctBuffer(Value value);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_WRITTENBUFFERS_H
