// -recurrence-select-schedule writes the cheapest schedule estimated by the
// cost model onto every `auto` recurrence.scan; with explain=true it reports
// each decision as a remark listing every candidate, cheapest first. The
// estimates themselves are not pinned here ({{[^ ]+}} stands for a number),
// only the decision and the candidates. A dynamic T counts as 65536 steps
// on the CPU, 4096 on the GPU. When a batch dim is dynamic, the op is
// estimated for a batch of 1 and for a batch of `cores` elements; if the two
// choices differ, the op is cloned under an scf.if on the runtime batch size
// (one remark per clone). On the GPU the same holds for lanes (batch
// elements x channel blocks) when the batch or N is dynamic.
//
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cpu cores=2 explain=true" -verify-diagnostics | FileCheck %s
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=sequential,chunked,scan explain=true" -mlir-print-op-on-diagnostic=false -o %t.mlir 2>&1 | FileCheck %s --check-prefix=CUDA-REMARK
// RUN: FileCheck %s --check-prefix=CUDA < %t.mlir
// RUN: FileCheck %s --check-prefix=CUDA-MAP < %t.mlir
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cpu cores=16" 2>&1 | FileCheck %s --check-prefix=CPU16 --implicit-check-not=remark:
// RUN: not recurrence-opt %s -recurrence-select-schedule=target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not recurrence-opt %s -recurrence-select-schedule="cores=-1" 2>&1 | FileCheck %s --check-prefix=NEGATIVE-CORES
// RUN: not recurrence-opt %s -recurrence-select-schedule="target=cuda bandwidth=-5" 2>&1 | FileCheck %s --check-prefix=NEGATIVE-BANDWIDTH
// RUN: not recurrence-opt %s -recurrence-select-schedule="target=tpu cores=-2" 2>&1 | FileCheck %s --check-prefix=NEGATIVE-CORES-TPU

// An unknown target is an error on the module.
// TARGET: error: unknown target 'tpu'; expected cpu or cuda

// So are negative cores or bandwidth (0 is the target's default), checked
// before the target.
// NEGATIVE-CORES: error: cores and bandwidth must not be negative (0 picks the target's default), got cores = -1, bandwidth = 0.000000e+00
// NEGATIVE-CORES-TPU: error: cores and bandwidth must not be negative (0 picks the target's default), got cores = -2, bandwidth = 0.000000e+00
// NEGATIVE-CORES-TPU-NOT: unknown target
// NEGATIVE-BANDWIDTH: error: cores and bandwidth must not be negative (0 picks the target's default), got cores = 0, bandwidth = -5.000000e+00

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
  %h_dest = tensor.empty() : tensor<64x128x1024xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan diagonal transition(%a : tensor<64x128x1024xf32>) input(%b : tensor<64x128x1024xf32>) outs(%h_dest : tensor<64x128x1024xf32>) -> tensor<64x128x1024xf32>
  return %h : tensor<64x128x1024xf32>
}

