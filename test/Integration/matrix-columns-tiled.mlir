// Tiling a matrix state's columns, as the GPU lowering does (a tile per
// thread, `fixed-channel-tile=1`), leaves every result as it was: each
// scan below runs tiled and untiled on the CPU and the two print the same.
// Each column is a tile; where the channels are independent as well (no
// readout sums over them, no dplr mixes them), each channel of a column
// is. Cases: a per-element diagonal transition ending in D
// with init, reverse, readout and final state; the same without readout;
// higher_order<2> with a stacked init; dplr<1> with factored input; a
// scalar transition without batch dims over a dynamic D; a diagonal one
// without batch dims or readout over a dynamic D.
//
// RUN: recurrence-opt %s -recurrence-to-llvm | %run | sed -e 's/base@ = 0x[0-9a-f]*//' > %t.untiled
// RUN: recurrence-opt %s -recurrence-lower-sequential=fixed-channel-tile=1 -recurrence-to-llvm | %run | sed -e 's/base@ = 0x[0-9a-f]*//' > %t.tiled
// RUN: diff %t.untiled %t.tiled
// RUN: FileCheck %s --input-file=%t.tiled --check-prefix=PRINTED
// RUN: recurrence-opt %s -recurrence-lower-sequential=fixed-channel-tile=1 | FileCheck %s --check-prefix=TILED

// Twelve results printed.
// PRINTED-COUNT-12: Unranked Memref
// TILED-LABEL: func.func @main(
// TILED: scf.forall (%{{.*}}, %{{.*}}) in (1, 3)
// TILED: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (1, 2, 3)
// TILED: scf.forall (%{{.*}}, %{{.*}}) in (1, 3)
// TILED: scf.forall (%{{.*}}, %{{.*}}) in (1, 3)
// TILED: scf.forall (%{{.*}}) in (%{{.*}})
// TILED: scf.forall (%{{.*}}, %{{.*}}) in (2, %{{.*}})

func.func private @printMemrefF32(tensor<*xf32>)

