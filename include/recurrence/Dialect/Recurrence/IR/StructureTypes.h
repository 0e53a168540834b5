//===- StructureTypes.h - Values the structure interface trades -*- C++ -*-===//
//
// Part of the Recurrence project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// The plain types in the signatures of RecurrenceStructureInterface: a
// step's input, the forms of composed transitions and a structure's costs.
//
//===----------------------------------------------------------------------===//

#ifndef RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTURETYPES_H
#define RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTURETYPES_H

#include "mlir/IR/Value.h"

namespace mlir::recurrence {

/// b_t of one step: a full [N, D] tensor, or the factors k [N] and v [D];
/// and where A_t h + b_t may be built: an [N, D] tensor (the output row) that
/// b_t is materialized into, or null for a new one.
struct StepInput {
  Value full;
  Value key, value;
  Value into;
};

/// The form a product A_j ... A_i of transitions is kept in. Each form has
/// its own identity, product and application (StructureAlgebra.h).
enum class CompositeForm {
  Identity,  // no value
  Scalar,    // [1]
  Diagonal,  // [N], or [N, D] per element
  Blocks,    // [N/m, m, m]
  Dense,     // [N, N]
  Companion, // [N, m, m], acting on the [m, N, D] stack
};

/// Per-step work and sizes of a structure at state size N and D columns,
/// counted in floating-point operations and elements.
struct StructureCosts {
  double stepFlops;          // h <- A h + b
  double composeFlops;       // A2 A1 in composite form
  double applyFlops;         // P h with a composite
  double transitionElements; // operand elements of one A_t
  double compositeElements;  // elements of a composite (0 for identity)
  double stateElements;      // elements of a carried state
};

} // namespace mlir::recurrence

#endif // RECURRENCE_DIALECT_RECURRENCE_IR_STRUCTURETYPES_H
