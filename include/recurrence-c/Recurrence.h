/*===- Recurrence.h - C API of Recurrence ---------------------------*- C
-*-===*\
|*                                                                            *|
|* Part of the Recurrence project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/*
 * The one ABI of libRecurrence.so, which the Python package (ctypes), other
 * languages and frameworks build on: run pipelines on IR text, build and
 * JIT-compile scans and model ops from specs, and call compiled functions on
 * caller-owned buffers. It is plain C: no MLIR type crosses it, so the
 * library can carry its own LLVM and MLIR with every other symbol hidden.
 *
 * Specs, sizes and answers are JSON objects (keys as in the Python
 * package). Strings returned through `char *` or `char **` are owned by the
 * caller and released with recurrenceFree. Every function that can fail
 * returns NULL (or non-zero) and sets *error, when `error` is not NULL.
 */

#ifndef RECURRENCE_C_RECURRENCE_H
#define RECURRENCE_C_RECURRENCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RECURRENCE_EXPORT __attribute__((visibility("default")))

/* The library's version, e.g. "0.4.0"; part of every compile-cache key. */
RECURRENCE_EXPORT const char *recurrenceVersion(void);

/* Registers the recurrence passes and the recurrence-to-llvm pipeline with
 * the library's pass registry (every function below does so itself). */
RECURRENCE_EXPORT void recurrenceRegisterPasses(void);

/* Parses `ir`, runs `pipeline` ("builtin.module(...)", a bare pass list, or
 * "" to only parse and verify) and returns the resulting IR. */
RECURRENCE_EXPORT char *
recurrenceRunPipeline(const char *ir, const char *pipeline, char **error);

/* The element types of buffers. */
enum {
  RECURRENCE_F32 = 0,
  RECURRENCE_F64 = 1,
  RECURRENCE_F16 = 2,
  RECURRENCE_BF16 = 3,
  RECURRENCE_I32 = 4, /* sequence offsets */
  RECURRENCE_I64 = 5
};

/* A strided view of caller memory; strides count elements. */
typedef struct RecurrenceBuffer {
  void *data;
  int32_t dtype; /* RECURRENCE_F32, ... */
  int32_t rank;
  const int64_t *sizes;
  const int64_t *strides;
} RecurrenceBuffer;

typedef struct RecurrenceCompiled RecurrenceCompiled;

/* Compiles function `entry` of `ir` (on ranked float tensors) for the CPU. */
RECURRENCE_EXPORT RecurrenceCompiled *
recurrenceCompile(const char *ir, const char *entry, char **error);

/* The same for `target`: "cpu", or "cuda" (GPU kernels through
 * -recurrence-to-nvvm, called on device buffers). */
RECURRENCE_EXPORT RecurrenceCompiled *recurrenceCompileFor(const char *ir,
                                                           const char *entry,
                                                           const char *target,
                                                           char **error);

/* Builds and compiles one recurrence.scan on dynamic shapes, from a scan
 * spec: {"structure": "diagonal", "param": 0, "schedule": "auto",
 * "chunk_size": 0, "matrix", "per_element", "factored", "reverse", "init",
 * "readout", "final_state", "f64": false, "operand_type": "" | "bf16" |
 * "f16" (narrower operands and output, the state in f32 or f64),
 * "batch_rank": 1, "target": "cpu" | "cuda"}. With `gradient` 1 it
 * compiles instead the gradient that -recurrence-differentiate derives:
 * (operands..., output cotangent[, final-state cotangent]) -> one gradient
 * per operand. With `gradient` 2, the gradient of that gradient (the pass
 * run again on it; static sizes only): (its arguments..., one cotangent per
 * operand) -> one gradient per argument of the first. With `gradient` 3,
 * the first-order gradient that also takes the scan's results, as the
 * forward call returned them: (operands..., output[, final state], output
 * cotangent[, final-state cotangent]) -> one gradient per operand; it reads
 * the states from the output where that holds them exactly (no readout, a
 * first-order structure, an output of the state's element type) rather
 * than recomputing them. */
RECURRENCE_EXPORT RecurrenceCompiled *
recurrenceCompileScan(const char *spec, int32_t gradient, char **error);

