//===- PassDefaults.h - Pass defaults a pipeline shares ---------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The defaults of pass options that a pipeline option repeats, in a header
// light enough for the public pipeline header: Passes.td names them as its
// options' defaults, so each has one source.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSDEFAULTS_H
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSDEFAULTS_H

#include <cstdint>

namespace mlir::recurrence {

/// -recurrence-gpu-warp-scan's `look-back-tiles`: 0, chunks in two sweeps
/// around a carry (the one-pass look-back measured slower; see
/// docs/Rationale.md).
inline constexpr int64_t kDefaultLookBackTiles = 0;

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSDEFAULTS_H
