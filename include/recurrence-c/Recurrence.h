/*===- Recurrence.h - C API of Recurrence ---------------------------*- C
-*-===*\
|*                                                                            *|
|* Part of the Recurrence project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The C ABI other bindings build on (ctypes, other languages, frameworks):
 * register the dialect (MLIR C API style) and the passes, run pipelines on
 * IR text, and JIT-compile functions on tensors to call them on
 * caller-owned buffers. Strings returned through `char **` are owned by the
 * caller and released with recurrenceFree.
 */

#ifndef RECURRENCE_C_RECURRENCE_H
#define RECURRENCE_C_RECURRENCE_H

#include "mlir-c/IR.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__recurrence__(), for MLIR C API users. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Recurrence, recurrence);

/* Registers the recurrence passes and the recurrence-to-llvm pipeline with
 * MLIR's global pass registry. */
MLIR_CAPI_EXPORTED void recurrenceRegisterPasses(void);

/* Parses `ir`, runs `pipeline` ("builtin.module(...)" or a bare pass list)
 * and returns the resulting IR; NULL with *error set on failure. */
MLIR_CAPI_EXPORTED char *
recurrenceRunPipeline(const char *ir, const char *pipeline, char **error);

/* A strided view of caller memory; strides count elements. */
typedef struct RecurrenceBuffer {
  void *data;
  int32_t elementBits; /* 32 or 64 */
  int32_t rank;
  const int64_t *sizes;
  const int64_t *strides;
} RecurrenceBuffer;

typedef struct RecurrenceCompiled RecurrenceCompiled;

/* Compiles function `entry` of `ir` (on ranked float tensors) for the CPU;
 * NULL with *error set on failure. */
MLIR_CAPI_EXPORTED RecurrenceCompiled *
recurrenceCompile(const char *ir, const char *entry, char **error);

/* Calls the compiled entry on `args`, writing its results into `results`.
 * Returns 0 on success, non-zero with *error set otherwise. */
MLIR_CAPI_EXPORTED int recurrenceCall(RecurrenceCompiled *compiled,
                                      const RecurrenceBuffer *args,
                                      int32_t numArgs,
                                      const RecurrenceBuffer *results,
                                      int32_t numResults, char **error);

MLIR_CAPI_EXPORTED void recurrenceDestroy(RecurrenceCompiled *compiled);
MLIR_CAPI_EXPORTED void recurrenceFree(char *string);

#ifdef __cplusplus
}
#endif

#endif /* RECURRENCE_C_RECURRENCE_H */