/* The same, specialized to static sizes when `sizes` is not NULL: {"batch":
 * [..], "steps": T, "size": N, "columns": D} as recurrenceScanIR takes them,
 * and optionally "arg_strides" and "result_strides": one list of strides
 * (in elements) or null (contiguous) per argument and result, the layout of
 * the caller's buffers, read and written in place (a time-contiguous
 * [B, N, T] array passed as its [B, T, N] view); the call then refuses
 * buffers of other strides. With a `gradient`, they are the layouts of the
 * gradient's arguments (operands, results, cotangents) and results (one
 * gradient per operand).
 * The function then accepts only operands of those shapes; the GPU's
 * kernels are faster at static sizes (strides and trip counts are
 * constants), and compile in under a second. Every size must be at least
 * 1: an empty problem is compiled with sizes = NULL. */
RECURRENCE_EXPORT RecurrenceCompiled *recurrenceCompileScanAt(const char *spec,
                                                              const char *sizes,
                                                              int32_t gradient,
                                                              char **error);

/* Builds and compiles one model op from a model spec: {"model":
 * "normalize_gates" | "hlru" | "bdlru" | "linear_attention" | "delta_rule" |
 * "selective_ssm", "function", "param", "init", "f64", "feature_map",
 * "normalize", "eps", "gated", "skip", "final_state", "offsets", "schedule",
 * "chunk_size", "target", "arg_shapes", "result_shapes"}; "target" is "cpu"
 * (the default) or "cuda", whose compiled model is called on device buffers
 * like a scan's. "arg_shapes" and "result_shapes" (one list of sizes per
 * argument and per result, every size at least 1) compile it for those
 * static sizes, where its loops are faster; without them, for any sizes. */
RECURRENCE_EXPORT RecurrenceCompiled *recurrenceCompileModel(const char *spec,
                                                             char **error);

/* The gradient of that model op, as -recurrence-differentiate derives it:
 * (operands..., one cotangent per result) -> one gradient per operand,
 * shaped like it. */
RECURRENCE_EXPORT RecurrenceCompiled *
recurrenceCompileModelGradient(const char *spec, char **error);

/* The compiled entry's signature: {"args": [[sizes]], "arg_types": ["f32",
 * "bf16", ..], "arg_strides": [[strides] or null], "results": [[sizes]],
 * "result_types": [..], "result_strides": [..]}, -1 for a dynamic size or
 * stride. Strides are those of a layout the entry states for the caller's
 * buffer (`bufferization.buffer_layout` on an argument or result), null
 * where it states none. */
RECURRENCE_EXPORT char *recurrenceSignature(const RecurrenceCompiled *compiled,
                                            char **error);

/* Calls the compiled entry on `args`, writing its results into `results`.
 * A result's buffer must not overlap an argument's or another result's
 * (the compiled code is vectorized on that promise), except that a final
 * state may be the very buffer of the init it replaces: a decoding step
 * advancing its state in place. Returns 0 on success. */
RECURRENCE_EXPORT int recurrenceCall(RecurrenceCompiled *compiled,
                                     const RecurrenceBuffer *args,
                                     int32_t numArgs,
                                     const RecurrenceBuffer *results,
                                     int32_t numResults, char **error);

/* The same on `stream` (a CUstream) for a function compiled for cuda, whose
 * buffers are device memory, contiguous or in the layout the entry states: the
 * kernels are queued on the stream and the call returns without waiting for
 * them. A null stream runs them on a stream of the library's own and waits. */
RECURRENCE_EXPORT int recurrenceCallOnStream(RecurrenceCompiled *compiled,
                                             const RecurrenceBuffer *args,
                                             int32_t numArgs,
                                             const RecurrenceBuffer *results,
                                             int32_t numResults, void *stream,
                                             char **error);

/* Compiled CPU code keeps the large blocks it frees (its temporaries) for
 * its next calls, up to a limit (RECURRENCE_HOST_CACHE_MB, default 2048 MB):
 * a fresh block costs page faults. These read the bytes in use and kept and
 * the number of reuses, set the limit (0 keeps nothing) and free what is
 * kept. */
