//===- Sequences.cpp - Bounds of packed sequences -------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/Transforms/Sequences.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::recurrence;

Value mlir::recurrence::generateTensor(
    OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes, Type elementType,
    ArrayRef<std::pair<Value, SmallVector<int64_t>>> inputs,
    GenerateBodyFn body) {
  unsigned rank = sizes.size();
  Value init = tensor::EmptyOp::create(b, loc, sizes, elementType);
  SmallVector<Value> operands;
  SmallVector<AffineMap> maps;
  for (const auto &[value, dims] : inputs) {
    operands.push_back(value);
    SmallVector<AffineExpr> exprs;
    for (int64_t dim : dims)
      exprs.push_back(b.getAffineDimExpr(dim));
    maps.push_back(AffineMap::get(rank, 0, exprs, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), operands, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nb, Location nl, ValueRange args) {
        SmallVector<Value> indices;
        for (unsigned d = 0; d < rank; ++d)
          indices.push_back(linalg::IndexOp::create(nb, nl, d));
        Value result = body(nb, nl, args.drop_back(), indices);
        linalg::YieldOp::create(nb, nl, result);
      });
  return generic.getResult(0);
}

Value mlir::recurrence::extractIf(OpBuilder &b, Location loc, Value condition,
                                  Value tensor, ValueRange indices,
                                  Value otherwise) {
  auto branch = scf::IfOp::create(b, loc, TypeRange{otherwise.getType()},
                                  condition, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(branch.thenBlock());
  scf::YieldOp::create(
      b, loc, tensor::ExtractOp::create(b, loc, tensor, indices).getResult());
  b.setInsertionPointToStart(branch.elseBlock());
  scf::YieldOp::create(b, loc, otherwise);
  return branch.getResult(0);
}

Value SequenceBounds::offsetAt(OpBuilder &b, Location loc, Value s) const {
  Value raw = tensor::ExtractOp::create(b, loc, offsets, s);
  Value index = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  return arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, index, zero), steps);
}

std::pair<Value, Value> SequenceBounds::boundaryOf(OpBuilder &b, Location loc,
                                                   Value s, bool last) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value lo = offsetAt(b, loc, s);
  Value hi = offsetAt(b, loc, arith::AddIOp::create(b, loc, s, one));
  Value nonEmpty =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lo, hi);
  bool atHigh = reverse != last;
  Value at = atHigh ? arith::SubIOp::create(b, loc, hi, one).getResult() : lo;
  Value lastStep = arith::SubIOp::create(b, loc, steps, one);
  at = arith::MinSIOp::create(b, loc, arith::MaxSIOp::create(b, loc, at, zero),
                              lastStep);
  return {at, nonEmpty};
}

Value SequenceBounds::sequenceStartingAt(OpBuilder &b, Location loc,
                                         Value t) const {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value count = getValueOrCreateConstantIndexOp(b, loc, sequences);
  // The number of bounds o_0 .. o_S that are <= t (upper bound).
  auto search = scf::WhileOp::create(
      b, loc, TypeRange{b.getIndexType(), b.getIndexType()},
      ValueRange{zero, arith::AddIOp::create(b, loc, count, one)},
      [&](OpBuilder &wb, Location wl, ValueRange range) {
        Value more = arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::slt,
                                           range[0], range[1]);
        scf::ConditionOp::create(wb, wl, more, range);
      },
      [&](OpBuilder &wb, Location wl, ValueRange range) {
        Value mid = arith::DivUIOp::create(
            wb, wl, arith::AddIOp::create(wb, wl, range[0], range[1]),
            arith::ConstantIndexOp::create(wb, wl, 2));
        Value below = arith::CmpIOp::create(wb, wl, arith::CmpIPredicate::sle,
                                            offsetAt(wb, wl, mid), t);
        Value next = arith::AddIOp::create(wb, wl, mid, one);
        scf::YieldOp::create(
            wb, wl,
            ValueRange{arith::SelectOp::create(wb, wl, below, next, range[0]),
                       arith::SelectOp::create(wb, wl, below, range[1], mid)});
      });
  // The last sequence starting at or before t: the one holding t.
  Value last = arith::SubIOp::create(b, loc, count, one);
  Value sequence = arith::MinSIOp::create(
      b, loc,
      arith::MaxSIOp::create(
          b, loc, arith::SubIOp::create(b, loc, search.getResult(0), one),
          zero),
      last);
  Value at = boundaryOf(b, loc, sequence, /*last=*/false).first;
  Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, at, t);
  return arith::SelectOp::create(
      b, loc, here,
      arith::IndexCastOp::create(b, loc, b.getI64Type(), sequence),
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), -1));
}

Value SequenceBounds::startingSequences(OpBuilder &b, Location loc) const {
  return generateTensor(
      b, loc, {steps}, b.getI64Type(), {},
      [&](OpBuilder &nb, Location nl, ValueRange, ArrayRef<Value> at) {
        return sequenceStartingAt(nb, nl, at[0]);
      });
}

Value SequenceBounds::starts(OpBuilder &b, Location loc, Value sequence) {
  return arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::sge, sequence,
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0));
}

Value SequenceBounds::indexOf(OpBuilder &b, Location loc, Value sequence) {
  return arith::IndexCastOp::create(
      b, loc, b.getIndexType(),
      arith::MaxSIOp::create(
          b, loc, sequence,
          arith::ConstantIntOp::create(b, loc, b.getI64Type(), 0)));
}
