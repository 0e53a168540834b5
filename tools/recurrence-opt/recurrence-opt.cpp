//===- recurrence-opt.cpp - The Recurrence optimizer driver ---------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// mlir-opt with the recurrence dialect, its passes and its pipelines.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  mlir::recurrence::registerAllRecurrenceDialects(registry);
  mlir::recurrence::registerAllRecurrencePasses();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Recurrence optimizer driver\n", registry));
}
