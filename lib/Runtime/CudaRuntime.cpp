//===- CudaRuntime.cpp - The mgpu* runtime on the CUDA driver -------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/CudaRuntime.h"

#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <string>

using namespace mlir::recurrence;

namespace {
// The few driver-API types and functions used, as the driver's ABI has them.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;
using CUdeviceptr = unsigned long long;
using CUmemoryPool = void *;
constexpr CUresult kSuccess = 0;
constexpr CUresult kDeinitialized = 4;   // CUDA_ERROR_DEINITIALIZED
constexpr int kPoolReleaseThreshold = 4; // CU_MEMPOOL_ATTR_RELEASE_THRESHOLD
constexpr int kLimitMallocHeapSize = 2;  // CU_LIMIT_MALLOC_HEAP_SIZE
/// The device heap that kernels' own allocations take from, in MiB unless
/// $RECURRENCE_CUDA_HEAP_MB says otherwise (the driver's default, 8 MiB,
/// holds the 48 KB state of only some 170 threads at once).
constexpr size_t kDefaultHeapMiB = 1024;
// A blocking stream: it orders with the legacy default stream, on which
// callers such as torch run unless they chose a stream.
constexpr unsigned kStreamDefault = 0;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuStreamCreate)(CUstream *, unsigned);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
  CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
  CUresult (*cuDeviceGetMemPool)(CUmemoryPool *, CUdevice);
  CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuCtxSetLimit)(int, size_t) = nullptr; // optional
  CUcontext context = nullptr;
  std::string failure; // why the driver is unusable, if it is
};

/// The driver, opened and initialized once per process.
Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!library) {
      d.failure = std::string("cannot load libcuda.so.1 (no NVIDIA driver "
                              "here?): ") +
                  dlerror();
      return;
    }
    auto bind = [&](auto &function, const char *name) {
      function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(
          dlsym(library, name));
      if (!function && d.failure.empty())
        d.failure = std::string("libcuda.so.1 lacks ") + name;
    };
    bind(d.cuInit, "cuInit");
    bind(d.cuDeviceGet, "cuDeviceGet");
    bind(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
    bind(d.cuCtxGetCurrent, "cuCtxGetCurrent");
    bind(d.cuCtxSetCurrent, "cuCtxSetCurrent");
    bind(d.cuModuleLoadData, "cuModuleLoadData");
    bind(d.cuModuleUnload, "cuModuleUnload");
    bind(d.cuModuleGetFunction, "cuModuleGetFunction");
    bind(d.cuStreamCreate, "cuStreamCreate");
    bind(d.cuStreamSynchronize, "cuStreamSynchronize");
    bind(d.cuStreamDestroy, "cuStreamDestroy_v2");
    bind(d.cuLaunchKernel, "cuLaunchKernel");
    bind(d.cuMemAllocAsync, "cuMemAllocAsync");
    bind(d.cuMemFreeAsync, "cuMemFreeAsync");
    bind(d.cuDeviceGetMemPool, "cuDeviceGetMemPool");
    bind(d.cuMemPoolSetAttribute, "cuMemPoolSetAttribute");
    bind(d.cuGetErrorString, "cuGetErrorString");
    d.cuCtxSetLimit = reinterpret_cast<decltype(d.cuCtxSetLimit)>(
        dlsym(library, "cuCtxSetLimit"));
    if (!d.failure.empty())
      return;
    CUdevice device;
    if (CUresult r = d.cuInit(0); r != kSuccess)
      d.failure = "cuInit failed with CUDA error " + std::to_string(r);
    else if ((r = d.cuDeviceGet(&device, 0)) != kSuccess)
      d.failure = "cuDeviceGet(0) failed with CUDA error " + std::to_string(r);
    else if ((r = d.cuDevicePrimaryCtxRetain(&d.context, device)) != kSuccess)
      d.failure = "cuDevicePrimaryCtxRetain failed with CUDA error " +
                  std::to_string(r);
    // The intermediates' memory stays in the device's current stream-ordered
    // pool (the one cuMemAllocAsync takes from) between calls, as torch's
    // caching allocator keeps its own: by default the pool unmaps what is
    // free at every synchronization, and mapping it again made a call after
    // one twice as slow (a diagonal backward: 16.5 ms instead of 7.5 on the
    // H200). Best effort: the pool still works without it.
    CUmemoryPool pool = nullptr;
    uint64_t keepAll = UINT64_MAX;
    if (d.failure.empty() && d.cuDeviceGetMemPool(&pool, device) == kSuccess)
      (void)d.cuMemPoolSetAttribute(pool, kPoolReleaseThreshold, &keepAll);
    // Kernels whose per-thread temporaries are too large for registers or
    // the stack allocate them from the device heap, and a thread whose
    // allocation fails faults. The heap is sized before any of our kernels
    // runs in the context. Best effort: it cannot change once a kernel
    // has used it.
    if (d.failure.empty() && d.cuCtxSetLimit) {
      size_t mib = kDefaultHeapMiB;
      if (const char *value = std::getenv("RECURRENCE_CUDA_HEAP_MB"))
        mib = std::strtoull(value, nullptr, 10);
      CUcontext previous = nullptr;
      if (mib > 0 && d.cuCtxGetCurrent(&previous) == kSuccess &&
          d.cuCtxSetCurrent(d.context) == kSuccess) {
        (void)d.cuCtxSetLimit(kLimitMallocHeapSize, mib << 20);
        (void)d.cuCtxSetCurrent(previous);
      }
    }
  });
  return d;
}

