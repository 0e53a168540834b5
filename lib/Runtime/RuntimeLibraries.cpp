//===- RuntimeLibraries.cpp - What generated code links against -----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/RuntimeLibraries.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <dlfcn.h>

#ifndef RECURRENCE_OPENMP_RUNTIME
#define RECURRENCE_OPENMP_RUNTIME "libomp.so.5"
#endif

using namespace mlir::recurrence;

std::string mlir::recurrence::findOpenMPRuntime() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&findOpenMPRuntime), &info) &&
      info.dli_fname) {
    llvm::SmallString<256> beside(llvm::sys::path::parent_path(info.dli_fname));
    llvm::sys::path::append(beside, "libomp.so.5");
    if (llvm::sys::fs::exists(beside))
      return beside.str().str();
  }
  if (llvm::sys::fs::exists(RECURRENCE_OPENMP_RUNTIME))
    return RECURRENCE_OPENMP_RUNTIME;
  return "libomp.so.5";
}

/// Copies dimension `dim` onward: sizes and strides (in elements) follow the
/// two pointers in each descriptor.
static void copyDim(char *source, char *destination, int64_t elementSize,
                    int64_t rank, int64_t dim, const int64_t *sizes,
                    const int64_t *sourceStrides,
                    const int64_t *destinationStrides) {
  if (dim == rank) {
    std::memcpy(destination, source, elementSize);
    return;
  }
  for (int64_t i = 0; i < sizes[dim]; ++i)
    copyDim(source + i * sourceStrides[dim] * elementSize,
            destination + i * destinationStrides[dim] * elementSize,
            elementSize, rank, dim + 1, sizes, sourceStrides,
            destinationStrides);
}

void mlir::recurrence::recurrenceMemrefCopy(
    int64_t elementSize, RecurrenceUnrankedMemRef *source,
    RecurrenceUnrankedMemRef *destination) {
  // A ranked descriptor: {allocated, aligned, offset, sizes[rank],
  // strides[rank]}.
  struct Header {
    char *allocated, *aligned;
    int64_t offset;
  };
  int64_t rank = source->rank;
  auto *from = static_cast<Header *>(source->descriptor);
  auto *to = static_cast<Header *>(destination->descriptor);
  const int64_t *sizes = reinterpret_cast<const int64_t *>(from + 1);
  const int64_t *toSizes = reinterpret_cast<const int64_t *>(to + 1);
  copyDim(from->aligned + from->offset * elementSize,
          to->aligned + to->offset * elementSize, elementSize, rank, 0, sizes,
          sizes + rank, toSizes + rank);
}
