//===- HostAllocator.h - Buffers of compiled CPU code -----------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The allocation functions that JIT-compiled code calls in place of libc's
// (aligned_alloc, malloc,
// calloc, realloc, free). Large blocks are kept after they
// are freed and handed out again: a compiled function's temporaries are
// the same sizes at every call with the same shapes, and a fresh block of
// hundreds of megabytes costs more in page faults than the loops that fill
// it. The kept bytes are bounded (RECURRENCE_HOST_CACHE_MB, default 2048;
// 0 keeps nothing, or setHostCacheLimit), and releaseCachedHostMemory()
// gives them back.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_HOSTALLOCATOR_H
#define RECURRENCE_RUNTIME_HOSTALLOCATOR_H

#include <cstddef>
#include <cstdint>

namespace mlir {
namespace recurrence {

/// What the cache holds: blocks handed out and not freed, blocks kept for
/// reuse, and how many allocations reused a kept block.
struct HostCacheStats {
  size_t liveBytes = 0;
  size_t cachedBytes = 0;
  uint64_t reuses = 0;
};
HostCacheStats hostCacheStats();

/// Frees every kept block.
void releaseCachedHostMemory();

/// Sets the most bytes kept (0: none), freeing kept blocks over it.
void setHostCacheLimit(size_t bytes);

extern "C" {
void *recurrenceHostAlignedAlloc(size_t alignment, size_t size);
void *recurrenceHostMalloc(size_t size);
void *recurrenceHostCalloc(size_t count, size_t size);
void *recurrenceHostRealloc(void *pointer, size_t size);
void recurrenceHostFree(void *pointer);
}

} // namespace recurrence
} // namespace mlir

#endif // RECURRENCE_RUNTIME_HOSTALLOCATOR_H
