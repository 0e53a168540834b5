//===- Recurrence.h - Recurrence dialect ------------------------*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The recurrence dialect: its attributes and operations.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCE_H
#define RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCE_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/TilingInterface.h"

#include "recurrence/Dialect/Recurrence/IR/RecurrenceDialect.h.inc"
#include "recurrence/Dialect/Recurrence/IR/RecurrenceEnums.h.inc"
#include "recurrence/Dialect/Recurrence/IR/StructureTypes.h"

#include "recurrence/Dialect/Recurrence/IR/StructureInterface.h.inc"

#define GET_ATTRDEF_CLASSES
#include "recurrence/Dialect/Recurrence/IR/RecurrenceAttrs.h.inc"

namespace mlir::recurrence {
/// Parses a structure as `recurrence.scan` writes it: a recurrence
/// structure bare (`block_diagonal<4>`), any other in full.
RecurrenceStructureInterface parseStructure(AsmParser &parser);
void printStructure(AsmPrinter &printer,
                    RecurrenceStructureInterface structure);

/// The structures the recurrence dialect defines, with parameter 1 where
/// they take one (see withParameter), in the order of their definition.
SmallVector<RecurrenceStructureInterface>
getRecurrenceStructures(MLIRContext *context);

/// A structure's name without its parameter: its syntax up to any `<`, e.g.
/// `block_diagonal` for `block_diagonal<m>`.
std::string getStructureKeyword(RecurrenceStructureInterface structure);

/// The structure of getRecurrenceStructures whose keyword is `name`, or null.
RecurrenceStructureInterface lookupRecurrenceStructure(MLIRContext *context,
                                                       StringRef name);
} // namespace mlir::recurrence

#define GET_OP_CLASSES
#include "recurrence/Dialect/Recurrence/IR/RecurrenceOps.h.inc"

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCE_H
