// recurrence-opt --help lists the recurrence lowering pass and the pipeline
// to LLVM, each with its summary.
//
// RUN: recurrence-opt --help | FileCheck %s
// CHECK: OVERVIEW: Recurrence optimizer driver
// CHECK-DAG: --recurrence-lower-sequential {{.*}}- Lower sequential recurrence.scan ops into loops on tensors
// CHECK-DAG: --recurrence-to-llvm {{.*}}- Lower recurrence ops through loops and buffers to the LLVM dialect for the CPU
