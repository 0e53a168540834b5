//===- RecurrenceAttrs.td - Recurrence attributes ----------*- tablegen -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEATTRS_TD
#define RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEATTRS_TD

include "recurrence/Dialect/Recurrence/IR/RecurrenceDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "recurrence/Dialect/Recurrence/IR/StructureInterface.td"

def Recurrence_ScheduleKind : I32EnumAttr<"ScheduleKind",
    "how the recurrence is evaluated", [
  I32EnumAttrCase<"Auto", 0, "auto">,
  I32EnumAttrCase<"Sequential", 1, "sequential">,
  I32EnumAttrCase<"Chunked", 2, "chunked">,
  I32EnumAttrCase<"Scan", 3, "scan">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::recurrence";
}

class Recurrence_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Recurrence_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

//===----------------------------------------------------------------------===//
// Structures
//
// One attribute per structure, each implemented in its own file under
// lib/Dialect/Recurrence/IR/Structures/. Inside `recurrence.scan` the
// structure is written bare (`block_diagonal<4>`); standalone it reads
// `#recurrence.block_diagonal<4>`. A structure from another dialect is
// written in full (`#mydialect.rotation`).
//===----------------------------------------------------------------------===//

class Recurrence_Structure<string name, string attrMnemonic,
                           list<string> overridden = []>
    : Recurrence_Attr<name, attrMnemonic, [
        DeclareAttrInterfaceMethods<RecurrenceStructureInterface,
                                    overridden>]> {
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// The structure with parameter 1 where it takes one.
    static ::mlir::Attribute getPrototype(::mlir::MLIRContext *context) {
      return get(context);
    }
  }];
  let extraClassDefinition = [{
    std::string $cppClass::getStructureName() const {
      return getMnemonic().str();
    }
    ::mlir::Attribute $cppClass::parse(::mlir::AsmParser &parser,
                                       ::mlir::Type) {
      if (::mlir::failed(rejectStructureParam(parser, getMnemonic())))
        return {};
      return get(parser.getContext());
    }
    void $cppClass::print(::mlir::AsmPrinter &) const {}
  }];
}

/// A structure with one integer parameter of at least 1, written `<m>`.
class Recurrence_ParamStructure<string name, string attrMnemonic,
                                string paramName, string paramLetter,
                                list<string> overridden = []>
    : Recurrence_Structure<name, attrMnemonic,
                           !listconcat(["getSyntax", "withParameter"],
                                       overridden)> {
  let parameters = (ins "int64_t":$param);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = "int64_t get" # paramName #
                              "() const { return getParam(); }" # [{
    /// The structure with parameter 1 where it takes one.
    static ::mlir::Attribute getPrototype(::mlir::MLIRContext *context) {
      return get(context, 1);
    }
  }];
  let extraClassDefinition = [{
    std::string $cppClass::getStructureName() const {
      return (getMnemonic() + "<" + ::llvm::Twine(getParam()) + ">").str();
    }
    std::string $cppClass::getSyntax() const {
      return (getMnemonic() + "<}] # paramLetter # [{>").str();
    }
    ::mlir::Attribute $cppClass::withParameter(int64_t param) const {
      if (param < 1)
        return {};
      return get(getContext(), param);
    }
    ::mlir::Attribute $cppClass::parse(::mlir::AsmParser &parser,
                                       ::mlir::Type) {
      int64_t param;
      ::mlir::SMLoc loc = parser.getCurrentLocation();
      if (::mlir::failed(parseStructureParam(parser, getMnemonic(), param)))
        return {};
      return getChecked([&] { return parser.emitError(loc); },
                        parser.getContext(), param);
    }
    void $cppClass::print(::mlir::AsmPrinter &printer) const {
      printer << "<" << getParam() << ">";
    }
    ::llvm::LogicalResult $cppClass::verify(
        ::llvm::function_ref<::mlir::InFlightDiagnostic()> emitError,
        int64_t param) {
      return verifyStructureParam(emitError, getMnemonic(), param);
    }
  }];
}

