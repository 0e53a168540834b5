/*===- CapiTest.c - The C API from C
---------------------------------------===*\
|*                                                                            *|
|* Part of the Recurrence project, under the Apache License v2.0 with LLVM    *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/
/* Compiles a scan through the C API, runs it, prints the states, and prints
 * the errors of bad IR and bad buffers (checked by test/CAPI/c-api.mlir). */

#include "recurrence-c/Recurrence.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *kScan =
    "func.func @scan(%a: tensor<?x?xf64>, %b: tensor<?x?xf64>) -> "
    "tensor<?x?xf64> {\n"
    "  %c0 = arith.constant 0 : index\n"
    "  %d0 = tensor.dim %b, %c0 : tensor<?x?xf64>\n"
    "  %c1 = arith.constant 1 : index\n"
    "  %d1 = tensor.dim %b, %c1 : tensor<?x?xf64>\n"
    "  %h_dest = tensor.empty(%d0, %d1) : tensor<?x?xf64>\n"
    "  %h = recurrence.scan diagonal transition(%a : tensor<?x?xf64>)\n"
    "      input(%b : tensor<?x?xf64>)\n"
    "      outs(%h_dest : tensor<?x?xf64>) -> tensor<?x?xf64>\n"
    "  return %h : tensor<?x?xf64>\n"
    "}\n";

