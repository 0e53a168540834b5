//===- ChunkStatus.cpp - Statuses that chunks publish to each other ------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "ChunkStatus.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::recurrence;

Value mlir::recurrence::statusConstant(OpBuilder &b, Location loc,
                                       ChunkStatus status) {
  return arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(static_cast<float>(status)));
}

void mlir::recurrence::publishStatus(OpBuilder &b, Location loc, Value statuses,
                                     ValueRange at, ChunkStatus status) {
  memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::assign,
                              statusConstant(b, loc, status), statuses, at);
}

Value mlir::recurrence::waitForStatus(OpBuilder &b, Location loc,
                                      Value statuses, ValueRange at) {
  // An add of zero: the status None is 0.
  Value none = statusConstant(b, loc, ChunkStatus::None);
  auto spin = scf::WhileOp::create(
      b, loc, TypeRange{b.getF32Type()}, ValueRange{},
      [&](OpBuilder &nb, Location nl, ValueRange) {
        Value status = memref::AtomicRMWOp::create(
            nb, nl, arith::AtomicRMWKind::addf, none, statuses, at);
        Value pending = arith::CmpFOp::create(nb, nl, arith::CmpFPredicate::OEQ,
                                              status, none);
        scf::ConditionOp::create(nb, nl, pending, ValueRange{status});
      },
      [&](OpBuilder &nb, Location nl, ValueRange) {
        scf::YieldOp::create(nb, nl, ValueRange{});
      });
  return spin.getResult(0);
}

Value mlir::recurrence::isStatus(OpBuilder &b, Location loc, Value status,
                                 ChunkStatus expected) {
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, status,
                               statusConstant(b, loc, expected));
}
