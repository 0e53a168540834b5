// Host code that the GPU lowering keeps legal:
// - a scan without batch or channel dims on a matrix state runs a thread
//   per column, which reads the scalar transition (and widens it from
//   bf16) in its time loop: the host touches no element of it;
// - on a vector state it reads that transition in the time loop, and steps
//   its state in kernels: the read moves into the kernels, since nothing
//   writes the argument;
// - a flag argument (i1) is the caller's device buffer too: its read moves
//   into the kernel that uses it;
// - the Blelloch adjoint of such a scan reads its last step's transition,
//   which it computed, for a kernel: the read moves into it, since nothing
//   writes that buffer in between;
// - the buffer deallocation frees buffers that a loop may own through a
//   helper that walks index and flag lists (a host loop whose carried
//   tensors swap places): those lists stay host allocations (malloc), while
//   the data is allocated on the device;
// - a step's temporaries, which bufferization puts on the stack, are
//   device allocations when kernels use them (dplr without batch dims).
//
// RUN: recurrence-opt %s -recurrence-to-nvvm | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-nvvm | FileCheck %s --check-prefix=HOST
// RUN: recurrence-opt %s -recurrence-differentiate="functions=unbatched_scalar_blelloch" -recurrence-to-nvvm | FileCheck %s --check-prefix=GRAD

// CHECK-LABEL: llvm.func @unbatched_dplr(
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: gpu.launch_func
// CHECK: llvm.call @mgpuMemFree
// CHECK-LABEL: llvm.func @unbatched_scalar(
// CHECK: gpu.launch_func
// CHECK: gpu.binary @unbatched_scalar_kernel
// CHECK-LABEL: llvm.func @unbatched_blocks(
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: gpu.launch_func
// CHECK-LABEL: llvm.func @dense_bf16(
// CHECK: gpu.binary @dense_bf16_kernel
// CHECK-LABEL: llvm.func @swapped_carries(
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: llvm.call @malloc
// CHECK: llvm.call @dealloc_helper
// CHECK: llvm.call @mgpuMemFree
// CHECK: llvm.call @free
// CHECK-LABEL: llvm.func @dealloc_helper(
// CHECK: llvm.store %{{.*}} : i1, !llvm.ptr

// HOST-LABEL: llvm.func @unbatched_dplr(
// HOST-NOT: llvm.alloca {{.*}} x f32
// HOST: gpu.binary
// GRAD-LABEL: llvm.func @unbatched_scalar_blelloch_grad(
// GRAD-NOT: {{llvm.load .* -> (bf16|f32)|llvm.store .* : (bf16|f32), }}
// GRAD: gpu.launch_func
// GRAD-NOT: {{llvm.load .* -> (bf16|f32)|llvm.store .* : (bf16|f32), }}
// GRAD: llvm.return

// HOST-LABEL: llvm.func @unbatched_scalar(
// HOST-NOT: {{llvm.load .* -> (bf16|f32)|llvm.store .* : (bf16|f32), }}
// HOST: gpu.binary

// HOST-LABEL: llvm.func @unbatched_scalar_vector(
// HOST-NOT: {{llvm.load .* -> (bf16|f32)|llvm.store .* : (bf16|f32), }}
// HOST: gpu.binary

// HOST-LABEL: llvm.func @flag_argument(
// HOST-NOT: {{llvm.load .* -> i1}}
// HOST: gpu.binary

