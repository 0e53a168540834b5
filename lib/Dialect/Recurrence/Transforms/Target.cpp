//===- Target.cpp - The target a compilation plans for --------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Target.h"

#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

StringRef mlir::recurrence::dltiDeviceOf(StringRef target) {
  return target == "cuda" ? "GPU" : "CPU";
}

std::optional<int64_t> mlir::recurrence::targetCores(Operation *op,
                                                     StringRef device) {
  FailureOr<Attribute> value = dlti::query(op, {device, "num_cores"});
  if (failed(value))
    return std::nullopt;
  auto cores = dyn_cast<IntegerAttr>(*value);
  if (!cores || cores.getValue().getSExtValue() < 1)
    return std::nullopt;
  return cores.getValue().getSExtValue();
}
