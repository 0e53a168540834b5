//===- Queries.cpp - What a front door asks the compiler ------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The structures and what each takes, shapes, the IR of a scan and the cost
// model's choice: everything a front door needs to check its arguments and
// explain itself, read off the structure interface rather than restated.
//
//===----------------------------------------------------------------------===//

#include "recurrence-c/Recurrence.h"

#include "Support.h"

#include "recurrence/Dialect/Recurrence/Transforms/CostModel.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <thread>

using namespace mlir;
using namespace mlir::recurrence;
using namespace mlir::recurrence::capi;
using llvm::json::Array;
using llvm::json::Object;

/// Each operand's layout for messages, e.g. "[..., T, N/m, m, m]": the step
/// shapes at sizes chosen so that each dim names what it is.
static Array stepLayouts(RecurrenceStructureInterface prototype) {
  constexpr int64_t param = 7, size = 30030,
                    columns = 10007; // 30030 = 2*3*5*7*11*13
  std::string syntax = prototype.getSyntax();
  size_t open = syntax.find('<');
  std::string letter = open == std::string::npos
                           ? "p"
                           : syntax.substr(open + 1, syntax.size() - open - 2);
  RecurrenceStructureInterface structure = prototype;
  if (Attribute withParam = prototype.withParameter(param))
    structure = cast<RecurrenceStructureInterface>(withParam);
  auto name = [&](int64_t dim) -> std::string {
    if (dim == size)
      return "N";
    if (dim == columns)
      return "D";
    if (dim == param && open != std::string::npos)
      return letter;
    if (dim > 0 && size % dim == 0)
      return "N/" + (size / dim == param && open != std::string::npos
                         ? letter
                         : std::to_string(size / dim));
    return std::to_string(dim);
  };
  Array layouts;
  for (unsigned i = 0, e = structure.getNumTransitionOperands(); i < e; ++i) {
    std::string text = "[..., T";
    for (int64_t dim : structure.getTransitionStep(i, size, columns, false))
      text += ", " + name(dim);
    layouts.push_back(text + "]");
  }
  return layouts;
}

char *recurrenceStructures(char **error) {
  (void)error;
  auto guard = lock();
  Array table;
  for (RecurrenceStructureInterface structure :
       getRecurrenceStructures(&context())) {
    Array operands, stepRanks;
    for (unsigned i = 0, e = structure.getNumTransitionOperands(); i < e; ++i) {
      operands.push_back(structure.getTransitionOperandName(i));
      stepRanks.push_back(static_cast<int64_t>(
          structure
              .getTransitionStep(i, ShapedType::kDynamic, ShapedType::kDynamic,
                                 false)
              .size()));
    }
    table.push_back(Object{{"name", getStructureKeyword(structure)},
                           {"syntax", structure.getSyntax()},
                           {"operands", std::move(operands)},
                           {"step_ranks", std::move(stepRanks)},
                           {"layouts", stepLayouts(structure)},
                           {"per_element", structure.allowsPerElement()},
                           {"parameter", bool(structure.withParameter(1))}});
  }
  return toJson(std::move(table));
}