//===----------------------------------------------------------------------===//
// One channel, T = 1000000 (diagonal, batch 1, N = 1). On the CPU one core
// alone streams 60% of the socket's bandwidth, so the chunked schedule's
// second pass over the data does not pay for itself, with 2 cores or with 16
// (which share the same 50 GB/s): sequential stays (narrowly) cheapest. On
// the GPU, where one thread walking the sequence streams 0.7 GB/s, chunks
// of 256 win (their carry walks 3907 chunks at 20 ns each), chunked<1024>
// next, then the Blelloch scan. Every chunk size is a candidate.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @one_channel_long(
// CHECK:         recurrence.scan diagonal schedule sequential transition
// CUDA-LABEL:  func.func @one_channel_long(
// CUDA:          recurrence.scan diagonal schedule chunked<256> transition
// CPU16-LABEL: func.func @one_channel_long(
// CPU16:         recurrence.scan diagonal schedule sequential transition
func.func @one_channel_long(%a: tensor<1x1000000x1xf32>, %b: tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32> {
  %h_dest = tensor.empty() : tensor<1x1000000x1xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<256> chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: chunked<256> {{[^ ]+}} chunked<1024> {{[^ ]+}} scan {{[^ ]+}} chunked<64> {{[^ ]+}} chunked<4096> {{[^ ]+}} sequential {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<4096> {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan diagonal transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) outs(%h_dest : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  return %h : tensor<1x1000000x1xf32>
}

//===----------------------------------------------------------------------===//
// Few channels, long T (diagonal, batch 1, T = 262144, N = 256): the
// sequential loops split the 256 independent channels into 2 tiles of 128
// (static, at least 128 channels each), one per core, which costs no second
// pass over the data; the remark names the tiles.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @few_channels_long(
// CHECK:         recurrence.scan diagonal schedule sequential transition
// CPU16-LABEL: func.func @few_channels_long(
// CPU16:         recurrence.scan diagonal schedule sequential transition
func.func @few_channels_long(%a: tensor<1x262144x256xf32>, %b: tensor<1x262144x256xf32>) -> tensor<1x262144x256xf32> {
  %h_dest = tensor.empty() : tensor<1x262144x256xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<{{[0-9]+}}> chosen for cuda
  // expected-remark-re @below {{{{^}}schedule sequential(channel-tiles=2) chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential(channel-tiles=2) {{[^ ]+}} chunked<4096> {{.*}}}}
  %h = recurrence.scan diagonal transition(%a : tensor<1x262144x256xf32>) input(%b : tensor<1x262144x256xf32>) outs(%h_dest : tensor<1x262144x256xf32>) -> tensor<1x262144x256xf32>
  return %h : tensor<1x262144x256xf32>
}

//===----------------------------------------------------------------------===//
// block_diagonal<16> (batch 8, T = 4096, N = 512): composing 16 x 16 blocks
// costs 16 times a step, so the CPU stays sequential; the GPU, with 256
// lanes (sequences x blocks) for 270336 threads, takes chunked<64> (32768
// threads, each streaming less than a sequential one) over scan, whose
// kernels launch a thread per step (per combine in the sweeps) to walk
// whole state rows, each streaming like a chunked thread. chunked<4096>
// would not split T.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @block_diagonal(
// CHECK:         recurrence.scan block_diagonal<16> schedule sequential transition
// CUDA-LABEL:  func.func @block_diagonal(
// CUDA:          recurrence.scan block_diagonal<16> schedule chunked<64> transition
// CPU16-LABEL: func.func @block_diagonal(
// CPU16:         recurrence.scan block_diagonal<16> schedule sequential transition
func.func @block_diagonal(%A: tensor<8x4096x32x16x16xf32>, %b: tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32> {
  %h_dest = tensor.empty() : tensor<8x4096x512xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<64> chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: chunked<64> {{[^ ]+}} chunked<256> {{[^ ]+}} sequential {{[^ ]+}} chunked<1024> {{[^ ]+}} scan {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan block_diagonal<16> transition(%A : tensor<8x4096x32x16x16xf32>) input(%b : tensor<8x4096x512xf32>) outs(%h_dest : tensor<8x4096x512xf32>) -> tensor<8x4096x512xf32>
  return %h : tensor<8x4096x512xf32>
}

//===----------------------------------------------------------------------===//
// dplr<1> with N = 512: scan would densify 512 x 512 products, which the
// scan lowering refuses for N > 256, so it is not even a candidate (the
// remark ends after the chunked ones); chunked composes dense products too
// and loses to sequential by orders of magnitude. On the GPU, channels that
// mix stay sequential: the remark lists that candidate alone.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dplr_large_state(
// CHECK:         recurrence.scan dplr<1> schedule sequential transition
// CUDA-LABEL:  func.func @dplr_large_state(
// CUDA:          recurrence.scan dplr<1> schedule sequential transition
// CPU16-LABEL: func.func @dplr_large_state(
// CPU16:         recurrence.scan dplr<1> schedule sequential transition
func.func @dplr_large_state(%d: tensor<1x4096x512xf32>, %u: tensor<1x4096x512x1xf32>, %v: tensor<1x4096x512x1xf32>, %b: tensor<1x4096x512xf32>) -> tensor<1x4096x512xf32> {
  %h_dest = tensor.empty() : tensor<1x4096x512xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: sequential {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+$}}}}
  %h = recurrence.scan dplr<1> transition(%d, %u, %v : tensor<1x4096x512xf32>, tensor<1x4096x512x1xf32>, tensor<1x4096x512x1xf32>) input(%b : tensor<1x4096x512xf32>) outs(%h_dest : tensor<1x4096x512xf32>) -> tensor<1x4096x512xf32>
  return %h : tensor<1x4096x512xf32>
}

//===----------------------------------------------------------------------===//
// dense with N = 128, T = 256, one sequence: the CPU runs it sequentially,
// and so does the GPU, where channels that mix stay sequential.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dense(
// CHECK:         recurrence.scan dense schedule sequential transition
// CUDA-LABEL:  func.func @dense(
// CUDA:          recurrence.scan dense schedule sequential transition
// CPU16-LABEL: func.func @dense(
// CPU16:         recurrence.scan dense schedule sequential transition
func.func @dense(%A: tensor<1x256x128x128xf32>, %b: tensor<1x256x128xf32>) -> tensor<1x256x128xf32> {
  %h_dest = tensor.empty() : tensor<1x256x128xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: sequential {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan dense transition(%A : tensor<1x256x128x128xf32>) input(%b : tensor<1x256x128xf32>) outs(%h_dest : tensor<1x256x128xf32>) -> tensor<1x256x128xf32>
  return %h : tensor<1x256x128xf32>
}

//===----------------------------------------------------------------------===//
// Dynamic batch dims. One channel, T = 1000000 as above, in an unknown
// number of sequences: the CPU runs them sequentially either way (one remark,
// with the estimates for a batch of `cores`). On the GPU fewer lanes (batch
// elements x channel blocks) than 2228, whose sequential threads would
// stream slower than the chunked kernels, take chunks of 256, more take
// sequential: the op is cloned under scf.if (lanes < 2228), and both clones
// write into the op's destinations.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @dynamic_batch(
// CHECK:         %[[DEST:.*]] = tensor.empty(%{{.*}}) : tensor<?x1000000x1xf32>
// CHECK-NOT:     scf.if
// CHECK-NOT:     tensor.empty
// CHECK:         recurrence.scan diagonal schedule sequential transition({{.*}}) outs(%[[DEST]] : tensor<?x1000000x1xf32>)
// CUDA-LABEL:  func.func @dynamic_batch(
// CUDA-SAME:     %[[A:[^:]*]]: tensor<?x1000000x1xf32>, %[[B:[^:]*]]: tensor<?x1000000x1xf32>)
// CUDA:          %[[DEST:.*]] = tensor.empty(%{{.*}}) : tensor<?x1000000x1xf32>
// CUDA:          %[[C0:.*]] = arith.constant 0 : index
// CUDA:          %[[DIM:.*]] = tensor.dim %[[B]], %[[C0]] : tensor<?x1000000x1xf32>
// CUDA:          %[[LANES:.*]] = arith.constant 2228 : index
// CUDA:          %[[FEW:.*]] = arith.cmpi ult, %[[DIM]], %[[LANES]] : index
// CUDA-NOT:      tensor.empty
// CUDA:          %[[IF:.*]] = scf.if %[[FEW]] -> (tensor<?x1000000x1xf32>) {
// CUDA-NEXT:       %[[SMALL:.*]] = recurrence.scan diagonal schedule chunked<256> transition(%[[A]] : tensor<?x1000000x1xf32>) input(%[[B]] : tensor<?x1000000x1xf32>) outs(%[[DEST]] : tensor<?x1000000x1xf32>) -> tensor<?x1000000x1xf32>
// CUDA-NEXT:       scf.yield %[[SMALL]] : tensor<?x1000000x1xf32>
// CUDA-NEXT:     } else {
// CUDA-NEXT:       %[[LARGE:.*]] = recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<?x1000000x1xf32>) input(%[[B]] : tensor<?x1000000x1xf32>) outs(%[[DEST]] : tensor<?x1000000x1xf32>) -> tensor<?x1000000x1xf32>
// CUDA-NEXT:       scf.yield %[[LARGE]] : tensor<?x1000000x1xf32>
// CUDA-NEXT:     }
// CUDA-NEXT:     return %[[IF]] : tensor<?x1000000x1xf32>
// CPU16-LABEL: func.func @dynamic_batch(
// CPU16-NOT:     scf.if
// CPU16:         recurrence.scan diagonal schedule sequential transition
func.func @dynamic_batch(%a: tensor<?x1000000x1xf32>, %b: tensor<?x1000000x1xf32>) -> tensor<?x1000000x1xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x1000000x1xf32>
  %h_dest = tensor.empty(%d0) : tensor<?x1000000x1xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+4]]:{{[0-9]+}}: remark: schedule chunked<256> chosen for cuda (270336 threads, 4000 GB/s) below 2228 lanes; estimated seconds: chunked<256> {{[^ ]+}} chunked<1024> {{[^ ]+}} scan {{[^ ]+}} chunked<64> {{[^ ]+}} chunked<4096> {{[^ ]+}} sequential {{[^ ]+$}}
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+3]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s) otherwise; estimated seconds: sequential {{[^ ]+$}}
  // The CPU estimates are those of a batch of 2, the cores.
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<4096> {{[^ ]+}} chunked<1024> {{[^ ]+}} chunked<256> {{[^ ]+}} chunked<64> {{[^ ]+}} scan {{[^ ]+$}}}}
  %h = recurrence.scan diagonal transition(%a : tensor<?x1000000x1xf32>) input(%b : tensor<?x1000000x1xf32>) outs(%h_dest : tensor<?x1000000x1xf32>) -> tensor<?x1000000x1xf32>
  return %h : tensor<?x1000000x1xf32>
}

