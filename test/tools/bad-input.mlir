// recurrence-opt on truncated or garbled input: a located diagnostic
// (file:line:col: error: ...), no IR on the output, and a non-zero exit.
// The inputs live in Inputs/ (not run by lit themselves).

// RUN: not recurrence-opt %S/Inputs/truncated.mlir 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: {{.*}}Inputs{{/|\\}}truncated.mlir:3:89: error: expected 'x' in dimension list
// TRUNCATED-NEXT: input(%b : tensor<2x8
// TRUNCATED-NOT: module

// RUN: not recurrence-opt %S/Inputs/truncated-op-name.mlir 2>&1 | FileCheck %s --check-prefix=OPNAME
// OPNAME: {{.*}}Inputs{{/|\\}}truncated-op-name.mlir:3:23: error: custom op 'recurrence.scan' expected a structure: identity, scalar, diagonal, block_diagonal<m>, dplr<r>, dense, higher_order<m>, or an attribute implementing RecurrenceStructureInterface
// OPNAME-NOT: module

// RUN: not recurrence-opt %S/Inputs/truncated-attr.mlir 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: {{.*}}Inputs{{/|\\}}truncated-attr.mlir:2:74: error: unbalanced '<' character in pretty dialect name
// ATTR-NOT: module

// RUN: not recurrence-opt %S/Inputs/truncated-body.mlir 2>&1 | FileCheck %s --check-prefix=BODY
// BODY: {{.*}}Inputs{{/|\\}}truncated-body.mlir:5:32: error: expected operation name in quotes
// BODY-NOT: module

// Junk after a valid function: reported where the junk starts (MLIR puts an
// error at the start of a line at the end of the previous token).
// RUN: not recurrence-opt %S/Inputs/garbled.mlir 2>&1 | FileCheck %s --check-prefix=GARBLED
// GARBLED: {{.*}}Inputs{{/|\\}}garbled.mlir:6:2: error: expected operation name in quotes
// GARBLED-NOT: module

// RUN: not recurrence-opt %S/Inputs/garbled-structure.mlir 2>&1 | FileCheck %s --check-prefix=STRUCTURE
// STRUCTURE: {{.*}}Inputs{{/|\\}}garbled-structure.mlir:3:24: error: custom op 'recurrence.scan' expected a structure: identity, scalar, diagonal, block_diagonal<m>, dplr<r>, dense, higher_order<m>, or an attribute implementing RecurrenceStructureInterface
// STRUCTURE-NOT: module

// RUN: not recurrence-opt %S/Inputs/binary.mlir 2>&1 | FileCheck %s --check-prefix=BINARY
// BINARY: {{.*}}Inputs{{/|\\}}binary.mlir:2:3: error: unexpected character
// BINARY-NOT: module

// RUN: not recurrence-opt %S/Inputs/unknown-op.mlir 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: {{.*}}Inputs{{/|\\}}unknown-op.mlir:3:8: error: custom op 'recurrence.scann' is unknown
// UNKNOWN-NOT: module

// Passes do not run on input that does not parse.
// RUN: not recurrence-opt %S/Inputs/truncated.mlir -recurrence-to-llvm 2>&1 | FileCheck %s --check-prefix=TRUNCATED

// Input read from stdin is located as <stdin>.
// RUN: not recurrence-opt < %S/Inputs/garbled.mlir 2>&1 | FileCheck %s --check-prefix=STDIN
// STDIN: <stdin>:6:2: error: expected operation name in quotes
