//===- RecurrenceDialect.cpp - Recurrence dialect -------------------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::recurrence;

#include "recurrence/Dialect/Recurrence/IR/RecurrenceDialect.cpp.inc"

namespace {
/// Recurrence ops are pure functions of their operands with no regions, so
/// they may be inlined anywhere.
struct RecurrenceInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void RecurrenceDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "recurrence/Dialect/Recurrence/IR/RecurrenceOps.cpp.inc"
      >();
  addInterfaces<RecurrenceInlinerInterface>();
}
