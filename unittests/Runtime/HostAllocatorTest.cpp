//===- HostAllocatorTest.cpp - The host cache of large blocks -------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/HostAllocator.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

using namespace mlir::recurrence;

namespace {
// Whole huge pages, so that a block's capacity is its size.
constexpr size_t kLarge = size_t(4) << 20;

class HostAllocatorTest : public ::testing::Test {
protected:
  void SetUp() override {
    setHostCacheLimit(size_t(64) << 20);
    releaseCachedHostMemory();
  }
  void TearDown() override {
    releaseCachedHostMemory();
    setHostCacheLimit(size_t(2048) << 20);
  }
};

TEST_F(HostAllocatorTest, AFreedLargeBlockIsHandedOutAgain) {
  void *first = recurrenceHostAlignedAlloc(64, kLarge);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 4096, 0u);
  EXPECT_EQ(hostCacheStats().liveBytes, kLarge);
  recurrenceHostFree(first);
  EXPECT_EQ(hostCacheStats().liveBytes, 0u);
  EXPECT_EQ(hostCacheStats().cachedBytes, kLarge);
  uint64_t reuses = hostCacheStats().reuses;
  // A slightly smaller request fits the kept block.
  void *second = recurrenceHostMalloc(kLarge - 100);
  EXPECT_EQ(second, first);
  EXPECT_EQ(hostCacheStats().reuses, reuses + 1);
  EXPECT_EQ(hostCacheStats().cachedBytes, 0u);
  // One twice as large does not take it.
  void *third = recurrenceHostMalloc(2 * kLarge);
  EXPECT_NE(third, first);
  recurrenceHostFree(second);
  recurrenceHostFree(third);
  EXPECT_EQ(hostCacheStats().cachedBytes, 3 * kLarge);
  releaseCachedHostMemory();
  EXPECT_EQ(hostCacheStats().cachedBytes, 0u);
}

TEST_F(HostAllocatorTest, BlocksFromTwoMiBAreWholeHugePages) {
  // From 2 MiB a block is a whole number of 2 MiB pages, aligned to one
  // (the kernel may then back it with transparent huge pages); below, of
  // 4 KiB pages.
  void *huge = recurrenceHostMalloc((size_t(3) << 20) + 1);
  ASSERT_NE(huge, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(huge) % (size_t(2) << 20), 0u);
  EXPECT_EQ(hostCacheStats().liveBytes, size_t(4) << 20);
  void *pages = recurrenceHostMalloc((size_t(3) << 19) + 1);
  ASSERT_NE(pages, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(pages) % 4096, 0u);
  EXPECT_EQ(hostCacheStats().liveBytes,
            (size_t(4) << 20) + (size_t(3) << 19) + 4096);
  // Both are usable to their last byte.
  static_cast<char *>(huge)[(size_t(3) << 20)] = 1;
  static_cast<char *>(pages)[(size_t(3) << 19)] = 1;
  recurrenceHostFree(huge);
  recurrenceHostFree(pages);
  EXPECT_EQ(hostCacheStats().liveBytes, 0u);
}

TEST_F(HostAllocatorTest, CallocZeroesAReusedBlock) {
  auto *block = static_cast<unsigned char *>(recurrenceHostMalloc(kLarge));
  std::memset(block, 0xab, kLarge);
  recurrenceHostFree(block);
  auto *zeroed =
      static_cast<unsigned char *>(recurrenceHostCalloc(kLarge / 8, 8));
  ASSERT_EQ(zeroed, block);
  for (size_t i = 0; i < kLarge; i += 4093)
    ASSERT_EQ(zeroed[i], 0) << "at byte " << i;
  recurrenceHostFree(zeroed);
  EXPECT_EQ(recurrenceHostCalloc(SIZE_MAX / 2, 4), nullptr);
}

TEST_F(HostAllocatorTest, ReallocKeepsTheContents) {
  auto *block = static_cast<int32_t *>(recurrenceHostMalloc(kLarge));
  for (size_t i = 0; i < kLarge / 4; ++i)
    block[i] = static_cast<int32_t>(i);
  auto *grown =
      static_cast<int32_t *>(recurrenceHostRealloc(block, 3 * kLarge));
  ASSERT_NE(grown, nullptr);
  for (size_t i = 0; i < kLarge / 4; i += 1021)
    ASSERT_EQ(grown[i], static_cast<int32_t>(i));
  recurrenceHostFree(grown);
  // Small blocks are libc's, realloc'ed by libc.
  auto *small = static_cast<char *>(recurrenceHostMalloc(16));
  std::strcpy(small, "recurrence");
  small = static_cast<char *>(recurrenceHostRealloc(small, 64));
  EXPECT_STREQ(small, "recurrence");
  recurrenceHostFree(small);
  EXPECT_EQ(hostCacheStats().liveBytes, 0u);
}

TEST_F(HostAllocatorTest, SizesThatWrapAreRefused) {
  EXPECT_EQ(recurrenceHostMalloc(SIZE_MAX - 100), nullptr);
  EXPECT_EQ(recurrenceHostAlignedAlloc(64, SIZE_MAX), nullptr);
  EXPECT_EQ(hostCacheStats().liveBytes, 0u);
}

TEST_F(HostAllocatorTest, ReallocShrinksACachedBlock) {
  auto *block = static_cast<int32_t *>(recurrenceHostMalloc(3 * kLarge));
  for (size_t i = 0; i < kLarge / 4; ++i)
    block[i] = static_cast<int32_t>(3 * i);
  auto *shrunk = static_cast<int32_t *>(recurrenceHostRealloc(block, kLarge));
  ASSERT_NE(shrunk, nullptr);
  for (size_t i = 0; i < kLarge / 4; i += 997)
    ASSERT_EQ(shrunk[i], static_cast<int32_t>(3 * i));
  recurrenceHostFree(shrunk);
  EXPECT_EQ(hostCacheStats().liveBytes, 0u);
}

TEST_F(HostAllocatorTest, ThreadsAllocateAndFreeConcurrently) {
  // Each thread writes its own pattern into blocks it takes and gives back;
  // a block handed to two threads at once would mix the patterns.
  std::vector<std::thread> threads;
  std::atomic<int> mixed{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &mixed] {
      for (int round = 0; round < 50; ++round) {
        size_t size = kLarge + size_t(round % 3) * 4096;
        auto *block = static_cast<unsigned char *>(recurrenceHostMalloc(size));
        std::memset(block, t + 1, size);
        for (size_t i = 0; i < size; i += 4093)
          if (block[i] != t + 1)
            ++mixed;
        recurrenceHostFree(block);
        void *small = recurrenceHostMalloc(64);
        recurrenceHostFree(small);
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(mixed.load(), 0);
  EXPECT_EQ(hostCacheStats().liveBytes, 0u);
}

TEST_F(HostAllocatorTest, TheLimitBoundsWhatIsKept) {
  setHostCacheLimit(kLarge + kLarge / 2);
  void *a = recurrenceHostMalloc(kLarge);
  void *b = recurrenceHostMalloc(kLarge);
  recurrenceHostFree(a);
  recurrenceHostFree(b);
  EXPECT_EQ(hostCacheStats().cachedBytes, kLarge);
  setHostCacheLimit(0);
  EXPECT_EQ(hostCacheStats().cachedBytes, 0u);
  void *c = recurrenceHostMalloc(kLarge);
  recurrenceHostFree(c);
  EXPECT_EQ(hostCacheStats().cachedBytes, 0u);
  EXPECT_EQ(hostCacheStats().liveBytes, 0u);
}
} // namespace
