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
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::recurrence;

/// A step's temporaries allocated once per loop rather than per step: the
/// sizes (dims of the operands) hoisted first, then the allocations that no
/// iteration yields (upstream keeps those, and never leaves a parallel
/// loop's body).
static void addAllocationHoisting(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createLoopInvariantCodeMotionPass());
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferLoopHoistingPass());
}

/// Empty tensors replaced by the buffers their results are written into,
/// each init chain with one use first (else two results could share one
/// caller's buffer).
static void addEmptyTensorElimination(OpPassManager &pm) {
  pm.addPass(createUnshareInitTensorsPass());
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
}

/// Tensors to buffers, with functions taking and returning plain memrefs.
static void addBufferization(OpPassManager &pm) {
  addEmptyTensorElimination(pm);
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  pm.addPass(createBufferizePass());
  addAllocationHoisting(pm);
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCSEPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createDistinctStepBuffersPass());
}

/// Loops and buffers to the LLVM dialect.
static void addLowerToLLVM(OpPassManager &pm, bool openmp, int64_t cores) {
  // The linalg ops outside the scans' parallel loops share the cores too.
  if (openmp)
    pm.addNestedPass<func::FuncOp>(
        createParallelizeLinalgPass(ParallelizeLinalgPassOptions{cores}));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  if (openmp) {
    pm.addPass(createConvertSCFToOpenMPPass());
    pm.addPass(createOpenMPForkWhenParallelPass());
  }
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
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  if (openmp)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createSeparateStorageToAliasScopesPass());
}

