// On the GPU a scan whose channels mix (dplr) stays sequential under `auto`.
// When `schedules` leaves nothing that can lower it, -recurrence-select-schedule
// says so at the op, rather than leaving `auto` for a later pass to trip on.
//
// RUN: not recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=chunked" -split-input-file 2>&1 | FileCheck %s
// An explicit schedule outside `schedules` is an error too, at the op.
// RUN: not recurrence-opt %s -recurrence-select-schedule="target=cpu schedules=sequential,chunked" -split-input-file 2>&1 | FileCheck %s --check-prefix=FIXED

func.func @dplr(%d: tensor<1x64x8xf32>, %u: tensor<1x64x8x1xf32>, %v: tensor<1x64x8x1xf32>, %b: tensor<1x64x8xf32>) -> tensor<1x64x8xf32> {
  %h_dest = tensor.empty() : tensor<1x64x8xf32>
  // CHECK: select-schedule-none.mlir:[[@LINE+1]]:8: error: 'recurrence.scan' op no schedule in `schedules` can lower this scan for target 'cuda'; allow sequential
  %h = recurrence.scan dplr<1> transition(%d, %u, %v : tensor<1x64x8xf32>, tensor<1x64x8x1xf32>, tensor<1x64x8x1xf32>) input(%b : tensor<1x64x8xf32>) outs(%h_dest : tensor<1x64x8xf32>) -> tensor<1x64x8xf32>
  return %h : tensor<1x64x8xf32>
}

// -----

func.func @fixed(%a: tensor<1x64x8xf32>, %b: tensor<1x64x8xf32>) -> tensor<1x64x8xf32> {
  %h_dest = tensor.empty() : tensor<1x64x8xf32>
  // FIXED: select-schedule-none.mlir:[[@LINE+1]]:8: error: 'recurrence.scan' op schedule 'scan' is not among the pass's `schedules`; use sequential or chunked (or auto)
  %h = recurrence.scan diagonal schedule scan transition(%a : tensor<1x64x8xf32>) input(%b : tensor<1x64x8xf32>) outs(%h_dest : tensor<1x64x8xf32>) -> tensor<1x64x8xf32>
  return %h : tensor<1x64x8xf32>
}