RECURRENCE_EXPORT void recurrenceHostCacheStats(int64_t *liveBytes,
                                                int64_t *cachedBytes,
                                                int64_t *reuses);
RECURRENCE_EXPORT void recurrenceSetHostCacheLimit(int64_t bytes);
RECURRENCE_EXPORT void recurrenceReleaseHostCache(void);

/* A block of `bytes` (page-aligned from 1 MB up) from the same cache, for a
 * caller's result buffers: freed with recurrenceFreeHostBuffer, it is kept
 * for the next call, whose results then reuse pages already mapped. Null
 * when the memory cannot be had. */
RECURRENCE_EXPORT void *recurrenceAllocateHostBuffer(int64_t bytes);
RECURRENCE_EXPORT void recurrenceFreeHostBuffer(void *buffer);

RECURRENCE_EXPORT void recurrenceDestroy(RecurrenceCompiled *compiled);
RECURRENCE_EXPORT void recurrenceFree(char *string);

/* What a front door asks the compiler, JSON in and out. */

/* Every structure: [{"name", "syntax", "operands": [names], "step_ranks",
 * "layouts": ["[..., T, N]"], "per_element", "parameter"}]. */
RECURRENCE_EXPORT char *recurrenceStructures(char **error);

/* The parameter and N for which structure `name`'s operands have the step
 * shapes `steps` (shapes after [..., T]): request {"name", "steps",
 * "per_element", "columns", "input_size"}, answer {"param": p | null,
 * "size": N | -1}. */
RECURRENCE_EXPORT char *recurrenceFitStructure(const char *request,
                                               char **error);

/* The operand, output and final-state shapes of a scan spec at sizes
 * {"batch": [..], "steps", "size", "columns"}: {"operands": [[..]],
 * "output": [..], "final_state": [..]}. */
RECURRENCE_EXPORT char *recurrenceScanShapes(const char *spec,
                                             const char *sizes, char **error);

/* The IR of the scan of `spec` at static `sizes`. */
RECURRENCE_EXPORT char *recurrenceScanIR(const char *spec, const char *sizes,
                                         char **error);

/* The scans a model op (a model spec, as recurrenceCompileModel takes)
 * decomposes into, in order: [{"structure": name, "name": e.g.
 * "block_diagonal<4>", "reverse", "init", "readout", "factored", "matrix"}].
 * Front doors that compose a model from scans take the structures from
 * here rather than naming them. */
RECURRENCE_EXPORT char *recurrenceModelScans(const char *spec, char **error);

/* The cost model's candidates for that scan among the schedules `target`
 * lowers for it, cheapest first: [{"schedule", "chunk_size", "seconds"}].
 * The scan is taken as a call compiles it, on contiguous caller buffers:
 * on "cuda", one whose kernels read and write those in place (a warp per
 * time-contiguous sequence, a lane per block row) is kept sequential, and
 * so is one whose channels mix. Cores 0: this CPU's, or an H200's 132 SMs
 * for cuda. */
RECURRENCE_EXPORT char *recurrenceExplain(const char *spec, const char *sizes,
                                          const char *target, int64_t cores,
                                          char **error);

/* Whether the kernels compiled for `target` read that scan's operands in
 * place, where the caller's buffers hold each sequence's steps contiguously
 * (time at unit stride: Mamba's [B, N, T] passed as a [B, T, N] view), at
 * least as fast as from a transposing copy to channels-contiguous buffers:
 * {"in_place": bool, "reason": why not, or ""}. A front door states such
 * layouts (the sizes' "arg_strides") where this says so, and copies
 * elsewhere. On "cuda", the scans a warp per sequence takes (elementwise
 * first-order structures on a plain input, an f32 state, static shapes);
 * their gradients read in place as their forwards do. */
RECURRENCE_EXPORT char *recurrenceReadsTimeContiguousInPlace(const char *spec,
                                                             const char *sizes,
                                                             const char *target,
                                                             char **error);

#ifdef __cplusplus
}
#endif

#endif /* RECURRENCE_C_RECURRENCE_H */
