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

def Recurrence_StructureKind : I32EnumAttr<"StructureKind",
    "the shape of the transition matrices A_t", [
  I32EnumAttrCase<"Identity", 0, "identity">,
  I32EnumAttrCase<"Scalar", 1, "scalar">,
  I32EnumAttrCase<"Diagonal", 2, "diagonal">,
  I32EnumAttrCase<"BlockDiagonal", 3, "block_diagonal">,
  I32EnumAttrCase<"Dplr", 4, "dplr">,
  I32EnumAttrCase<"Dense", 5, "dense">,
  I32EnumAttrCase<"HigherOrder", 6, "higher_order">
]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::recurrence";
}

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

class Recurrence_Attr<string name, string attrMnemonic>
    : AttrDef<Recurrence_Dialect, name> {
  let mnemonic = attrMnemonic;
}

def Recurrence_StructureAttr : Recurrence_Attr<"Structure", "structure"> {
  let summary = "The structure of the transitions A_t";
  let description = [{
    One of `identity`, `scalar`, `diagonal`, `block_diagonal<m>`, `dplr<r>`,
    `dense` or `higher_order<m>`. The parameter is the block size m, the rank
    r or the order m; it is at least 1 and absent for the other structures.
    The structure fixes the transition operands an op takes (for batch dims
    `...`, T steps and state size N):

    | structure | A_t | operands |
    |---|---|---|
    | identity | I | none |
    | scalar | a_t I | a: [..., T] |
    | diagonal | diag(a_t) | a: [..., T, N], or [..., T, N, D] per element |
    | block_diagonal<m> | N/m blocks m x m | A: [..., T, N/m, m, m] |
    | dplr<r> | diag(d_t) + U_t V_t^T | d: [..., T, N], U, V: [..., T, N, r] |
    | dense | full | A: [..., T, N, N] |
    | higher_order<m> | h_t = sum_i a_{i,t} * h_{t-i} | a: [..., T, m, N] |

    Inside `recurrence.scan` it is written bare (`block_diagonal<4>`); as a
    standalone attribute it reads `#recurrence.structure<block_diagonal<4>>`.
  }];
  let parameters = (ins "StructureKind":$kind,
                        DefaultValuedParameter<"int64_t", "0">:$param);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The number of transition operands this structure takes.
    unsigned getNumTransitionOperands() const;
    /// Whether the structure carries a parameter (m or r).
    static bool hasParam(StructureKind kind);
    /// Parses / prints the bare form `kind` or `kind<param>`.
    static Attribute parseBody(AsmParser &parser);
    void printBody(AsmPrinter &printer) const;
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
