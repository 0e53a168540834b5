// Sequential scans split into channel tiles: one sequence (batch 1), N = 160
// channels, T = 3. With cores=2 the channels of a structure whose channels
// don't mix (and without readout) are split into 2 tiles of 80, one static
// width (at least 40 channels per tile); with cores=3 and no static width
// allowed (at least 200), into 3 tiles sized at run time (at least 40), of
// 54, 54 and 52 (a short last tile); block_diagonal<2> tiles in whole
// blocks, 2 tiles of 40 blocks for both. cores=1 runs the untiled loops.
// Every run must print the same numbers.
//
// A tile that reads its init, transition or input, or writes its output, at
// the wrong channel offset shows in the printed channels around the tile
// boundaries (0, 1, 78..81, 158, 159) and in the sums over all channels, per
// step: the init is n for channel n, and the transitions differ between
// channels < 120 and the rest.
//
// RUN: recurrence-opt %s -recurrence-lower-sequential="cores=2 min-channel-tile=40 min-runtime-channel-tile=64" -canonicalize | FileCheck %s --check-prefix=TILES2
// RUN: recurrence-opt %s -recurrence-lower-sequential="cores=3 min-channel-tile=200 min-runtime-channel-tile=40" -canonicalize | FileCheck %s --check-prefix=TILES3
// RUN: recurrence-opt %s -recurrence-to-llvm="cores=2 min-channel-tile=40 min-runtime-channel-tile=64" | %run | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-llvm="cores=3 min-channel-tile=200 min-runtime-channel-tile=40" | %run | FileCheck %s
// RUN: recurrence-opt %s -recurrence-to-llvm="cores=1" | %run | FileCheck %s

// The tiles come from upstream tiling (scf::tileUsingSCF on the op's
// TilingInterface), once the unit batch dim folds away: a loop over the
// tile starts with a step of the tile width, in channels, or in blocks for
// block_diagonal, and a last short tile is min(160 - start, 54) wide.
// TILES2-LABEL: func.func @main(
// TILES2:         scf.forall (%[[C:[^)]*]]) = (0) to (160) step (80) shared_outs(
// TILES2-NEXT:      tensor.extract_slice %{{.*}}[0, %[[C]]] [1, 80] [1, 1] : tensor<1x160xf32> to tensor<1x80xf32>
// TILES2:         scf.forall (%[[C:[^)]*]]) = (0) to (160) step (80) shared_outs(
// TILES2-NEXT:      tensor.extract_slice %{{.*}}[0, 0, %[[C]]] [1, 3, 80] [1, 1, 1] : tensor<1x3x160xf32> to tensor<1x3x80xf32>
// TILES2:         scf.forall (%[[C:[^)]*]]) = (0) to (80) step (40) shared_outs(
// TILES2-NEXT:      %[[N:.*]] = affine.apply #{{.*}}()[%[[C]]]
// TILES2-NEXT:      tensor.extract_slice %{{.*}}[0, 0, %[[C]], 0, 0] [1, 3, 40, 2, 2] [1, 1, 1, 1, 1] : tensor<1x3x80x2x2xf32> to tensor<1x3x40x2x2xf32>
// TILES2-NEXT:      tensor.extract_slice %{{.*}}[0, %[[N]]] [1, 80] [1, 1] : tensor<1x160xf32> to tensor<1x80xf32>
// TILES2-NOT:     recurrence.scan
// TILES3-DAG:   #[[$MIN:.+]] = affine_map<(d0) -> (-d0 + 160, 54)>
// TILES3-LABEL: func.func @main(
// TILES3:         scf.forall (%[[C:[^)]*]]) = (0) to (160) step (54) shared_outs(
// TILES3-NEXT:      %[[W:.*]] = affine.min #[[$MIN]](%[[C]])
// TILES3-NEXT:      tensor.extract_slice %{{.*}}[0, 0, %[[C]]] [1, 3, %[[W]]] [1, 1, 1] : tensor<1x3x160xf32> to tensor<1x3x?xf32>
// TILES3:         scf.forall (%[[C:[^)]*]]) = (0) to (160) step (54) shared_outs(
// TILES3-NEXT:      affine.min #[[$MIN]](%[[C]])
// TILES3:         scf.forall (%[[C:[^)]*]]) = (0) to (80) step (40) shared_outs(
// TILES3-NOT:     recurrence.scan

func.func private @printMemrefF32(tensor<*xf32>)

