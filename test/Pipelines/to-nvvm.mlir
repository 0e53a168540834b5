// -recurrence-to-nvvm: scans lowered to GPU kernels, one thread per batch
// element and channel (block) in the sequential schedule, and per batch
// element, chunk and channel block in the chunked one; the threads in blocks
// of 32 (flattened, channels fastest), with the PTX for sm_90 embedded in a
// gpu.binary and host code in the LLVM dialect that launches them. The
// kernels read each step's operands and write its output row in global
// memory.
//
// RUN: recurrence-opt %s -recurrence-to-nvvm | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm | grep gpu.binary | FileCheck %s --check-prefix=PTX --implicit-check-not=malloc
// RUN: recurrence-opt %s -recurrence-to-nvvm="chip=sm_80 features=+ptx75" | FileCheck %s --check-prefix=SM80

// Dynamic sizes: the cost model's choice depends on the lanes (batch
// elements x channels) at run time. Below 2228 lanes (whose sequential
// threads would stream slower than the chunked kernels) the chunked
// schedule runs, its three phases as three kernels, in chunks of 64 steps
// below 32768 steps and of 256 from there on (fewer chunks for the carry
// to walk); above, the sequential one.
// CHECK-LABEL: llvm.func @diagonal
// CHECK: %[[THREADS:.*]] = llvm.mlir.constant(32 : index) : i64
// CHECK: %[[LONGCHUNK:.*]] = llvm.mlir.constant(256 : index) : i64
// CHECK: %[[CHUNK:.*]] = llvm.mlir.constant(64 : index) : i64
// CHECK: %[[STEPS:.*]] = llvm.mlir.constant(32768 : index) : i64
// CHECK: %[[LANES:.*]] = llvm.mlir.constant(2228 : index) : i64
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK: %[[FEW:.*]] = llvm.icmp "ult" %{{.*}}, %[[LANES]] : i64
// CHECK: llvm.cond_br %[[FEW]], ^bb1, ^bb4
// CHECK: ^bb1:
// CHECK: %[[SHORT:.*]] = llvm.icmp "ult" %{{.*}}, %[[STEPS]] : i64
// CHECK: llvm.cond_br %[[SHORT]], ^bb2, ^bb3
// CHECK: ^bb2:
// CHECK: llvm.udiv %{{.*}}, %[[CHUNK]] : i64
// CHECK: gpu.launch_func @diagonal_kernel::@diagonal_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
// CHECK: gpu.launch_func @diagonal_kernel_0::@diagonal_kernel
// CHECK: gpu.launch_func @diagonal_kernel_1::@diagonal_kernel
// CHECK: ^bb3:
// CHECK: llvm.udiv %{{.*}}, %[[LONGCHUNK]] : i64
// CHECK: gpu.launch_func @diagonal_kernel_2::@diagonal_kernel
// CHECK: gpu.launch_func @diagonal_kernel_3::@diagonal_kernel
// CHECK: gpu.launch_func @diagonal_kernel_4::@diagonal_kernel
// CHECK: ^bb4:
// CHECK: gpu.launch_func @diagonal_kernel_5::@diagonal_kernel blocks in (%{{.*}}, %[[ONE]], %[[ONE]]) threads in (%[[THREADS]], %[[ONE]], %[[ONE]])
// CHECK: gpu.binary @diagonal_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .target sm_90
// CHECK-SAME: .entry diagonal_kernel
// CHECK-SAME: ld.global
// CHECK-SAME: st.global
// CHECK-LABEL: llvm.func @blocks
// CHECK: gpu.launch_func @blocks_kernel::@blocks_kernel
// CHECK: gpu.binary @blocks_kernel
// CHECK-SAME: .entry blocks_kernel
// CHECK-LABEL: llvm.func @mixed
// CHECK: gpu.binary @mixed_kernel
// CHECK-SAME: ld.global.b16
// CHECK-SAME: cvt.f32.bf16
// CHECK-SAME: cvt.rn.bf16.f32
// CHECK-SAME: st.global.b16

// No kernel allocates; the diagonal one keeps its state in a register. (The
// block and the mixed-precision states are carried through the time loop
// as small buffers in local memory, which L1 caches; to be made registers.)
// PTX: gpu.binary @diagonal_kernel
// PTX-NOT: .local
// PTX: gpu.binary @blocks_kernel
// PTX: gpu.binary @mixed_kernel

// SM80: #nvvm.target<O = 3, chip = "sm_80", features = "+ptx75">
// SM80-SAME: .target sm_80

func.func @diagonal(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

// Blocks of 4 channels per thread, reversed, with init and final state.
func.func @blocks(%a: tensor<2x64x8x4x4xf32>, %b: tensor<2x64x32xf32>, %h0: tensor<2x32xf32>) -> (tensor<2x64x32xf32>, tensor<2x32xf32>) {
  %h_dest = tensor.empty() : tensor<2x64x32xf32>
  %last_dest = tensor.empty() : tensor<2x32xf32>
  %h, %last = recurrence.scan block_diagonal<4> reverse transition(%a : tensor<2x64x8x4x4xf32>) input(%b : tensor<2x64x32xf32>) init(%h0 : tensor<2x32xf32>) outs(%h_dest, %last_dest : tensor<2x64x32xf32>, tensor<2x32xf32>) -> tensor<2x64x32xf32>, tensor<2x32xf32>
  return %h, %last : tensor<2x64x32xf32>, tensor<2x32xf32>
}

// bf16 operands with an f32 state: loads of 16 bits, extended in registers.
func.func @mixed(%a: tensor<4x100x64xbf16>, %b: tensor<4x100x64xbf16>) -> (tensor<4x100x64xbf16>, tensor<4x64xf32>) {
  %h_dest = tensor.empty() : tensor<4x100x64xbf16>
  %last_dest = tensor.empty() : tensor<4x64xf32>
  %h, %last = recurrence.scan diagonal accumulate(f32) transition(%a : tensor<4x100x64xbf16>) input(%b : tensor<4x100x64xbf16>) outs(%h_dest, %last_dest : tensor<4x100x64xbf16>, tensor<4x64xf32>) -> tensor<4x100x64xbf16>, tensor<4x64xf32>
  return %h, %last : tensor<4x100x64xbf16>, tensor<4x64xf32>
}
