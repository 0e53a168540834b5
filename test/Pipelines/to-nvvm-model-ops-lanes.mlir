// The model ops as the front door compiles them for cuda (a wrapper that
// reads the caller's buffers and writes the result into the caller's
// buffer): after decomposition, the delta rule's dplr<1> scan and the
// selective SSM's diagonal scan with a readout take the state lanes, one
// kernel each, whose lanes hold a state each (the delta rule's 64 states a
// warp per column, 2 a lane; the SSM's 16 half a warp) and add the
// column's sums by xor shuffles. The gates, beta k and delta x are computed
// where a lane reads them, so no other kernel runs. Without the lanes the
// same ops run a thread per column, the delta rule's operands made by a
// kernel of their own first.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm | FileCheck %s --check-prefix=PTX
// RUN: recurrence-opt %s -recurrence-to-nvvm=state-lanes=0 -mlir-disable-threading -mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | FileCheck %s --check-prefix=OFF

// 2 heads x 64 columns x 32 lanes = 4096 threads.
// CHECK-LABEL: func.func @delta_rule(
// CHECK: gpu.launch_func @delta_rule_kernel::@delta_rule_kernel blocks in (%c32{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @delta_rule_kernel(
// CHECK: gpu.shuffle xor
// CHECK: gpu.return
// OFF-LABEL: func.func @delta_rule(
// OFF-COUNT-2: gpu.launch_func
// OFF-NOT: gpu.shuffle
func.func @delta_rule(%q: memref<2x8x64xf32>, %k: memref<2x8x64xf32>,
                      %v: memref<2x8x64xf32>, %beta: memref<2x8xf32>,
                      %y: memref<2x8x64xf32>) {
  %qt = bufferization.to_tensor %q restrict : memref<2x8x64xf32> to tensor<2x8x64xf32>
  %kt = bufferization.to_tensor %k restrict : memref<2x8x64xf32> to tensor<2x8x64xf32>
  %vt = bufferization.to_tensor %v restrict : memref<2x8x64xf32> to tensor<2x8x64xf32>
  %bt = bufferization.to_tensor %beta restrict : memref<2x8xf32> to tensor<2x8xf32>
  %out = recurrence.delta_rule q(%qt : tensor<2x8x64xf32>)
      k(%kt : tensor<2x8x64xf32>) v(%vt : tensor<2x8x64xf32>)
      beta(%bt : tensor<2x8xf32>) -> tensor<2x8x64xf32>
  bufferization.materialize_in_destination %out in restrict writable %y
      : (tensor<2x8x64xf32>, memref<2x8x64xf32>) -> ()
  return
}

// 2 batch elements x 12 columns x 16 lanes = 384 threads.
// CHECK-LABEL: func.func @selective_ssm(
// CHECK: gpu.launch_func @selective_ssm_kernel::@selective_ssm_kernel blocks in (%c3{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c128{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: gpu.func @selective_ssm_kernel(
// CHECK: math.exp
// CHECK: gpu.shuffle xor
// CHECK: gpu.return
// OFF-LABEL: func.func @selective_ssm(
// OFF: gpu.launch_func @selective_ssm_kernel::@selective_ssm_kernel blocks in (%c1{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c32{{.*}}, %c1{{.*}}, %c1{{.*}})
// OFF-NOT: gpu.launch_func
// OFF-NOT: gpu.shuffle

// The kernels' PTX adds by butterfly shuffles.
// PTX: gpu.binary @delta_rule_kernel
// PTX-SAME: shfl.sync.bfly.b32
// PTX: gpu.binary @selective_ssm_kernel
// PTX-SAME: shfl.sync.bfly.b32
func.func @selective_ssm(%x: memref<2x8x12xf32>, %delta: memref<2x8x12xf32>,
                         %a: memref<12x16xf32>, %b: memref<2x8x16xf32>,
                         %c: memref<2x8x16xf32>, %y: memref<2x8x12xf32>) {
  %xt = bufferization.to_tensor %x restrict : memref<2x8x12xf32> to tensor<2x8x12xf32>
  %dt = bufferization.to_tensor %delta restrict : memref<2x8x12xf32> to tensor<2x8x12xf32>
  %at = bufferization.to_tensor %a restrict : memref<12x16xf32> to tensor<12x16xf32>
  %bt = bufferization.to_tensor %b restrict : memref<2x8x16xf32> to tensor<2x8x16xf32>
  %ct = bufferization.to_tensor %c restrict : memref<2x8x16xf32> to tensor<2x8x16xf32>
  %out = recurrence.selective_ssm x(%xt : tensor<2x8x12xf32>)
      delta(%dt : tensor<2x8x12xf32>) A(%at : tensor<12x16xf32>)
      B(%bt : tensor<2x8x16xf32>) C(%ct : tensor<2x8x16xf32>)
      -> tensor<2x8x12xf32>
  bufferization.materialize_in_destination %out in restrict writable %y
      : (tensor<2x8x12xf32>, memref<2x8x12xf32>) -> ()
  return
}
