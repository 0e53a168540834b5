//===- Recurrence.cpp - C API of Recurrence -------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Pipelines on IR text, compiling, and calling compiled functions.
//
//===----------------------------------------------------------------------===//

#include "recurrence-c/Recurrence.h"

#include "Support.h"

#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Runtime/HostAllocator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <algorithm>
#include <cstdlib>

#ifndef RECURRENCE_VERSION
#define RECURRENCE_VERSION "0.0.0"
#endif

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::capi;

const char *recurrenceVersion(void) { return RECURRENCE_VERSION; }

void recurrenceRegisterPasses(void) {
  auto guard = lock();
  (void)context();
}

char *recurrenceRunPipeline(const char *ir, const char *pipeline,
                            char **error) {
  if (!ir || !pipeline)
    return fail(error, "recurrenceRunPipeline: NULL IR or pipeline");
  auto guard = lock();
  Diagnostics diagnostics;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(ir, ParserConfig(&context()));
  if (!module)
    return fail(error, "cannot parse the module:\n" + diagnostics.text);
  StringRef text = StringRef(pipeline).trim();
  if (text.starts_with("builtin.module(") && text.ends_with(")"))
    text = text.drop_front(15).drop_back();
  PassManager pm(&context());
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(text, pm, errorStream)))
    return fail(error,
                "invalid pipeline '" + std::string(pipeline) + "': " + errors);
  if (failed(pm.run(*module)))
    return fail(error, "pipeline '" + std::string(pipeline) + "' failed:\n" +
                           diagnostics.text);
  std::string result;
  llvm::raw_string_ostream os(result);
  module->print(os);
  return copyString(result);
}

RecurrenceCompiled *recurrenceCompile(const char *ir, const char *entry,
                                      char **error) {
  return recurrenceCompileFor(ir, entry, "cpu", error);
}

RecurrenceCompiled *recurrenceCompileFor(const char *ir, const char *entry,
                                         const char *target, char **error) {
  if (!ir || !entry || !target)
    return fail(error, "recurrenceCompile: NULL IR, entry or target");
  auto guard = lock();
  return compiled(
      JitModule::compileSource(&context(), ir, {entry}, jitOptions(target)),
      entry, error);
}

/// Adds the gradient of function `entry` of `module` (`order` 1), or the
/// gradient of that gradient (2), for `target` (whose cost model picks how
/// each adjoint recomputes its states), and returns its name; sets `error`
/// and returns nothing when -recurrence-differentiate fails. With
/// `takeResults`, the (first-order) gradient takes `entry`'s results too.
static std::optional<std::string>
differentiate(ModuleOp module, StringRef entry, int order, StringRef target,
              bool takeResults, char **error) {
  Diagnostics diagnostics;
  PassManager pm(&context());
  std::string name = entry.str();
  for (int i = 0; i < order; ++i) {
    // The first of two orders keeps its states at once: its checkpoint
    // loop would be no function of scans for the second to differentiate.
    pm.addPass(createDifferentiatePass({/*checkpoint=*/0,
                                        i + 1 == order ? target.str() : "",
                                        takeResults,
                                        {name}}));
    name += "_grad";
  }
  if (failed(pm.run(module))) {
    fail(error,
         "differentiating '" + entry.str() + "' failed:\n" + diagnostics.text);
    return std::nullopt;
  }
  return name;
}

RecurrenceCompiled *recurrenceCompileScan(const char *spec, int32_t gradient,
                                          char **error) {
  return recurrenceCompileScanAt(spec, nullptr, gradient, error);
}

