//===- CompileCache.cpp - Compiled kernels kept on disk -------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// An entry is one file:
//   "RECURRENCE-KERNEL 1\n"
//   "<metadata bytes> <object bytes> <sha256 of metadata and object>\n"
//   metadata, then object.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Runtime/CompileCache.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>

#ifndef RECURRENCE_VERSION
#define RECURRENCE_VERSION "0.0.0"
#endif

using namespace mlir::recurrence;

static constexpr llvm::StringLiteral kMagic = "RECURRENCE-KERNEL 1\n";

std::string mlir::recurrence::defaultCacheDirectory() {
  if (const char *dir = std::getenv("RECURRENCE_CACHE_DIR")) {
    llvm::StringRef value(dir);
    if (value == "off" || value == "0" || value.empty())
      return "";
    return value.str();
  }
  llvm::SmallString<256> path;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    path = xdg;
  } else if (llvm::sys::path::home_directory(path)) {
    llvm::sys::path::append(path, ".cache");
  } else {
    return "";
  }
  llvm::sys::path::append(path, "recurrence");
  return path.str().str();
}

/// This library's file: its size and modification time tell one build from
/// another.
static std::string buildIdentity() {
  Dl_info info;
  llvm::sys::fs::file_status status;
  if (!dladdr(reinterpret_cast<void *>(&buildIdentity), &info) ||
      !info.dli_fname || llvm::sys::fs::status(info.dli_fname, status))
    return "unknown build";
  return std::string(info.dli_fname) + " " + std::to_string(status.getSize()) +
         " " +
         std::to_string(
             status.getLastModificationTime().time_since_epoch().count());
}

std::string mlir::recurrence::cacheKey(llvm::ArrayRef<std::string> parts) {
  static const std::string identity = buildIdentity();
  llvm::SHA256 hash;
  auto add = [&](llvm::StringRef part) {
    // Length-prefixed, so that no two lists of parts hash alike.
    hash.update(std::to_string(part.size()) + ":");
    hash.update(part);
  };
  add(RECURRENCE_VERSION);
  add(identity);
  for (const std::string &part : parts)
    add(part);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

static std::string checksum(llvm::StringRef metadata, llvm::StringRef object) {
  llvm::SHA256 hash;
  hash.update(metadata);
  hash.update(object);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

std::optional<CachedKernel>
mlir::recurrence::readCachedKernel(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return std::nullopt;
  llvm::StringRef text = (*buffer)->getBuffer();
  if (!text.consume_front(kMagic))
    return std::nullopt;
  auto [header, rest] = text.split('\n');
  llvm::SmallVector<llvm::StringRef, 3> fields;
  header.split(fields, ' ');
  size_t metadataSize, objectSize;
  if (fields.size() != 3 || fields[0].getAsInteger(10, metadataSize) ||
      fields[1].getAsInteger(10, objectSize) ||
      rest.size() != metadataSize + objectSize)
    return std::nullopt;
  CachedKernel kernel{rest.take_front(metadataSize).str(),
                      rest.drop_front(metadataSize).str()};
  if (checksum(kernel.metadata, kernel.object) != fields[2])
    return std::nullopt;
  return kernel;
}

llvm::Error mlir::recurrence::writeCachedKernel(llvm::StringRef path,
                                                const CachedKernel &kernel) {
  if (std::error_code error =
          llvm::sys::fs::create_directories(llvm::sys::path::parent_path(path)))
    return llvm::createStringError(error,
                                   "cannot create the cache folder of " + path);
  int fd;
  llvm::SmallString<256> temporary;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(
          path + ".tmp-%%%%%%%%", fd, temporary))
    return llvm::createStringError(error, "cannot write beside " + path);
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << kMagic << kernel.metadata.size() << ' ' << kernel.object.size() << ' '
       << checksum(kernel.metadata, kernel.object) << '\n'
       << kernel.metadata << kernel.object;
    os.close();
    if (os.has_error()) {
      os.clear_error();
      llvm::sys::fs::remove(temporary);
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     "cannot write " + temporary);
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return llvm::createStringError(error, "cannot rename to " + path);
  }
  return llvm::Error::success();
}
