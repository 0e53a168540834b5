//===- Dialect.cpp - The recurrence dialect for MLIR C API users ----------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence-c/Dialect.h"

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/CAPI/Registration.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Recurrence, recurrence,
                                      mlir::recurrence::RecurrenceDialect)
