//===- RecurrenceExtension.cpp - Python bindings of Recurrence ------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The native half of the `recurrence` package: IR in and out, and compiled
// functions called on NumPy arrays. Everything numeric goes through the same
// pipeline builders and JIT as recurrence-opt; Python only validates and
// arranges arguments.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/CostModel.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Runtime/JitModule.h"
#include "recurrence/Runtime/ModelSpec.h"
#include "recurrence/Runtime/ScanSpec.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>
#include <thread>

namespace py = pybind11;
using namespace mlir;
using namespace mlir::recurrence;

namespace {

/// The process-wide context with every dialect, pass and pipeline.
MLIRContext &context() {
  static MLIRContext *instance = [] {
    registerAllRecurrencePasses();
    DialectRegistry registry;
    registerAllRecurrenceDialects(registry);
    auto *ctx = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    ctx->loadAllAvailableDialects();
    return ctx;
  }();
  return *instance;
}

/// Collects the diagnostics emitted while alive, for error messages.
struct DiagnosticCollector {
  std::string text;
  llvm::raw_string_ostream os{text};
  ScopedDiagnosticHandler handler{&context(), [this](Diagnostic &diag) {
                                    os << diag.getLocation() << ": " << diag
                                       << "\n";
                                    return success();
                                  }};
};

[[noreturn]] void raise(const std::string &message) {
  throw py::value_error(message);
}

void check(llvm::Error error) {
  if (error)
    raise(llvm::toString(std::move(error)));
}

/// An MLIR module owned by Python.
struct PyModule {
  OwningOpRef<ModuleOp> module;

  static PyModule parse(const std::string &text) {
    DiagnosticCollector diagnostics;
    PyModule result;
    result.module = parseSourceString<ModuleOp>(text, &context());
    if (!result.module)
      raise("cannot parse the module:\n" + diagnostics.text);
    return result;
  }

  /// Runs a textual pipeline: "builtin.module(a, b)", or just "a, b".
  void runPipeline(const std::string &pipeline) {
    DiagnosticCollector diagnostics;
    std::string text = pipeline;
    if (StringRef(text).trim().starts_with("builtin.module("))
      text = StringRef(text).trim().drop_front(15).drop_back().str();
    PassManager pm(&context());
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    if (failed(parsePassPipeline(text, pm, errorStream)))
      raise("invalid pipeline '" + pipeline + "': " + errors);
    if (failed(pm.run(*module)))
      raise("pipeline '" + pipeline + "' failed:\n" + diagnostics.text);
  }

  std::string str() {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os);
    return text;
  }
};

/// A compiled entry point callable on NumPy arrays.
struct Compiled {
  std::unique_ptr<JitModule> jit;
  std::string entry;

  /// A view of an array (strides in elements); `writable` requests write
  /// access.
  static BufferView viewOf(const py::array &array, bool writable) {
    py::buffer_info info = array.request(writable);
    BufferView view;
    view.data = info.ptr;
    view.elementBits = static_cast<unsigned>(info.itemsize * 8);
    view.sizes.assign(info.shape.begin(), info.shape.end());
    for (py::ssize_t stride : info.strides)
      view.strides.push_back(stride / info.itemsize);
    return view;
  }

  /// Calls the entry; result shapes are given because sizes may be dynamic.
  /// A result whose entry in `outs` is an array is written into it (the
  /// caller checked its shape and dtype); the others are allocated.
  py::tuple call(const std::vector<py::array> &args,
                 const std::vector<std::vector<int64_t>> &resultShapes,
                 const std::vector<py::object> &outs) {
    const JitModule::Signature *signature = jit->getSignature(entry);
    std::vector<BufferView> argViews;
    for (const py::array &array : args)
      argViews.push_back(viewOf(array, /*writable=*/false));
    if (resultShapes.size() != signature->results.size())
      raise("expected " + std::to_string(signature->results.size()) +
            " result shape(s), got " + std::to_string(resultShapes.size()));
    std::vector<py::array> results;
    std::vector<BufferView> resultViews;
    for (auto [index, shape, bits] :
         llvm::enumerate(resultShapes, signature->resultBits)) {
      if (index < outs.size() && !outs[index].is_none()) {
        py::array out = outs[index].cast<py::array>();
        resultViews.push_back(viewOf(out, /*writable=*/true));
        results.push_back(out);
        continue;
      }
      py::array result = bits == 64 ? py::array(py::dtype::of<double>(), shape)
                                    : py::array(py::dtype::of<float>(), shape);
      resultViews.push_back(
          BufferView::contiguous(result.mutable_data(), bits, shape));
      results.push_back(result);
    }
    {
      py::gil_scoped_release release;
      check(jit->call(entry, argViews, resultViews));
    }
    return py::cast(results);
  }
};

