//===- RuntimeLibraries.h - What generated code links against ---*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The JIT-compiled code calls the OpenMP runtime (parallel loops) and,
// rarely, memrefCopy (strided copies). Neither may come from a system LLVM:
// libRecurrence.so runs on machines without one.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_RUNTIMELIBRARIES_H
#define RECURRENCE_RUNTIME_RUNTIMELIBRARIES_H

#include <string>

namespace mlir {
namespace recurrence {

/// The OpenMP runtime for the JIT to load: `libomp.so.5` beside the library
/// that holds this code (a wheel carries it there), else the one found at
/// configure time, else the bare name for the dynamic loader to search.
std::string findOpenMPRuntime();

extern "C" {
/// The strided copy of MLIR's C runner utils, with the same ABI: the
/// element size in bytes and two unranked memref descriptors.
struct RecurrenceUnrankedMemRef {
  int64_t rank;
  void *descriptor;
};
void recurrenceMemrefCopy(int64_t elementSize, RecurrenceUnrankedMemRef *source,
                          RecurrenceUnrankedMemRef *destination);
}

} // namespace recurrence
} // namespace mlir

#endif // RECURRENCE_RUNTIME_RUNTIMELIBRARIES_H
