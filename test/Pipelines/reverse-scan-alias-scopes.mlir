// RUN: recurrence-opt %s -recurrence-to-llvm="cores=2 openmp" | FileCheck %s

// A reverse scan at sizes known only at run time, on OpenMP threads: the
// step's loads and stores in the outlined parallel region carry alias
// scopes that keep the output apart from the operands (and the scratch
// state), so LLVM vectorizes the step without run-time alias checks; the
// separate-storage assumptions, which outlining would drop, are gone.
// CHECK-DAG: #[[DOMAIN:.*]] = #llvm.alias_scope_domain<id = {{.*}}, description = "separate storage">
// CHECK-LABEL: llvm.func @reverse
// CHECK-NOT: llvm.intr.assume
// CHECK: omp.parallel
// CHECK: omp.wsloop
// CHECK: llvm.load {{.*}}noalias_scopes = [
// CHECK: llvm.load {{.*}}noalias_scopes = [
// CHECK: llvm.store {{.*}}noalias_scopes = [
// CHECK-NOT: llvm.intr.assume
func.func @reverse(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %out: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %h = recurrence.scan diagonal reverse transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%out : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}
