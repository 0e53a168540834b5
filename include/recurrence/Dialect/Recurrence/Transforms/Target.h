//===- Target.h - The target a compilation plans for ------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The properties of the machine that the passes plan for come from the IR
// (a DLTI target system spec on the module) or from pass options, never
// from the machine the compiler happens to run on: the same input gives the
// same output everywhere. The JIT, which compiles for the machine it runs
// on, states that machine explicitly. A module declares, for instance,
//
//   module attributes {dlti.target_system_spec = #dlti.target_system_spec<
//       "CPU" = #dlti.target_device_spec<"num_cores" = 8 : i64>>} { ... }
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TARGET_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TARGET_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::recurrence {

/// The DLTI device whose entries describe `target` ("cpu" -> "CPU",
/// "cuda" -> "GPU").
StringRef dltiDeviceOf(StringRef target);

/// The "num_cores" of `device` that the DLTI target system spec around
/// `op` declares, if any (and if it is a positive integer).
std::optional<int64_t> targetCores(Operation *op, StringRef device);

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_TARGET_H