/// What every target runs first: model ops decomposed, elementwise ops as
/// linalg, a schedule on every scan (of those the target lowers), the scans
/// lowered, their elementwise operands computed where they are read, and
/// the empty tensors of results eliminated (in each branch of a schedule
/// chosen at run time) while the parallel
/// loops still carry them (canonicalization folds single-iteration loops
/// into chains it cannot see through).
static void addScanLowering(OpPassManager &pm, bool inlineCalls,
                            StringRef target, int64_t cores,
                            const LowerSequentialPassOptions &sequential,
                            int64_t vectorBits = 0, bool tileChunks = false,
                            bool onePass = false,
                            int64_t lookBackTiles = kDefaultLookBackTiles,
                            bool stateLanes = false) {
  if (inlineCalls)
    pm.addPass(createInlinerPass());
  pm.addPass(createDecomposeModelsPass());
  pm.addPass(createSplitSequencesPass());
  pm.addPass(createConvertElementwiseToLinalgPass());
  SelectSchedulePassOptions schedule;
  schedule.target = target.str();
  schedule.cores = cores;
  pm.addPass(createSelectSchedulePass(schedule));
  // Where the caller's buffers hold each sequence's steps contiguously,
  // a warp per sequence rather than a thread per channel.
  // And where a scan's channels form blocks, a lane per row of a block;
  // where a matrix state's readout sums a column's states, a lane per state.
  if (target == "cuda") {
    pm.addPass(createGpuWarpScanPass(GpuWarpScanPassOptions{lookBackTiles}));
    pm.addPass(createGpuBlockRowsPass());
    if (stateLanes)
      pm.addPass(createGpuStateLanesPass());
  }
  pm.addPass(createLowerScanPass());
  pm.addPass(
      createLowerChunkedPass(LowerChunkedPassOptions{tileChunks, onePass}));
  pm.addPass(createLowerSequentialPass(sequential));
  pm.addPass(createFuseStepProducersPass());
  // A GPU thread multiplies one block row; the CPU a register of blocks
  // (vectorBits 0: none).
  if (vectorBits > 0)
    pm.addPass(createVectorizeBlockStepsPass(
        VectorizeBlockStepsPassOptions{vectorBits, /*maxBlock=*/4}));
  pm.addPass(createUnrollReductionsPass());
  pm.addPass(createSinkMaterializeIntoBranchesPass());
  addEmptyTensorElimination(pm);
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::recurrence::buildRecurrenceToLLVMPipeline(
    OpPassManager &pm, const RecurrenceToLLVMOptions &options) {
  // 0 leaves the cores to the module's DLTI target spec (else one core):
  // the output never depends on the machine the compiler runs on.
  int64_t cores = std::max<int64_t>(0, options.cores);
  addScanLowering(pm, options.inlineCalls, "cpu", cores,
                  LowerSequentialPassOptions{cores, options.minChannelTile,
                                             options.minRuntimeChannelTile},
                  options.vectorBits);
  addBufferization(pm);
  addLowerToLLVM(pm, options.openmp, cores);
}

/// The number after `prefix` at the start of `text` ("sm_90" -> 90), or 0.
static int64_t versionAfter(StringRef text, StringRef prefix) {
  int64_t version = 0;
  if (!text.consume_front(prefix) ||
      text.take_while(llvm::isDigit).getAsInteger(10, version))
    return 0;
  return version;
}

/// Whether NVPTX selects an L2 prefetch (`prefetch.L2`) for `chip` with
/// `features`: sm_90 and PTX 8.0 on. Older targets get none rather than a
/// fatal instruction-selection error.
static bool prefetchesL2(StringRef chip, StringRef features) {
  int64_t ptx = 0;
  SmallVector<StringRef> parts;
  features.split(parts, ',');
  for (StringRef part : parts)
    ptx = std::max(ptx, versionAfter(part.trim(), "+ptx"));
  return versionAfter(chip, "sm_") >= 90 && ptx >= 80;
}

void mlir::recurrence::buildRecurrenceToNVVMPipeline(
    OpPassManager &pm, const RecurrenceToNVVMOptions &options) {
  // One GPU thread per batch element and channel (or block of channels, or,
  // where the channels are not independent, column of a matrix state): the
  // sequential schedule, with as many tiles as there are channels (or
  // columns); or, where that leaves the GPU short of threads, the chunked
  // schedule with a thread per chunk and channel block. The adjoint's scans
  // choose alike.
  addScanLowering(pm, options.inlineCalls, "cuda", 0,
                  LowerSequentialPassOptions{1, 1, 1, /*fixedChannelTile=*/1},
                  /*vectorBits=*/0, /*tileChunks=*/true, options.onePass,
                  options.lookBackTiles, options.stateLanes);
  // Buffers; a thread's scratch state is small and static, so it lives on
  // the thread's stack (registers, after SROA) rather than the heap.
  addEmptyTensorElimination(pm);
  pm.addPass(bufferization::createEmptyTensorToAllocTensorPass());
  pm.addPass(createBufferizePass());
  addAllocationHoisting(pm);
  bufferization::PromoteBuffersToStackPassOptions stack;
  stack.maxRankOfAllocatedMemRef = 3;
  pm.addNestedPass<func::FuncOp>(
      bufferization::createPromoteBuffersToStackPass(stack));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Every outermost parallel loop mapped to the GPU's: a scan's loops over
  // batch, chunks and channel blocks flattened in blocks of `threads`; an
  // elementwise op of the adjoint or a copy as rows by tiles of its inner
  // run in blocks of `elementwise-threads`. Host allocations on the device.
  pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  pm.addNestedPass<func::FuncOp>(createGpuParallelizePass(
      GpuParallelizePassOptions{options.threads, options.elementwiseThreads}));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Several time steps' operand loads in flight per thread, and L2
  // prefetches ahead of them where the target has them.
  int64_t prefetch = prefetchesL2(options.chip, options.features)
                         ? static_cast<int64_t>(options.prefetch)
                         : 0;
  pm.addNestedPass<func::FuncOp>(createGpuLoadsInFlightPass(
      GpuLoadsInFlightPassOptions{options.unroll, options.chunkUnroll,
                                  options.chunkLoads, options.pipeline,
                                  options.loads, prefetch}));
  // Constants and index computations into the kernels rather than passed
  // as arguments: LLVM then sees constant indices (and keeps a thread's
  // stack buffers in registers) and folds constant index arithmetic.
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  // Upstream's NVVM lowering of kernels and host, with PTX embedded.
  gpu::GPUToNVVMPipelineOptions nvvm;
  nvvm.cubinChip = options.chip;
  nvvm.cubinFeatures = options.features;
  nvvm.cubinFormat = "isa";
  nvvm.optLevel = options.optLevel;
  nvvm.indexBitWidth = options.indexBitwidth;
  gpu::buildLowerToNVVMPassPipeline(pm, nvvm);
}

void mlir::recurrence::registerRecurrencePipelines() {
  PassPipelineRegistration<RecurrenceToLLVMOptions>(
      "recurrence-to-llvm",
      "Lower recurrence ops through loops and buffers to the LLVM dialect "
      "for the CPU",
      buildRecurrenceToLLVMPipeline);
  PassPipelineRegistration<RecurrenceToNVVMOptions>(
      "recurrence-to-nvvm",
      "Lower recurrence ops to GPU kernels (NVVM, PTX embedded) and host "
      "code that launches them",
      buildRecurrenceToNVVMPipeline);
}
