//===- Registration.cpp - Dialect and pass registration -------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The one file that includes the InitAll headers (they are slow to compile).
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

using namespace mlir;

void mlir::recurrence::registerAllRecurrenceDialects(
    DialectRegistry &registry) {
  registry.insert<RecurrenceDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
}

void mlir::recurrence::registerAllRecurrencePasses() {
  registerAllPasses();
  registerRecurrencePasses();
  registerRecurrencePipelines();
}
