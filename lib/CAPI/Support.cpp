//===- Support.cpp - Shared pieces of the C API ---------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "Support.h"

#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/CompileCache.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Verifier.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::recurrence;
using llvm::json::Object;

char *capi::copyString(const std::string &text) {
  char *copy = static_cast<char *>(std::malloc(text.size() + 1));
  std::memcpy(copy, text.c_str(), text.size() + 1);
  return copy;
}

std::nullptr_t capi::fail(char **error, const std::string &message) {
  if (error)
    *error = copyString(message);
  return nullptr;
}

MLIRContext &capi::context() {
  static MLIRContext *instance = [] {
    registerRecurrenceRuntimePasses();
    DialectRegistry registry;
    registerRecurrenceRuntimeDialects(registry);
    auto *context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    return context;
  }();
  return *instance;
}

std::unique_lock<std::recursive_mutex> capi::lock() {
  static std::recursive_mutex mutex;
  return std::unique_lock<std::recursive_mutex>(mutex);
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<Object> capi::parseObject(const char *text,
                                         llvm::StringRef what) {
  if (!text)
    return makeError(what + ": expected a JSON object, got NULL");
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  if (!value)
    return makeError(what + ": " + llvm::toString(value.takeError()));
  if (Object *object = value->getAsObject())
    return std::move(*object);
  return makeError(what + ": expected a JSON object");
}

namespace {
/// Reads typed keys of an object, remembering the first mistake.
struct Reader {
  const Object &object;
  llvm::StringRef what;
  std::string error;

  void wrong(llvm::StringRef key, llvm::StringRef type) {
    if (error.empty())
      error = (what + ": '" + key + "' must be " + type).str();
  }
  bool boolean(llvm::StringRef key, bool fallback) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return fallback;
    if (std::optional<bool> b = value->getAsBoolean())
      return *b;
    wrong(key, "a boolean");
    return fallback;
  }
  int64_t integer(llvm::StringRef key, int64_t fallback) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return fallback;
    if (std::optional<int64_t> i = value->getAsInteger())
      return *i;
    wrong(key, "an integer");
    return fallback;
  }
  double number(llvm::StringRef key, double fallback) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return fallback;
    if (std::optional<double> d = value->getAsNumber())
      return *d;
    wrong(key, "a number");
    return fallback;
  }
  std::string string(llvm::StringRef key, llvm::StringRef fallback) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return fallback.str();
    if (std::optional<llvm::StringRef> s = value->getAsString())
      return s->str();
    wrong(key, "a string");
    return fallback.str();
  }
  /// The integers of a JSON list, or none when it is not one.
  static std::optional<std::vector<int64_t>>
  integersOf(const llvm::json::Value &value) {
    const llvm::json::Array *array = value.getAsArray();
    if (!array)
      return std::nullopt;
    std::vector<int64_t> result;
    for (const llvm::json::Value &element : *array) {
      std::optional<int64_t> i = element.getAsInteger();
      if (!i)
        return std::nullopt;
      result.push_back(*i);
    }
    return result;
  }
  std::vector<int64_t> integers(llvm::StringRef key) {
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return {};
    std::optional<std::vector<int64_t>> result = integersOf(*value);
    if (!result)
      wrong(key, "a list of integers");
    return result.value_or(std::vector<int64_t>());
  }
  /// A list whose elements are lists of integers or null (read as empty).
  std::vector<std::vector<int64_t>> integerLists(llvm::StringRef key) {
    std::vector<std::vector<int64_t>> result;
    const llvm::json::Value *value = object.get(key);
    if (!value)
      return result;
    const llvm::json::Array *array = value->getAsArray();
    for (const llvm::json::Value &element :
         array ? *array : llvm::json::Array()) {
      std::optional<std::vector<int64_t>> list =
          element.getAsNull() ? std::vector<int64_t>() : integersOf(element);
      if (!list) {
        array = nullptr;
        break;
      }
      result.push_back(*list);
    }
    if (!array)
      wrong(key, "a list of lists of integers (or nulls)");
    return result;
  }
  ScheduleKind schedule() {
    std::string name = string("schedule", "auto");
    std::optional<ScheduleKind> kind = symbolizeScheduleKind(name);
    if (!kind && error.empty())
      error = (what + ": unknown schedule '" + name + "'").str();
    return kind.value_or(ScheduleKind::Auto);
  }
  /// "chunk_size" for `schedule`: at least 1 when it is chunked.
  int64_t chunkSize(ScheduleKind schedule, int64_t fallback) {
    int64_t size = integer("chunk_size", fallback);
    if (schedule == ScheduleKind::Chunked && size < 1 && error.empty())
      error = (what +
               ": schedule 'chunked' needs a chunk_size of at least 1, "
               "got " +
               Twine(size))
                  .str();
    return size;
  }
  /// What the spec is compiled for: `cpu` or `cuda`.
  std::string target(llvm::StringRef fallback) {
    std::string name = string("target", fallback);
    if (name != "cpu" && name != "cuda" && error.empty())
      error = (what + ": unknown target '" + name + "' (cpu or cuda)").str();
    return name;
  }
  template <typename T> llvm::Expected<T> done(T result) {
    if (!error.empty())
      return makeError(error);
    return result;
  }
};
} // namespace