thread_local std::string lastError;
thread_local CUstream callerStream = nullptr;

/// Records the first failure of this thread's current call.
void record(const std::string &message) {
  if (lastError.empty())
    lastError = message;
}

/// Checks a driver call; records "<call>: <CUDA's message>" on failure.
bool check(CUresult result, const char *call) {
  if (result == kSuccess)
    return true;
  const char *text = nullptr;
  if (driver().cuGetErrorString)
    driver().cuGetErrorString(result, &text);
  record(std::string(call) +
         " failed: " + (text ? text : "CUDA error " + std::to_string(result)));
  return false;
}

/// The driver with the primary context current on this thread, or null
/// after recording why not.
Driver *ready() {
  Driver &d = driver();
  if (!d.failure.empty()) {
    record(d.failure);
    return nullptr;
  }
  CUcontext current = nullptr;
  d.cuCtxGetCurrent(&current);
  if (current != d.context &&
      !check(d.cuCtxSetCurrent(d.context), "cuCtxSetCurrent"))
    return nullptr;
  return &d;
}
} // namespace

llvm::Error cuda::ensureDriver() {
  Driver &d = driver();
  if (!d.failure.empty())
    return llvm::createStringError(d.failure);
  return llvm::Error::success();
}

cuda::CallerStream::CallerStream(void *stream) : previous(callerStream) {
  callerStream = stream;
}

cuda::CallerStream::~CallerStream() { callerStream = previous; }

llvm::Error cuda::takeError() {
  if (lastError.empty())
    return llvm::Error::success();
  std::string message = std::move(lastError);
  lastError.clear();
  return llvm::createStringError(message);
}

