//===- ModelSpec.h - A model op described as plain data ---------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// What a front door says about the model op it wants, and the function on
// dynamically shaped tensors (one flattened batch dim) that holds it, so
// that no front door writes IR text.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_RUNTIME_MODELSPEC_H
#define RECURRENCE_RUNTIME_MODELSPEC_H

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <vector>

namespace mlir::recurrence {

struct ModelSpec {
  /// `normalize_gates`, `hlru`, `bdlru`, `linear_attention`, `delta_rule`
  /// or `selective_ssm`.
  std::string model;
  /// normalize_gates' function: `exp`, `sigmoid`, `softplus` or `abs`.
  std::string function = "exp";
  /// hlru's order m or bdlru's block size m.
  int64_t param = 0;
  /// Every model but normalize_gates: its states as arguments after the
  /// operands (init) and as results after the output (the final states).
  bool init = false;
  bool f64 = false;
  /// linear_attention: `elu1` or `identity`, normalized with floor eps.
  std::string featureMap = "elu1";
  bool normalize = true;
  double eps = 1e-8;
  /// delta_rule: a gate; selective_ssm: the skip D.
  bool gated = false, skip = false;
  bool finalState = false;
  /// linear_attention, delta_rule, selective_ssm, bdlru: packed sequences, an
  /// i64 offsets [S + 1] argument last; init and the final state get a sequence
  /// dim after the batch: [B, S, ...].
  bool offsets = false;
  ScheduleKind schedule = ScheduleKind::Auto;
  int64_t chunkSize = 0;
  /// What the model is compiled for: `cpu` or `cuda`.
  std::string target = "cpu";
  /// The call's shapes, one per argument (the offsets' included) and one per
  /// result, when the model is compiled for static sizes, where its loops'
  /// trip counts and strides are constants; empty for dynamic sizes.
  std::vector<std::vector<int64_t>> argShapes = {}, resultShapes = {};
};

/// A module with `func.func @<name>` holding the op of `spec`:
///   normalize_gates (raw [R, K]) -> [R, K]
///   hlru (gates [B, T, N, m+1], v [B, T, N] [, init [B, m, N]])
///       -> [B, T, N] [, h_T [B, m, N]]
///   bdlru (gates [B, T, H, m, m+1], v [B, T, H*m] [, init [B, H*m]])
///       -> [B, T, H*m] [, h_T]
///   linear_attention (q, k [B, T, dk], v [B, T, dv] [, init [B, dk, dv]
///       [, normalizer init [B, dk]]]) -> [B, T, dv] [, S_T [, c_T]]
///   delta_rule (q, k, v, beta [B, T] [, gate [B, T]] [, init [B, dk, dv]])
///       -> y [B, T, dv] [, S_T]
///   selective_ssm (x, delta [B, T, Dm], A [Dm, N], B, C [B, T, N]
///       [, D [Dm]] [, init [B, N, Dm]]) -> y [B, T, Dm] [, h_T]
/// Every dim is dynamic but the structural ones (m, m + 1), unless the spec
/// gives the call's shapes, which must then fit these.
/// Null after a diagnostic when the spec names no model or function.
OwningOpRef<ModuleOp> buildModelModule(MLIRContext *context,
                                       const ModelSpec &spec,
                                       StringRef name = "model");

} // namespace mlir::recurrence

#endif // RECURRENCE_RUNTIME_MODELSPEC_H
