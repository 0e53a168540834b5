// RUN: recurrence-opt %s -recurrence-to-llvm="cores=2 openmp" | FileCheck %s --implicit-check-not=llvm.intr.assume

// A reverse scan at sizes known only at run time, on OpenMP threads. In the
// parallel region (which translation outlines), each of the step's loads
// and stores is in the scope of its buffer (a, b, the output, the scratch
// state) and out of the scopes of the buffers stated apart from it: the
// output and the state against every other, the two operands (only read)
// not against each other. LLVM then vectorizes the step without run-time
// alias checks. No separate-storage assumption is left: outlining would
// drop it.
// CHECK-LABEL: llvm.func @reverse
// CHECK: omp.wsloop
// CHECK: llvm.load {{.*}} {alias_scopes = [#[[A:alias_scope[0-9]*]]], noalias_scopes = [#[[OUT:alias_scope[0-9]*]], #[[STATE:alias_scope[0-9]*]]]}
// CHECK: llvm.load {{.*}} {alias_scopes = [#[[B:alias_scope[0-9]*]]], noalias_scopes = [#[[OUT]], #[[STATE]]]}
// CHECK: llvm.load {{.*}} {alias_scopes = [#[[STATE]]], noalias_scopes = [#[[OUT]], #[[A]], #[[B]]]}
// CHECK: llvm.store {{.*}} {alias_scopes = [#[[STATE]]], noalias_scopes = [#[[OUT]], #[[A]], #[[B]]]}
// CHECK: llvm.store {{.*}} {alias_scopes = [#[[OUT]]], noalias_scopes = [#[[A]], #[[B]], #[[STATE]]]}
// CHECK: omp.yield
func.func @reverse(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %out: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %h = recurrence.scan diagonal reverse transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%out : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
