//===- ModelReference.h - Float64 references of the model ops ---*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The model ops' equations written out in float64, one loop over time each,
// independent of their decompositions into scans. Arrays are row-major with
// the batch dims flattened to B; an empty optional operand takes its
// default (no gate: 1; no init: zeros; no D: 0).
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_TEST_REFERENCE_MODELREFERENCE_H
#define RECURRENCE_TEST_REFERENCE_MODELREFERENCE_H

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::recurrence {

using Values = std::vector<double>;

/// Linear attention on q, k [B, T, dk], v [B, T, dv] with phi = elu + 1
/// (`elu1`) or the identity: S_t = S_{t-1} + phi(k_t) v_t^T and
/// y_t = S_t^T phi(q_t); normalized, c_t = c_{t-1} + phi(k_t) and y_t is
/// divided by max(c_t^T phi(q_t), eps). Returns {y, S_T, c_T}.
std::vector<Values>
referenceLinearAttention(int64_t batch, int64_t steps, int64_t keys,
                         int64_t values, bool elu1, bool normalize, double eps,
                         const Values &q, const Values &k, const Values &v,
                         const Values &init, const Values &normalizerInit);

/// The (gated) delta rule on q, k [B, T, dk], v [B, T, dv], beta, gate
/// [B, T]: S' = g_t S_{t-1}, S_t = S' + beta_t k_t (v_t - S'^T k_t)^T and
/// y_t = S_t^T q_t. Returns {y, S_T}.
std::vector<Values> referenceDeltaRule(int64_t batch, int64_t steps,
                                       int64_t keys, int64_t values,
                                       const Values &q, const Values &k,
                                       const Values &v, const Values &beta,
                                       const Values &gate, const Values &init);

/// The selective SSM on x, delta [B, T, Dm], A [Dm, N], B, C [B, T, N],
/// D [Dm]: h_t[n, d] = exp(delta_t[d] A[d, n]) h_{t-1}[n, d]
/// + delta_t[d] B_t[n] x_t[d] and y_t[d] = sum_n C_t[n] h_t[n, d]
/// + D[d] x_t[d], the state [B, N, Dm]. Returns {y, h_T}.
std::vector<Values> referenceSelectiveSsm(int64_t batch, int64_t steps,
                                          int64_t channels, int64_t state,
                                          const Values &x, const Values &delta,
                                          const Values &a, const Values &b,
                                          const Values &c, const Values &d,
                                          const Values &init);

/// H-LRU of order m on gates [B, T, N, m + 1] and v [B, T, N]:
/// h_t = sum_{i=1..m} gates_t[.., i - 1] h_{t-i} + gates_t[.., m] v_t, the
/// state the m latest h, newest first, [B, m, N]. Returns {h, state_T}.
std::vector<Values> referenceHlru(int64_t batch, int64_t steps,
                                  int64_t channels, int64_t order,
                                  const Values &gates, const Values &v,
                                  const Values &init);

/// BD-LRU with blocks of m on gates [B, T, H, m, m + 1] and v [B, T, H*m]:
/// for row i of block g, h_t[g m + i] = sum_j gates_t[g, i, j] h_{t-1}[g m
/// + j] + gates_t[g, i, m] v_t[g m + i]. Returns {h, h_T}.
std::vector<Values> referenceBdlru(int64_t batch, int64_t steps, int64_t blocks,
                                   int64_t block, const Values &gates,
                                   const Values &v, const Values &init);

/// normalize_gates on rows of `width`: w = f(raw) / sum |f(raw)| over the
/// row, f one of exp, sigmoid, softplus, abs. Empty for another f.
Values referenceNormalizeGates(const std::string &function, int64_t width,
                               const Values &raw);

} // namespace mlir::recurrence

#endif // RECURRENCE_TEST_REFERENCE_MODELREFERENCE_H