// Channels 0, 1, 78..81, 158, 159 of every step, then the sum over all
// channels of every step.
func.func @print_states(%h: tensor<1x3x160xf32>) {
  %lo = tensor.extract_slice %h[0, 0, 0] [1, 3, 2] [1, 1, 1] : tensor<1x3x160xf32> to tensor<1x3x2xf32>
  %mid = tensor.extract_slice %h[0, 0, 78] [1, 3, 4] [1, 1, 1] : tensor<1x3x160xf32> to tensor<1x3x4xf32>
  %hi = tensor.extract_slice %h[0, 0, 158] [1, 3, 2] [1, 1, 1] : tensor<1x3x160xf32> to tensor<1x3x2xf32>
  %lo_u = tensor.cast %lo : tensor<1x3x2xf32> to tensor<*xf32>
  %mid_u = tensor.cast %mid : tensor<1x3x4xf32> to tensor<*xf32>
  %hi_u = tensor.cast %hi : tensor<1x3x2xf32> to tensor<*xf32>
  call @printMemrefF32(%lo_u) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%mid_u) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%hi_u) : (tensor<*xf32>) -> ()
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<1x3xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x3xf32>) -> tensor<1x3xf32>
  %sum = linalg.reduce ins(%h : tensor<1x3x160xf32>) outs(%zeros : tensor<1x3xf32>) dimensions = [2]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  %sum_u = tensor.cast %sum : tensor<1x3xf32> to tensor<*xf32>
  call @printMemrefF32(%sum_u) : (tensor<*xf32>) -> ()
  return
}