Compiled compileModule(PyModule &module, const std::string &entry) {
  DiagnosticCollector diagnostics;
  auto jit = JitModule::compile(*module.module, {entry});
  if (!jit)
    raise(llvm::toString(jit.takeError()) + diagnostics.text);
  return Compiled{std::move(*jit), entry};
}

/// Reads a ScanSpec from a Python dict (the keys of ScanSpec).
ScanSpec specFrom(const py::dict &d) {
  ScanSpec spec;
  spec.structure = d["structure"].cast<std::string>();
  if (int64_t param = d["param"].cast<int64_t>())
    spec.structure += "<" + std::to_string(param) + ">";
  auto schedule = symbolizeScheduleKind(d["schedule"].cast<std::string>());
  if (!schedule)
    raise("unknown schedule '" + d["schedule"].cast<std::string>() + "'");
  spec.schedule = *schedule;
  spec.chunkSize = d["chunk_size"].cast<int64_t>();
  spec.matrix = d["matrix"].cast<bool>();
  spec.perElement = d["per_element"].cast<bool>();
  spec.factored = d["factored"].cast<bool>();
  spec.reverse = d["reverse"].cast<bool>();
  spec.init = d["init"].cast<bool>();
  spec.readout = d["readout"].cast<bool>();
  spec.finalState = d["final_state"].cast<bool>();
  spec.f64 = d["f64"].cast<bool>();
  spec.batchRank = d["batch_rank"].cast<int64_t>();
  return spec;
}

ScanSizes sizesFrom(const py::dict &d) {
  ScanSizes sizes;
  sizes.batch = d["batch"].cast<std::vector<int64_t>>();
  sizes.steps = d["steps"].cast<int64_t>();
  sizes.size = d["size"].cast<int64_t>();
  sizes.columns = d["columns"].cast<int64_t>();
  return sizes;
}

/// Each operand's layout for messages, e.g. "[..., T, N/m, m, m]": the step
/// shapes at sizes chosen so that each dim names what it is.
py::list stepLayouts(RecurrenceStructureInterface prototype) {
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
  py::list layouts;
  for (unsigned i = 0, e = structure.getNumTransitionOperands(); i < e; ++i) {
    std::string text = "[..., T";
    for (int64_t dim : structure.getTransitionStep(i, size, columns, false))
      text += ", " + name(dim);
    layouts.append(text + "]");
  }
  return layouts;
}

/// What a front door needs to know of each structure, from the structure.
py::list structureTable() {
  py::list table;
  for (RecurrenceStructureInterface structure :
       getRecurrenceStructures(&context())) {
    std::string syntax = structure.getSyntax();
    py::list operands, stepRanks;
    for (unsigned i = 0, e = structure.getNumTransitionOperands(); i < e; ++i) {
      operands.append(structure.getTransitionOperandName(i));
      stepRanks.append(structure
                           .getTransitionStep(i, ShapedType::kDynamic,
                                              ShapedType::kDynamic, false)
                           .size());
    }
    py::dict entry;
    entry["layouts"] = stepLayouts(structure);
    entry["name"] = syntax.substr(0, syntax.find('<'));
    entry["syntax"] = syntax;
    entry["operands"] = operands;
    entry["step_ranks"] = stepRanks;
    entry["per_element"] = structure.allowsPerElement();
    entry["parameter"] = bool(structure.withParameter(1));
    table.append(entry);
  }
  return table;
}

