//===- Passes.h - Recurrence transformation passes --------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_H

#include "recurrence/Dialect/Recurrence/Transforms/PassDefaults.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace recurrence {
class ScanOp;

#define GEN_PASS_DECL
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"

/// How -recurrence-lower-sequential splits independent channels into tiles
/// to fill `cores` when the batch is small: tiles of one static width hold
/// at least `minTile` channels, tiles whose width is known only at run time
/// (dynamic shapes, or tiles that don't divide N) at least `minRuntimeTile`.
struct ChannelTiling {
  int64_t cores = 1;
  int64_t minTile = 128;
  int64_t minRuntimeTile = 512;
  /// When positive, every tile holds exactly this many channel blocks (the
  /// last one fewer), whatever the cores: e.g. 1 for a GPU thread each.
  int64_t fixedTile = 0;
};

/// How channel tiling splits `channels` channels (in blocks of `block`) of
/// `elements` batch elements whose sizes are known: `count` tiles of `size`
/// channels, the last one shorter unless `uniform`.
struct ChannelSplit {
  int64_t count, size;
  bool uniform;
};
ChannelSplit splitChannels(int64_t elements, int64_t channels, int64_t block,
                           const ChannelTiling &tiling);

/// Adds the patterns that lower sequential scans into loops. Like the other
/// lowerings they match a concrete schedule only, never `auto`.
void populateLowerSequentialPatterns(RewritePatternSet &patterns,
                                     const ChannelTiling &tiling = {});

/// Adds the patterns that lower chunked scans (per channel block too with
/// `tileChannels`, where channels are independent).
void populateLowerChunkedPatterns(RewritePatternSet &patterns,
                                  bool tileChannels = false,
                                  bool onePass = false);

/// Adds the patterns that lower scan-scheduled scans to a Blelloch scan.
void populateLowerScanPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"

} // namespace recurrence
} // namespace mlir

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_H
