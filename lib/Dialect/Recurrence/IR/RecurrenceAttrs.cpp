//===- RecurrenceAttrs.cpp - Structure and schedule attributes ------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"
#include "recurrence/Dialect/Recurrence/IR/ScanShapes.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::recurrence;

#include "recurrence/Dialect/Recurrence/IR/RecurrenceEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "recurrence/Dialect/Recurrence/IR/RecurrenceAttrs.cpp.inc"

void RecurrenceDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "recurrence/Dialect/Recurrence/IR/RecurrenceAttrs.cpp.inc"
      >();
}

/// Parses `keyword` or `keyword<int>` into an enum case and its parameter,
/// which must be present exactly when `takesParam(kind)`.
template <typename Kind>
static ParseResult
parseKeywordWithParam(AsmParser &parser, Kind &kind, int64_t &param,
                      std::optional<Kind> (*symbolize)(StringRef),
                      function_ref<bool(Kind)> takesParam, StringRef what,
                      StringRef expected) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseOptionalKeyword(&keyword))
    return parser.emitError(loc) << "expected a " << what << ": " << expected;
  std::optional<Kind> parsed = symbolize(keyword);
  if (!parsed)
    return parser.emitError(loc) << "unknown " << what << " '" << keyword
                                 << "'; expected " << expected;
  kind = *parsed;
  param = 0;
  bool given = succeeded(parser.parseOptionalLess());
  if (given && !takesParam(kind))
    return parser.emitError(loc)
           << what << " '" << keyword << "' takes no parameter";
  if (!given && takesParam(kind))
    return parser.emitError(loc)
           << what << " '" << keyword << "' needs a parameter, e.g. " << keyword
           << "<4>";
  if (given && (parser.parseInteger(param) || parser.parseGreater()))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// StructureAttr
//===----------------------------------------------------------------------===//

bool StructureAttr::hasParam(StructureKind kind) {
  return kind == StructureKind::BlockDiagonal || kind == StructureKind::Dplr ||
         kind == StructureKind::HigherOrder;
}

unsigned StructureAttr::getNumTransitionOperands() const {
  ScanDims dims;
  dims.kind = getKind();
  return dims.numTransitionOperands();
}

LogicalResult
StructureAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StructureKind kind, int64_t param) {
  if (hasParam(kind) && param < 1)
    return emitError() << "structure '" << stringifyStructureKind(kind)
                       << "' needs a parameter of at least 1, got " << param;
  if (!hasParam(kind) && param != 0)
    return emitError() << "structure '" << stringifyStructureKind(kind)
                       << "' takes no parameter";
  return success();
}

Attribute StructureAttr::parseBody(AsmParser &parser) {
  StructureKind kind;
  int64_t param;
  SMLoc loc = parser.getCurrentLocation();
  if (parseKeywordWithParam<StructureKind>(
          parser, kind, param, symbolizeStructureKind, hasParam, "structure",
          "identity, scalar, diagonal, block_diagonal<m>, dplr<r>, dense or "
          "higher_order<m>"))
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    kind, param);
}

void StructureAttr::printBody(AsmPrinter &printer) const {
  printer << stringifyStructureKind(getKind());
  if (hasParam(getKind()))
    printer << "<" << getParam() << ">";
}

Attribute StructureAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  Attribute body = parseBody(parser);
  if (!body || parser.parseGreater())
    return {};
  return body;
}

void StructureAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   ScheduleKind kind, int64_t chunkSize) {
  if (kind == ScheduleKind::Chunked && chunkSize < 1)
    return emitError() << "schedule 'chunked' needs a chunk size of at least "
                          "1, got "
                       << chunkSize;
  if (kind != ScheduleKind::Chunked && chunkSize != 0)
    return emitError() << "schedule '" << stringifyScheduleKind(kind)
                       << "' takes no chunk size";
  return success();
}

Attribute ScheduleAttr::parseBody(AsmParser &parser) {
  ScheduleKind kind;
  int64_t chunk;
  SMLoc loc = parser.getCurrentLocation();
  if (parseKeywordWithParam<ScheduleKind>(
          parser, kind, chunk, symbolizeScheduleKind,
          [](ScheduleKind k) { return k == ScheduleKind::Chunked; }, "schedule",
          "sequential, chunked<C>, scan or auto"))
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    kind, chunk);
}

void ScheduleAttr::printBody(AsmPrinter &printer) const {
  printer << stringifyScheduleKind(getKind());
  if (getKind() == ScheduleKind::Chunked)
    printer << "<" << getChunkSize() << ">";
}

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  Attribute body = parseBody(parser);
  if (!body || parser.parseGreater())
    return {};
  return body;
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer);
  printer << ">";
}
