// A scan of one batch element and channel over one step, at static sizes:
// every loop of the lowering has one iteration and folds away, which leaves
// host code storing the state's one element into the output. The GPU
// lowering makes that store a kernel of one thread, sinks the load that
// feeds it (read before the output is allocated) into it, and the pipeline
// goes on to the GPU binary.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm \
// RUN:   -mlir-print-ir-after=recurrence-gpu-parallelize -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm | FileCheck %s --check-prefix=BINARY

// CHECK-LABEL: IR Dump After GpuParallelizePass
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[ONE:.*]]) step (%[[ONE]]) {
// CHECK-NEXT: memref.subview
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xf32>
// CHECK-NEXT: memref.store %[[X]], %{{.*}}[%{{.*}}] : memref<1xf32, strided<[1]>>
// CHECK-NEXT: scf.reduce
// CHECK: return

// The host function, then the kernels; the one-thread kernel copies the
// element.
// BINARY: llvm.func @one(
// BINARY: gpu.binary @one_kernel{{.*}}.maxntid 1, 1, 1{{.*}}ld.global.b32{{.*}}st.global.b32
func.func @one(%a: tensor<1x1x1xf32>, %b: tensor<1x1x1xf32>,
               %c: tensor<1x1x1xf32>) -> tensor<1x1xf32> {
  %e = tensor.empty() : tensor<1x1xf32>
  %y = recurrence.scan diagonal schedule sequential
      transition(%a : tensor<1x1x1xf32>) input(%b : tensor<1x1x1xf32>)
      readout(%c : tensor<1x1x1xf32>) outs(%e : tensor<1x1xf32>)
      -> tensor<1x1xf32>
  return %y : tensor<1x1xf32>
}