static llvm::Expected<ScanSpec> scanSpecFrom(const Object &object) {
  Reader read{object, "scan spec", {}};
  ScanSpec spec;
  spec.structure = read.string("structure", spec.structure);
  if (int64_t param = read.integer("param", 0))
    spec.structure += "<" + std::to_string(param) + ">";
  spec.schedule = read.schedule();
  spec.chunkSize = read.chunkSize(spec.schedule, spec.chunkSize);
  spec.matrix = read.boolean("matrix", spec.matrix);
  spec.perElement = read.boolean("per_element", spec.perElement);
  spec.factored = read.boolean("factored", spec.factored);
  spec.reverse = read.boolean("reverse", spec.reverse);
  spec.init = read.boolean("init", spec.init);
  spec.readout = read.boolean("readout", spec.readout);
  spec.finalState = read.boolean("final_state", spec.finalState);
  spec.offsets = read.boolean("offsets", spec.offsets);
  spec.f64 = read.boolean("f64", spec.f64);
  spec.operandType = read.string("operand_type", spec.operandType);
  if (!spec.operandType.empty() && spec.operandType != "bf16" &&
      spec.operandType != "f16" && read.error.empty())
    read.error = "scan spec: unknown operand type '" + spec.operandType +
                 "' (bf16, f16, or none)";
  spec.batchRank = read.integer("batch_rank", spec.batchRank);
  spec.target = read.target(spec.target);
  return read.done(spec);
}

static llvm::Expected<ModelSpec> modelSpecFrom(const Object &object) {
  Reader read{object, "model spec", {}};
  ModelSpec spec;
  spec.model = read.string("model", "");
  spec.function = read.string("function", spec.function);
  spec.param = read.integer("param", spec.param);
  spec.init = read.boolean("init", spec.init);
  spec.f64 = read.boolean("f64", spec.f64);
  spec.featureMap = read.string("feature_map", spec.featureMap);
  spec.normalize = read.boolean("normalize", spec.normalize);
  spec.eps = read.number("eps", spec.eps);
  spec.gated = read.boolean("gated", spec.gated);
  spec.skip = read.boolean("skip", spec.skip);
  spec.finalState = read.boolean("final_state", spec.finalState);
  spec.offsets = read.boolean("offsets", spec.offsets);
  spec.schedule = read.schedule();
  spec.chunkSize = read.chunkSize(spec.schedule, spec.chunkSize);
  spec.target = read.target(spec.target);
  spec.argShapes = read.integerLists("arg_shapes");
  spec.resultShapes = read.integerLists("result_shapes");
  return read.done(spec);
}

static llvm::Expected<ScanSizes> scanSizesFrom(const Object &object) {
  Reader read{object, "sizes", {}};
  ScanSizes sizes;
  sizes.batch = read.integers("batch");
  sizes.steps = read.integer("steps", sizes.steps);
  sizes.size = read.integer("size", sizes.size);
  sizes.columns = read.integer("columns", sizes.columns);
  sizes.sequences = read.integer("sequences", sizes.sequences);
  sizes.argStrides = read.integerLists("arg_strides");
  sizes.resultStrides = read.integerLists("result_strides");
  // Sizes become tensor dims, where a negative one is no type at all.
  for (int64_t size : sizes.batch)
    if (size < 0)
      read.wrong("batch", "a list of sizes >= 0");
  if (sizes.steps < 0)
    read.wrong("steps", "a size >= 0");
  if (sizes.size < 0)
    read.wrong("size", "a size >= 0");
  if (sizes.sequences < 0)
    read.wrong("sequences", "a size >= 0");
  if (sizes.columns < 0)
    read.wrong("columns", "a size >= 0");
  return read.done(sizes);
}

/// Parses `text` as the JSON object named `what` and reads it with `read`.
template <typename T>
static llvm::Expected<T> readJson(const char *text, llvm::StringRef what,
                                  llvm::Expected<T> (*read)(const Object &)) {
  llvm::Expected<Object> object = capi::parseObject(text, what);
  if (!object)
    return object.takeError();
  return read(*object);
}

llvm::Expected<ScanSpec> capi::readScanSpec(const char *text) {
  return readJson(text, "scan spec", scanSpecFrom);
}

llvm::Expected<ModelSpec> capi::readModelSpec(const char *text) {
  return readJson(text, "model spec", modelSpecFrom);
}

llvm::Expected<ScanSizes> capi::readScanSizes(const char *text) {
  return readJson(text, "sizes", scanSizesFrom);
}

OwningOpRef<ModuleOp> capi::buildVerifiedScan(const char *specText,
                                              const ScanSizes *sizes,
                                              char **error) {
  llvm::Expected<ScanSpec> spec = readScanSpec(specText);
  if (!spec)
    return fail(error, llvm::toString(spec.takeError()));
  Diagnostics diagnostics;
  OwningOpRef<ModuleOp> module =
      buildScanModule(&context(), *spec, "scan", sizes);
  if (!module || failed(verify(*module)))
    return fail(error, diagnostics.text);
  return module;
}

OwningOpRef<ModuleOp> capi::buildVerifiedModel(const char *specText,
                                               char **error) {
  llvm::Expected<ModelSpec> spec = readModelSpec(specText);
  if (!spec)
    return fail(error, llvm::toString(spec.takeError()));
  Diagnostics diagnostics;
  OwningOpRef<ModuleOp> module = buildModelModule(&context(), *spec);
  if (!module || failed(verify(*module)))
    return fail(error, diagnostics.text);
  return module;
}

JitOptions capi::jitOptions(llvm::StringRef target) {
  JitOptions options;
  options.cacheDirectory = defaultCacheDirectory();
  options.target = target.str();
  return options;
}

RecurrenceCompiled *
capi::compiled(llvm::Expected<std::unique_ptr<JitModule>> jit,
               llvm::StringRef entry, char **error) {
  if (!jit)
    return fail(error, llvm::toString(jit.takeError()));
  auto result = std::make_unique<RecurrenceCompiled>();
  result->jit = std::move(*jit);
  result->entry = entry.str();
  return result.release();
}

char *capi::toJson(llvm::json::Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << value;
  return copyString(text);
}
