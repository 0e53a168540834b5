//===- RecurrenceAttrs.cpp - Structure and schedule attributes ------------===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "recurrence/Dialect/Recurrence/IR/Recurrence.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::recurrence;

#include "recurrence/Dialect/Recurrence/IR/RecurrenceEnums.cpp.inc"
#include "recurrence/Dialect/Recurrence/IR/StructureInterface.cpp.inc"

/// Parses the `<param>` of a structure `name` that takes one.
static ParseResult parseStructureParam(AsmParser &parser, StringRef name,
                                       int64_t &param) {
  if (failed(parser.parseOptionalLess()))
    return parser.emitError(parser.getCurrentLocation())
           << "structure '" << name << "' needs a parameter, e.g. " << name
           << "<4>";
  return failure(parser.parseInteger(param) || parser.parseGreater());
}

/// Fails with a message on a `<` after a structure `name` that takes no
/// parameter.
static ParseResult rejectStructureParam(AsmParser &parser, StringRef name) {
  SMLoc loc = parser.getCurrentLocation();
  if (succeeded(parser.parseOptionalLess()))
    return parser.emitError(loc)
           << "structure '" << name << "' takes no parameter";
  return success();
}

static LogicalResult
verifyStructureParam(function_ref<InFlightDiagnostic()> emitError,
                     StringRef name, int64_t param) {
  if (param < 1)
    return emitError() << "structure '" << name
                       << "' needs a parameter of at least 1, got " << param;
  return success();
}

#define GET_ATTRDEF_CLASSES
#include "recurrence/Dialect/Recurrence/IR/RecurrenceAttrs.cpp.inc"

void RecurrenceDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "recurrence/Dialect/Recurrence/IR/RecurrenceAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Structures in recurrence.scan
//===----------------------------------------------------------------------===//

/// "identity, scalar, ..., higher_order<m>, or an attribute implementing
/// RecurrenceStructureInterface", from the dialect's own list.
static std::string structureChoices(MLIRContext *context) {
  std::string text;
  for (RecurrenceStructureInterface structure :
       getRecurrenceStructures(context))
    text += structure.getSyntax() + ", ";
  return text + "or an attribute implementing RecurrenceStructureInterface";
}

RecurrenceStructureInterface
mlir::recurrence::parseStructure(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  MLIRContext *context = parser.getContext();
  Attribute attr;
  // `#...` is an attribute in full; a keyword names one of ours. The keyword
  // is read ahead so that another of our attributes' mnemonics (`schedule`)
  // is refused as a structure before its parser runs.
  StringRef rest(loc.getPointer());
  if (rest.starts_with("#")) {
    if (failed(parser.parseAttribute(attr)))
      return {};
  } else {
    StringRef keyword;
    if (!rest.empty() && (llvm::isAlpha(rest.front()) || rest.front() == '_'))
      keyword = rest.take_while(
          [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.'; });
    if (keyword.empty() || !lookupRecurrenceStructure(context, keyword)) {
      InFlightDiagnostic diag = parser.emitError(loc);
      if (!keyword.empty())
        diag << "unknown structure '" << keyword << "'; ";
      diag << "expected a structure: " << structureChoices(context);
      return {};
    }
    StringRef mnemonic;
    OptionalParseResult parsed =
        generatedAttributeParser(parser, &mnemonic, Type(), attr);
    if (!parsed.has_value() || failed(*parsed))
      return {};
  }
  auto structure = dyn_cast<RecurrenceStructureInterface>(attr);
  if (!structure)
    parser.emitError(loc) << "expected a structure: "
                          << structureChoices(context) << "; got " << attr;
  return structure;
}

/// Appends the prototype of every attribute in `Attrs` that is a structure.
template <typename... Attrs>
static void
appendStructures(MLIRContext *context,
                 SmallVectorImpl<RecurrenceStructureInterface> &structures) {
  auto append = [&](auto *tag) {
    using Attr = std::remove_pointer_t<decltype(tag)>;
    if constexpr (std::is_base_of_v<RecurrenceStructureInterface::Trait<Attr>,
                                    Attr>)
      structures.push_back(
          cast<RecurrenceStructureInterface>(Attr::getPrototype(context)));
  };
  (append(static_cast<Attrs *>(nullptr)), ...);
}

SmallVector<RecurrenceStructureInterface>
mlir::recurrence::getRecurrenceStructures(MLIRContext *context) {
  context->loadDialect<RecurrenceDialect>();
  SmallVector<RecurrenceStructureInterface> structures;
  appendStructures<
#define GET_ATTRDEF_LIST
#include "recurrence/Dialect/Recurrence/IR/RecurrenceAttrs.cpp.inc"
      >(context, structures);
  return structures;
}

std::string
mlir::recurrence::getStructureKeyword(RecurrenceStructureInterface structure) {
  std::string syntax = structure.getSyntax();
  return syntax.substr(0, syntax.find('<'));
}

RecurrenceStructureInterface
mlir::recurrence::lookupRecurrenceStructure(MLIRContext *context,
                                            StringRef name) {
  for (RecurrenceStructureInterface structure :
       getRecurrenceStructures(context))
    if (getStructureKeyword(structure) == name)
      return structure;
  return {};
}

void mlir::recurrence::printStructure(AsmPrinter &printer,
                                      RecurrenceStructureInterface structure) {
  if (failed(generatedAttributePrinter(structure, printer)))
    printer.printAttribute(structure);
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