/// Finds the parameter and the state size N for which the structure's
/// operands have the given step shapes (the shapes after [..., T]), by trying
/// the sizes those shapes hold and then `inputSize`, the N of the input.
/// Returns the parameter (0 for a structure without one) and N, or (None, -1)
/// when no choice fits.
py::tuple fitStructure(const std::string &name,
                       const std::vector<std::vector<int64_t>> &steps,
                       bool perElement, int64_t columns, int64_t inputSize) {
  RecurrenceStructureInterface prototype =
      lookupRecurrenceStructure(&context(), name);
  if (!prototype)
    raise("unknown structure '" + name + "'");
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
          structure.getTransitionStep(index, size, columns, perElement);
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
    sizes.push_back(inputSize);
    for (int64_t size : sizes)
      if (size >= 0 && fits(structure, size))
        return py::make_tuple(param, size);
  }
  return py::make_tuple(py::none(), -1);
}

/// Verifies the op a spec builds, so that bad parameters are reported with
/// the verifier's message before anything is compiled.
OwningOpRef<ModuleOp> buildVerified(const ScanSpec &spec,
                                    const ScanSizes *sizes) {
  DiagnosticCollector diagnostics;
  OwningOpRef<ModuleOp> module =
      buildScanModule(&context(), spec, "scan", sizes);
  if (!module || failed(verify(*module)))
    raise(diagnostics.text);
  return module;
}

} // namespace

