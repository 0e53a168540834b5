//===- HostAllocator.cpp - Buffers of compiled CPU code -------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/HostAllocator.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>

#if defined(__linux__)
#include <sys/mman.h>
#endif

using namespace mlir::recurrence;

namespace {
/// Blocks from this size up go through the cache; smaller ones are libc's.
constexpr size_t kMinCachedBytes = size_t(1) << 20;
/// Cached blocks are page-aligned and a whole number of pages.
constexpr size_t kPage = 4096;
/// Blocks from this size up are whole transparent huge pages, and ask the
/// kernel for them (as NumPy does for its large arrays): a fresh block is
/// then faulted in 2 MiB at a time rather than 4 KiB. With 4 KiB pages a
/// fresh 805 MB result took 196608 faults, over a second in a 2-core VM,
/// where the whole gradient that wrote it took 150 ms.
constexpr size_t kHugePage = size_t(2) << 20;

class HostCache {
public:
  void *allocate(size_t alignment, size_t size) {
    // (A size that would wrap when rounded up cannot be allocated.)
    if (size > SIZE_MAX - std::max(alignment, kPage))
      return nullptr;
    if (size < kMinCachedBytes || alignment > kPage || limit.load() == 0)
      return std::aligned_alloc(alignment, roundUp(size, alignment));
    size_t capacity = roundUp(size, size >= kHugePage ? kHugePage : kPage);
    std::lock_guard<std::mutex> guard(mutex);
    // The smallest kept block that fits, if it wastes less than half.
    auto found = kept.lower_bound(capacity);
    void *block = nullptr;
    if (found != kept.end() && found->first <= capacity + capacity / 2) {
      capacity = found->first;
      block = found->second;
      kept.erase(found);
      stats.cachedBytes -= capacity;
      ++stats.reuses;
    } else {
      block = allocateFresh(capacity);
      if (!block && !kept.empty()) {
        releaseLocked();
        block = allocateFresh(capacity);
      }
      if (!block)
        return nullptr;
    }
    live.emplace(block, capacity);
    stats.liveBytes += capacity;
    return block;
  }

  void deallocate(void *block) {
    // Every block of the cache is page-aligned: others are libc's, freed
    // without the lock.
    if (reinterpret_cast<uintptr_t>(block) % kPage) {
      std::free(block);
      return;
    }
    if (!block)
      return;
    std::lock_guard<std::mutex> guard(mutex);
    auto found = live.find(block);
    if (found == live.end()) {
      std::free(block);
      return;
    }
    size_t capacity = found->second;
    live.erase(found);
    stats.liveBytes -= capacity;
    if (capacity > limit) {
      std::free(block);
      return;
    }
    kept.emplace(capacity, block);
    stats.cachedBytes += capacity;
    trimLocked();
  }

  /// The capacity of a block this cache handed out, 0 for any other.
  size_t capacityOf(void *block) {
    std::lock_guard<std::mutex> guard(mutex);
    auto found = live.find(block);
    return found == live.end() ? 0 : found->second;
  }

  void release() {
    std::lock_guard<std::mutex> guard(mutex);
    releaseLocked();
  }

  void setLimit(size_t bytes) {
    std::lock_guard<std::mutex> guard(mutex);
    limit = bytes;
    trimLocked();
  }

  HostCacheStats snapshot() {
    std::lock_guard<std::mutex> guard(mutex);
    return stats;
  }

  static HostCache &get() {
    // Never destroyed: compiled code may still free blocks during exit.
    static HostCache *cache = new HostCache();
    return *cache;
  }

private:
  HostCache() {
    if (const char *text = std::getenv("RECURRENCE_HOST_CACHE_MB")) {
      char *end = nullptr;
      long long megabytes = std::strtoll(text, &end, 10);
      if (end != text && *end == '\0' && megabytes >= 0 &&
          megabytes < (1LL << 40))
        limit = static_cast<size_t>(megabytes) << 20;
    }
  }

  /// A new block of `capacity` bytes (a whole number of pages, or of huge
  /// pages from kHugePage up), aligned to its page size.
  static void *allocateFresh(size_t capacity) {
    size_t alignment = capacity >= kHugePage ? kHugePage : kPage;
    void *block = std::aligned_alloc(alignment, capacity);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // A hint: where transparent huge pages are off, nothing changes.
    if (block && alignment == kHugePage)
      (void)madvise(block, capacity, MADV_HUGEPAGE);
#endif
    return block;
  }

  static size_t roundUp(size_t size, size_t multiple) {
    return (size + multiple - 1) / multiple * multiple;
  }

  /// Over the limit: drops the largest kept blocks first.
  void trimLocked() {
    while (stats.cachedBytes > limit) {
      auto largest = std::prev(kept.end());
      stats.cachedBytes -= largest->first;
      std::free(largest->second);
      kept.erase(largest);
    }
  }

  void releaseLocked() {
    for (auto &[capacity, block] : kept)
      std::free(block);
    kept.clear();
    stats.cachedBytes = 0;
  }

  std::mutex mutex;
  // Read without the lock by allocate's pass-through test.
  std::atomic<size_t> limit{size_t(2048) << 20};
  std::multimap<size_t, void *> kept;
  std::unordered_map<void *, size_t> live;
  HostCacheStats stats;
};
} // namespace

HostCacheStats mlir::recurrence::hostCacheStats() {
  return HostCache::get().snapshot();
}

void mlir::recurrence::releaseCachedHostMemory() { HostCache::get().release(); }

void mlir::recurrence::setHostCacheLimit(size_t bytes) {
  HostCache::get().setLimit(bytes);
}

void *mlir::recurrence::recurrenceHostAlignedAlloc(size_t alignment,
                                                   size_t size) {
  return HostCache::get().allocate(alignment ? alignment : 1, size);
}

void *mlir::recurrence::recurrenceHostMalloc(size_t size) {
  return HostCache::get().allocate(alignof(std::max_align_t), size);
}

void *mlir::recurrence::recurrenceHostCalloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return nullptr;
  void *block =
      HostCache::get().allocate(alignof(std::max_align_t), count * size);
  if (block)
    std::memset(block, 0, count * size);
  return block;
}

void *mlir::recurrence::recurrenceHostRealloc(void *pointer, size_t size) {
  HostCache &cache = HostCache::get();
  size_t capacity = pointer ? cache.capacityOf(pointer) : 0;
  if (pointer && !capacity)
    return std::realloc(pointer, size);
  void *block = cache.allocate(alignof(std::max_align_t), size);
  if (block && pointer) {
    std::memcpy(block, pointer, std::min(capacity, size));
    cache.deallocate(pointer);
  }
  return block;
}

void mlir::recurrence::recurrenceHostFree(void *pointer) {
  HostCache::get().deallocate(pointer);
}
