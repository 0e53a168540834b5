//===- StubCudaDriver.c - A stand-in libcuda.so.1 for host-side tests -----===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The driver-API functions the CUDA runtime binds, with no GPU behind them:
// "device" memory is host memory and launches only count. Loaded (by path,
// under the soname libcuda.so.1) before the runtime looks for the driver, it
// lets machines without a GPU test the host side of cuda modules: module
// load and unload, streams, allocations, and how driver errors travel.
//
// stubFail(name, result) makes every later call of `name` return `result`
// until stubReset().
//
//===----------------------------------------------------------------------===//

#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;

struct StubCounts {
  long moduleLoads, moduleUnloads, launches, allocations, frees, streams,
      streamsDestroyed;
};

static struct StubCounts counts;
static char failing[64];
static CUresult failure;
static int context;

static CUresult fails(const char *name) {
  return failing[0] && strcmp(failing, name) == 0 ? failure : 0;
}

void stubFail(const char *name, CUresult result) {
  strncpy(failing, name, sizeof(failing) - 1);
  failure = result;
}

void stubReset(void) {
  failing[0] = 0;
  memset(&counts, 0, sizeof(counts));
}

struct StubCounts stubCounts(void) { return counts; }

CUresult cuInit(unsigned flags) { return (void)flags, fails("cuInit"); }
CUresult cuDeviceGet(int *device, int ordinal) {
  *device = ordinal;
  return fails("cuDeviceGet");
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int device) {
  (void)device;
  *ctx = &context;
  return 0;
}
CUresult cuCtxGetCurrent(void **ctx) {
  *ctx = &context;
  return 0;
}
CUresult cuCtxSetCurrent(void *ctx) { return (void)ctx, 0; }
CUresult cuModuleLoadData(void **module, const void *image) {
  CUresult r = fails("cuModuleLoadData");
  // The image is PTX text: the runtime embeds it for the driver to JIT.
  if (!r && strstr((const char *)image, ".entry") == NULL)
    r = 218; // CUDA_ERROR_INVALID_PTX
  *module = r ? NULL : malloc(1);
  counts.moduleLoads += !r;
  return r;
}
CUresult cuModuleUnload(void *module) {
  CUresult r = fails("cuModuleUnload");
  free(module);
  counts.moduleUnloads += 1;
  return r;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
  (void)module;
  static char kernel;
  (void)name;
  *function = &kernel;
  return fails("cuModuleGetFunction");
}
CUresult cuStreamCreate(void **stream, unsigned flags) {
  (void)flags;
  *stream = malloc(1);
  counts.streams += 1;
  return fails("cuStreamCreate");
}
CUresult cuStreamSynchronize(void *stream) {
  return (void)stream, fails("cuStreamSynchronize");
}
CUresult cuStreamDestroy_v2(void *stream) {
  free(stream);
  counts.streamsDestroyed += 1;
  return 0;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *stream, void **params, void **extra) {
  (void)function, (void)gx, (void)gy, (void)gz, (void)bx, (void)by, (void)bz,
      (void)shared, (void)stream, (void)params, (void)extra;
  CUresult r = fails("cuLaunchKernel");
  counts.launches += !r;
  return r;
}
CUresult cuMemAllocAsync(CUdeviceptr *pointer, size_t bytes, void *stream) {
  (void)stream;
  CUresult r = fails("cuMemAllocAsync");
  *pointer = r ? 0 : (CUdeviceptr)malloc(bytes);
  counts.allocations += !r;
  return r;
}
CUresult cuMemFreeAsync(CUdeviceptr pointer, void *stream) {
  (void)stream;
  free((void *)pointer);
  counts.frees += 1;
  return 0;
}
CUresult cuDeviceGetMemPool(void **pool, int device) {
  (void)device;
  *pool = NULL;
  return 0;
}
CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
  return (void)pool, (void)attribute, (void)value, 0;
}
CUresult cuGetErrorString(CUresult result, const char **text) {
  switch (result) {
  case 2:
    *text = "out of memory";
    return 0;
  case 4:
    *text = "driver shutting down";
    return 0;
  case 218:
    *text = "a PTX JIT compilation failed";
    return 0;
  default:
    *text = NULL;
    return 1; // CUDA_ERROR_INVALID_VALUE
  }
}
