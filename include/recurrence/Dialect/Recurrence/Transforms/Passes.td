//===- Passes.td - Recurrence transformation passes --------*- tablegen -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_TD
#define RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerSequentialPass : Pass<"recurrence-lower-sequential"> {
  let summary = "Lower sequential recurrence.scan ops into loops on tensors";
  let description = [{
    Rewrites every `recurrence.scan` whose schedule is `sequential` (or
    `auto`, until a schedule has been selected) into an `scf.forall` over
    the batch dims, each running an `scf.for` over time whose body applies
    one transition with `linalg.generic` ops that are parallel over the
    state's channels (and columns). Readout, factored input, init, reverse,
    higher-order stacks and the final state are all handled here; the
    per-structure arithmetic comes from the shared structure algebra.

    Before:

    ```mlir
    %h = recurrence.scan diagonal schedule sequential
        transition(%a : tensor<4x16x8xf32>) input(%b : tensor<4x16x8xf32>)
        -> tensor<4x16x8xf32>
    ```

    After (abridged):

    ```mlir
    %h = scf.forall (%i) in (4) shared_outs(%out = %empty) -> tensor<4x16x8xf32> {
      %slice = tensor.extract_slice %out[%i, 0, 0] [1, 16, 8] [1, 1, 1]
      %res:2 = scf.for %s = %c0 to %c16 step %c1 iter_args(%h = %zero, %o = %slice) {
        %new = linalg.generic ... // h = a_t * h + b_t
        ...
      }
      scf.forall.in_parallel { tensor.parallel_insert_slice ... }
    }
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // RECURRENCE_DIALECT_RECURRENCE_TRANSFORMS_PASSES_TD
