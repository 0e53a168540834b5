//===- RecurrencePlugin.cpp - Dialect and pass plugin for mlir-opt --------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Lets a stock mlir-opt parse recurrence IR and run its passes:
//
//   mlir-opt --load-dialect-plugin=libRecurrencePlugin.so \
//            --load-pass-plugin=libRecurrencePlugin.so -recurrence-to-llvm
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"
#include "recurrence/Pipelines/Pipelines.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Recurrence", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            registry->insert<recurrence::RecurrenceDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Recurrence", LLVM_VERSION_STRING, [] {
            recurrence::registerRecurrencePasses();
            recurrence::registerRecurrencePipelines();
          }};
}