// Batch dims [2, ?]: the batch size is their product. The 2 static elements
// fill the 2 CPU cores, and are too few for 16: no dispatch on the CPU. On
// the GPU, the op's own destinations are shared by both clones (no new
// tensor.empty), and the init and final state are kept.
// CHECK-LABEL: func.func @dynamic_batch_outs(
// CHECK-NOT:     scf.if
// CHECK:         recurrence.scan diagonal schedule sequential transition
// CUDA-LABEL:  func.func @dynamic_batch_outs(
// CUDA-SAME:     %[[A:[^:]*]]: tensor<2x?x1000000x1xf32>, %[[B:[^:]*]]: tensor<2x?x1000000x1xf32>, %[[INIT:[^:]*]]: tensor<2x?x1xf32>, %[[D0:[^:]*]]: tensor<2x?x1000000x1xf32>, %[[D1:[^:]*]]: tensor<2x?x1xf32>)
// CUDA:          %[[DIM1:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<2x?x1000000x1xf32>
// CUDA:          %[[ELEMENTS:.*]] = affine.apply #{{.*}}()[%[[DIM1]]]
// CUDA:          %[[FEW:.*]] = arith.cmpi ult, %[[ELEMENTS]], %{{.*}} : index
// CUDA-NOT:      tensor.empty
// CUDA:          %[[IF:.*]]:2 = scf.if %[[FEW]] -> (tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>) {
// CUDA-NEXT:       %[[SMALL:.*]], %[[SMALL_LAST:.*]] = recurrence.scan diagonal schedule chunked<256> transition(%[[A]] : tensor<2x?x1000000x1xf32>) input(%[[B]] : tensor<2x?x1000000x1xf32>) init(%[[INIT]] : tensor<2x?x1xf32>) outs(%[[D0]], %[[D1]] : tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>) -> tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>
// CUDA-NEXT:       scf.yield %[[SMALL]], %[[SMALL_LAST]]
// CUDA-NEXT:     } else {
// CUDA-NEXT:       %[[LARGE:.*]], %[[LARGE_LAST:.*]] = recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<2x?x1000000x1xf32>) input(%[[B]] : tensor<2x?x1000000x1xf32>) init(%[[INIT]] : tensor<2x?x1xf32>) outs(%[[D0]], %[[D1]] : tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>) -> tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>
// CUDA-NEXT:       scf.yield %[[LARGE]], %[[LARGE_LAST]]
// CUDA-NEXT:     }
// CUDA-NEXT:     return %[[IF]]#0, %[[IF]]#1
// CPU16-LABEL: func.func @dynamic_batch_outs(
// CPU16-NOT:     scf.if
// CPU16:         recurrence.scan diagonal schedule sequential transition
func.func @dynamic_batch_outs(%a: tensor<2x?x1000000x1xf32>, %b: tensor<2x?x1000000x1xf32>, %init: tensor<2x?x1xf32>, %d0: tensor<2x?x1000000x1xf32>, %d1: tensor<2x?x1xf32>) -> (tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>) {
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+3]]:{{[0-9]+}}: remark: schedule chunked<256> chosen for cuda (270336 threads, 4000 GB/s) below 2228 lanes; estimated seconds: chunked<256>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s) otherwise; estimated seconds: sequential
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<4096>}}
  %h, %last = recurrence.scan diagonal transition(%a : tensor<2x?x1000000x1xf32>) input(%b : tensor<2x?x1000000x1xf32>) init(%init : tensor<2x?x1xf32>) outs(%d0, %d1 : tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>) -> tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>
  return %h, %last : tensor<2x?x1000000x1xf32>, tensor<2x?x1xf32>
}

