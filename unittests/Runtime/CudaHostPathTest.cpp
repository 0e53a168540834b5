//===- CudaHostPathTest.cpp - Host code of cuda modules, on a stub driver -===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What a module compiled for cuda does on the host, checked on a machine
// without a GPU: StubCudaDriver.c stands in for libcuda.so.1 (no kernel
// runs, so no numbers are checked here; the GPU machine checks those). The
// runtime must load every kernel module and unload it again, free what it
// allocates, run with or without the compile cache, and report driver
// failures as errors naming the failing call.
//
//===----------------------------------------------------------------------===//

#include "../Support/ScanProblem.h"
#include "recurrence/Runtime/JitModule.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <dlfcn.h>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::testing;

namespace {

struct StubCounts {
  long moduleLoads, moduleUnloads, launches, allocations, frees, streams,
      streamsDestroyed;
};

/// The stub driver, loaded under its soname (libcuda.so.1) before the
/// runtime opens the driver, and its controls.
struct StubDriver {
  void (*fail)(const char *, int) = nullptr;
  void (*reset)() = nullptr;
  StubCounts (*counts)() = nullptr;

  static StubDriver &get() {
    static StubDriver stub = [] {
      StubDriver s;
      void *library =
          dlopen(RECURRENCE_STUB_CUDA_DRIVER, RTLD_NOW | RTLD_GLOBAL);
      if (!library)
        return s;
      s.fail = reinterpret_cast<void (*)(const char *, int)>(
          dlsym(library, "stubFail"));
      s.reset = reinterpret_cast<void (*)()>(dlsym(library, "stubReset"));
      s.counts =
          reinterpret_cast<StubCounts (*)()>(dlsym(library, "stubCounts"));
      return s;
    }();
    return stub;
  }
};

// A scan on run-time shapes and an elementwise op after it: kernels for
// both, and intermediates the host code allocates on the device.
constexpr const char *kGated = R"mlir(
func.func @gated(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %h_dest = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<?x?xf32>)
      input(%b : tensor<?x?xf32>) outs(%h_dest : tensor<?x?xf32>)
      -> tensor<?x?xf32>
  %y = arith.mulf %h, %b : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
)mlir";

std::string errorOf(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : std::string();
}

class CudaHostPathTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(stub().counts)
        << "cannot load " RECURRENCE_STUB_CUDA_DRIVER << ": " << dlerror();
    stub().reset();
    context = makeContext();
  }

  StubDriver &stub() { return StubDriver::get(); }

  llvm::Expected<std::unique_ptr<JitModule>>
  compile(const std::string &cacheDirectory = "") {
    JitOptions options;
    options.target = "cuda";
    options.cacheDirectory = cacheDirectory;
    return JitModule::compileSource(context.get(), kGated, {"gated"}, options);
  }

  /// Calls `gated` on T = 5, N = 3 "device" buffers (host memory here).
  llvm::Error call(JitModule &jit) {
    BufferView a = BufferView::contiguous(a_.data(), ElementType::F32, {5, 3});
    BufferView b = BufferView::contiguous(b_.data(), ElementType::F32, {5, 3});
    BufferView y = BufferView::contiguous(y_.data(), ElementType::F32, {5, 3});
    return jit.call("gated", {a, b}, {y});
  }

  std::unique_ptr<MLIRContext> context;
  std::vector<float> a_ = std::vector<float>(15, 0.5f),
                     b_ = std::vector<float>(15, 1.0f),
                     y_ = std::vector<float>(15, 0.0f);
};

TEST_F(CudaHostPathTest, LoadsKernelsAndReleasesWhatItTakes) {
  {
    auto jit = compile();
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    EXPECT_TRUE((*jit)->isCuda());
    // The module's constructors loaded its kernel modules.
    long loads = stub().counts().moduleLoads;
    EXPECT_GE(loads, 2);
    ASSERT_EQ(errorOf(call(**jit)), "");
    ASSERT_EQ(errorOf(call(**jit)), "");
    StubCounts c = stub().counts();
    EXPECT_EQ(c.moduleLoads, loads);
    EXPECT_GE(c.launches, 4); // the scan and the product, twice
    EXPECT_GE(c.allocations, 2);
    EXPECT_EQ(c.frees, c.allocations);
    EXPECT_EQ(c.streamsDestroyed, c.streams);
    EXPECT_EQ(c.moduleUnloads, 0);
  }
  // Freed, the module unloaded every kernel module it loaded.
  StubCounts c = stub().counts();
  EXPECT_EQ(c.moduleUnloads, c.moduleLoads);
}