PYBIND11_MODULE(_recurrence, m) {
  m.doc() = "Native core of the recurrence package";

  py::class_<PyModule>(m, "Module")
      .def_static("parse", &PyModule::parse, py::arg("text"),
                  "Parses MLIR text (any registered dialect)")
      .def("run_pipeline", &PyModule::runPipeline, py::arg("pipeline"),
           "Runs a textual pass pipeline, e.g. "
           "'builtin.module(recurrence-to-llvm)'")
      .def("__str__", &PyModule::str);

  py::class_<Compiled>(m, "Compiled")
      .def("__call__", &Compiled::call, py::arg("args"),
           py::arg("result_shapes"),
           py::arg("outs") = std::vector<py::object>())
      .def("signature", [](const Compiled &c) {
        // Shapes with -1 for dynamic sizes, and element widths in bits.
        const JitModule::Signature *s = c.jit->getSignature(c.entry);
        auto shapes = [](const std::vector<std::vector<int64_t>> &all) {
          py::list list;
          for (std::vector<int64_t> shape : all) {
            for (int64_t &size : shape)
              if (ShapedType::isDynamic(size))
                size = -1;
            list.append(py::tuple(py::cast(shape)));
          }
          return list;
        };
        return py::make_tuple(shapes(s->args), py::cast(s->argBits),
                              shapes(s->results), py::cast(s->resultBits));
      });

  m.def("compile_module", &compileModule, py::arg("module"), py::arg("entry"),
        "JIT-compiles one function on tensors through -recurrence-to-llvm");

  m.def(
      "compile_scan",
      [](const py::dict &spec) {
        OwningOpRef<ModuleOp> module = buildVerified(specFrom(spec), nullptr);
        auto jit = JitModule::compile(*module, {"scan"});
        if (!jit)
          raise(llvm::toString(jit.takeError()));
        return Compiled{std::move(*jit), "scan"};
      },
      py::arg("spec"), "Compiles one recurrence.scan on dynamic shapes");

  m.def(
      "compile_scan_grad",
      [](const py::dict &spec) {
        // The scan of `spec` and, from -recurrence-differentiate, its
        // gradient: scan_grad(operands..., output cotangent[, final state
        // cotangent]) -> one gradient per operand.
        OwningOpRef<ModuleOp> module = buildVerified(specFrom(spec), nullptr);
        DiagnosticCollector diagnostics;
        PassManager pm(&context());
        pm.addPass(createDifferentiatePass());
        if (failed(pm.run(*module)))
          raise("differentiating the scan failed:\n" + diagnostics.text);
        auto jit = JitModule::compile(*module, {"scan_grad"});
        if (!jit)
          raise(llvm::toString(jit.takeError()));
        return Compiled{std::move(*jit), "scan_grad"};
      },
      py::arg("spec"), "Compiles the gradient of one recurrence.scan");

  m.def(
      "compile_model",
      [](const py::dict &d) {
        ModelSpec spec;
        spec.model = d["model"].cast<std::string>();
        spec.function = d["function"].cast<std::string>();
        spec.param = d["param"].cast<int64_t>();
        spec.init = d["init"].cast<bool>();
        spec.f64 = d["f64"].cast<bool>();
        auto schedule =
            symbolizeScheduleKind(d["schedule"].cast<std::string>());
        if (!schedule)
          raise("unknown schedule '" + d["schedule"].cast<std::string>() + "'");
        spec.schedule = *schedule;
        spec.chunkSize = d["chunk_size"].cast<int64_t>();
        spec.featureMap = d["feature_map"].cast<std::string>();
        spec.normalize = d["normalize"].cast<bool>();
        spec.eps = d["eps"].cast<double>();
        spec.gated = d["gated"].cast<bool>();
        spec.skip = d["skip"].cast<bool>();
        spec.finalState = d["final_state"].cast<bool>();
        DiagnosticCollector diagnostics;
        OwningOpRef<ModuleOp> module = buildModelModule(&context(), spec);
        if (!module || failed(verify(*module)))
          raise(diagnostics.text);
        auto jit = JitModule::compile(*module, {"model"});
        if (!jit)
          raise(llvm::toString(jit.takeError()));
        return Compiled{std::move(*jit), "model"};
      },
      py::arg("spec"),
      "Compiles one model op (normalize_gates, hlru, bdlru, "
      "linear_attention, delta_rule, selective_ssm) on dynamic shapes");

  m.def(
      "scan_ir",
      [](const py::dict &spec, const py::dict &sizes) {
        ScanSizes concrete = sizesFrom(sizes);
        OwningOpRef<ModuleOp> module = buildVerified(specFrom(spec), &concrete);
        std::string text;
        llvm::raw_string_ostream os(text);
        module->print(os);
        return text;
      },
      py::arg("spec"), py::arg("sizes"), "The IR of one scan, static shapes");

  m.def("structures", &structureTable,
        "Each structure's name, syntax, operand names and step ranks, "
        "whether it takes a parameter or a per-element operand");
  m.def("fit_structure", &fitStructure, py::arg("name"), py::arg("steps"),
        py::arg("per_element"), py::arg("columns"), py::arg("input_size"),
        "The parameter and N with which a structure's operands have the "
        "given step shapes; (None, -1) when none fits");

  m.def(
      "scan_shapes",
      [](const py::dict &spec, const py::dict &sizes) {
        ScanSpec s = specFrom(spec);
        ScanSizes z = sizesFrom(sizes);
        DiagnosticCollector diagnostics;
        RecurrenceStructureInterface structure = s.structureIn(&context());
        if (!structure)
          raise(diagnostics.text);
        py::list operands;
        for (const ScanOperand &operand : scanOperands(structure, s, z))
          operands.append(py::cast(operand.shape));
        return py::make_tuple(operands,
                              py::cast(scanOutputShape(structure, s, z)),
                              py::cast(scanFinalStateShape(structure, s, z)));
      },
      py::arg("spec"), py::arg("sizes"),
      "Expected operand, output and final-state shapes");

  m.def(
      "explain",
      [](const py::dict &spec, const py::dict &sizes, const std::string &target,
         int64_t cores) {
        ScanSizes concrete = sizesFrom(sizes);
        OwningOpRef<ModuleOp> module = buildVerified(specFrom(spec), &concrete);
        std::optional<TargetModel> model = TargetModel::get(
            target,
            cores > 0
                ? cores
                : std::max<int64_t>(1, std::thread::hardware_concurrency()),
            0);
        if (!model)
          raise("unknown target '" + target + "'; expected cpu or cuda");
        py::list candidates;
        module->walk([&](ScanOp op) {
          for (const ScheduleEstimate &estimate :
               estimateSchedules(op, *model)) {
            std::string name =
                stringifyScheduleKind(estimate.schedule.getKind()).str();
            candidates.append(py::make_tuple(
                name, estimate.schedule.getChunkSize(), estimate.seconds));
          }
        });
        return candidates;
      },
      py::arg("spec"), py::arg("sizes"), py::arg("target") = "cpu",
      py::arg("cores") = 0,
      "The cost model's candidates for a scan, cheapest first");
}