/// Finds the parameter and the state size N for which the structure's
/// operands have the given step shapes, by trying the sizes those shapes
/// hold and then the input's N.
char *recurrenceFitStructure(const char *requestText, char **error) {
  llvm::Expected<Object> request = parseObject(requestText, "fit request");
  if (!request)
    return fail(error, llvm::toString(request.takeError()));
  std::optional<llvm::StringRef> name = request->getString("name");
  const Array *stepList = request->getArray("steps");
  std::optional<bool> perElement = request->getBoolean("per_element");
  std::optional<int64_t> columns = request->getInteger("columns");
  std::optional<int64_t> inputSize = request->getInteger("input_size");
  if (!name || !stepList || !perElement || !columns || !inputSize)
    return fail(error, "fit request: expected name, steps, per_element, "
                       "columns and input_size");
  std::vector<std::vector<int64_t>> steps;
  for (const llvm::json::Value &step : *stepList) {
    const Array *dims = step.getAsArray();
    if (!dims)
      return fail(error, "fit request: each step must be a list of sizes");
    steps.emplace_back();
    for (const llvm::json::Value &dim : *dims)
      steps.back().push_back(dim.getAsInteger().value_or(-1));
  }
  auto guard = lock();
  RecurrenceStructureInterface prototype =
      lookupRecurrenceStructure(&context(), *name);
  if (!prototype)
    return fail(error, "unknown structure '" + name->str() + "'");
  std::vector<int64_t> seen;
  for (const std::vector<int64_t> &step : steps)
    seen.insert(seen.end(), step.begin(), step.end());
  // (parameter, structure); parameter 0 for a structure that takes none.
  std::vector<std::pair<int64_t, RecurrenceStructureInterface>> candidates = {
      {0, prototype}};
  if (prototype.withParameter(1)) {
    candidates.clear();
    for (int64_t param : seen)
      if (param >= 1)
        candidates.push_back({param, cast<RecurrenceStructureInterface>(
                                         prototype.withParameter(param))});
  }
  auto fits = [&](RecurrenceStructureInterface structure, int64_t size) {
    if (steps.size() != structure.getNumTransitionOperands())
      return false;
    for (auto [index, step] : llvm::enumerate(steps)) {
      SmallVector<int64_t> want =
          structure.getTransitionStep(index, size, *columns, *perElement);
      if (ArrayRef<int64_t>(want) != ArrayRef<int64_t>(step))
        return false;
    }
    return true;
  };
  for (auto [param, structure] : candidates) {
    int64_t group = std::max<int64_t>(1, structure.getChannelGroup());
    std::vector<int64_t> sizes;
    for (int64_t dim : seen)
      sizes.insert(sizes.end(), {dim, dim * group});
    sizes.push_back(*inputSize);
    for (int64_t size : sizes)
      if (size >= 0 && fits(structure, size))
        return toJson(Object{{"param", param}, {"size", size}});
  }
  return toJson(Object{{"param", nullptr}, {"size", -1}});
}

namespace {
Array jsonList(ArrayRef<int64_t> values) {
  Array list;
  for (int64_t value : values)
    list.push_back(value);
  return list;
}
} // namespace

char *recurrenceScanShapes(const char *specText, const char *sizesText,
                           char **error) {
  llvm::Expected<ScanSpec> spec = readScanSpec(specText);
  if (!spec)
    return fail(error, llvm::toString(spec.takeError()));
  llvm::Expected<ScanSizes> sizes = readScanSizes(sizesText);
  if (!sizes)
    return fail(error, llvm::toString(sizes.takeError()));
  auto guard = lock();
  Diagnostics diagnostics;
  RecurrenceStructureInterface structure = spec->structureIn(&context());
  if (!structure)
    return fail(error, diagnostics.text);
  Array operands;
  for (const ScanOperand &operand : scanOperands(structure, *spec, *sizes))
    operands.push_back(jsonList(operand.shape));
  return toJson(
      Object{{"operands", std::move(operands)},
             {"output", jsonList(scanOutputShape(structure, *spec, *sizes))},
             {"final_state",
              jsonList(scanFinalStateShape(structure, *spec, *sizes))}});
}

/// The verified module of a spec at static sizes; null with *error set.
static OwningOpRef<ModuleOp> staticScan(const char *specText,
                                        const char *sizesText, char **error) {
  llvm::Expected<ScanSizes> sizes = readScanSizes(sizesText);
  if (!sizes)
    return fail(error, llvm::toString(sizes.takeError()));
  return buildVerifiedScan(specText, &*sizes, error);
}

char *recurrenceScanIR(const char *specText, const char *sizesText,
                       char **error) {
  auto guard = lock();
  OwningOpRef<ModuleOp> module = staticScan(specText, sizesText, error);
  if (!module)
    return nullptr;
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return copyString(text);
}

