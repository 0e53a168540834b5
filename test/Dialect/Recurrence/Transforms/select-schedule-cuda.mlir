// Without `schedules`, -recurrence-select-schedule chooses among the
// schedules the target lowers: for cuda, sequential, chunked and scan, as
// -recurrence-to-nvvm does; an explicit schedule is kept.
// block_diagonal<16> (batch 8, T = 4096, N = 512), 256 lanes: the chunked
// schedule in chunks of 64 (16384 threads); in chunks of 256 its 4096
// threads would stream too little (measured on the H200: 10.7 ms against
// 14.6; sequential 62.8). block_diagonal<2>, 2048 lanes, likewise: chunks
// of 64 measured 1.46x faster than of 256 (1.40x on the H100).
//
// RUN: recurrence-opt %s -split-input-file -recurrence-select-schedule="target=cuda explain=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-select-schedule="target=cuda" 2>&1 | FileCheck %s --check-prefix=EXPLICIT

func.func @block_diagonal(%A: tensor<8x4096x32x16x16xf32>, %b: tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32> {
  %h_dest = tensor.empty() : tensor<8x4096x512xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule chunked<64> chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: chunked<64> {{[^ ]+}} chunked<256> {{[^ ]+}} sequential {{[^ ]+}} chunked<1024> {{[^ ]+}} scan {{[^ ]+$}}
  %h = recurrence.scan block_diagonal<16> transition(%A : tensor<8x4096x32x16x16xf32>) input(%b : tensor<8x4096x512xf32>) outs(%h_dest : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  return %h : tensor<8x4096x512xf32>
}

// -----

func.func @block_diagonal_2(%A: tensor<8x4096x256x2x2xf32>, %b: tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32> {
  %h_dest = tensor.empty() : tensor<8x4096x512xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule chunked<64> chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: chunked<64> {{[^ ]+}} chunked<256>
  %h = recurrence.scan block_diagonal<2> transition(%A : tensor<8x4096x256x2x2xf32>) input(%b : tensor<8x4096x512xf32>) outs(%h_dest : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  return %h : tensor<8x4096x512xf32>
}

// -----

func.func @explicit_scan(%a: tensor<1x4096x8xf32>, %b: tensor<1x4096x8xf32>) -> tensor<1x4096x8xf32> {
  %h_dest = tensor.empty() : tensor<1x4096x8xf32>
  // EXPLICIT-LABEL: func.func @explicit_scan(
  // EXPLICIT: recurrence.scan diagonal schedule scan transition
  %h = recurrence.scan diagonal schedule scan transition(%a : tensor<1x4096x8xf32>) input(%b : tensor<1x4096x8xf32>) outs(%h_dest : tensor<1x4096x8xf32>) -> tensor<1x4096x8xf32>
  return %h : tensor<1x4096x8xf32>
}

// -----

// One sequence of 2^20 steps over 4 channels, channels contiguous: a
// sequential thread per channel streams far too little, and the carry
// over 4096 chunks of 256 (20 ns a chunk) costs less than the Blelloch
// scan's two sweeps of 20 kernels each. Measured on the H100
// (bench/cost_model_gpu.py): chunked<256> 0.113 ms, chunked<1024> 0.146,
// scan 0.361, sequential 17.0.
func.func @few_channels_very_long(%a: tensor<1x1048576x4xf32>, %b: tensor<1x1048576x4xf32>) -> tensor<1x1048576x4xf32> {
  %h_dest = tensor.empty() : tensor<1x1048576x4xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule chunked<256> chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: chunked<256> {{[^ ]+}} chunked<1024> {{[^ ]+}} scan {{[^ ]+}} chunked<64> {{[^ ]+}} chunked<4096> {{[^ ]+}} sequential {{[^ ]+$}}
  %h = recurrence.scan diagonal transition(%a : tensor<1x1048576x4xf32>) input(%b : tensor<1x1048576x4xf32>) outs(%h_dest : tensor<1x1048576x4xf32>) -> tensor<1x1048576x4xf32>
  return %h : tensor<1x1048576x4xf32>
}

// -----

// Few long sequences that the caller's buffers hold time-contiguous (read
// in place, results materialized in place): chunked kernels would read
// across lines, and -recurrence-gpu-warp-scan splits the sequences into
// chunks a warp each itself; the scan stays sequential.
func.func @time_contiguous(%a: memref<1x262144x256xf32, strided<[67108864, 1, 262144]>>,
                           %b: memref<1x262144x256xf32, strided<[67108864, 1, 262144]>>,
                           %y: memref<1x262144x256xf32, strided<[67108864, 1, 262144]>>) {
  %at = bufferization.to_tensor %a restrict : memref<1x262144x256xf32, strided<[67108864, 1, 262144]>> to tensor<1x262144x256xf32>
  %bt = bufferization.to_tensor %b restrict : memref<1x262144x256xf32, strided<[67108864, 1, 262144]>> to tensor<1x262144x256xf32>
  %h_dest = tensor.empty() : tensor<1x262144x256xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda
  %h = recurrence.scan diagonal transition(%at : tensor<1x262144x256xf32>) input(%bt : tensor<1x262144x256xf32>) outs(%h_dest : tensor<1x262144x256xf32>) -> tensor<1x262144x256xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<1x262144x256xf32>, memref<1x262144x256xf32, strided<[67108864, 1, 262144]>>) -> ()
  return
}

// -----

// The same block_diagonal<16> read from and written into the caller's
// buffers: -recurrence-gpu-block-rows gives each block row 2 lanes (8192
// lanes, more than the 4096 from which rows run faster than chunked
// kernels), so the scan stays sequential. So does block_diagonal<2>, with
// a lane per row, 4096 in all; at 2048 lanes the estimates choose
// (chunked). From m = 8 rows win at any size: block_diagonal<8> with
// 2048 lanes stays sequential.
func.func @block_rows(%A: memref<8x4096x32x16x16xf32>, %b: memref<8x4096x512xf32>,
                      %y: memref<8x4096x512xf32>) {
  %At = bufferization.to_tensor %A restrict : memref<8x4096x32x16x16xf32> to tensor<8x4096x32x16x16xf32>
  %bt = bufferization.to_tensor %b restrict : memref<8x4096x512xf32> to tensor<8x4096x512xf32>
  %h_dest = tensor.empty() : tensor<8x4096x512xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda
  %h = recurrence.scan block_diagonal<16> transition(%At : tensor<8x4096x32x16x16xf32>) input(%bt : tensor<8x4096x512xf32>) outs(%h_dest : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<8x4096x512xf32>, memref<8x4096x512xf32>) -> ()
  return
}

func.func @block_rows_2(%A: memref<8x4096x256x2x2xf32>, %b: memref<8x4096x512xf32>,
                        %y: memref<8x4096x512xf32>) {
  %At = bufferization.to_tensor %A restrict : memref<8x4096x256x2x2xf32> to tensor<8x4096x256x2x2xf32>
  %bt = bufferization.to_tensor %b restrict : memref<8x4096x512xf32> to tensor<8x4096x512xf32>
  %h_dest = tensor.empty() : tensor<8x4096x512xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda
  %h = recurrence.scan block_diagonal<2> transition(%At : tensor<8x4096x256x2x2xf32>) input(%bt : tensor<8x4096x512xf32>) outs(%h_dest : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<8x4096x512xf32>, memref<8x4096x512xf32>) -> ()
  return
}

func.func @block_rows_2_few(%A: memref<4x4096x256x2x2xf32>, %b: memref<4x4096x512xf32>,
                            %y: memref<4x4096x512xf32>) {
  %At = bufferization.to_tensor %A restrict : memref<4x4096x256x2x2xf32> to tensor<4x4096x256x2x2xf32>
  %bt = bufferization.to_tensor %b restrict : memref<4x4096x512xf32> to tensor<4x4096x512xf32>
  %h_dest = tensor.empty() : tensor<4x4096x512xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule chunked<{{[0-9]+}}> chosen for cuda
  %h = recurrence.scan block_diagonal<2> transition(%At : tensor<4x4096x256x2x2xf32>) input(%bt : tensor<4x4096x512xf32>) outs(%h_dest : tensor<4x4096x512xf32>) -> tensor<4x4096x512xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<4x4096x512xf32>, memref<4x4096x512xf32>) -> ()
  return
}

func.func @block_rows_8_few(%A: memref<1x4096x64x8x8xf32>, %b: memref<1x4096x512xf32>,
                            %y: memref<1x4096x512xf32>) {
  %At = bufferization.to_tensor %A restrict : memref<1x4096x64x8x8xf32> to tensor<1x4096x64x8x8xf32>
  %bt = bufferization.to_tensor %b restrict : memref<1x4096x512xf32> to tensor<1x4096x512xf32>
  %h_dest = tensor.empty() : tensor<1x4096x512xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda
  %h = recurrence.scan block_diagonal<8> transition(%At : tensor<1x4096x64x8x8xf32>) input(%bt : tensor<1x4096x512xf32>) outs(%h_dest : tensor<1x4096x512xf32>) -> tensor<1x4096x512xf32>
  bufferization.materialize_in_destination %h in restrict writable %y : (tensor<1x4096x512xf32>, memref<1x4096x512xf32>) -> ()
  return
}

// -----

// block_diagonal<2> on an unknown batch: its lanes (batch x 256 blocks)
// are known at run time only. A thread holding 2 x 2 blocks streams a
// quarter of what an elementwise one does, so sequential threads catch up
// with the chunked kernels only from four times the lanes: 8914, where a
// diagonal scan switches at 2228 (select-schedule.mlir).
func.func @block_dynamic_batch(%A: tensor<?x4096x256x2x2xf32>, %b: tensor<?x4096x512xf32>) -> tensor<?x4096x512xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x4096x512xf32>
  %h_dest = tensor.empty(%d0) : tensor<?x4096x512xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+6]]:{{[0-9]+}}: remark: schedule chunked<64> chosen for cuda (270336 threads, 4000 GB/s) below 8914 lanes; estimated seconds: chunked<64>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+5]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s) otherwise
  // EXPLICIT-LABEL: func.func @block_dynamic_batch(
  // EXPLICIT: %[[LANES:.*]] = arith.constant 8914 : index
  // EXPLICIT: scf.if
  // EXPLICIT-NEXT: recurrence.scan block_diagonal<2> schedule chunked<64>
  %h = recurrence.scan block_diagonal<2> transition(%A : tensor<?x4096x256x2x2xf32>) input(%b : tensor<?x4096x512xf32>) outs(%h_dest : tensor<?x4096x512xf32>) -> tensor<?x4096x512xf32>
  return %h : tensor<?x4096x512xf32>
}

