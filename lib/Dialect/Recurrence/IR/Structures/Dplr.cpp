//===- Dplr.cpp - dplr<r> -------------------------------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// A_t = diag(d_t) + U_t V_t^T: d: [..., T, N], U, V: [..., T, N, r]. A step
// costs O(N r D); products are not dplr (their rank grows), so the chunked
// and scan schedules densify them to N x N.
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/StructureAlgebra.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::recurrence;

constexpr auto kPar = utils::IteratorType::parallel;
constexpr auto kRed = utils::IteratorType::reduction;

/// The largest N whose dplr transitions the scan schedule densifies: its
/// combines cost N^3 each.
static constexpr int64_t kMaxDensifiedSize = 256;

/// w[j, d] = sum_n V[n, j] h[n, d].
static Value projectState(OpBuilder &b, Location loc, Value right,
                          Value state) {
  Type elementType = cast<RankedTensorType>(state.getType()).getElementType();
  SmallVector<OpFoldResult> wSizes = {tensor::getMixedSize(b, loc, right, 1),
                                      tensor::getMixedSize(b, loc, state, 1)};
  return contract(b, loc, 3, right, {2, 0}, state, {2, 1},
                  zeroTensor(b, loc, wSizes, elementType), {0, 1},
                  {kPar, kPar, kRed});
}

/// (diag(d) + U V^T) h + acc.
static Value applyDplr(OpBuilder &b, Location loc, ValueRange operands,
                       Value state, Value acc) {
  Value diag = operands[0], left = operands[1], right = operands[2];
  Value w = projectState(b, loc, right, state);
  // acc[n, d] += sum_j U[n, j] w[j, d]
  Value lowRank = contract(b, loc, 3, left, {0, 2}, w, {2, 1}, acc, {0, 1},
                           {kPar, kPar, kRed});
  // ... + d[n] h[n, d]
  return applyComposite(b, loc, {CompositeForm::Diagonal, diag, 0}, state,
                        lowRank);
}

unsigned DplrAttr::getNumTransitionOperands() const { return 3; }

std::string DplrAttr::getTransitionOperandName(unsigned index) const {
  static const char *const names[] = {"d", "U", "V"};
  return names[index];
}

SmallVector<int64_t> DplrAttr::getTransitionStep(unsigned index, int64_t size,
                                                 int64_t, bool) const {
  if (index == 0)
    return {size};
  return {size, getRank()};
}

int64_t DplrAttr::getChannelGroup() const { return 0; }

/// A step in place of the state: once w = V^T h has read the whole state,
/// each element is updated where it stands, d h + U w + b_t in one loop
/// (which also writes `copy` when given).
static SmallVector<Value> stepInPlace(OpBuilder &b, Location loc, int64_t rank,
                                      ValueRange operands, Value state,
                                      const StepInput &input, Value copy) {
  Value w = projectState(b, loc, operands[2], state);
  return applyGate(b, loc, operands[0], /*perElement=*/false, state, input,
                   copy, LowRankTerm{operands[1], w, rank});
}

/// The largest rank whose step sums U w in each element (r terms written
/// out); higher ranks contract U with w out of place.
static constexpr int64_t kMaxInPlaceRank = 16;

Value DplrAttr::buildApply(OpBuilder &b, Location loc, ValueRange operands,
                           bool, Value state, const StepInput &input) const {
  if (!hasApplyAndCopy())
    return applyDplr(b, loc, operands, state, materializeInput(b, loc, input));
  return stepInPlace(b, loc, getRank(), operands, state, input, {}).front();
}

bool DplrAttr::hasApplyAndCopy() const { return getRank() <= kMaxInPlaceRank; }

std::optional<std::pair<Value, Value>>
DplrAttr::buildApplyAndCopy(OpBuilder &b, Location loc, ValueRange operands,
                            bool, Value state, const StepInput &input,
                            Value copy) const {
  if (!hasApplyAndCopy())
    return std::nullopt;
  SmallVector<Value> results =
      stepInPlace(b, loc, getRank(), operands, state, input, copy);
  return std::pair(results[0], results[1]);
}

std::optional<int64_t> DplrAttr::getLowRankUpdate() const { return getRank(); }