RecurrenceCompiled *recurrenceCompileScanAt(const char *spec,
                                            const char *sizesText,
                                            int32_t gradient, char **error) {
  auto guard = lock();
  std::optional<ScanSizes> sizes;
  if (sizesText) {
    llvm::Expected<ScanSizes> read = readScanSizes(sizesText);
    if (!read)
      return fail(error, llvm::toString(read.takeError()));
    sizes = *read;
    // An empty problem has nothing to gain, and static slices of an empty
    // dim are out of bounds for upstream's verifier in the adjoint.
    if (sizes->steps == 0 || sizes->size == 0 || sizes->columns == 0 ||
        llvm::is_contained(sizes->batch, 0))
      return fail(error, "sizes: a scan is compiled for static sizes only "
                         "when every size is at least 1 (pass no sizes for "
                         "an empty problem)");
  }
  // A gradient's layouts are those of its own arguments and results, set
  // on it once it exists; the scan it derives from is built contiguous.
  std::optional<ScanSizes> scanSizes = sizes;
  if (scanSizes && gradient) {
    scanSizes->argStrides.clear();
    scanSizes->resultStrides.clear();
  }
  OwningOpRef<ModuleOp> module =
      buildVerifiedScan(spec, scanSizes ? &*scanSizes : nullptr, error);
  if (!module)
    return nullptr;
  // The spec has been read once already: it is valid.
  ScanSpec parsed = llvm::cantFail(readScanSpec(spec));
  if (sizes && static_cast<int64_t>(sizes->batch.size()) != parsed.batchRank)
    return fail(error, "sizes: expected " + std::to_string(parsed.batchRank) +
                           " batch size(s), the spec's batch_rank, got " +
                           std::to_string(sizes->batch.size()));
  std::string target = parsed.target;
  if (!gradient)
    return compiled(JitModule::compile(*module, {"scan"}, jitOptions(target)),
                    "scan", error);
  if (gradient < 0 || gradient > 3)
    return fail(error, "recurrenceCompileScan: gradient must be 0, 1, 2 or "
                       "3, got " +
                           std::to_string(gradient));
  // 3: the first-order gradient that takes the results too.
  bool takeResults = gradient == 3;
  int order = takeResults ? 1 : gradient;
  // At dynamic sizes the first-order gradient branches on T = 0, which the
  // sweep does not differentiate.
  if (order == 2 && !sizes)
    return fail(error, "recurrenceCompileScan: a second-order gradient is "
                       "compiled for static sizes (recurrenceCompileScanAt)");
  std::optional<std::string> entry =
      differentiate(*module, "scan", order, target, takeResults, error);
  if (!entry)
    return nullptr;
  if (sizes) {
    Diagnostics diagnostics;
    if (failed(setBufferLayouts(module->lookupSymbol<func::FuncOp>(*entry),
                                *sizes)))
      return fail(error, diagnostics.text);
  }
  return compiled(JitModule::compile(*module, {*entry}, jitOptions(target)),
                  *entry, error);
}

RecurrenceCompiled *recurrenceCompileModel(const char *specText, char **error) {
  auto guard = lock();
  OwningOpRef<ModuleOp> module = buildVerifiedModel(specText, error);
  if (!module)
    return nullptr;
  // The spec has been read once already: it is valid.
  std::string target = llvm::cantFail(readModelSpec(specText)).target;
  return compiled(JitModule::compile(*module, {"model"}, jitOptions(target)),
                  "model", error);
}

RecurrenceCompiled *recurrenceCompileModelGradient(const char *specText,
                                                   char **error) {
  auto guard = lock();
  OwningOpRef<ModuleOp> module = buildVerifiedModel(specText, error);
  if (!module)
    return nullptr;
  std::string target = llvm::cantFail(readModelSpec(specText)).target;
  std::optional<std::string> entry =
      differentiate(*module, "model", 1, target, false, error);
  if (!entry)
    return nullptr;
  return compiled(JitModule::compile(*module, {*entry}, jitOptions(target)),
                  *entry, error);
}

char *recurrenceSignature(const RecurrenceCompiled *compiled, char **error) {
  if (!compiled)
    return fail(error, "recurrenceSignature: no compiled function");
  const JitModule::Signature *signature =
      compiled->jit->getSignature(compiled->entry);
  return toJson(signature->toJson());
}