def Recurrence_IdentityAttr : Recurrence_Structure<"Identity", "identity",
    ["hasApplyAndCopy", "buildApplyAndCopy", "getRestartingStructure"]> {
  let summary = "A_t = I: a running sum";
  let description = [{
    `h_t = h_{t-1} + b_t`. No transition operands.
  }];
}

def Recurrence_ScalarAttr : Recurrence_Structure<"Scalar", "scalar",
    ["getChannelDim", "isIdentity", "hasApplyAndCopy", "buildApplyAndCopy"]> {
  let summary = "A_t = a_t I: one decay per step";
  let description = [{
    `h_t = a_t h_{t-1} + b_t` with `a: [..., T]`.
  }];
}

def Recurrence_DiagonalAttr : Recurrence_Structure<"Diagonal", "diagonal",
    ["allowsPerElement", "isIdentity", "hasApplyAndCopy",
     "buildApplyAndCopy"]> {
  let summary = "A_t = diag(a_t): one decay per channel";
  let description = [{
    `h_t[n] = a_t[n] h_{t-1}[n] + b_t[n]` with `a: [..., T, N]`; on a
    matrix state `a` may be given per element, `[..., T, N, D]`.
  }];
}

def Recurrence_BlockDiagonalAttr : Recurrence_ParamStructure<"BlockDiagonal",
    "block_diagonal", "BlockSize", "m", ["verifyStateSize",
    "getCompositeBlockSize"]> {
  let summary = "N/m independent m x m blocks";
  let description = [{
    `block_diagonal<m>`: A_t holds N/m blocks of m x m on its diagonal,
    `A: [..., T, N/m, m, m]`; N must be a multiple of m.
  }];
}

def Recurrence_DplrAttr : Recurrence_ParamStructure<"Dplr", "dplr", "Rank", "r",
    ["getTransitionOperandName", "checkSchedule", "hasApplyAndCopy",
     "buildApplyAndCopy", "getLowRankUpdate"]> {
  let summary = "diag(d_t) + U_t V_t^T, diagonal plus low rank";
  let description = [{
    `dplr<r>`: `d: [..., T, N]`, `U, V: [..., T, N, r]` (DeltaNet's
    `I - beta k k^T` is r = 1). Products of dplr transitions are dense, so
    the chunked and scan schedules densify them; the scan refuses N > 256.
  }];
}

def Recurrence_DenseAttr : Recurrence_Structure<"Dense", "dense"> {
  let summary = "A_t a full N x N matrix";
  let description = [{
    `A: [..., T, N, N]`.
  }];
}

def Recurrence_HigherOrderAttr : Recurrence_ParamStructure<"HigherOrder",
    "higher_order", "Order", "m", ["getStateDepth", "getChannelDim",
    "getCompositeBlockSize"]> {
  let summary = "h_t = sum_i a_{i,t} * h_{t-i}, channelwise";
  let description = [{
    `higher_order<m>`: `a: [..., T, m, N]`; the state is the stack of the m
    most recent states, `[..., m, N]` for init and the final state.
  }];
}

def Recurrence_ScheduleAttr : Recurrence_Attr<"Schedule", "schedule"> {
  let summary = "How a recurrence is evaluated";
  let description = [{
    `sequential` loops over time; `chunked<C>` splits time into chunks of C
    steps; `scan` is a Blelloch up-sweep/down-sweep on (A, b) pairs; `auto`
    leaves the choice to the cost model. Inside `recurrence.scan` it follows
    the keyword `schedule` (`schedule chunked<64>`); standalone it reads
    `#recurrence.schedule<chunked<64>>`.
  }];
  let parameters = (ins "ScheduleKind":$kind,
                        DefaultValuedParameter<"int64_t", "0">:$chunkSize);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    static Attribute parseBody(AsmParser &parser);
    void printBody(AsmPrinter &printer) const;
  }];
}

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEATTRS_TD
