//===- Pipelines.cpp - Named Recurrence pipelines -------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Pipelines/Pipelines.h"
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::recurrence;

/// Tensors to buffers, with functions taking and returning plain memrefs.
static void addBufferization(OpPassManager &pm) {
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  pm.addPass(createBufferizePass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
}

/// Loops and buffers to the LLVM dialect.
static void addLowerToLLVM(OpPassManager &pm, bool openmp) {
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  if (openmp)
    pm.addPass(createConvertSCFToOpenMPPass());
  // Memrefs first: this inlines the memref.alloca_scope that each OpenMP
  // loop body gets, before the loops inside it become blocks.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // aligned_alloc rather than malloc plus a manual round-up: the pointer
  // keeps its noalias provenance, so LLVM can keep a step's accumulators in
  // registers and vectorize it.
  FinalizeMemRefToLLVMConversionPassOptions memrefOptions;
  memrefOptions.useAlignedAlloc = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefOptions));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  if (openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::recurrence::buildRecurrenceToLLVMPipeline(
    OpPassManager &pm, const RecurrenceToLLVMOptions &options) {
  if (options.inlineCalls)
    pm.addPass(createInlinerPass());
  pm.addPass(createDecomposeModelsPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  // 0 leaves the cores to the module's DLTI target spec (else one core):
  // the output never depends on the machine the compiler runs on.
  int64_t cores = std::max<int64_t>(0, options.cores);
  SelectSchedulePassOptions schedule;
  schedule.target = "cpu";
  schedule.cores = cores;
  pm.addPass(createSelectSchedulePass(schedule));
  pm.addPass(createLowerScanPass());
  pm.addPass(createLowerChunkedPass());
  pm.addPass(createLowerSequentialPass(LowerSequentialPassOptions{
      cores, options.minChannelTile, options.minRuntimeChannelTile}));
  // Results go straight into their destinations: eliminate the empty
  // tensors while the parallel loops still carry them (canonicalization
  // folds single-iteration loops into chains it cannot see through).
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  addBufferization(pm);
  addLowerToLLVM(pm, options.openmp);
}

void mlir::recurrence::registerRecurrencePipelines() {
  PassPipelineRegistration<RecurrenceToLLVMOptions>(
      "recurrence-to-llvm",
      "Lower recurrence ops through loops and buffers to the LLVM dialect "
      "for the CPU",
      buildRecurrenceToLLVMPipeline);
}