int main(void) {
  char *error = NULL;
  recurrenceRegisterPasses();

  char *lowered = recurrenceRunPipeline(
      kScan,
      "builtin.module(recurrence-select-schedule,recurrence-lower-sequential)",
      &error);
  printf("lowered: %s\n", lowered && !error ? "ok" : error);
  recurrenceFree(lowered);

  RecurrenceCompiled *compiled = recurrenceCompile(kScan, "scan", &error);
  if (!compiled) {
    printf("compile error: %s\n", error);
    return 1;
  }
  /* T = 3, N = 2: h_t = 0.5 h_{t-1} + 1 and h_t = 0.25 h_{t-1} + 1. */
  double a[6] = {0.5, 0.25, 0.5, 0.25, 0.5, 0.25};
  double b[6] = {1, 1, 1, 1, 1, 1};
  double h[6] = {0};
  int64_t sizes[2] = {3, 2}, strides[2] = {2, 1};
  RecurrenceBuffer args[2] = {{a, RECURRENCE_F64, 2, sizes, strides},
                              {b, RECURRENCE_F64, 2, sizes, strides}};
  RecurrenceBuffer result = {h, RECURRENCE_F64, 2, sizes, strides};
  if (recurrenceCall(compiled, args, 2, &result, 1, &error)) {
    printf("call error: %s\n", error);
    return 1;
  }
  printf("states:");
  for (int i = 0; i < 6; ++i)
    printf(" %g", h[i]);
  printf("\n");

  /* A buffer of the wrong rank is refused, with the reason. */
  RecurrenceBuffer bad = {b, RECURRENCE_F64, 1, sizes, strides};
  RecurrenceBuffer badArgs[2] = {args[0], bad};
  if (recurrenceCall(compiled, badArgs, 2, &result, 1, &error)) {
    printf("bad buffer: %s\n", error);
    recurrenceFree(error);
    error = NULL;
  }
  /* So is a buffer of another element type, and an unknown dtype. */
  RecurrenceBuffer narrow = {b, RECURRENCE_BF16, 2, sizes, strides};
  RecurrenceBuffer unknown = {b, 7, 2, sizes, strides};
  RecurrenceBuffer narrowArgs[2] = {args[0], narrow};
  RecurrenceBuffer unknownArgs[2] = {args[0], unknown};
  if (recurrenceCall(compiled, narrowArgs, 2, &result, 1, &error)) {
    printf("bf16 buffer: %s\n", error);
    recurrenceFree(error);
    error = NULL;
  }
  if (recurrenceCall(compiled, unknownArgs, 2, &result, 1, &error)) {
    printf("unknown dtype: %s\n", error);
    recurrenceFree(error);
    error = NULL;
  }
  RecurrenceBuffer negative = {b, RECURRENCE_F64, -1, sizes, strides};
  RecurrenceBuffer negativeArgs[2] = {args[0], negative};
  if (recurrenceCall(compiled, negativeArgs, 2, &result, 1, &error)) {
    printf("negative rank: %s\n", error);
    recurrenceFree(error);
    error = NULL;
  }
  recurrenceDestroy(compiled);

  /* The gradient, derived by -recurrence-differentiate: scan_grad(a, b, dh)
   * for the cotangent dh = 1 of every state. */
  char *derived = recurrenceRunPipeline(
      kScan, "builtin.module(recurrence-differentiate)", &error);
  if (!derived) {
    printf("differentiate error: %s\n", error);
    return 1;
  }
  RecurrenceCompiled *grad = recurrenceCompile(derived, "scan_grad", &error);
  recurrenceFree(derived);
  if (!grad) {
    printf("compile error: %s\n", error);
    return 1;
  }
  double ones[6] = {1, 1, 1, 1, 1, 1};
  double da[6] = {0}, db[6] = {0};
  RecurrenceBuffer gradArgs[3] = {
      args[0], args[1], {ones, RECURRENCE_F64, 2, sizes, strides}};
  RecurrenceBuffer grads[2] = {{da, RECURRENCE_F64, 2, sizes, strides},
                               {db, RECURRENCE_F64, 2, sizes, strides}};
  if (recurrenceCall(grad, gradArgs, 3, grads, 2, &error)) {
    printf("call error: %s\n", error);
    return 1;
  }
  printf("da:");
  for (int i = 0; i < 6; ++i)
    printf(" %g", da[i]);
  printf("\ndb:");
  for (int i = 0; i < 6; ++i)
    printf(" %g", db[i]);
  printf("\n");
  recurrenceDestroy(grad);

  if (!recurrenceCompile("func.func @f(", "f", &error)) {
    printf("bad ir: %s\n", error);
    recurrenceFree(error);
  }

  /* A scan built from a JSON spec: reversed, on dynamic shapes. */
  RecurrenceCompiled *fromSpec = recurrenceCompileScan(
      "{\"structure\": \"diagonal\", \"reverse\": true, \"f64\": true, "
      "\"batch_rank\": 0}",
      0, &error);
  if (!fromSpec) {
    printf("spec failed: %s\n", error);
    return 1;
  }
  char *signature = recurrenceSignature(fromSpec, &error);
  printf("signature: %s\n", signature);
  recurrenceFree(signature);
  if (recurrenceCall(fromSpec, args, 2, &result, 1, &error)) {
    printf("spec call failed: %s\n", error);
    return 1;
  }
  printf("reversed:");
  for (int i = 0; i < 6; ++i)
    printf(" %g", h[i]);
  printf("\n");
  recurrenceDestroy(fromSpec);

  /* Its gradient, recomputing the states (1) and reading them from the
   * output just computed (3): the same gradients. */
  for (int32_t gradient = 1; gradient <= 3; gradient += 2) {
    RecurrenceCompiled *specGrad = recurrenceCompileScan(
        "{\"structure\": \"diagonal\", \"reverse\": true, \"f64\": true, "
        "\"batch_rank\": 0}",
        gradient, &error);
    if (!specGrad) {
      printf("spec gradient failed: %s\n", error);
      return 1;
    }
    RecurrenceBuffer withOutput[4] = {
        args[0], args[1], result, {ones, RECURRENCE_F64, 2, sizes, strides}};
    RecurrenceBuffer withoutOutput[3] = {args[0], args[1], withOutput[3]};
    double sa[6] = {0}, sb[6] = {0};
    RecurrenceBuffer specGrads[2] = {{sa, RECURRENCE_F64, 2, sizes, strides},
                                     {sb, RECURRENCE_F64, 2, sizes, strides}};
    if (gradient == 3
            ? recurrenceCall(specGrad, withOutput, 4, specGrads, 2, &error)
            : recurrenceCall(specGrad, withoutOutput, 3, specGrads, 2,
                             &error)) {
      printf("spec gradient call failed: %s\n", error);
      return 1;
    }
    printf("reversed gradient %d:", gradient);
    for (int i = 0; i < 6; ++i)
      printf(" %g %g", sa[i], sb[i]);
    printf("\n");
    recurrenceDestroy(specGrad);
  }

  /* The same scan specialized to T = 3, N = 2: static signature, same
   * states, and a call with other shapes refused. */
  RecurrenceCompiled *sized = recurrenceCompileScanAt(
      "{\"structure\": \"diagonal\", \"reverse\": true, \"f64\": true, "
      "\"batch_rank\": 0}",
      "{\"batch\": [], \"steps\": 3, \"size\": 2, \"columns\": 1}", 0, &error);
  if (!sized) {
    printf("sized spec failed: %s\n", error);
    return 1;
  }
  signature = recurrenceSignature(sized, &error);
  printf("sized signature: %s\n", signature);
  recurrenceFree(signature);
  for (int i = 0; i < 6; ++i)
    h[i] = 0;
  if (recurrenceCall(sized, args, 2, &result, 1, &error)) {
    printf("sized call failed: %s\n", error);
    return 1;
  }
  printf("sized reversed:");
  for (int i = 0; i < 6; ++i)
    printf(" %g", h[i]);
  printf("\n");
  int64_t shorter[2] = {2, 2};
  RecurrenceBuffer shortArgs[2] = {{a, RECURRENCE_F64, 2, shorter, strides},
                                   {b, RECURRENCE_F64, 2, shorter, strides}};
  RecurrenceBuffer shortResult = {h, RECURRENCE_F64, 2, shorter, strides};
  if (recurrenceCall(sized, shortArgs, 2, &shortResult, 1, &error)) {
    printf("sized wrong shape: %s\n", error);
    recurrenceFree(error);
  }
  recurrenceDestroy(sized);
  if (!recurrenceCompileScanAt("{}", "{\"steps\": -3}", 0, &error)) {
    printf("bad sizes: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileScanAt("{}", "{\"batch\": [0]}", 1, &error)) {
    printf("empty sizes: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileScanAt("{\"batch_rank\": 2}", "{\"batch\": [3]}", 0,
                               &error)) {
    printf("batch rank: %s\n", error);
    recurrenceFree(error);
  }

  /* Queries, and errors in JSON and specs. */
  char *fit = recurrenceFitStructure(
      "{\"name\": \"block_diagonal\", \"steps\": [[3, 2, 2]], "
      "\"per_element\": false, \"columns\": 1, \"input_size\": 6}",
      &error);
  printf("fit: %s\n", fit);
  recurrenceFree(fit);
  char *shapes = recurrenceScanShapes(
      "{\"structure\": \"dplr\", \"param\": 2, \"init\": true}",
      "{\"batch\": [5], \"steps\": 7, \"size\": 4, \"columns\": 1}", &error);
  printf("shapes: %s\n", shapes);
  recurrenceFree(shapes);
  char *scans = recurrenceModelScans(
      "{\"model\": \"linear_attention\", \"normalize\": true}", &error);
  printf("model scans: %s\n", scans);
  recurrenceFree(scans);
  scans = recurrenceModelScans("{\"model\": \"bdlru\", \"param\": 4}", &error);
  printf("model scans: %s\n", scans);
  recurrenceFree(scans);
  /* Whether the GPU reads Mamba's time-contiguous layout in place: for a
   * diagonal scan (a warp per sequence), not for block_diagonal. */
  const char *scanSizes = "{\"batch\": [2], \"steps\": 9, \"size\": 4, "
                          "\"columns\": 1}";
  char *inPlace = recurrenceReadsTimeContiguousInPlace(
      "{\"structure\": \"diagonal\"}", scanSizes, "cuda", &error);
  printf("in place: %s\n", inPlace);
  recurrenceFree(inPlace);
  inPlace = recurrenceReadsTimeContiguousInPlace(
      "{\"structure\": \"block_diagonal\", \"param\": 2}", scanSizes, "cuda",
      &error);
  printf("in place: %s\n", inPlace);
  recurrenceFree(inPlace);
  /* A model op's gradient: H-LRU of order 1 over T = 2 steps, B = N = 1,
   * h_1 = c_1 v_1 and h_2 = a_2 h_1 + c_2 v_2 for gates (a_t, c_t), with the
   * cotangent 1 of both h_t. */
  RecurrenceCompiled *modelGrad = recurrenceCompileModelGradient(
      "{\"model\": \"hlru\", \"param\": 1, \"f64\": true}", &error);
  if (!modelGrad) {
    printf("model gradient failed: %s\n", error);
    return 1;
  }
  double gates[4] = {0.5, 2, 0.5, 3}, v[2] = {1, 4}, ybar[2] = {1, 1};
  double dgates[4] = {0}, dv[2] = {0};
  int64_t gateSizes[4] = {1, 2, 1, 2}, gateStrides[4] = {4, 2, 2, 1};
  int64_t vSizes[3] = {1, 2, 1}, vStrides[3] = {2, 1, 1};
  RecurrenceBuffer modelArgs[3] = {
      {gates, RECURRENCE_F64, 4, gateSizes, gateStrides},
      {v, RECURRENCE_F64, 3, vSizes, vStrides},
      {ybar, RECURRENCE_F64, 3, vSizes, vStrides}};
  RecurrenceBuffer modelGrads[2] = {
      {dgates, RECURRENCE_F64, 4, gateSizes, gateStrides},
      {dv, RECURRENCE_F64, 3, vSizes, vStrides}};
  if (recurrenceCall(modelGrad, modelArgs, 3, modelGrads, 2, &error)) {
    printf("model gradient call: %s\n", error);
    return 1;
  }
  printf("hlru dgates: %g %g %g %g dv: %g %g\n", dgates[0], dgates[1],
         dgates[2], dgates[3], dv[0], dv[1]);
  recurrenceDestroy(modelGrad);
  /* The same, compiled for the call's shapes. */
  modelGrad = recurrenceCompileModelGradient(
      "{\"model\": \"hlru\", \"param\": 1, \"f64\": true, "
      "\"arg_shapes\": [[1, 2, 1, 2], [1, 2, 1]], "
      "\"result_shapes\": [[1, 2, 1]]}",
      &error);
  if (!modelGrad) {
    printf("sized model gradient failed: %s\n", error);
    return 1;
  }
  signature = recurrenceSignature(modelGrad, &error);
  printf("sized model gradient: %s\n", signature);
  recurrenceFree(signature);
  memset(dgates, 0, sizeof(dgates));
  memset(dv, 0, sizeof(dv));
  if (recurrenceCall(modelGrad, modelArgs, 3, modelGrads, 2, &error)) {
    printf("sized model gradient call: %s\n", error);
    return 1;
  }
  printf("sized hlru dgates: %g %g %g %g dv: %g %g\n", dgates[0], dgates[1],
         dgates[2], dgates[3], dv[0], dv[1]);
  recurrenceDestroy(modelGrad);
  if (!recurrenceCompileModel(
          "{\"model\": \"hlru\", \"param\": 1, \"arg_shapes\": "
          "[[1, 2, 1, 3], [1, 2, 1]], \"result_shapes\": [[1, 2, 1]]}",
          &error)) {
    printf("misfit shapes: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileModelGradient("{\"model\": \"mamba\"}", &error)) {
    printf("bad model gradient: %s\n", error);
    recurrenceFree(error);
  }

  /* The host cache: nothing in use between calls; a zero limit keeps
   * nothing. */
  int64_t live = -1, cached = -1, reuses = -1;
  recurrenceSetHostCacheLimit(0);
  recurrenceHostCacheStats(&live, &cached, &reuses);
  printf("host cache: live %lld cached %lld\n", (long long)live,
         (long long)cached);
  recurrenceSetHostCacheLimit((int64_t)1 << 30);
  recurrenceReleaseHostCache();
  /* A caller's 2 MiB buffer from the cache: in use, then kept once freed,
   * then taken again by the next buffer of its size. */
  int64_t reusesBefore = 0;
  recurrenceHostCacheStats(NULL, NULL, &reusesBefore);
  char *buffer = recurrenceAllocateHostBuffer((int64_t)2 << 20);
  memset(buffer, 1, (size_t)2 << 20);
  recurrenceHostCacheStats(&live, &cached, NULL);
  printf("host buffer: aligned %d live %lld cached %lld\n",
         (int)((uintptr_t)buffer % 4096 == 0), (long long)live,
         (long long)cached);
  recurrenceFreeHostBuffer(buffer);
  recurrenceHostCacheStats(&live, &cached, NULL);
  printf("host buffer freed: live %lld cached %lld\n", (long long)live,
         (long long)cached);
  char *again = recurrenceAllocateHostBuffer((int64_t)2 << 20);
  recurrenceHostCacheStats(NULL, NULL, &reuses);
  printf("host buffer again: same %d reused %lld\n", (int)(again == buffer),
         (long long)(reuses - reusesBefore));
  recurrenceFreeHostBuffer(again);
  printf("negative host buffer: %d\n",
         (int)(recurrenceAllocateHostBuffer(-1) == NULL));
  recurrenceReleaseHostCache();

  if (!recurrenceModelScans("{\"model\": \"hlru\", \"param\": 0}", &error)) {
    printf("bad model param: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileScan("{\"schedule\": \"fast\"}", 0, &error)) {
    printf("bad schedule: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileScan("{}", 2, &error)) {
    printf("gradient 2: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileScan("{}", 4, &error)) {
    printf("gradient 4: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileScan("{\"schedule\": \"chunked\"}", 0, &error)) {
    printf("no chunk: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileScan("{\"reverse\": 1}", 0, &error)) {
    printf("bad type: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileModel("{\"model\": ", &error)) {
    printf("bad json: %s\n", error);
    recurrenceFree(error);
  }
  if (!recurrenceCompileModel("{\"model\": \"mamba\"}", &error)) {
    printf("bad model: %s\n", error);
    recurrenceFree(error);
  }
  printf("version: %s\n", recurrenceVersion());
  return 0;
}
