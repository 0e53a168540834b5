//===- RecurrenceDialect.td - Recurrence dialect definition -*- tablegen -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEDIALECT_TD
#define RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEDIALECT_TD

include "mlir/IR/OpBase.td"

def Recurrence_Dialect : Dialect {
  let name = "recurrence";
  let cppNamespace = "::mlir::recurrence";
  let summary = "Structured linear recurrences h_t = A_t h_{t-1} + b_t";
  let description = [{
    The `recurrence` dialect states *what* linear recurrence is computed —
    the structure of its transitions, its inputs, initial state, direction,
    fused readout and final state — and leaves *how* it is computed to the
    schedule passes (sequential, chunked, Blelloch scan), which lower it to
    `scf`, `linalg` and `arith` on tensors.

    Semantics for every batch index independently, over T steps:

    ```
    h_t = A_t h_{t-1} + b_t     t = 1..T   (reverse: t = T..1, h_{T+1} = init)
    h_0 = init                  (zeros when absent)
    ```

    The state is a vector of N elements or an N x D matrix whose D columns
    share the transition.
  }];
  // A scan built in C++ gets its destinations as tensor.empty sized by
  // tensor.dim and index constants (ScanOp::materializeDestinations).
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerAttributes();
  }];
}

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_RECURRENCEDIALECT_TD