extern "C" {

static void *mgpuModuleLoadJIT(void *data, int /*optLevel*/) {
  Driver *d = ready();
  CUmodule module = nullptr;
  // PTX text: the driver compiles it for the device.
  if (d)
    check(d->cuModuleLoadData(&module, data), "cuModuleLoadData");
  return module;
}

static void *mgpuModuleLoad(void *data, uint64_t /*size*/) {
  return mgpuModuleLoadJIT(data, 0);
}

static void mgpuModuleUnload(void *module) {
  if (!module || !driver().failure.empty())
    return;
  // At process exit the driver may already be gone: nothing to release.
  CUresult result = driver().cuModuleUnload(module);
  if (result != kDeinitialized)
    check(result, "cuModuleUnload");
}

static void *mgpuModuleGetFunction(void *module, const char *name) {
  Driver *d = ready();
  CUfunction function = nullptr;
  if (d && !module)
    record(std::string("mgpuModuleGetFunction: the module of kernel '") + name +
           "' was not loaded");
  else if (d)
    check(d->cuModuleGetFunction(&function, module, name),
          "cuModuleGetFunction");
  return function;
}

static void *mgpuStreamCreate() {
  if (callerStream)
    return callerStream;
  Driver *d = ready();
  CUstream stream = nullptr;
  if (d)
    check(d->cuStreamCreate(&stream, kStreamDefault), "cuStreamCreate");
  return stream;
}

static void mgpuStreamSynchronize(void *stream) {
  // The caller's stream orders what follows, as torch's kernels do.
  if (stream == callerStream || !stream)
    return;
  if (Driver *d = ready())
    check(d->cuStreamSynchronize(stream), "cuStreamSynchronize");
}

static void mgpuStreamDestroy(void *stream) {
  if (stream == callerStream || !stream)
    return;
  if (Driver *d = ready())
    check(d->cuStreamDestroy(stream), "cuStreamDestroy");
}

static void mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY,
                             int64_t gridZ, int64_t blockX, int64_t blockY,
                             int64_t blockZ, int32_t sharedBytes, void *stream,
                             void **params, void **extra,
                             size_t /*paramsCount*/) {
  // After a failure in this call (an allocation, an earlier launch), no
  // kernel runs on what may be missing buffers.
  if (!lastError.empty())
    return;
  Driver *d = ready();
  if (!d || !function || !stream) {
    record("mgpuLaunchKernel: no kernel or stream to launch on");
    return;
  }
  // An empty grid (an empty batch or state) launches nothing.
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  check(d->cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                          sharedBytes, stream, params, extra),
        "cuLaunchKernel");
}

// Device buffers of host code (the adjoint's intermediates), in stream
// order on the call's stream.
static void *mgpuMemAlloc(uint64_t bytes, CUstream stream, bool hostShared) {
  if (hostShared) {
    record("mgpuMemAlloc: host-shared allocations are not supported");
    return nullptr;
  }
  Driver *d = ready();
  CUdeviceptr pointer = 0;
  if (d && bytes > 0)
    check(d->cuMemAllocAsync(&pointer, bytes, stream), "cuMemAllocAsync");
  return reinterpret_cast<void *>(pointer);
}

static void mgpuMemFree(void *pointer, CUstream stream) {
  if (!pointer)
    return;
  if (Driver *d = ready())
    check(d->cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(pointer), stream),
          "cuMemFreeAsync");
}
}

std::vector<std::pair<const char *, void *>> cuda::entryPoints() {
  return {
      {"mgpuModuleLoadJIT", reinterpret_cast<void *>(&mgpuModuleLoadJIT)},
      {"mgpuModuleLoad", reinterpret_cast<void *>(&mgpuModuleLoad)},
      {"mgpuModuleUnload", reinterpret_cast<void *>(&mgpuModuleUnload)},
      {"mgpuModuleGetFunction",
       reinterpret_cast<void *>(&mgpuModuleGetFunction)},
      {"mgpuStreamCreate", reinterpret_cast<void *>(&mgpuStreamCreate)},
      {"mgpuStreamSynchronize",
       reinterpret_cast<void *>(&mgpuStreamSynchronize)},
      {"mgpuStreamDestroy", reinterpret_cast<void *>(&mgpuStreamDestroy)},
      {"mgpuLaunchKernel", reinterpret_cast<void *>(&mgpuLaunchKernel)},
      {"mgpuMemAlloc", reinterpret_cast<void *>(&mgpuMemAlloc)},
      {"mgpuMemFree", reinterpret_cast<void *>(&mgpuMemFree)},
  };
}