CompositeForm DplrAttr::getCompositeForm() const {
  return CompositeForm::Dense;
}

Value DplrAttr::buildStepComposite(OpBuilder &b, Location loc,
                                   ValueRange operands, bool) const {
  // Densify: apply the step to the identity matrix.
  Value diag = operands[0];
  Type elementType = cast<RankedTensorType>(diag.getType()).getElementType();
  SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, diag, 0),
                                     tensor::getMixedSize(b, loc, diag, 0)};
  Value eye =
      eyeLike(b, loc, tensor::EmptyOp::create(b, loc, sizes, elementType));
  return applyDplr(b, loc, operands, eye,
                   zeroTensor(b, loc, sizes, elementType));
}

StructureCosts DplrAttr::getCosts(double n, double d, bool) const {
  double r = static_cast<double>(getRank());
  // Composition densifies: form diag + U V^T (2 N^2 r), then N^3.
  return {(4 * r + 2) * n * d,
          2 * n * n * n + 2 * n * n * r,
          2 * n * n * d,
          n * (1 + 2 * r),
          n * n,
          n * d};
}

LogicalResult
DplrAttr::checkSchedule(ScheduleKind schedule, int64_t size,
                        function_ref<InFlightDiagnostic()> emitError) const {
  if (schedule != ScheduleKind::Scan || ShapedType::isDynamic(size) ||
      size <= kMaxDensifiedSize)
    return success();
  emitError() << "schedule 'scan' composes dplr transitions as dense N x N "
                 "matrices (N^3 per combine), which is refused for N = "
              << size << " > " << kMaxDensifiedSize
              << "; use schedule 'sequential' or 'chunked'";
  return failure();
}

SmallVector<Value> DplrAttr::buildAdjointTransition(OpBuilder &b, Location loc,
                                                    ValueRange operands,
                                                    bool) const {
  // (diag(d) + U V^T)^T = diag(d) + V U^T.
  return {operands[0], operands[2], operands[1]};
}

/// sum_n factor[b, t, n, k] x[b, t, n, d]: [B, T, r, D].
static Value projectOnFactor(OpBuilder &b, Location loc, Value factor,
                             Value x) {
  SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, factor, 0),
                                     tensor::getMixedSize(b, loc, factor, 1),
                                     tensor::getMixedSize(b, loc, factor, 3),
                                     tensor::getMixedSize(b, loc, x, 3)};
  Type elementType = cast<RankedTensorType>(x.getType()).getElementType();
  // Loops (b, t, k, d, n).
  return contract(b, loc, 5, factor, {0, 1, 4, 2}, x, {0, 1, 4, 3},
                  zeroTensor(b, loc, sizes, elementType), {0, 1, 2, 3},
                  {kPar, kPar, kPar, kPar, kRed});
}

/// sum_d x[b, t, n, d] p[b, t, k, d], shaped like `like` [B, T, N, r].
static Value expandOnFactor(OpBuilder &b, Location loc, Value x, Value p,
                            Value like) {
  // Loops (b, t, n, k, d).
  return contract(b, loc, 5, x, {0, 1, 2, 4}, p, {0, 1, 3, 4},
                  zerosLike(b, loc, like), {0, 1, 2, 3},
                  {kPar, kPar, kPar, kPar, kRed});
}

SmallVector<Value> DplrAttr::buildTransitionGradient(OpBuilder &b, Location loc,
                                                     ValueRange operands, bool,
                                                     Value cotangent,
                                                     Value previous) const {
  // With dA = lambda h^T (never formed): dd = diag(dA), dU = dA V and
  // dV = dA^T U.
  Value diag = operands[0], left = operands[1], right = operands[2];
  Value dd =
      contract(b, loc, 4, cotangent, {0, 1, 2, 3}, previous, {0, 1, 2, 3},
               zerosLike(b, loc, diag), {0, 1, 2}, {kPar, kPar, kPar, kRed});
  Value dLeft = expandOnFactor(b, loc, cotangent,
                               projectOnFactor(b, loc, right, previous), left);
  Value dRight = expandOnFactor(
      b, loc, previous, projectOnFactor(b, loc, left, cotangent), right);
  return {dd, dLeft, dRight};
}