func.func @unbatched_dplr(%d: tensor<?x?xf32>, %u: tensor<?x?x2xf32>, %v: tensor<?x?x2xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?xf32>
  %o_dest = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %o = recurrence.scan dplr<2> schedule sequential transition(%d, %u, %v : tensor<?x?xf32>, tensor<?x?x2xf32>, tensor<?x?x2xf32>) input(%b : tensor<?x?xf32>) outs(%o_dest : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %o : tensor<?x?xf32>
}

func.func @unbatched_scalar(%a: tensor<?xbf16>, %k: tensor<?x?xbf16>, %v: tensor<?x?xbf16>, %c: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %d2 = tensor.dim %k, %c0 : tensor<?x?xbf16>
  %c1 = arith.constant 1 : index
  %d3 = tensor.dim %v, %c1 : tensor<?x?xbf16>
  %o_dest = tensor.empty(%d2, %d3) : tensor<?x?xbf16>
  %o = recurrence.scan scalar schedule sequential matrix accumulate(f32) transition(%a : tensor<?xbf16>) factored_input(%k, %v : tensor<?x?xbf16>, tensor<?x?xbf16>) readout(%c : tensor<?x?xbf16>) outs(%o_dest : tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %o : tensor<?x?xbf16>
}

func.func @unbatched_blocks(%a: tensor<?x?x3x3xf32>, %k: tensor<?x?xf32>, %v: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %d4 = tensor.dim %k, %c0 : tensor<?x?xf32>
  %c1 = arith.constant 1 : index
  %d5 = tensor.dim %v, %c1 : tensor<?x?xf32>
  %o_dest = tensor.empty(%d4, %d5) : tensor<?x?xf32>
  %o = recurrence.scan block_diagonal<3> schedule sequential matrix transition(%a : tensor<?x?x3x3xf32>) factored_input(%k, %v : tensor<?x?xf32>, tensor<?x?xf32>) readout(%c : tensor<?x?xf32>) outs(%o_dest : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %o : tensor<?x?xf32>
}

func.func @dense_bf16(%a: tensor<?x?x?x?xbf16>, %b: tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16> {
  %c0 = arith.constant 0 : index
  %d6 = tensor.dim %b, %c0 : tensor<?x?x?xbf16>
  %c1 = arith.constant 1 : index
  %d7 = tensor.dim %b, %c1 : tensor<?x?x?xbf16>
  %c2 = arith.constant 2 : index
  %d8 = tensor.dim %b, %c2 : tensor<?x?x?xbf16>
  %h_dest = tensor.empty(%d6, %d7, %d8) : tensor<?x?x?xbf16>
  %h = recurrence.scan dense schedule sequential accumulate(f32) transition(%a : tensor<?x?x?x?xbf16>) input(%b : tensor<?x?x?xbf16>) outs(%h_dest : tensor<?x?x?xbf16>) -> tensor<?x?x?xbf16>
  return %h : tensor<?x?x?xbf16>
}

func.func @swapped_carries(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %n: index) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %b, %y = %b) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
    %d9 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
    %d10 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
    %c2 = arith.constant 2 : index
    %d11 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
    %z_dest = tensor.empty(%d9, %d10, %d11) : tensor<?x?x?xf32>
    %z = recurrence.scan diagonal schedule sequential transition(%a : tensor<?x?x?xf32>) input(%x : tensor<?x?x?xf32>) outs(%z_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
    scf.yield %y, %z : tensor<?x?x?xf32>, tensor<?x?x?xf32>
  }
  return %r#1 : tensor<?x?x?xf32>
}

func.func @unbatched_scalar_blelloch(%a: tensor<33xbf16>, %b: tensor<33x9xbf16>, %h0: tensor<9xf32>) -> (tensor<33x9xbf16>, tensor<9xf32>) {
  %o_dest = tensor.empty() : tensor<33x9xbf16>
  %f_dest = tensor.empty() : tensor<9xf32>
  %o, %f = recurrence.scan scalar schedule scan reverse accumulate(f32) transition(%a : tensor<33xbf16>) input(%b : tensor<33x9xbf16>) init(%h0 : tensor<9xf32>) outs(%o_dest, %f_dest : tensor<33x9xbf16>, tensor<9xf32>) -> tensor<33x9xbf16>, tensor<9xf32>
  return %o, %f : tensor<33x9xbf16>, tensor<9xf32>
}

func.func @unbatched_scalar_vector(%a: tensor<?xbf16>, %b: tensor<?x?xbf16>, %c: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %c0 = arith.constant 0 : index
  %t = tensor.dim %b, %c0 : tensor<?x?xbf16>
  %o_dest = tensor.empty(%t) : tensor<?xbf16>
  %o = recurrence.scan scalar schedule sequential accumulate(f32) transition(%a : tensor<?xbf16>) input(%b : tensor<?x?xbf16>) readout(%c : tensor<?x?xbf16>) outs(%o_dest : tensor<?xbf16>) -> tensor<?xbf16>
  return %o : tensor<?xbf16>
}

#flag_map = affine_map<(d0) -> (d0)>
func.func @flag_argument(%a: tensor<?xf32>, %m: tensor<4xi1>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %flag = tensor.extract %m[%c2] : tensor<4xi1>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#flag_map, #flag_map], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %y = arith.select %flag, %x, %z : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
