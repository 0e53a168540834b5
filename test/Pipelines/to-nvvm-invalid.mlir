// RUN: not recurrence-opt %s -recurrence-to-nvvm 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=sequential,fast" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=scan,sequential" | FileCheck %s --check-prefix=KEPT

// The sequential and chunked schedules are lowered for the GPU, the
// Blelloch scan not yet: asking for it is an error naming the ones there are.
func.func @blelloch(%a: tensor<2x64x8xf32>, %b: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
  %h_dest = tensor.empty() : tensor<2x64x8xf32>
  // UNKNOWN: error: unknown schedule 'fast' in `schedules`; expected sequential, chunked or scan
  // KEPT: schedule scan
  // SCHEDULE: error: 'recurrence.scan' op schedule 'scan' has no lowering for target 'cuda' yet; use sequential or chunked (or auto)
  %h = recurrence.scan diagonal schedule scan transition(%a : tensor<2x64x8xf32>) input(%b : tensor<2x64x8xf32>) outs(%h_dest : tensor<2x64x8xf32>) -> tensor<2x64x8xf32>
  return %h : tensor<2x64x8xf32>
}