// A 1 x 8 matrix state, batch and T unknown (T counts as 65536): with 16 CPU
// cores a single sequence is worth chunked<4096> (its steps carry 8 columns
// to split), a full batch sequential. The GPU's sequential kernel runs a
// thread per column, 8 per batch element, which outruns chunked<64> (the
// choice with a thread per batch element) even for one: sequential whatever
// the batch. On 2 cores sequential wins either way.
// CHECK-LABEL: func.func @dynamic_batch_and_steps(
// CHECK-NOT:     scf.if
// CHECK:         recurrence.scan diagonal schedule sequential matrix transition
// CUDA-LABEL:  func.func @dynamic_batch_and_steps(
// CUDA-NOT:      scf.if
// CUDA:          recurrence.scan diagonal schedule sequential matrix transition
// CPU16-LABEL: func.func @dynamic_batch_and_steps(
// CPU16:         %[[DEST:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x1x8xf32>
// CPU16:         %[[CORES:.*]] = arith.constant 16 : index
// CPU16:         %[[FEW:.*]] = arith.cmpi ult, %{{.*}}, %[[CORES]] : index
// CPU16-NOT:     tensor.empty
// CPU16:         scf.if %[[FEW]]
// CPU16-NEXT:      recurrence.scan diagonal schedule chunked<4096> matrix transition({{.*}}) outs(%[[DEST]] : tensor<?x?x1x8xf32>)
// CPU16:         } else {
// CPU16-NEXT:      recurrence.scan diagonal schedule sequential matrix transition({{.*}}) outs(%[[DEST]] : tensor<?x?x1x8xf32>)
func.func @dynamic_batch_and_steps(%a: tensor<?x?x1xf32>, %b: tensor<?x?x1x8xf32>) -> tensor<?x?x1x8xf32> {
  %c0 = arith.constant 0 : index
  %d1 = tensor.dim %b, %c0 : tensor<?x?x1x8xf32>
  %c1 = arith.constant 1 : index
  %d2 = tensor.dim %b, %c1 : tensor<?x?x1x8xf32>
  %h_dest = tensor.empty(%d1, %d2) : tensor<?x?x1x8xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s); estimated seconds: sequential {{[^ ]+$}}
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<4096>}}
  %h = recurrence.scan diagonal matrix transition(%a : tensor<?x?x1xf32>) input(%b : tensor<?x?x1x8xf32>) outs(%h_dest : tensor<?x?x1x8xf32>) -> tensor<?x?x1x8xf32>
  return %h : tensor<?x?x1x8xf32>
}