// -----

// Mamba's selective SSM, (B, T, Dm, N) = (4, 2048, 768, 16): the readout
// sums over the channels, so the scan stays sequential, with a thread per
// batch element and column (4 x 768): estimated under a millisecond (0.229
// s with a thread per batch element).
func.func @selective_ssm(%a: tensor<4x2048x16x768xf32>, %k: tensor<4x2048x16xf32>, %v: tensor<4x2048x768xf32>, %c: tensor<4x2048x16xf32>) -> tensor<4x2048x768xf32> {
  %y0 = tensor.empty() : tensor<4x2048x768xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: sequential 0.000{{[0-9]+$}}
  %y = recurrence.scan diagonal matrix transition(%a : tensor<4x2048x16x768xf32>) factored_input(%k, %v : tensor<4x2048x16xf32>, tensor<4x2048x768xf32>) readout(%c : tensor<4x2048x16xf32>) outs(%y0 : tensor<4x2048x768xf32>) -> tensor<4x2048x768xf32>
  return %y : tensor<4x2048x768xf32>
}

// -----

// Its states, as its gradient recomputes them (no readout): a thread per
// (batch element, channel, column), 49152 of them, streams them in about
// the time of their bytes, far ahead of chunks. With a thread per (batch
// element, channel), 64 threads walking 768 columns each, the model took
// chunked<64> at 5.35 ms.
func.func @selective_ssm_states(%a: tensor<4x2048x16x768xf32>, %k: tensor<4x2048x16xf32>, %v: tensor<4x2048x768xf32>) -> tensor<4x2048x16x768xf32> {
  %h0 = tensor.empty() : tensor<4x2048x16x768xf32>
  // CHECK: select-schedule-cuda.mlir:[[@LINE+1]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: sequential 0.000{{[0-9]+}} chunked<64> 0.00{{[0-9]+}} chunked<256>
  %h = recurrence.scan diagonal matrix transition(%a : tensor<4x2048x16x768xf32>) factored_input(%k, %v : tensor<4x2048x16xf32>, tensor<4x2048x768xf32>) outs(%h0 : tensor<4x2048x16x768xf32>) -> tensor<4x2048x16x768xf32>
  return %h : tensor<4x2048x16x768xf32>
}
