// -recurrence-select-schedule writes the cheapest schedule estimated by the
// cost model onto every `auto` recurrence.scan; with explain=true it reports
// each decision as a remark listing every candidate, cheapest first. The
// estimates themselves are not pinned here ({{[^ ]+}} stands for a number),
// only the decision and the candidates.
//
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cpu cores=2 explain=true" -verify-diagnostics | FileCheck %s
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda explain=true" -mlir-print-op-on-diagnostic=false -o %t.mlir 2>&1 | FileCheck %s --check-prefix=CUDA-REMARK
// RUN: FileCheck %s --check-prefix=CUDA < %t.mlir
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cpu cores=16" 2>&1 | FileCheck %s --check-prefix=CPU16 --implicit-check-not=remark:
// RUN: not recurrence-opt %s -recurrence-select-schedule=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET

// An unknown target is an error on the module.
// TARGET: error: unknown target 'tpu'; expected cpu or cuda

//===----------------------------------------------------------------------===//
// Many channels, short T (batch 64, T = 128, N = 1024 diagonal): the batch
// alone fills the cores, so sequential wins; chunked only offers C = 64
// (larger chunks would not split T), and scan pays log T levels.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @many_channels_short(
// CHECK:         recurrence.scan diagonal schedule sequential transition
// CUDA-LABEL:  func.func @many_channels_short(
// CUDA:          recurrence.scan diagonal schedule sequential transition
// CPU16-LABEL: func.func @many_channels_short(
// CPU16:         recurrence.scan diagonal schedule sequential transition
func.func @many_channels_short(%a: tensor<64x128x1024xf32>, %b: tensor<64x128x1024xf32>) -> tensor<64x128x1024xf32> {
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (132 cores, 4000 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan diagonal transition(%a : tensor<64x128x1024xf32>) input(%b : tensor<64x128x1024xf32>) -> tensor<64x128x1024xf32>
  return %h : tensor<64x128x1024xf32>
}

//===----------------------------------------------------------------------===//
// One channel, T = 1000000 (diagonal, batch 1, N = 1). On 2 CPU cores the
// chunked schedule's second pass over the data does not pay for itself and
// sequential stays (narrowly) cheapest; with 16 cores, or on the GPU,
// chunked<4096> wins. Every chunk size is a candidate here.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @one_channel_long(
// CHECK:         recurrence.scan diagonal schedule sequential transition
// CUDA-LABEL:  func.func @one_channel_long(
// CUDA:          recurrence.scan diagonal schedule chunked<4096> transition
// CPU16-LABEL: func.func @one_channel_long(
// CPU16:         recurrence.scan diagonal schedule chunked<4096> transition
func.func @one_channel_long(%a: tensor<1x1000000x1xf32>, %b: tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32> {
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<4096> chosen for cuda (132 cores, 4000 GB/s); estimated seconds: chunked<4096> {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+}} sequential {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<4096> {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan diagonal transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  return %h : tensor<1x1000000x1xf32>
}

//===----------------------------------------------------------------------===//
// block_diagonal<16> (batch 8, T = 4096, N = 512): composing 16 x 16 blocks
// costs 16 times a step, so the CPU stays sequential; the GPU, with 132
// units for 8 sequences, takes chunked<256>. chunked<4096> would not split T.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @block_diagonal(
// CHECK:         recurrence.scan block_diagonal<16> schedule sequential transition
// CUDA-LABEL:  func.func @block_diagonal(
// CUDA:          recurrence.scan block_diagonal<16> schedule chunked<256> transition
// CPU16-LABEL: func.func @block_diagonal(
// CPU16:         recurrence.scan block_diagonal<16> schedule sequential transition
func.func @block_diagonal(%A: tensor<8x4096x32x16x16xf32>, %b: tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32> {
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<256> chosen for cuda (132 cores, 4000 GB/s); estimated seconds: chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+}} chunked<1024> {{[^ ]+}} scan {{[^ ]+}} sequential {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan block_diagonal<16> transition(%A : tensor<8x4096x32x16x16xf32>) input(%b : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  return %h : tensor<8x4096x512xf32>
}

//===----------------------------------------------------------------------===//
// dplr<1> with N = 512: scan would densify 512 x 512 products, which the
// scan lowering refuses for N > 256, so it is not even a candidate (the
// remark ends after the chunked ones); chunked composes dense products too
// and loses to sequential by orders of magnitude.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dplr_large_state(
// CHECK:         recurrence.scan dplr<1> schedule sequential transition
// CUDA-LABEL:  func.func @dplr_large_state(
// CUDA:          recurrence.scan dplr<1> schedule sequential transition
// CPU16-LABEL: func.func @dplr_large_state(
// CPU16:         recurrence.scan dplr<1> schedule sequential transition
func.func @dplr_large_state(%d: tensor<1x4096x512xf32>, %u: tensor<1x4096x512x1xf32>, %v: tensor<1x4096x512x1xf32>, %b: tensor<1x4096x512xf32>) -> tensor<1x4096x512xf32> {
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (132 cores, 4000 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<64> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<1024> {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+$}}}}
  %h = recurrence.scan dplr<1> transition(%d, %u, %v : tensor<1x4096x512xf32>, tensor<1x4096x512x1xf32>, tensor<1x4096x512x1xf32>) input(%b : tensor<1x4096x512xf32>) -> tensor<1x4096x512xf32>
  return %h : tensor<1x4096x512xf32>
}

//===----------------------------------------------------------------------===//
// dense with N = 128, T = 256, one sequence: the CPU runs it sequentially,
// while the GPU spreads the N^3 combines of a scan over T / 2 units.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dense(
// CHECK:         recurrence.scan dense schedule sequential transition
// CUDA-LABEL:  func.func @dense(
// CUDA:          recurrence.scan dense schedule scan transition
// CPU16-LABEL: func.func @dense(
// CPU16:         recurrence.scan dense schedule sequential transition
func.func @dense(%A: tensor<1x256x128x128xf32>, %b: tensor<1x256x128xf32>) -> tensor<1x256x128xf32> {
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule scan chosen for cuda (132 cores, 4000 GB/s); estimated seconds: scan {{[^ ]+}} sequential {{[^ ]+}} chunked<64> {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan dense transition(%A : tensor<1x256x128x128xf32>) input(%b : tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  return %h : tensor<1x256x128xf32>
}

//===----------------------------------------------------------------------===//
// An explicit schedule is never changed (and not explained), whatever the
// cost model would prefer; an explicit `auto` is chosen for like a missing
// one.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @explicit(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<1x1000000x1xf32>, %[[B:[^:]*]]: tensor<1x1000000x1xf32>)
// CHECK-NEXT:    recurrence.scan diagonal schedule chunked<64> transition(%[[A]] : tensor<1x1000000x1xf32>)
// CHECK-NEXT:    recurrence.scan diagonal schedule scan transition(%[[A]] : tensor<1x1000000x1xf32>)
// CHECK-NEXT:    recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<1x1000000x1xf32>)
// CHECK-NEXT:    recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<1x1000000x1xf32>)
// CUDA-LABEL:  func.func @explicit(
// CUDA-NEXT:     recurrence.scan diagonal schedule chunked<64> transition
// CUDA-NEXT:     recurrence.scan diagonal schedule scan transition
// CUDA-NEXT:     recurrence.scan diagonal schedule sequential transition
// CUDA-NEXT:     recurrence.scan diagonal schedule chunked<4096> transition
// CPU16-LABEL: func.func @explicit(
// CPU16-NEXT:    recurrence.scan diagonal schedule chunked<64> transition
// CPU16-NEXT:    recurrence.scan diagonal schedule scan transition
// CPU16-NEXT:    recurrence.scan diagonal schedule sequential transition
// CPU16-NEXT:    recurrence.scan diagonal schedule chunked<4096> transition
func.func @explicit(%a: tensor<1x1000000x1xf32>, %b: tensor<1x1000000x1xf32>) -> (tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>) {
  %0 = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  %1 = recurrence.scan diagonal schedule scan transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  %2 = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<4096> chosen for cuda
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<4096>}}
  %3 = recurrence.scan diagonal schedule auto transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  return %0, %1, %2, %3 : tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>
}
// CUDA-REMARK-NOT: remark:
