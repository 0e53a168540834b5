//===- Support.h - Shared pieces of the C API -------------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The C API's one MLIR context, its diagnostics, its strings and errors, and
// the JSON specs it reads.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_LIB_CAPI_SUPPORT_H
#define RECURRENCE_LIB_CAPI_SUPPORT_H

#include "recurrence/Runtime/JitModule.h"
#include "recurrence/Runtime/ModelSpec.h"
#include "recurrence/Runtime/ScanSpec.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <mutex>
#include <string>

struct RecurrenceCompiled {
  std::unique_ptr<mlir::recurrence::JitModule> jit;
  std::string entry;
};

namespace mlir::recurrence::capi {

/// A malloc'ed copy, for the caller to release with recurrenceFree.
char *copyString(const std::string &text);

/// Sets *error (when asked for) and returns null.
std::nullptr_t fail(char **error, const std::string &message);

/// The library's context, with what the runtime registers. Hold the lock
/// returned by `lock()` while using it: contexts are not thread-safe.
MLIRContext &context();
std::unique_lock<std::recursive_mutex> lock();

/// Collects the diagnostics emitted on the library's context while alive.
struct Diagnostics {
  std::string text;
  llvm::raw_string_ostream os{text};
  ScopedDiagnosticHandler handler{&context(), [this](Diagnostic &diag) {
                                    os << diag.getLocation() << ": " << diag
                                       << "\n";
                                    return success();
                                  }};
};

/// Parses a JSON object; the message names `what` on failure.
llvm::Expected<llvm::json::Object> parseObject(const char *text,
                                               llvm::StringRef what);

/// Specs and sizes read from JSON text (keys as in the C header); missing
/// keys keep the defaults.
llvm::Expected<ScanSpec> readScanSpec(const char *text);
llvm::Expected<ModelSpec> readModelSpec(const char *text);
llvm::Expected<ScanSizes> readScanSizes(const char *text);

/// The verified module of one scan (static `sizes`, or dynamic shapes when
/// null); null with *error set. Hold the lock.
OwningOpRef<ModuleOp> buildVerifiedScan(const char *spec,
                                        const ScanSizes *sizes, char **error);

/// The verified module of one model op (dynamic shapes); null with *error
/// set. Hold the lock.
OwningOpRef<ModuleOp> buildVerifiedModel(const char *spec, char **error);

/// How the C API compiles: for this machine, through the persistent
/// compile cache (CompileCache.h).
JitOptions jitOptions(llvm::StringRef target = "cpu");

/// A compiled function for the caller, or null with *error set.
RecurrenceCompiled *compiled(llvm::Expected<std::unique_ptr<JitModule>> jit,
                             llvm::StringRef entry, char **error);

/// The JSON text of `value`, malloc'ed.
char *toJson(llvm::json::Value value);

} // namespace mlir::recurrence::capi

#endif // RECURRENCE_LIB_CAPI_SUPPORT_H