static BufferView viewOf(const RecurrenceBuffer &buffer) {
  BufferView view;
  view.data = buffer.data;
  view.dtype = static_cast<ElementType>(buffer.dtype);
  view.sizes.assign(buffer.sizes, buffer.sizes + buffer.rank);
  view.strides.assign(buffer.strides, buffer.strides + buffer.rank);
  return view;
}

int recurrenceCall(RecurrenceCompiled *compiled, const RecurrenceBuffer *args,
                   int32_t numArgs, const RecurrenceBuffer *results,
                   int32_t numResults, char **error) {
  return recurrenceCallOnStream(compiled, args, numArgs, results, numResults,
                                nullptr, error);
}

int recurrenceCallOnStream(RecurrenceCompiled *compiled,
                           const RecurrenceBuffer *args, int32_t numArgs,
                           const RecurrenceBuffer *results, int32_t numResults,
                           void *stream, char **error) {
  if (!compiled) {
    fail(error, "recurrenceCall: no compiled function");
    return 1;
  }
  if (numArgs < 0 || numResults < 0 || (numArgs && !args) ||
      (numResults && !results)) {
    fail(error, "recurrenceCall: bad argument or result arrays");
    return 1;
  }
  for (int32_t i = 0; i < numArgs + numResults; ++i) {
    const RecurrenceBuffer &buffer =
        i < numArgs ? args[i] : results[i - numArgs];
    if (buffer.rank < 0 ||
        (buffer.rank > 0 && (!buffer.sizes || !buffer.strides))) {
      fail(error, "recurrenceCall: " +
                      std::string(i < numArgs ? "argument" : "result") + " #" +
                      std::to_string(i < numArgs ? i : i - numArgs) +
                      ": a negative rank, or no sizes or strides");
      return 1;
    }
    int32_t dtype = buffer.dtype;
    if (dtype < RECURRENCE_F32 || dtype > RECURRENCE_I64) {
      fail(error, "recurrenceCall: " +
                      std::string(i < numArgs ? "argument" : "result") + " #" +
                      std::to_string(i < numArgs ? i : i - numArgs) +
                      ": unknown dtype " + std::to_string(dtype));
      return 1;
    }
  }
  std::vector<BufferView> argViews, resultViews;
  for (int32_t i = 0; i < numArgs; ++i)
    argViews.push_back(viewOf(args[i]));
  for (int32_t i = 0; i < numResults; ++i)
    resultViews.push_back(viewOf(results[i]));
  if (llvm::Error failure =
          compiled->jit->call(compiled->entry, argViews, resultViews, stream)) {
    fail(error, llvm::toString(std::move(failure)));
    return 1;
  }
  return 0;
}

void recurrenceDestroy(RecurrenceCompiled *compiled) { delete compiled; }

void recurrenceFree(char *string) { std::free(string); }

void recurrenceHostCacheStats(int64_t *liveBytes, int64_t *cachedBytes,
                              int64_t *reuses) {
  HostCacheStats stats = hostCacheStats();
  if (liveBytes)
    *liveBytes = static_cast<int64_t>(stats.liveBytes);
  if (cachedBytes)
    *cachedBytes = static_cast<int64_t>(stats.cachedBytes);
  if (reuses)
    *reuses = static_cast<int64_t>(stats.reuses);
}

void recurrenceSetHostCacheLimit(int64_t bytes) {
  setHostCacheLimit(static_cast<size_t>(std::max<int64_t>(bytes, 0)));
}

void recurrenceReleaseHostCache(void) { releaseCachedHostMemory(); }

void *recurrenceAllocateHostBuffer(int64_t bytes) {
  if (bytes < 0)
    return nullptr;
  // At least one byte, so that an empty array still gets a block of its own.
  return recurrenceHostAlignedAlloc(64, std::max<size_t>(bytes, 1));
}

void recurrenceFreeHostBuffer(void *buffer) { recurrenceHostFree(buffer); }
