//===- Pipelines.h - Named Recurrence pipelines -----------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The pipelines every front door (recurrence-opt, the JIT, the bindings)
// builds through these functions, so that there is one pipeline per target.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_PIPELINES_PIPELINES_H
#define RECURRENCE_PIPELINES_PIPELINES_H

#include "recurrence/Dialect/Recurrence/Transforms/PassDefaults.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class DialectRegistry;
class OpPassManager;
namespace recurrence {

struct RecurrenceToLLVMOptions
    : public PassPipelineOptions<RecurrenceToLLVMOptions> {
  PassOptions::Option<bool> inlineCalls{
      *this, "inline",
      llvm::cl::desc("Inline calls before bufferization, so that results are "
                     "written straight into caller-provided buffers"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> cores{
      *this, "cores",
      llvm::cl::desc("Cores the cost model and the channel tiles plan for "
                     "(0: the num_cores of the module's DLTI \"CPU\" "
                     "device, else 1)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> minChannelTile{
      *this, "min-channel-tile",
      llvm::cl::desc("The fewest channels in a channel tile of static width"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> minRuntimeChannelTile{
      *this, "min-runtime-channel-tile",
      llvm::cl::desc("The fewest channels in a channel tile whose width is "
                     "known only at run time"),
      llvm::cl::init(512)};
  PassOptions::Option<bool> openmp{
      *this, "openmp",
      llvm::cl::desc("Run parallel loops on OpenMP threads (libomp)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> vectorBits{
      *this, "vector-bits",
      llvm::cl::desc("The width of the CPU's vector registers in bits, which "
                     "small block steps fill a group of blocks at a time"),
      llvm::cl::init(512)};
};

/// recurrence ops on tensors -> loops -> buffers -> LLVM dialect (CPU).
void buildRecurrenceToLLVMPipeline(OpPassManager &pm,
                                   const RecurrenceToLLVMOptions &options);

struct RecurrenceToNVVMOptions
    : public PassPipelineOptions<RecurrenceToNVVMOptions> {
  PassOptions::Option<bool> inlineCalls{
      *this, "inline",
      llvm::cl::desc("Inline calls before bufferization, so that results are "
                     "written straight into caller-provided buffers"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("The GPU architecture (sm_XX)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("NVPTX target features (the PTX version)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<int> optLevel{
      *this, "opt-level",
      llvm::cl::desc("The optimization level of the device code"),
      llvm::cl::init(3)};
  PassOptions::Option<int64_t> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("The width of index values on the host"),
      llvm::cl::init(64)};
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads per block of a scan's kernels (along the "
                     "channels)"),
      llvm::cl::init(32)};
  PassOptions::Option<int64_t> elementwiseThreads{
      *this, "elementwise-threads",
      llvm::cl::desc("Threads per block of elementwise kernels and copies"),
      llvm::cl::init(256)};
  PassOptions::Option<int64_t> unroll{
      *this, "unroll",
      llvm::cl::desc("Time steps whose operand loads a thread issues "
                     "together"),
      llvm::cl::init(64)};
  PassOptions::Option<bool> onePass{
      *this, "one-pass",
      llvm::cl::desc("Chunked scans as one kernel whose chunks look back for "
                     "their start states, instead of three kernels (off: "
                     "slower on the H200, see docs/Rationale.md)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> lookBackTiles{
      *this, "look-back-tiles",
      llvm::cl::desc("The most tiles of 128 steps in a warp scan's chunk, "
                     "which looks back for its start state in one kernel "
                     "(0: chunks in two sweeps around a carry, the default "
                     "-recurrence-gpu-warp-scan's; see docs/Rationale.md)"),
      llvm::cl::init(kDefaultLookBackTiles)};
  PassOptions::Option<bool> stateLanes{
      *this, "state-lanes",
      llvm::cl::desc("A lane per state of each column for diagonal scans of "
                     "a matrix state with a readout "
                     "(-recurrence-gpu-state-lanes; see docs/Rationale.md)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> chunkUnroll{
      *this, "chunk-unroll",
      llvm::cl::desc("The same in a chunked phase's loop over one chunk"),
      llvm::cl::init(4)};
  PassOptions::Option<int64_t> chunkLoads{
      *this, "chunk-loads",
      llvm::cl::desc("A chunk's loop unrolled by as many steps as issue this "
                     "many operand loads, where that is more than "
                     "chunk-unroll"),
      llvm::cl::init(32)};
  PassOptions::Option<bool> pipeline{
      *this, "pipeline",
      llvm::cl::desc("Issue a time loop's next unrolled loads while the "
                     "current steps compute (static trip counts)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> loads{
      *this, "loads",
      llvm::cl::desc("A sequential time loop unrolled by fewer than unroll "
                     "steps where those would issue more operand loads "
                     "than this"),
      llvm::cl::init(128)};
  PassOptions::Option<int64_t> prefetch{
      *this, "prefetch",
      llvm::cl::desc("Prefetch into L2 what a sequential time loop's loads "
                     "read this many steps later (0: none; sm_90 and "
                     "+ptx80 on)"),
      llvm::cl::init(64)};
};

/// recurrence ops on tensors -> loops over (batch, [chunk,] channel block)
/// mapped to GPU blocks and threads -> gpu.launch -> NVVM, with the kernels
/// embedded as PTX (the driver compiles it for the device at load time) and
/// host code in the LLVM dialect that launches them through the mgpu* runtime.
void buildRecurrenceToNVVMPipeline(OpPassManager &pm,
                                   const RecurrenceToNVVMOptions &options);

/// Registers `-recurrence-to-llvm` and `-recurrence-to-nvvm` with the pass
/// registry.
void registerRecurrencePipelines();

/// Registers the recurrence dialect and everything its pipelines produce or
/// need (dialects, interface models, LLVM IR translations).
void registerAllRecurrenceDialects(DialectRegistry &registry);

/// Registers the recurrence passes, the pipelines and the upstream passes.
void registerAllRecurrencePasses();

/// Registers only what the runtime's pipelines use: the recurrence dialect,
/// the upstream dialects and interface models of the CPU lowering and the
/// LLVM IR translations. The JIT and the C API use these; they decide what a
/// statically linked libRecurrence.so contains.
void registerRecurrenceRuntimeDialects(DialectRegistry &registry);

/// The part of those that -recurrence-to-nvvm and the GPU JIT need: the gpu,
/// NVVM and vector dialects, their conversion interfaces to LLVM, the NVVM
/// target and the offloading translation.
void registerRecurrenceCudaDialects(DialectRegistry &registry);

/// Registers the recurrence passes, the pipelines and the core upstream
/// transforms (canonicalize, cse, inline, ...).
void registerRecurrenceRuntimePasses();

} // namespace recurrence
} // namespace mlir

#endif // RECURRENCE_PIPELINES_PIPELINES_H