// A [4, 2] matrix state, batch unknown, T = 4096: the GPU's sequential
// kernel runs a thread per column, so the lanes the dispatch counts are
// batch x 4 channels x 2 columns (chunked<64> below 2228 of them, i.e.
// below 279 batch elements, where the static estimates cross too), not
// batch x 4.
// CUDA-LABEL:  func.func @dynamic_batch_columns(
// CUDA:          tensor.dim %arg1, %{{.*}} : tensor<?x4096x4x2xf32>
// CUDA:          %[[DIM:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x4096x4x2xf32>
// CUDA-MAP:      #[[EIGHT:.*]] = affine_map<()[s0] -> (s0 * 8)>
// CUDA-MAP:      func.func @dynamic_batch_columns(
// CUDA-MAP:        affine.apply #[[EIGHT]]()
// CUDA:          %[[THREADS:.*]] = affine.apply #{{.*}}()[%[[DIM]]]
// CUDA:          %[[FEW:.*]] = arith.cmpi ult, %[[THREADS]], %c2228 : index
// CUDA:          scf.if %[[FEW]]
// CUDA-NEXT:       recurrence.scan diagonal schedule chunked<64> matrix transition
// CUDA:          } else {
// CUDA-NEXT:       recurrence.scan diagonal schedule sequential matrix transition
func.func @dynamic_batch_columns(%a: tensor<?x4096x4xf32>, %b: tensor<?x4096x4x2xf32>) -> tensor<?x4096x4x2xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x4096x4x2xf32>
  %h_dest = tensor.empty(%d0) : tensor<?x4096x4x2xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+3]]:{{[0-9]+}}: remark: schedule chunked<64> chosen for cuda (270336 threads, 4000 GB/s) below 2228 lanes; estimated seconds: chunked<64>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s) otherwise; estimated seconds: sequential
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential}}
  %h = recurrence.scan diagonal matrix transition(%a : tensor<?x4096x4xf32>) input(%b : tensor<?x4096x4x2xf32>) outs(%h_dest : tensor<?x4096x4x2xf32>) -> tensor<?x4096x4x2xf32>
  return %h : tensor<?x4096x4x2xf32>
}

