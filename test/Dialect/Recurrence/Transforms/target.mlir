// The machine the passes plan for comes from the IR or from pass options,
// never from the machine the compiler runs on: the module's DLTI target
// system spec gives the "num_cores" of its "CPU" (or "GPU" for cuda), a
// `cores` option overrides it, and without either a cpu is one core. So
// -recurrence-select-schedule, -recurrence-lower-sequential and
// -recurrence-to-llvm give the same output on every machine.
//
// RUN: recurrence-opt %s -split-input-file -recurrence-select-schedule="explain=true" -verify-diagnostics
// RUN: recurrence-opt %s -split-input-file -recurrence-select-schedule="cores=3 explain=true" -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: recurrence-opt %s -split-input-file -recurrence-lower-sequential | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-to-llvm | FileCheck %s --check-prefix=PIPELINE

// 16 cores declared: one sequence of 1024 channels is split into 8 channel
// tiles of 128 (the smallest static tile), by the cost model and by the
// lowering alike.

// OPTION: remark: schedule sequential(channel-tiles=2) chosen for cpu (3 cores, 50 GB/s)
// CHECK-LABEL: func.func @declared(
// CHECK:         scf.forall (%{{[^,]*}}, %{{[^)]*}}) = (0, 0) to (1, 1024) step (1, 128) shared_outs
// CHECK:           tensor.extract_slice %{{.*}} [1, 8, 128] [1, 1, 1]
// PIPELINE-LABEL: llvm.func @declared(
// PIPELINE:         omp.parallel
module attributes {dlti.target_system_spec = #dlti.target_system_spec<"CPU" = #dlti.target_device_spec<"num_cores" = 16 : i64>>} {
  func.func @declared(%a: tensor<1x8x1024xf32>, %b: tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32> {
    %h_dest = tensor.empty() : tensor<1x8x1024xf32>
    // expected-remark @below {{schedule sequential(channel-tiles=8) chosen for cpu (16 cores, 50 GB/s)}}
    %h = recurrence.scan diagonal schedule auto transition(%a : tensor<1x8x1024xf32>) input(%b : tensor<1x8x1024xf32>) outs(%h_dest : tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32>
    %g_dest = tensor.empty() : tensor<1x8x1024xf32>
    %g = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x8x1024xf32>) input(%b : tensor<1x8x1024xf32>) outs(%g_dest : tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32>
    return %g : tensor<1x8x1024xf32>
  }
}

// -----

// Nothing declared: one core, one loop over the channels.

// OPTION: remark: schedule sequential(channel-tiles=2) chosen for cpu (3 cores, 50 GB/s)
// CHECK-LABEL: func.func @undeclared(
// CHECK:         scf.forall (%{{[^)]*}}) in (1) shared_outs
// CHECK-NOT:     [1, 8, 128]
// CHECK:         return
// PIPELINE-LABEL: llvm.func @undeclared(
// PIPELINE-NOT:     omp.parallel
// PIPELINE:         llvm.return
func.func @undeclared(%a: tensor<1x8x1024xf32>, %b: tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32> {
  %h_dest = tensor.empty() : tensor<1x8x1024xf32>
  // expected-remark @below {{schedule sequential chosen for cpu (1 cores, 50 GB/s)}}
  %h = recurrence.scan diagonal schedule auto transition(%a : tensor<1x8x1024xf32>) input(%b : tensor<1x8x1024xf32>) outs(%h_dest : tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32>
  %g_dest = tensor.empty() : tensor<1x8x1024xf32>
  %g = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x8x1024xf32>) input(%b : tensor<1x8x1024xf32>) outs(%g_dest : tensor<1x8x1024xf32>) -> tensor<1x8x1024xf32>
  return %g : tensor<1x8x1024xf32>
}
