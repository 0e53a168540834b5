/*===- Dialect.h - The recurrence dialect for MLIR C API users -------*- C
-*-===*\
|*                                                                            *|
|* Part of the Recurrence project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * mlirGetDialectHandle__recurrence__(), for programs that use MLIR's own C
 * API with the system's libMLIR (library RecurrenceCAPIDialect). It is not
 * part of libRecurrence.so, whose MLIR is private to it.
 */

#ifndef RECURRENCE_C_DIALECT_H
#define RECURRENCE_C_DIALECT_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Recurrence, recurrence);

#ifdef __cplusplus
}
#endif

#endif /* RECURRENCE_C_DIALECT_H */