/// The cost model of `target` ("cpu" or "cuda") with `cores` (0: this
/// CPU's, or the GPU model's own SMs, as the JIT compiles for them).
static std::optional<TargetModel> targetModel(const char *target, int64_t cores,
                                              char **error) {
  std::string name = target ? target : "";
  if (cores <= 0 && name == "cpu")
    cores = std::max<int64_t>(1, std::thread::hardware_concurrency());
  std::optional<TargetModel> model =
      TargetModel::get(name, std::max<int64_t>(0, cores), 0);
  if (!model)
    fail(error, "unknown target '" + name + "'; expected cpu or cuda");
  return model;
}

/// The function a call of `module`'s scan runs: the JIT's wrapper on the
/// caller's buffers, with the scan inlined into it (the GPU keeps scans that
/// read and write those buffers in place sequential, see keepsSequential);
/// null with *error set where the inliner fails.
static func::FuncOp asCalled(ModuleOp module, char **error) {
  auto entry = module.lookupSymbol<func::FuncOp>("scan");
  func::FuncOp wrapper = addCallerBufferWrapper(module, entry);
  Diagnostics diagnostics;
  PassManager pm(module.getContext());
  // Inlined only: the default pipeline's canonicalization would fold a
  // scan of one step away.
  pm.addPass(createInlinerPass({}, [](OpPassManager &) {}));
  if (failed(pm.run(module))) {
    fail(error, diagnostics.text);
    return {};
  }
  return wrapper;
}

char *recurrenceExplain(const char *specText, const char *sizesText,
                        const char *target, int64_t cores, char **error) {
  auto guard = lock();
  OwningOpRef<ModuleOp> module = staticScan(specText, sizesText, error);
  if (!module)
    return nullptr;
  std::optional<TargetModel> model = targetModel(target, cores, error);
  if (!model)
    return nullptr;
  func::FuncOp called = asCalled(*module, error);
  if (!called)
    return nullptr;
  Array candidates;
  called.walk([&](ScanOp op) {
    for (const ScheduleEstimate &estimate : estimateSchedules(op, *model))
      if (model->lowers(op, estimate.schedule.getKind()))
        candidates.push_back(
            Object{{"schedule",
                    stringifyScheduleKind(estimate.schedule.getKind()).str()},
                   {"chunk_size", estimate.schedule.getChunkSize()},
                   {"seconds", estimate.seconds}});
  });
  return toJson(std::move(candidates));
}

char *recurrenceReadsTimeContiguousInPlace(const char *specText,
                                           const char *sizesText,
                                           const char *target, char **error) {
  auto guard = lock();
  OwningOpRef<ModuleOp> module = staticScan(specText, sizesText, error);
  if (!module)
    return nullptr;
  std::optional<TargetModel> model = targetModel(target, 0, error);
  if (!model)
    return nullptr;
  std::string reason;
  module->walk([&](ScanOp op) {
    if (reason.empty())
      reason = model->slowerInPlaceWhereTimeContiguous(op).str();
  });
  return toJson(Object{{"in_place", reason.empty()}, {"reason", reason}});
}

char *recurrenceModelScans(const char *specText, char **error) {
  auto guard = lock();
  OwningOpRef<ModuleOp> module = buildVerifiedModel(specText, error);
  if (!module)
    return nullptr;
  Diagnostics diagnostics;
  PassManager pm(&context());
  pm.addPass(createDecomposeModelsPass());
  if (failed(pm.run(*module)))
    return fail(error, diagnostics.text);
  Array scans;
  module->walk([&](ScanOp scan) {
    RecurrenceStructureInterface structure = scan.getStructure();
    scans.push_back(Object{{"structure", getStructureKeyword(structure)},
                           {"name", structure.getStructureName()},
                           {"reverse", scan.getReverse()},
                           {"init", bool(scan.getInit())},
                           {"readout", bool(scan.getReadout())},
                           {"factored", bool(scan.getInputKey())},
                           {"matrix", scan.getMatrix()}});
  });
  return toJson(std::move(scans));
}
