// Matrix states [N, D] on the GPU: a transition acts on every column alike,
// so each (batch element, column) is a thread of its own, the time loop and
// the column's N states inside it, even where the channels cannot be split
// (a readout sums over them, dplr mixes them). Mamba's selective SSM at
// (B, T, Dm, N) = (4, 2048, 768, 16) runs 4 x 768 threads, not 4.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm -mlir-disable-threading -mlir-print-ir-after=gpu-kernel-outlining -o /dev/null 2>&1 | FileCheck %s

// CHECK-LABEL: func.func @selective_ssm(
// CHECK: gpu.launch_func @selective_ssm_kernel::@selective_ssm_kernel blocks in (%c96{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c32{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: return
// The kernel holds the whole time loop.
// CHECK: gpu.func @selective_ssm_kernel(
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c2048{{.*}} step %c1
// CHECK: gpu.return
func.func @selective_ssm(%a: tensor<4x2048x16x768xf32>, %k: tensor<4x2048x16xf32>, %v: tensor<4x2048x768xf32>, %c: tensor<4x2048x16xf32>) -> tensor<4x2048x768xf32> {
  %y0 = tensor.empty() : tensor<4x2048x768xf32>
  %y = recurrence.scan diagonal matrix transition(%a : tensor<4x2048x16x768xf32>) factored_input(%k, %v : tensor<4x2048x16xf32>, tensor<4x2048x768xf32>) readout(%c : tensor<4x2048x16xf32>) outs(%y0 : tensor<4x2048x768xf32>) -> tensor<4x2048x768xf32>
  return %y : tensor<4x2048x768xf32>
}

// The delta rule's dplr<1> on a [16, 64] state with a readout, two heads:
// 2 x 64 threads.
// CHECK-LABEL: func.func @delta_rule(
// CHECK: gpu.launch_func @delta_rule_kernel::@delta_rule_kernel blocks in (%c4{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c32{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: return
// CHECK: gpu.func @delta_rule_kernel(
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c300{{.*}} step %c1
// CHECK: gpu.return
func.func @delta_rule(%d: tensor<2x300x16xf32>, %u: tensor<2x300x16x1xf32>, %w: tensor<2x300x16x1xf32>, %k: tensor<2x300x16xf32>, %v: tensor<2x300x64xf32>, %q: tensor<2x300x16xf32>) -> tensor<2x300x64xf32> {
  %y0 = tensor.empty() : tensor<2x300x64xf32>
  %y = recurrence.scan dplr<1> matrix transition(%d, %u, %w : tensor<2x300x16xf32>, tensor<2x300x16x1xf32>, tensor<2x300x16x1xf32>) factored_input(%k, %v : tensor<2x300x16xf32>, tensor<2x300x64xf32>) readout(%q : tensor<2x300x16xf32>) outs(%y0 : tensor<2x300x64xf32>) -> tensor<2x300x64xf32>
  return %y : tensor<2x300x64xf32>
}


// Where the channels are independent (no readout: the states themselves, as
// the selective SSM's gradient recomputes them), each (batch element,
// channel, column) is a thread: 4 x 16 x 768 = 49152 of them, a warp's
// lanes reading neighbouring columns, not 4 x 16 threads walking 768
// columns each (which the cost model sent to chunked kernels).
// CHECK-LABEL: func.func @selective_ssm_states(
// CHECK: gpu.launch_func @selective_ssm_states_kernel::@selective_ssm_states_kernel blocks in (%c1536{{.*}}, %c1{{.*}}, %c1{{.*}}) threads in (%c32{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK-NOT: gpu.launch_func
// CHECK: return
// Its time loop keeps the next steps' loads in flight, as a vector
// state's thread does.
// CHECK: gpu.func @selective_ssm_states_kernel(
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %{{.*}} step %c{{[0-9]+}} iter_args(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2048{{.*}} step %c1
// CHECK: gpu.return
func.func @selective_ssm_states(%a: tensor<4x2048x16x768xf32>, %k: tensor<4x2048x16xf32>, %v: tensor<4x2048x768xf32>) -> tensor<4x2048x16x768xf32> {
  %h0 = tensor.empty() : tensor<4x2048x16x768xf32>
  %h = recurrence.scan diagonal matrix transition(%a : tensor<4x2048x16x768xf32>) factored_input(%k, %v : tensor<4x2048x16xf32>, tensor<4x2048x768xf32>) outs(%h0 : tensor<4x2048x16x768xf32>) -> tensor<4x2048x16x768xf32>
  return %h : tensor<4x2048x16x768xf32>
}
