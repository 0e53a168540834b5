//===- CudaRuntime.h - The mgpu* runtime on the CUDA driver ------*- C++
//-*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The entry points that code lowered through the gpu dialect calls
// (mgpuModuleLoadJIT, mgpuLaunchKernel, ...), on the CUDA driver API, which
// is opened with dlopen("libcuda.so.1") on first use: the library itself
// needs no CUDA to load, and machines without a GPU get an error only when
// they launch a kernel.
//
// Kernels run on the caller's stream (set around each call); without one,
// on a stream of our own (ordered with the legacy default stream) that the
// call waits for. The generated code's void
// entry points cannot return errors: the first failure is recorded, with
// the failing call and CUDA's error string, and the call that launched the
// kernels reports it.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_CUDARUNTIME_H
#define RECURRENCE_RUNTIME_CUDARUNTIME_H

#include "llvm/ExecutionEngine/Orc/Shared/ExecutorSymbolDef.h"
#include "llvm/Support/Error.h"

#include <utility>
#include <vector>

namespace mlir::recurrence::cuda {

/// Whether the CUDA driver loads and has a device (initializing it).
llvm::Error ensureDriver();

/// The caller's stream for the launches of the current thread, until reset
/// (nullptr: a stream of our own, waited for).
class CallerStream {
public:
  explicit CallerStream(void *stream);
  ~CallerStream();

private:
  void *previous;
};

/// The first error the runtime recorded on this thread since the last
/// call, if any; clears it.
llvm::Error takeError();

/// The mgpu* entry points by name, for the JIT's symbol table.
std::vector<std::pair<const char *, void *>> entryPoints();

} // namespace mlir::recurrence::cuda

#endif // RECURRENCE_RUNTIME_CUDARUNTIME_H
