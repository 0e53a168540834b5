//===- Passes.h - Recurrence transformation passes --------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace recurrence {

#define GEN_PASS_DECL
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"

/// Adds the patterns that lower sequential (and `auto`) scans into loops,
/// tiling independent channels to fill `cores` when the batch is small.
void populateLowerSequentialPatterns(RewritePatternSet &patterns,
                                     int64_t cores = 1,
                                     int64_t minChannelTile = 512);

/// Adds the patterns that lower chunked scans; a non-zero `autoChunkSize`
/// also lowers `auto` scans with that chunk size.
void populateLowerChunkedPatterns(RewritePatternSet &patterns,
                                  int64_t autoChunkSize = 0);

/// Adds the patterns that lower scan-scheduled scans to a Blelloch scan.
void populateLowerScanPatterns(RewritePatternSet &patterns);

#define GEN_PASS_REGISTRATION
#include "recurrence/Dialect/Recurrence/Transforms/Passes.h.inc"

} // namespace recurrence
} // namespace mlir

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_H
