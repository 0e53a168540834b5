// An empty input is a valid, empty module.
//
// RUN: recurrence-opt %S/Inputs/empty.txt | FileCheck %s
// CHECK: module {
// CHECK-NEXT: }