// An explicit schedule on a dynamic batch is left alone too.
// CHECK-LABEL: func.func @dynamic_batch_explicit(
// CHECK-NOT:     scf.if
// CHECK:         recurrence.scan diagonal schedule sequential transition
// CUDA-LABEL:  func.func @dynamic_batch_explicit(
// CUDA:          %[[DEST:.*]] = tensor.empty(%{{.*}}) : tensor<?x1000000x1xf32>
// CUDA-NOT:      scf.if
// CUDA-NOT:      tensor.empty
// CUDA:          recurrence.scan diagonal schedule sequential transition({{.*}}) outs(%[[DEST]] : tensor<?x1000000x1xf32>)
// CPU16-LABEL: func.func @dynamic_batch_explicit(
// CPU16-NOT:     scf.if
// CPU16:         recurrence.scan diagonal schedule sequential transition
func.func @dynamic_batch_explicit(%a: tensor<?x1000000x1xf32>, %b: tensor<?x1000000x1xf32>) -> tensor<?x1000000x1xf32> {
  %c0 = arith.constant 0 : index
  %d3 = tensor.dim %b, %c0 : tensor<?x1000000x1xf32>
  %h_dest = tensor.empty(%d3) : tensor<?x1000000x1xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<?x1000000x1xf32>) input(%b : tensor<?x1000000x1xf32>) outs(%h_dest : tensor<?x1000000x1xf32>) -> tensor<?x1000000x1xf32>
  return %h : tensor<?x1000000x1xf32>
}

