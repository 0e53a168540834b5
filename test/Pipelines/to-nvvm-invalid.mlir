// RUN: not recurrence-opt %s -recurrence-to-nvvm 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=sequential,fast" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=chunked,sequential" | FileCheck %s --check-prefix=KEPT

// Only the sequential schedule is lowered for the GPU so far: asking for
// another is an error naming the one there is.
func.func @chunked(%a: tensor<2x64x8xf32>, %b: tensor<2x64x8xf32>) -> tensor<2x64x8xf32> {
  // UNKNOWN: error: unknown schedule 'fast' in `schedules`; expected sequential, chunked or scan
  // KEPT: schedule chunked<16>
  // SCHEDULE: error: 'recurrence.scan' op schedule 'chunked' has no lowering for target 'cuda' yet; use sequential (or auto)
  %h = recurrence.scan diagonal schedule chunked<16> transition(%a : tensor<2x64x8xf32>) input(%b : tensor<2x64x8xf32>) -> tensor<2x64x8xf32>
  return %h : tensor<2x64x8xf32>
}
