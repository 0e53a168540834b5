// -recurrence-differentiate=target=...: the target's cost model picks each
// adjoint's checkpoint (TargetModel::adjointCheckpoint). On the CPU a matrix
// state of at least 32 x 32 (a dynamic N or D taken as 64) is recomputed 16
// steps at a time, a loop over chunks of states saved before each; smaller
// and vector states, and every scan on the GPU, at once. An explicit
// checkpoint applies to every scan.
//
// RUN: recurrence-opt %s -recurrence-differentiate=target=cpu | FileCheck %s --check-prefix=CPU
// RUN: recurrence-opt %s -recurrence-differentiate=target=cuda | FileCheck %s --check-prefix=CUDA
// RUN: recurrence-opt %s "-recurrence-differentiate=checkpoint=4 target=cuda" | FileCheck %s --check-prefix=FORCED
// RUN: not recurrence-opt %s -recurrence-differentiate=target=tpu 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CPU-LABEL: func.func @attention_32_grad(
// CPU: %[[CHUNKS:.*]] = arith.ceildivsi %c64, %c16 : index
// CPU: scf.for %{{.*}} = %c0 to %[[CHUNKS]] step %c1
// CPU: recurrence.scan diagonal matrix transition(
// CPU: return
// CUDA-LABEL: func.func @attention_32_grad(
// CUDA-NOT: scf.for
// CUDA: return
// FORCED-LABEL: func.func @attention_32_grad(
// FORCED: %[[CHUNKS:.*]] = arith.ceildivsi %c64, %c4 : index
// FORCED: scf.for %{{.*}} = %c0 to %[[CHUNKS]] step %c1
// FORCED: return
func.func @attention_32(%a: tensor<2x64x32xf32>, %k: tensor<2x64x32xf32>, %v: tensor<2x64x32xf32>, %q: tensor<2x64x32xf32>) -> tensor<2x64x32xf32> {
  %y_dest = tensor.empty() : tensor<2x64x32xf32>
  %y = recurrence.scan diagonal matrix transition(%a : tensor<2x64x32xf32>) factored_input(%k, %v : tensor<2x64x32xf32>, tensor<2x64x32xf32>) readout(%q : tensor<2x64x32xf32>) outs(%y_dest : tensor<2x64x32xf32>) -> tensor<2x64x32xf32>
  return %y : tensor<2x64x32xf32>
}

// CPU-LABEL: func.func @attention_16_grad(
// CPU-NOT: scf.for
// CPU: return
func.func @attention_16(%a: tensor<2x64x16xf32>, %k: tensor<2x64x16xf32>, %v: tensor<2x64x16xf32>, %q: tensor<2x64x16xf32>) -> tensor<2x64x16xf32> {
  %y_dest = tensor.empty() : tensor<2x64x16xf32>
  %y = recurrence.scan diagonal matrix transition(%a : tensor<2x64x16xf32>) factored_input(%k, %v : tensor<2x64x16xf32>, tensor<2x64x16xf32>) readout(%q : tensor<2x64x16xf32>) outs(%y_dest : tensor<2x64x16xf32>) -> tensor<2x64x16xf32>
  return %y : tensor<2x64x16xf32>
}

// CPU-LABEL: func.func @attention_dynamic_grad(
// CPU: scf.for
// CPU: return
func.func @attention_dynamic(%a: tensor<?x?x?xf32>, %k: tensor<?x?x?xf32>, %v: tensor<?x?x?xf32>, %q: tensor<?x?x?xf32>, %y_dest: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %y = recurrence.scan diagonal matrix transition(%a : tensor<?x?x?xf32>) factored_input(%k, %v : tensor<?x?x?xf32>, tensor<?x?x?xf32>) readout(%q : tensor<?x?x?xf32>) outs(%y_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// CPU-LABEL: func.func @vector_grad(
// CPU-NOT: scf.for
// CPU: return
func.func @vector(%a: tensor<2x64x4096xf32>, %b: tensor<2x64x4096xf32>) -> tensor<2x64x4096xf32> {
  %h_dest = tensor.empty() : tensor<2x64x4096xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<2x64x4096xf32>) input(%b : tensor<2x64x4096xf32>) outs(%h_dest : tensor<2x64x4096xf32>) -> tensor<2x64x4096xf32>
  return %h : tensor<2x64x4096xf32>
}

// UNKNOWN: error: unknown target 'tpu'; expected cpu or cuda
