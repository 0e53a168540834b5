//===- ScanSpec.h - A recurrence.scan described as plain data ---*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What a front door (a test, the demo, the bindings) says about the scan it
// wants: the structure, the flags and the number of batch dims. From it come
// the operand list, their shapes for given sizes, and a function on
// dynamically shaped tensors that holds the scan.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_SCANSPEC_H
#define RECURRENCE_RUNTIME_SCANSPEC_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir::recurrence {

struct ScanSpec {
  /// The structure as `recurrence.scan` writes it: `block_diagonal<4>`, or
  /// an attribute of another dialect in full (`#mydialect.rotation`).
  std::string structure = "diagonal";
  ScheduleKind schedule = ScheduleKind::Auto;
  int64_t chunkSize = 0;
  bool matrix = false;
  bool perElement = false; // diagonal given per state element
  bool factored = false;   // b_t = k_t v_t^T
  bool reverse = false;
  bool init = false;
  bool readout = false;
  bool finalState = false;
  /// Packed sequences: an i64 `offsets` operand, last; init and the final
  /// state hold one state per sequence.
  bool offsets = false;
  bool f64 = false; // the state type: f64, else f32
  /// Narrower operands ("bf16" or "f16") of a state in f32 (or f64): the
  /// scan accumulates in the state type and stores its output in this one.
  /// Empty: the operands and the output have the state type.
  std::string operandType;
  int64_t batchRank = 1;
  /// Where it runs: "cpu", or "cuda" (compiled by the JIT; not part of the
  /// scan's IR).
  std::string target = "cpu";

  /// A short name, e.g. "block_diagonal<3>.matrix.reverse.init.f64".
  std::string describe() const;

  /// Reads the spec off a verified op.
  static ScanSpec fromOp(ScanOp op);

  /// The structure attribute, or null after a diagnostic when the text
  /// names none that `context` knows.
  RecurrenceStructureInterface structureIn(MLIRContext *context) const;
};

/// What an operand of the scan function is for.
enum class OperandRole {
  Transition,
  Input,
  Key,
  Value,
  Init,
  Readout,
  Offsets
};

struct ScanOperand {
  OperandRole role;
  unsigned index; // among the transition operands
  std::vector<int64_t> shape;
};

/// One value per operand role (T default-constructed where a role is
/// absent), filled operand by operand in scanOperands' order.
template <typename T> struct OperandsByRole {
  std::vector<T> transition;
  T input{}, key{}, value{}, init{}, readout{}, offsets{};

  void set(const ScanOperand &operand, T x) {
    switch (operand.role) {
    case OperandRole::Transition:
      if (transition.size() <= operand.index)
        transition.resize(operand.index + 1);
      transition[operand.index] = x;
      return;
    case OperandRole::Input:
      input = x;
      return;
    case OperandRole::Key:
      key = x;
      return;
    case OperandRole::Value:
      value = x;
      return;
    case OperandRole::Init:
      init = x;
      return;
    case OperandRole::Readout:
      readout = x;
      return;
    case OperandRole::Offsets:
      offsets = x;
      return;
    }
  }
};

/// Concrete sizes of one problem.
struct ScanSizes {
  std::vector<int64_t> batch;
  int64_t steps = 1, size = 1, columns = 1;
  int64_t sequences = 1; // S, with ScanSpec::offsets
  /// The layouts of the caller's buffers, in elements: one list of strides
  /// per argument (and per result), empty (or absent at the end) for a
  /// contiguous one. The function reads and writes them in place: a scan
  /// over a time-contiguous [B, N, T] tensor is given as its [B, T, N] view.
  std::vector<std::vector<int64_t>> argStrides = {}, resultStrides = {};
};

/// The sizes of a verified op, or std::nullopt if any is dynamic.
std::optional<ScanSizes> scanSizesOf(ScanOp op);

/// The function's operands in order (transition..., b | k, v, init, readout,
/// offsets)
/// with their shapes for `sizes`. `structure` is spec.structureIn(...).
std::vector<ScanOperand> scanOperands(RecurrenceStructureInterface structure,
                                      const ScanSpec &spec,
                                      const ScanSizes &sizes);
/// The shapes of the output and of the final state.
std::vector<int64_t> scanOutputShape(RecurrenceStructureInterface structure,
                                     const ScanSpec &spec,
                                     const ScanSizes &sizes);
std::vector<int64_t> scanFinalStateShape(RecurrenceStructureInterface structure,
                                         const ScanSpec &spec,
                                         const ScanSizes &sizes);

/// A module with `func.func @<name>` that returns the output (and the final
/// state) of one recurrence.scan, on dynamically shaped tensors or, given
/// `sizes`, on statically shaped ones. Null after a diagnostic when the
/// structure does not parse.
OwningOpRef<ModuleOp> buildScanModule(MLIRContext *context,
                                      const ScanSpec &spec,
                                      StringRef name = "scan",
                                      const ScanSizes *sizes = nullptr);

/// States the caller's layouts of `sizes` (argStrides, resultStrides) on
/// `func`'s arguments and results as `bufferization.buffer_layout`, after
/// checking that there are no more of them than arguments (results) and
/// that each has its tensor's rank and positive strides. buildScanModule
/// does this for the scan; a gradient's entry takes the layouts of its own
/// arguments and results.
LogicalResult setBufferLayouts(func::FuncOp func, const ScanSizes &sizes);

} // namespace mlir::recurrence

#endif // RECURRENCE_RUNTIME_SCANSPEC_H
