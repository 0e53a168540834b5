//===- CompileCache.h - Compiled kernels kept on disk -----------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The persistent compile cache: the object code of a compiled module and its
// entry points' signatures, in one file named by a hash of everything that
// decides the code (the IR, the entries, the pipeline options, the target
// CPU, the library). A later process loads it without running MLIR. Entries
// carry a checksum, so that a truncated or corrupted file is rebuilt rather
// than loaded, and are written to a temporary file and renamed, so that
// processes writing the same entry never leave a torn one.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_COMPILECACHE_H
#define RECURRENCE_RUNTIME_COMPILECACHE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace mlir {
namespace recurrence {

/// The cache folder: $RECURRENCE_CACHE_DIR, else $XDG_CACHE_HOME/recurrence,
/// else ~/.cache/recurrence. Empty (no caching) when $RECURRENCE_CACHE_DIR
/// is "off" or when there is no home.
std::string defaultCacheDirectory();

/// A hex digest of `parts` together with this library's version and build
/// (its file's size and time), so that a rebuilt library never loads the
/// code of another.
std::string cacheKey(llvm::ArrayRef<std::string> parts);

/// One cache entry: metadata (JSON text) and object code.
struct CachedKernel {
  std::string metadata;
  std::string object;
};

/// The entry at `path`, or std::nullopt when it is missing, truncated or
/// corrupted (its checksum does not match).
std::optional<CachedKernel> readCachedKernel(llvm::StringRef path);

/// Writes an entry atomically: to a temporary file beside `path`, renamed
/// over it.
llvm::Error writeCachedKernel(llvm::StringRef path, const CachedKernel &kernel);

} // namespace recurrence
} // namespace mlir

#endif // RECURRENCE_RUNTIME_COMPILECACHE_H