// Channels 0, 1, 78..81, 158, 159 of the final state.
func.func @print_last(%h: tensor<1x160xf32>) {
  %lo = tensor.extract_slice %h[0, 0] [1, 2] [1, 1] : tensor<1x160xf32> to tensor<1x2xf32>
  %mid = tensor.extract_slice %h[0, 78] [1, 4] [1, 1] : tensor<1x160xf32> to tensor<1x4xf32>
  %hi = tensor.extract_slice %h[0, 158] [1, 2] [1, 1] : tensor<1x160xf32> to tensor<1x2xf32>
  %lo_u = tensor.cast %lo : tensor<1x2xf32> to tensor<*xf32>
  %mid_u = tensor.cast %mid : tensor<1x4xf32> to tensor<*xf32>
  %hi_u = tensor.cast %hi : tensor<1x2xf32> to tensor<*xf32>
  call @printMemrefF32(%lo_u) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%mid_u) : (tensor<*xf32>) -> ()
  call @printMemrefF32(%hi_u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %half = arith.constant dense<0.5> : tensor<1x3x160xf32>
  %ones = arith.constant dense<1.0> : tensor<1x3x160xf32>
  // init[0, n] = n.
  %init = tensor.generate {
  ^bb0(%i: index, %n: index):
    %ni = arith.index_cast %n : index to i64
    %nf = arith.uitofp %ni : i64 to f32
    tensor.yield %nf : f32
  } : tensor<1x160xf32>

  %h0_dest = tensor.empty() : tensor<1x3x160xf32>
  %last0_dest = tensor.empty() : tensor<1x160xf32>
  //===--------------------------------------------------------------------===//
  // diagonal, a = 0.5, b = 1 everywhere, from init[n] = n, with the final
  // state: h_t[n] = n / 2^t + 2 - 2^(1-t), i.e. n/2 + 1, n/4 + 1.5, n/8 + 1.75.
  // Sums over n (sum of n = 12720): 6520, 3420, 1870.
  //===--------------------------------------------------------------------===//
  %h0, %last0 = recurrence.scan diagonal schedule sequential transition(%half : tensor<1x3x160xf32>) input(%ones : tensor<1x3x160xf32>) init(%init : tensor<1x160xf32>) outs(%h0_dest, %last0_dest : tensor<1x3x160xf32>, tensor<1x160xf32>) -> tensor<1x3x160xf32>, tensor<1x160xf32>
  call @print_states(%h0) : (tensor<1x3x160xf32>) -> ()
  call @print_last(%last0) : (tensor<1x160xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[1, 1.5],
  // CHECK-NEXT{LITERAL}: [1.5, 1.75],
  // CHECK-NEXT{LITERAL}: [1.75, 1.875]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 4] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[40, 40.5, 41, 41.5],
  // CHECK-NEXT{LITERAL}: [21, 21.25, 21.5, 21.75],
  // CHECK-NEXT{LITERAL}: [11.5, 11.625, 11.75, 11.875]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[80, 80.5],
  // CHECK-NEXT{LITERAL}: [41, 41.25],
  // CHECK-NEXT{LITERAL}: [21.5, 21.625]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 3] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[6520, 3420, 1870]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[1.75, 1.875]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 4] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[11.5, 11.625, 11.75, 11.875]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[21.5, 21.625]]

  //===--------------------------------------------------------------------===//
  // diagonal, a = 0.5 for n < 120 and 0 above, b = n, from zero:
  // n < 120: h_t[n] = n, 1.5 n, 1.75 n; n >= 120: h_t[n] = n.
  // Sums: 12720, 7140 * 1.5 + 5580 = 16290, 7140 * 1.75 + 5580 = 18075.
  //===--------------------------------------------------------------------===//
  %a1 = tensor.generate {
  ^bb0(%i: index, %t: index, %n: index):
    %c120 = arith.constant 120 : index
    %low = arith.cmpi ult, %n, %c120 : index
    %h = arith.constant 0.5 : f32
    %z = arith.constant 0.0 : f32
    %v = arith.select %low, %h, %z : f32
    tensor.yield %v : f32
  } : tensor<1x3x160xf32>
  %b1 = tensor.generate {
  ^bb0(%i: index, %t: index, %n: index):
    %ni = arith.index_cast %n : index to i64
    %nf = arith.uitofp %ni : i64 to f32
    tensor.yield %nf : f32
  } : tensor<1x3x160xf32>
  %h1_dest = tensor.empty() : tensor<1x3x160xf32>
  %h1 = recurrence.scan diagonal schedule sequential transition(%a1 : tensor<1x3x160xf32>) input(%b1 : tensor<1x3x160xf32>) outs(%h1_dest : tensor<1x3x160xf32>) -> tensor<1x3x160xf32>
  call @print_states(%h1) : (tensor<1x3x160xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[0, 1],
  // CHECK-NEXT{LITERAL}: [0, 1.5],
  // CHECK-NEXT{LITERAL}: [0, 1.75]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 4] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[78, 79, 80, 81],
  // CHECK-NEXT{LITERAL}: [117, 118.5, 120, 121.5],
  // CHECK-NEXT{LITERAL}: [136.5, 138.25, 140, 141.75]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[158, 159],
  // CHECK-NEXT{LITERAL}: [158, 159],
  // CHECK-NEXT{LITERAL}: [158, 159]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 3] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[12720, 16290, 18075]]

  //===--------------------------------------------------------------------===//
  // block_diagonal<2>: block g (channels 2g, 2g+1) is [[0.5, c_g], [0, 0.5]]
  // with c_g = 0.25 for g < 60 and -0.5 above; b = 1, from init[n] = n, with
  // the final state. Odd channels do not see the block's other channel:
  // h_t[2g+1] = (2g+1) / 2^t + 2 - 2^(1-t); even ones add c_g h_{t-1}[2g+1]:
  //   channel 0:   1.25, 2, 2.4375        channel 78:  59.75, 41, 26.8125
  //   channel 80:  61.25, 42, 27.4375     channel 158: 0.5, -39, -39.125
  // Sums: 6020, 2925, 1505.
  //===--------------------------------------------------------------------===//
  %blocks = tensor.generate {
  ^bb0(%i: index, %t: index, %g: index, %r: index, %c: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c60 = arith.constant 60 : index
    %diag = arith.cmpi eq, %r, %c : index
    %row0 = arith.cmpi eq, %r, %c0 : index
    %col1 = arith.cmpi eq, %c, %c1 : index
    %upper = arith.andi %row0, %col1 : i1
    %early = arith.cmpi ult, %g, %c60 : index
    %half_v = arith.constant 0.5 : f32
    %quarter = arith.constant 0.25 : f32
    %minus_half = arith.constant -0.5 : f32
    %zero_v = arith.constant 0.0 : f32
    %coupling = arith.select %early, %quarter, %minus_half : f32
    %off = arith.select %upper, %coupling, %zero_v : f32
    %v = arith.select %diag, %half_v, %off : f32
    tensor.yield %v : f32
  } : tensor<1x3x80x2x2xf32>
  %h2_dest = tensor.empty() : tensor<1x3x160xf32>
  %last2_dest = tensor.empty() : tensor<1x160xf32>
  %h2, %last2 = recurrence.scan block_diagonal<2> schedule sequential transition(%blocks : tensor<1x3x80x2x2xf32>) input(%ones : tensor<1x3x160xf32>) init(%init : tensor<1x160xf32>) outs(%h2_dest, %last2_dest : tensor<1x3x160xf32>, tensor<1x160xf32>) -> tensor<1x3x160xf32>, tensor<1x160xf32>
  call @print_states(%h2) : (tensor<1x3x160xf32>) -> ()
  call @print_last(%last2) : (tensor<1x160xf32>) -> ()
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[1.25, 1.5],
  // CHECK-NEXT{LITERAL}: [2, 1.75],
  // CHECK-NEXT{LITERAL}: [2.4375, 1.875]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 4] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[59.75, 40.5, 61.25, 41.5],
  // CHECK-NEXT{LITERAL}: [41, 21.25, 42, 21.75],
  // CHECK-NEXT{LITERAL}: [26.8125, 11.625, 27.4375, 11.875]]]
  // CHECK: rank = 3 offset = {{[0-9]+}} sizes = [1, 3, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[[0.5, 80.5],
  // CHECK-NEXT{LITERAL}: [-39, 41.25],
  // CHECK-NEXT{LITERAL}: [-39.125, 21.625]]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 3] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[6020, 2925, 1505]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[2.4375, 1.875]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 4] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[26.8125, 11.625, 27.4375, 11.875]]
  // CHECK: rank = 2 offset = {{[0-9]+}} sizes = [1, 2] strides = {{\[[0-9, ]+\]}} data =
  // CHECK-NEXT{LITERAL}: [[-39.125, 21.625]]
  return
}