func.func @pr(%t: tensor<*xf32>) {
  call @printMemrefF32(%t) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // B=1, T=2, N=2, D=3. per-element diagonal, input, init, reverse, readout, final.
  %a = arith.constant dense<[[[[0.5, 2.0, 1.0], [1.0, 0.5, 3.0]], [[1.5, 0.25, 2.0], [0.5, 1.0, -1.0]]]]> : tensor<1x2x2x3xf32>
  %b = arith.constant dense<[[[[1.0, 0.0, 0.5], [2.0, 1.0, 0.0]], [[0.0, 3.0, 1.0], [1.0, 2.0, 4.0]]]]> : tensor<1x2x2x3xf32>
  %init = arith.constant dense<[[[1.0, 2.0, 3.0], [0.0, 7.0, 0.5]]]> : tensor<1x2x3xf32>
  %c = arith.constant dense<[[[1.0, 2.0], [0.5, -1.0]]]> : tensor<1x2x2xf32>
  %y0 = tensor.empty() : tensor<1x2x3xf32>
  %f0 = tensor.empty() : tensor<1x2x3xf32>
  %y, %f = recurrence.scan diagonal schedule sequential matrix reverse transition(%a : tensor<1x2x2x3xf32>) input(%b : tensor<1x2x2x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x2x2xf32>) outs(%y0, %f0 : tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x3xf32>, tensor<1x2x3xf32>
  %yu = tensor.cast %y : tensor<1x2x3xf32> to tensor<*xf32>
  call @pr(%yu) : (tensor<*xf32>) -> ()
  %fu = tensor.cast %f : tensor<1x2x3xf32> to tensor<*xf32>
  call @pr(%fu) : (tensor<*xf32>) -> ()

  // per-element diagonal, no readout (independent channels), states output
  %h0 = tensor.empty() : tensor<1x2x2x3xf32>
  %h, %hf = recurrence.scan diagonal schedule sequential matrix transition(%a : tensor<1x2x2x3xf32>) input(%b : tensor<1x2x2x3xf32>) init(%init : tensor<1x2x3xf32>) outs(%h0, %f0 : tensor<1x2x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x2x3xf32>, tensor<1x2x3xf32>
  %hu = tensor.cast %h : tensor<1x2x2x3xf32> to tensor<*xf32>
  call @pr(%hu) : (tensor<*xf32>) -> ()
  %hfu = tensor.cast %hf : tensor<1x2x3xf32> to tensor<*xf32>
  call @pr(%hfu) : (tensor<*xf32>) -> ()

  // higher_order<2> matrix, init [1, 2, N, D], final, readout, reverse
  %ho = arith.constant dense<[[[[0.5, 2.0], [1.0, 0.5]], [[1.5, 0.25], [0.5, 1.0]]]]> : tensor<1x2x2x2xf32>
  %hinit = arith.constant dense<[[[[1.0, 2.0, 3.0], [0.0, 7.0, 0.5]], [[2.0, 1.0, -1.0], [3.0, 0.0, 1.5]]]]> : tensor<1x2x2x3xf32>
  %hy0 = tensor.empty() : tensor<1x2x3xf32>
  %hf0 = tensor.empty() : tensor<1x2x2x3xf32>
  %hy, %hff = recurrence.scan higher_order<2> schedule sequential matrix reverse transition(%ho : tensor<1x2x2x2xf32>) input(%b : tensor<1x2x2x3xf32>) init(%hinit : tensor<1x2x2x3xf32>) readout(%c : tensor<1x2x2xf32>) outs(%hy0, %hf0 : tensor<1x2x3xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x3xf32>, tensor<1x2x2x3xf32>
  %hyu = tensor.cast %hy : tensor<1x2x3xf32> to tensor<*xf32>
  call @pr(%hyu) : (tensor<*xf32>) -> ()
  %hffu = tensor.cast %hff : tensor<1x2x2x3xf32> to tensor<*xf32>
  call @pr(%hffu) : (tensor<*xf32>) -> ()

  // dplr<1> matrix, factored input, init, readout, final
  %d = arith.constant dense<[[[0.5, 2.0], [1.0, 0.5]]]> : tensor<1x2x2xf32>
  %u = arith.constant dense<[[[[1.0], [0.5]], [[-1.0], [2.0]]]]> : tensor<1x2x2x1xf32>
  %w = arith.constant dense<[[[[0.25], [1.0]], [[1.0], [0.5]]]]> : tensor<1x2x2x1xf32>
  %k = arith.constant dense<[[[1.0, 2.0], [1.0, 0.0]]]> : tensor<1x2x2xf32>
  %v = arith.constant dense<[[[1.0, 0.0, 0.5], [2.0, 1.0, 0.0]]]> : tensor<1x2x3xf32>
  %dy0 = tensor.empty() : tensor<1x2x3xf32>
  %dy, %df = recurrence.scan dplr<1> schedule sequential matrix transition(%d, %u, %w : tensor<1x2x2xf32>, tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) factored_input(%k, %v : tensor<1x2x2xf32>, tensor<1x2x3xf32>) init(%init : tensor<1x2x3xf32>) readout(%c : tensor<1x2x2xf32>) outs(%dy0, %f0 : tensor<1x2x3xf32>, tensor<1x2x3xf32>) -> tensor<1x2x3xf32>, tensor<1x2x3xf32>
  %dyu = tensor.cast %dy : tensor<1x2x3xf32> to tensor<*xf32>
  call @pr(%dyu) : (tensor<*xf32>) -> ()
  %dfu = tensor.cast %df : tensor<1x2x3xf32> to tensor<*xf32>
  call @pr(%dfu) : (tensor<*xf32>) -> ()

  // batch rank 0, scalar, factored, readout, dynamic D
  %sa = arith.constant dense<[0.5, -2.0]> : tensor<2xf32>
  %sk = arith.constant dense<[[1.0, 2.0], [1.0, 0.0]]> : tensor<2x2xf32>
  %sv = arith.constant dense<[[1.0, 0.0, 0.5], [2.0, 1.0, 0.0]]> : tensor<2x3xf32>
  %svd = tensor.cast %sv : tensor<2x3xf32> to tensor<2x?xf32>
  %sc = arith.constant dense<[[1.0, 2.0], [0.5, -1.0]]> : tensor<2x2xf32>
  %c1 = arith.constant 1 : index
  %dd = tensor.dim %svd, %c1 : tensor<2x?xf32>
  %sy0 = tensor.empty(%dd) : tensor<2x?xf32>
  %sf0 = tensor.empty(%dd) : tensor<2x?xf32>
  %sy, %sf = recurrence.scan scalar schedule sequential matrix transition(%sa : tensor<2xf32>) factored_input(%sk, %svd : tensor<2x2xf32>, tensor<2x?xf32>) readout(%sc : tensor<2x2xf32>) outs(%sy0, %sf0 : tensor<2x?xf32>, tensor<2x?xf32>) -> tensor<2x?xf32>, tensor<2x?xf32>
  %syu = tensor.cast %sy : tensor<2x?xf32> to tensor<*xf32>
  call @pr(%syu) : (tensor<*xf32>) -> ()
  %sfu = tensor.cast %sf : tensor<2x?xf32> to tensor<*xf32>
  call @pr(%sfu) : (tensor<*xf32>) -> ()

  // batch rank 0, diagonal, factored, no readout (independent channels:
  // each channel of each column a tile), dynamic D, states and final state
  %gh0 = tensor.empty(%dd) : tensor<2x2x?xf32>
  %gh, %ghf = recurrence.scan diagonal schedule sequential matrix transition(%sk : tensor<2x2xf32>) factored_input(%sc, %svd : tensor<2x2xf32>, tensor<2x?xf32>) outs(%gh0, %sf0 : tensor<2x2x?xf32>, tensor<2x?xf32>) -> tensor<2x2x?xf32>, tensor<2x?xf32>
  %ghu = tensor.cast %gh : tensor<2x2x?xf32> to tensor<*xf32>
  call @pr(%ghu) : (tensor<*xf32>) -> ()
  %ghfu = tensor.cast %ghf : tensor<2x?xf32> to tensor<*xf32>
  call @pr(%ghfu) : (tensor<*xf32>) -> ()
  return
}
