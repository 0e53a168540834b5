// Scans that a sequential GPU lowering only runs faster (block rows on the
// caller's buffers, here) still lower chunked: with `schedules=chunked`
// they get it, where a scan that must stay sequential (channels that mix)
// is an error (select-schedule-none.mlir); with sequential allowed, the
// cost model keeps them sequential.
//
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=chunked explain=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=CHUNKED
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda explain=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO

func.func @block_rows(%A: memref<8x4096x256x2x2xf32>, %b: memref<8x4096x512xf32>,
                      %y: memref<8x4096x512xf32>) {
  %At = bufferization.to_tensor %A restrict : memref<8x4096x256x2x2xf32> to tensor<8x4096x256x2x2xf32>
  %bt = bufferization.to_tensor %b restrict : memref<8x4096x512xf32> to tensor<8x4096x512xf32>
  %h_dest = tensor.empty() : tensor<8x4096x512xf32>
  // CHUNKED: select-schedule-cuda-preferred.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<{{[0-9]+}}> chosen for cuda
  // AUTO: select-schedule-cuda-preferred.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda
  %h = recurrence.scan block_diagonal<2> transition(%At : tensor<8x4096x256x2x2xf32>) input(%bt : tensor<8x4096x512xf32>) outs(%h_dest : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<8x4096x512xf32>, memref<8x4096x512xf32>) -> ()
  return
}