// Device buffers are not staged: a strided view is refused, but an empty
// one has no element out of place and is taken whatever its strides (torch
// gives empty tensors arbitrary ones).
TEST_F(CudaHostPathTest, RefusesStridedViewsButNotEmptyOnes) {
  auto jit = compile();
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  BufferView a = BufferView::contiguous(a_.data(), ElementType::F32, {5, 3});
  BufferView b = BufferView::contiguous(b_.data(), ElementType::F32, {5, 3});
  BufferView y = BufferView::contiguous(y_.data(), ElementType::F32, {5, 3});
  BufferView transposed = a;
  transposed.strides = {1, 5};
  EXPECT_NE(errorOf((*jit)->call("gated", {transposed, b}, {y}))
                .find("argument #0: a GPU kernel takes contiguous device "
                      "buffers"),
            std::string::npos);
  BufferView empty =
      BufferView::contiguous(a_.data(), ElementType::F32, {0, 3});
  BufferView oddlyStrided = empty;
  oddlyStrided.strides = {1, 7};
  EXPECT_EQ(errorOf((*jit)->call("gated", {oddlyStrided, empty}, {empty})), "");
}

TEST_F(CudaHostPathTest, RunsFromTheCompileCache) {
  llvm::SmallString<128> cache;
  ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("recurrence-cache", cache));
  for (int round = 0; round < 2; ++round) {
    stub().reset();
    // Compiled in the first round, loaded from the cache in the second:
    // either way the constructors load the kernels before the first call.
    auto jit = compile(cache.str().str());
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    EXPECT_EQ((*jit)->isCached(), round == 1);
    EXPECT_GE(stub().counts().moduleLoads, 2) << "round " << round;
    EXPECT_EQ(errorOf(call(**jit)), "") << "round " << round;
    EXPECT_GE(stub().counts().launches, 2) << "round " << round;
  }
  llvm::sys::fs::remove_directories(cache);
}

TEST_F(CudaHostPathTest, ReportsTheFailingDriverCall) {
  auto jit = compile();
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  stub().fail("cuMemAllocAsync", 2);
  EXPECT_EQ(errorOf(call(**jit)), "cuMemAllocAsync failed: out of memory");
  // After the failure no kernel ran on the missing buffers.
  EXPECT_EQ(stub().counts().launches, 0);
  // The error belonged to that call: the next one runs.
  stub().fail("", 0);
  EXPECT_EQ(errorOf(call(**jit)), "");
  EXPECT_GE(stub().counts().launches, 2);

  stub().fail("cuLaunchKernel", 1);
  EXPECT_EQ(errorOf(call(**jit)), "cuLaunchKernel failed: CUDA error 1");
}

TEST_F(CudaHostPathTest, ReportsAModuleTheDriverRefuses) {
  stub().fail("cuModuleLoadData", 218);
  auto jit = compile();
  ASSERT_FALSE(static_cast<bool>(jit));
  EXPECT_EQ(llvm::toString(jit.takeError()),
            "cuModuleLoadData failed: a PTX JIT compilation failed");
}

TEST_F(CudaHostPathTest, ToleratesADriverAlreadyShutDown) {
  // At process exit the driver may be gone before the modules are freed.
  {
    auto jit = compile();
    ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
    stub().fail("cuModuleUnload", 4);
  }
  EXPECT_EQ(stub().counts().moduleUnloads, stub().counts().moduleLoads);
  // Nothing of it lingers to fail the next call.
  stub().fail("", 0);
  auto jit = compile();
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  EXPECT_EQ(errorOf(call(**jit)), "");
}

} // namespace