//===----------------------------------------------------------------------===//
// An explicit schedule is never changed (and not explained), whatever the
// cost model would prefer; an explicit `auto` is chosen for like a missing
// one.
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @explicit(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<1x1000000x1xf32>, %[[B:[^:]*]]: tensor<1x1000000x1xf32>)
// CHECK-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CHECK-NEXT:    recurrence.scan diagonal schedule chunked<64> transition(%[[A]] : tensor<1x1000000x1xf32>)
// CHECK-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CHECK-NEXT:    recurrence.scan diagonal schedule scan transition(%[[A]] : tensor<1x1000000x1xf32>)
// CHECK-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CHECK-NEXT:    recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<1x1000000x1xf32>)
// CHECK-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CHECK-NEXT:    recurrence.scan diagonal schedule sequential transition(%[[A]] : tensor<1x1000000x1xf32>)
// CUDA-LABEL:  func.func @explicit(
// CUDA-NEXT:     tensor.empty() : tensor<1x1000000x1xf32>
// CUDA-NEXT:     recurrence.scan diagonal schedule chunked<64> transition
// CUDA-NEXT:     tensor.empty() : tensor<1x1000000x1xf32>
// CUDA-NEXT:     recurrence.scan diagonal schedule scan transition
// CUDA-NEXT:     tensor.empty() : tensor<1x1000000x1xf32>
// CUDA-NEXT:     recurrence.scan diagonal schedule sequential transition
// CUDA-NEXT:     tensor.empty() : tensor<1x1000000x1xf32>
// CUDA-NEXT:     recurrence.scan diagonal schedule chunked<256> transition
// CPU16-LABEL: func.func @explicit(
// CPU16-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CPU16-NEXT:    recurrence.scan diagonal schedule chunked<64> transition
// CPU16-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CPU16-NEXT:    recurrence.scan diagonal schedule scan transition
// CPU16-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CPU16-NEXT:    recurrence.scan diagonal schedule sequential transition
// CPU16-NEXT:    tensor.empty() : tensor<1x1000000x1xf32>
// CPU16-NEXT:    recurrence.scan diagonal schedule sequential transition
func.func @explicit(%a: tensor<1x1000000x1xf32>, %b: tensor<1x1000000x1xf32>) -> (tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>) {
  %dest0 = tensor.empty() : tensor<1x1000000x1xf32>
  %0 = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) outs(%dest0 : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  %dest1 = tensor.empty() : tensor<1x1000000x1xf32>
  %1 = recurrence.scan diagonal schedule scan transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) outs(%dest1 : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  %dest2 = tensor.empty() : tensor<1x1000000x1xf32>
  %2 = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) outs(%dest2 : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  %dest3 = tensor.empty() : tensor<1x1000000x1xf32>
  // CUDA-REMARK: select-schedule.mlir:[[@LINE+2]]:{{[0-9]+}}: remark: schedule chunked<256> chosen for cuda
  // expected-remark-re @below {{{{^}}schedule sequential chosen for cpu (2 cores, 50 GB/s); estimated seconds: sequential {{[^ ]+}} chunked<4096>}}
  %3 = recurrence.scan diagonal schedule auto transition(%a : tensor<1x1000000x1xf32>) input(%b : tensor<1x1000000x1xf32>) outs(%dest3 : tensor<1x1000000x1xf32>) -> tensor<1x1000000x1xf32>
  return %0, %1, %2, %3 : tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>, tensor<1x1000000x1xf32>
}
// CUDA-REMARK-NOT: remark:
