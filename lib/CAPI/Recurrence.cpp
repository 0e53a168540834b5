//===- Recurrence.cpp - C API of Recurrence -------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence-c/Recurrence.h"

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/JitModule.h"

#include "mlir/CAPI/Registration.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace mlir;
using namespace mlir::recurrence;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Recurrence, recurrence,
                                      mlir::recurrence::RecurrenceDialect)

namespace {
char *copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

void setError(char **error, const std::string &message) {
  if (error)
    *error = copyString(message);
}

/// Registers the passes once per process.
void registerOnce() {
  static std::once_flag once;
  std::call_once(once, [] { registerAllRecurrencePasses(); });
}

/// A context with every dialect the pipelines use, diagnostics collected.
struct Session {
  MLIRContext context;
  std::string diagnostics;
  llvm::raw_string_ostream os{diagnostics};
  std::unique_ptr<ScopedDiagnosticHandler> handler;

  Session() {
    registerOnce();
    DialectRegistry registry;
    registerAllRecurrenceDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    handler = std::make_unique<ScopedDiagnosticHandler>(
        &context, [this](Diagnostic &diag) {
          os << diag.getLocation() << ": " << diag << "\n";
          return success();
        });
  }
};
} // namespace

struct RecurrenceCompiled {
  std::unique_ptr<Session> session;
  std::unique_ptr<JitModule> jit;
  std::string entry;
};

void recurrenceRegisterPasses(void) { registerOnce(); }

char *recurrenceRunPipeline(const char *ir, const char *pipeline,
                            char **error) {
  Session session;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(ir, ParserConfig(&session.context));
  if (!module) {
    setError(error, "cannot parse the module:\n" + session.diagnostics);
    return nullptr;
  }
  StringRef text = StringRef(pipeline).trim();
  if (text.starts_with("builtin.module("))
    text = text.drop_front(15).drop_back();
  PassManager pm(&session.context);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(text, pm, errorStream))) {
    setError(error, "invalid pipeline: " + errors);
    return nullptr;
  }
  if (failed(pm.run(*module))) {
    setError(error, "pipeline failed:\n" + session.diagnostics);
    return nullptr;
  }
  std::string result;
  llvm::raw_string_ostream os(result);
  module->print(os);
  return copyString(result);
}

RecurrenceCompiled *recurrenceCompile(const char *ir, const char *entry,
                                      char **error) {
  auto compiled = std::make_unique<RecurrenceCompiled>();
  compiled->session = std::make_unique<Session>();
  compiled->entry = entry;
  auto jit = JitModule::compileSource(&compiled->session->context, ir,
                                      {compiled->entry});
  if (!jit) {
    setError(error, llvm::toString(jit.takeError()));
    return nullptr;
  }
  compiled->jit = std::move(*jit);
  return compiled.release();
}

static BufferView viewOf(const RecurrenceBuffer &buffer) {
  BufferView view;
  view.data = buffer.data;
  view.elementBits = static_cast<unsigned>(buffer.elementBits);
  view.sizes.assign(buffer.sizes, buffer.sizes + buffer.rank);
  view.strides.assign(buffer.strides, buffer.strides + buffer.rank);
  return view;
}

int recurrenceCall(RecurrenceCompiled *compiled, const RecurrenceBuffer *args,
                   int32_t numArgs, const RecurrenceBuffer *results,
                   int32_t numResults, char **error) {
  if (!compiled) {
    setError(error, "recurrenceCall: no compiled function");
    return 1;
  }
  std::vector<BufferView> argViews, resultViews;
  for (int32_t i = 0; i < numArgs; ++i)
    argViews.push_back(viewOf(args[i]));
  for (int32_t i = 0; i < numResults; ++i)
    resultViews.push_back(viewOf(results[i]));
  if (llvm::Error failure =
          compiled->jit->call(compiled->entry, argViews, resultViews)) {
    setError(error, llvm::toString(std::move(failure)));
    return 1;
  }
  return 0;
}

void recurrenceDestroy(RecurrenceCompiled *compiled) { delete compiled; }

void recurrenceFree(char *string) { std::free(string); }
