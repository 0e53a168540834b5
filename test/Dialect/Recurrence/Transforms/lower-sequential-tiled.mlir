// -recurrence-lower-sequential with cores > 1 splits the channels of a
// structure whose channels don't mix (identity, scalar, diagonal,
// higher_order, block_diagonal in whole blocks), without readout, into
// tiles through upstream tiling (scf::tileUsingSCF on the op's
// TilingInterface): an scf.forall over (batch..., tiles) extracts each
// operand's box (the batch element and the tile's channels, every other dim
// whole), runs the sequential scan of the tile on the boxes, and inserts its
// results into the results (or into the op's `outs`). There are
//   tiles = clamp(ceil(cores / batch elements), 1, floor(N / (64 m)))
// tiles of ceil(N / (tiles m)) m channels (m = 1, or the block size). With
// static shapes the most tiles of one width that divides N are taken;
// otherwise (dynamic shapes, or no such width) the tiles are sized at run
// time, the last one possibly shorter. dense and dplr mix channels, and a readout sums
// over them: those keep the plain loops over the batch.
//
// RUN: recurrence-opt %s -recurrence-lower-sequential="cores=4 min-channel-tile=64 min-runtime-channel-tile=64" | FileCheck %s
// RUN: recurrence-opt %s -recurrence-lower-sequential="cores=4 min-channel-tile=64 min-runtime-channel-tile=64" -canonicalize -cse | FileCheck %s --check-prefix=FOLD
// RUN: recurrence-opt %s -recurrence-lower-sequential=cores=1 | FileCheck %s --check-prefix=UNTILED


// The run-time bound on tiles by work (of @dynamic below).
// FOLD: affine_map<()[s0, s1] -> ((s0 * s1) floordiv 1024)>

// The whole skeleton, before folding: batch 2, N = 256, with init and the
// final state. tiles = clamp(ceil(4 / 2), 1, ceil(256 / 64)) = 2 of 128.
// The short last tile of @uneven below: min(131 - start, 66) channels.
// FOLD-DAG:   #[[$SHORT:.+]] = affine_map<(d0) -> (-d0 + 131, 66)>
// CHECK-LABEL: func.func @diagonal(
// CHECK-SAME:    %[[A:[^:]*]]: tensor<2x16x256xf32>, %[[B:[^:]*]]: tensor<2x16x256xf32>, %[[INIT:[^:]*]]: tensor<2x256xf32>)
// Static shapes whose tiles divide N: a loop of static step, and every box
// has a static shape (@uneven and @dynamic below check the run-time split).
// CHECK-DAG:     %[[OUT0:.*]] = tensor.empty() : tensor<2x16x256xf32>
// CHECK-DAG:     %[[LAST0:.*]] = tensor.empty() : tensor<2x256xf32>
// CHECK:         %[[FORALL:.*]]:2 = scf.forall (%[[I:[^,]*]], %[[START:[^)]*]]) = (0, 0) to (2, 256) step (1, 128) shared_outs(%[[OUT:.*]] = %[[OUT0]], %[[LAST:.*]] = %[[LAST0]]) -> (tensor<2x16x256xf32>, tensor<2x256xf32>) {
// CHECK-NOT:       affine.min
// The operands' boxes.
// CHECK:           %[[ABOX:.*]] = tensor.extract_slice %[[A]][%[[I]], 0, %[[START]]] [1, 16, 128] [1, 1, 1] : tensor<2x16x256xf32> to tensor<1x16x128xf32>
// CHECK:           %[[BBOX:.*]] = tensor.extract_slice %[[B]][%[[I]], 0, %[[START]]] [1, 16, 128] [1, 1, 1] : tensor<2x16x256xf32> to tensor<1x16x128xf32>
// CHECK:           %[[IBOX:.*]] = tensor.extract_slice %[[INIT]][%[[I]], %[[START]]] [1, 128] [1, 1] : tensor<2x256xf32> to tensor<1x128xf32>
// The tile's own scan: a forall over its single batch element.
// CHECK:           %[[TILED:.*]]:2 = scf.forall (%[[J:.*]]) in (1) shared_outs(%[[TOUT:.*]] = %{{.*}}, %[[TLAST:.*]] = %{{.*}}) -> (tensor<1x16x128xf32>, tensor<1x128xf32>) {
// CHECK:             tensor.extract_slice %[[IBOX]][%[[J]], 0] [1, 128] [1, 1] : tensor<1x128xf32> to tensor<128xf32>
// CHECK:             scf.for %[[T:[^ ]*]] = {{.*}} -> (tensor<128x1xf32>, tensor<16x128xf32>) {
// CHECK:               tensor.extract_slice %[[ABOX]][%[[J]], %[[T]], 0] [1, 1, 128] [1, 1, 1] : tensor<1x16x128xf32> to tensor<128xf32>
// CHECK:               tensor.extract_slice %[[BBOX]][%[[J]], %[[T]], 0] [1, 1, 128] [1, 1, 1] : tensor<1x16x128xf32> to tensor<128xf32>
// CHECK:               linalg.generic
// CHECK-NOT:           linalg.copy
// CHECK:             scf.forall.in_parallel {
// CHECK-NEXT:          tensor.parallel_insert_slice %{{.*}} into %[[TOUT]][%[[J]], 0, 0]
// CHECK-NEXT:          tensor.parallel_insert_slice %{{.*}} into %[[TLAST]][%[[J]], 0]
// CHECK-NEXT:        }
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.forall.in_parallel {
// CHECK-NEXT:        tensor.parallel_insert_slice %[[TILED]]#0 into %[[OUT]][%[[I]], 0, %[[START]]] [1, 16, 128] [1, 1, 1] : tensor<1x16x128xf32> into tensor<2x16x256xf32>
// CHECK-NEXT:        tensor.parallel_insert_slice %[[TILED]]#1 into %[[LAST]][%[[I]], %[[START]]] [1, 128] [1, 1] : tensor<1x128xf32> into tensor<2x256xf32>
// CHECK-NEXT:      }
// CHECK:         return %[[FORALL]]#0, %[[FORALL]]#1
// CHECK-NOT:     recurrence.scan
// FOLD-LABEL: func.func @diagonal(
// FOLD:         scf.forall (%{{[^,]*}}, %{{[^)]*}}) = (0, 0) to (2, 256) step (1, 128) shared_outs(
// UNTILED-LABEL: func.func @diagonal(
// UNTILED:         scf.forall (%{{[^,]*}}) in (2) shared_outs(
// UNTILED-NOT:     tensor.extract_slice %{{.*}} to tensor<1x16x?xf32>
func.func @diagonal(%a: tensor<2x16x256xf32>, %b: tensor<2x16x256xf32>, %init: tensor<2x256xf32>) -> (tensor<2x16x256xf32>, tensor<2x256xf32>) {
  %h_dest = tensor.empty() : tensor<2x16x256xf32>
  %last_dest = tensor.empty() : tensor<2x256xf32>
  %h, %last = recurrence.scan diagonal schedule sequential transition(%a : tensor<2x16x256xf32>) input(%b : tensor<2x16x256xf32>) init(%init : tensor<2x256xf32>) outs(%h_dest, %last_dest : tensor<2x16x256xf32>, tensor<2x256xf32>) -> tensor<2x16x256xf32>, tensor<2x256xf32>
  return %h, %last : tensor<2x16x256xf32>, tensor<2x256xf32>
}

// Dynamic sizes: the tile count is computed at run time from the batch size,
// N and T: at most N / 64 tiles (the minimum tile), and at most N T / (64 x
// 16) (a tile covers at least 16 steps of the minimum tile's work), so that
// a step of T = 1 stays on one thread.
// FOLD-LABEL: func.func @dynamic(
// FOLD-SAME:    %[[A:[^:]*]]: tensor<?x?x?xf32>, %[[B:[^:]*]]: tensor<?x?x?xf32>)
// FOLD-DAG:     %[[BATCH:.*]] = tensor.dim %[[B]], %c0 : tensor<?x?x?xf32>
// FOLD-DAG:     %[[T:.*]] = tensor.dim %[[B]], %c1 : tensor<?x?x?xf32>
// FOLD-DAG:     %[[N:.*]] = tensor.dim %[[B]], %c2 : tensor<?x?x?xf32>
// FOLD:         %[[ELEMENTS:.*]] = arith.maxui %[[BATCH]], %c1 : index
// FOLD:         %[[WANTED:.*]] = arith.ceildivui %c4, %[[ELEMENTS]] : index
// FOLD:         %[[MOST_N:.*]] = affine.apply #{{.*}}()[%[[N]]]
// FOLD:         %[[MOST_WORK:.*]] = affine.apply #{{.*}}()[%[[N]], %[[T]]]
// FOLD:         %[[MOST:.*]] = arith.minui %[[MOST_N]], %[[MOST_WORK]] : index
// FOLD:         %[[MIN:.*]] = arith.minui %[[WANTED]], %[[MOST]] : index
// FOLD:         %[[CLAMPED:.*]] = arith.maxui %[[MIN]], %c1 : index
// FOLD:         %[[SIZE0:.*]] = affine.apply #{{.*}}()[%[[N]], %[[CLAMPED]]]
// FOLD:         %[[SIZE:.*]] = arith.maxui %[[SIZE0]], %c1 : index
// FOLD:         scf.forall (%[[I:[^,]*]], %[[START:[^)]*]]) = (0, 0) to (%[[BATCH]], %[[N]]) step (1, %[[SIZE]]) shared_outs(
// FOLD-NEXT:      %[[COUNT:.*]] = affine.min #{{.*}}(%[[START]])[%[[N]], %[[SIZE]]]
// FOLD:           tensor.extract_slice %[[A]][%[[I]], 0, %[[START]]] [1, %{{.*}}, %[[COUNT]]] [1, 1, 1] : tensor<?x?x?xf32> to tensor<1x?x?xf32>
func.func @dynamic(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

// No batch dims: the forall runs over the tiles alone, 4 of 64. The
// higher_order channels are the last dim of a (and of init and the final
// state, [m, N]); reverse still runs t = T - 1 .. 0 inside each tile.
// FOLD-LABEL: func.func @higher_order(
// FOLD-SAME:    %[[A:[^:]*]]: tensor<8x2x256xf32>, %[[B:[^:]*]]: tensor<8x256xf32>, %[[INIT:[^:]*]]: tensor<2x256xf32>)
// FOLD:         scf.forall (%[[START:[^)]*]]) = (0) to (256) step (64) shared_outs(%[[OUT:.*]] = %{{.*}}, %[[LAST:.*]] = %{{.*}}) -> (tensor<8x256xf32>, tensor<2x256xf32>) {
// FOLD-NEXT:      tensor.extract_slice %[[A]][0, 0, %[[START]]] [8, 2, 64] [1, 1, 1] : tensor<8x2x256xf32> to tensor<8x2x64xf32>
// FOLD-NEXT:      tensor.extract_slice %[[B]][0, %[[START]]] [8, 64] [1, 1] : tensor<8x256xf32> to tensor<8x64xf32>
// FOLD-NEXT:      tensor.extract_slice %[[INIT]][0, %[[START]]] [2, 64] [1, 1] : tensor<2x256xf32> to tensor<2x64xf32>
// FOLD:           arith.subi %c7, %{{.*}} : index
// FOLD:           scf.forall.in_parallel {
// FOLD-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, %[[START]]] [8, 64] [1, 1] : tensor<8x64xf32> into tensor<8x256xf32>
// FOLD-NEXT:        tensor.parallel_insert_slice %{{.*}} into %[[LAST]][0, %[[START]]] [2, 64] [1, 1] : tensor<2x64xf32> into tensor<2x256xf32>
// UNTILED-LABEL: func.func @higher_order(
// UNTILED-NOT:     scf.forall
// UNTILED:         scf.for
func.func @higher_order(%a: tensor<8x2x256xf32>, %b: tensor<8x256xf32>, %init: tensor<2x256xf32>) -> (tensor<8x256xf32>, tensor<2x256xf32>) {
  %h_dest = tensor.empty() : tensor<8x256xf32>
  %last_dest = tensor.empty() : tensor<2x256xf32>
  %h, %last = recurrence.scan higher_order<2> schedule sequential reverse transition(%a : tensor<8x2x256xf32>) input(%b : tensor<8x256xf32>) init(%init : tensor<2x256xf32>) outs(%h_dest, %last_dest : tensor<8x256xf32>, tensor<2x256xf32>) -> tensor<8x256xf32>, tensor<2x256xf32>
  return %h, %last : tensor<8x256xf32>, tensor<2x256xf32>
}

// block_diagonal<4>, N = 512: at most ceil(512 / 256) = 2 tiles of whole
// blocks, 256 channels = 64 blocks each; the transition's box is counted in
// blocks.
// FOLD-LABEL: func.func @block_diagonal(
// FOLD-SAME:    %[[A:[^:]*]]: tensor<1x8x128x4x4xf32>, %[[B:[^:]*]]: tensor<1x8x512xf32>)
// FOLD:         scf.forall (%[[BLOCK:[^)]*]]) = (0) to (128) step (64) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x8x512xf32>) {
// FOLD-NEXT:      %[[START:.*]] = affine.apply #{{.*}}()[%[[BLOCK]]]
// FOLD-NEXT:      tensor.extract_slice %[[A]][0, 0, %[[BLOCK]], 0, 0] [1, 8, 64, 4, 4] [1, 1, 1, 1, 1] : tensor<1x8x128x4x4xf32> to tensor<1x8x64x4x4xf32>
// FOLD-NEXT:      tensor.extract_slice %[[B]][0, 0, %[[START]]] [1, 8, 256] [1, 1, 1] : tensor<1x8x512xf32> to tensor<1x8x256xf32>
// FOLD:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<64x4x4xf32>, tensor<64x4x1xf32>) outs(%{{.*}} : tensor<64x4x1xf32>)
func.func @block_diagonal(%A: tensor<1x8x128x4x4xf32>, %b: tensor<1x8x512xf32>) -> tensor<1x8x512xf32> {
  %h_dest = tensor.empty() : tensor<1x8x512xf32>
  %h = recurrence.scan block_diagonal<4> schedule sequential transition(%A : tensor<1x8x128x4x4xf32>) input(%b : tensor<1x8x512xf32>) outs(%h_dest : tensor<1x8x512xf32>) -> tensor<1x8x512xf32>
  return %h : tensor<1x8x512xf32>
}

// A scalar transition has no channel dim and a factored value has D, not N:
// their boxes are whole (folded away here); the key and the [N, D] output
// are split along N.
// FOLD-LABEL: func.func @scalar_factored(
// FOLD-SAME:    %[[A:[^:]*]]: tensor<1x8xf32>, %[[K:[^:]*]]: tensor<1x8x256xf32>, %[[V:[^:]*]]: tensor<1x8x3xf32>)
// FOLD:         scf.forall (%[[START:[^)]*]]) = (0) to (256) step (64) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x8x256x3xf32>) {
// FOLD-NEXT:      %[[KBOX:.*]] = tensor.extract_slice %[[K]][0, 0, %[[START]]] [1, 8, 64] [1, 1, 1] : tensor<1x8x256xf32> to tensor<1x8x64xf32>
// FOLD:           scf.for %[[T:[^ ]*]] =
// FOLD:             tensor.extract %[[A]][%c0, %[[T]]] : tensor<1x8xf32>
// FOLD-NEXT:        tensor.extract_slice %[[KBOX]][0, %[[T]], 0] [1, 1, 64] [1, 1, 1] : tensor<1x8x64xf32> to tensor<64xf32>
// FOLD-NEXT:        tensor.extract_slice %[[V]][0, %[[T]], 0] [1, 1, 3] [1, 1, 1] : tensor<1x8x3xf32> to tensor<3xf32>
// FOLD:           tensor.parallel_insert_slice %{{.*}} into %[[OUT]][0, 0, %[[START]], 0] [1, 8, 64, 3] [1, 1, 1, 1] : tensor<1x8x64x3xf32> into tensor<1x8x256x3xf32>
func.func @scalar_factored(%a: tensor<1x8xf32>, %k: tensor<1x8x256xf32>, %v: tensor<1x8x3xf32>) -> tensor<1x8x256x3xf32> {
  %h_dest = tensor.empty() : tensor<1x8x256x3xf32>
  %h = recurrence.scan scalar schedule sequential matrix transition(%a : tensor<1x8xf32>) factored_input(%k, %v : tensor<1x8x256xf32>, tensor<1x8x3xf32>) outs(%h_dest : tensor<1x8x256x3xf32>) -> tensor<1x8x256x3xf32>
  return %h : tensor<1x8x256x3xf32>
}

// A batch that fills the cores needs one tile, with all channels.
// FOLD-LABEL: func.func @full_batch(
// FOLD:         scf.forall (%[[I:.*]]) in (4) shared_outs(
// FOLD-NEXT:      tensor.extract_slice %{{.*}}[%[[I]], 0, 0] [1, 8, 256] [1, 1, 1] : tensor<4x8x256xf32> to tensor<1x8x256xf32>
func.func @full_batch(%b: tensor<4x8x256xf32>) -> tensor<4x8x256xf32> {
  %h_dest = tensor.empty() : tensor<4x8x256xf32>
  %h = recurrence.scan identity schedule sequential input(%b : tensor<4x8x256xf32>) outs(%h_dest : tensor<4x8x256xf32>) -> tensor<4x8x256xf32>
  return %h : tensor<4x8x256xf32>
}

// N = 200 allows floor(200 / 64) = 3 tiles of at least 64 channels, but 3
// tiles would be 67, 67 and 66 wide; 2 tiles of 100 divide N, so that is
// the split, both tiles of one static width.
// FOLD-LABEL: func.func @few_channels(
// FOLD:         scf.forall (%{{[^)]*}}) = (0) to (200) step (100) shared_outs(
// FOLD-NOT:       affine.min
// FOLD:           tensor.extract_slice %{{.*}} : tensor<1x8x200xf32> to tensor<1x8x100xf32>
func.func @few_channels(%a: tensor<1x8x200xf32>, %b: tensor<1x8x200xf32>) -> tensor<1x8x200xf32> {
  %h_dest = tensor.empty() : tensor<1x8x200xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x8x200xf32>) input(%b : tensor<1x8x200xf32>) outs(%h_dest : tensor<1x8x200xf32>) -> tensor<1x8x200xf32>
  return %h : tensor<1x8x200xf32>
}

// N = 131 (prime): no split into 2 or more tiles divides N, so the tiles
// are sized at run time, floor(131 / 64) = 2 of them: 66 channels, the last
// one 65.
// FOLD-LABEL: func.func @uneven(
// FOLD:         scf.forall (%[[START:[^)]*]]) = (0) to (131) step (66) shared_outs(
// FOLD-NEXT:      %[[COUNT:.*]] = affine.min #[[$SHORT]](%[[START]])
// FOLD-NEXT:      tensor.extract_slice %{{.*}}[0, 0, %[[START]]] [1, 8, %[[COUNT]]] [1, 1, 1] : tensor<1x8x131xf32> to tensor<1x8x?xf32>
func.func @uneven(%a: tensor<1x8x131xf32>, %b: tensor<1x8x131xf32>) -> tensor<1x8x131xf32> {
  %h_dest = tensor.empty() : tensor<1x8x131xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x8x131xf32>) input(%b : tensor<1x8x131xf32>) outs(%h_dest : tensor<1x8x131xf32>) -> tensor<1x8x131xf32>
  return %h : tensor<1x8x131xf32>
}

// N = 100 holds only floor(100 / 64) = 1 tile of at least 64 channels: the
// loops stay untiled.
// FOLD-LABEL: func.func @too_few_channels(
// FOLD-NOT:     arith.muli
// FOLD:         scf.for {{.*}} -> (tensor<100x1xf32>, tensor<8x100xf32>)
func.func @too_few_channels(%a: tensor<1x8x100xf32>, %b: tensor<1x8x100xf32>) -> tensor<1x8x100xf32> {
  %h_dest = tensor.empty() : tensor<1x8x100xf32>
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x8x100xf32>) input(%b : tensor<1x8x100xf32>) outs(%h_dest : tensor<1x8x100xf32>) -> tensor<1x8x100xf32>
  return %h : tensor<1x8x100xf32>
}

// With `outs`, the tiles write into the op's destinations.
// FOLD-LABEL: func.func @outs(
// FOLD-SAME:    %{{[^:]*}}: tensor<1x8x256xf32>, %{{[^:]*}}: tensor<1x8x256xf32>, %[[D:[^:]*]]: tensor<1x8x256xf32>)
// FOLD-NOT:     tensor.empty() : tensor<1x8x256xf32>
// FOLD:         %[[FORALL:.*]] = scf.forall (%[[START:[^)]*]]) = (0) to (256) step (64) shared_outs(%[[SHARED:.*]] = %[[D]]) -> (tensor<1x8x256xf32>)
// FOLD:           tensor.extract_slice %[[SHARED]][0, 0, %[[START]]] [1, 8, 64] [1, 1, 1]
// FOLD:         return %[[FORALL]]
func.func @outs(%a: tensor<1x8x256xf32>, %b: tensor<1x8x256xf32>, %d: tensor<1x8x256xf32>) -> tensor<1x8x256xf32> {
  %h = recurrence.scan diagonal schedule sequential transition(%a : tensor<1x8x256xf32>) input(%b : tensor<1x8x256xf32>) outs(%d : tensor<1x8x256xf32>) -> tensor<1x8x256xf32>
  return %h : tensor<1x8x256xf32>
}

// Not tiled: dense and dplr mix channels, a readout sums over them. Each
// keeps a forall over the batch alone, around its time loop on whole states.
// CHECK-LABEL: func.func @not_tiled(
// CHECK-NOT:     arith.minui
// CHECK:         scf.forall (%{{[^,]*}}) in (2) shared_outs(
// CHECK:           scf.for {{.*}} -> (tensor<256x1xf32>, tensor<8x256xf32>)
// CHECK:           linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<256x256xf32>, tensor<256x1xf32>)
// CHECK:         scf.forall (%{{[^,]*}}) in (2) shared_outs(
// CHECK:           scf.for {{.*}} -> (tensor<256x1xf32>, tensor<8x256xf32>)
// CHECK:         scf.forall (%{{[^,]*}}) in (2) shared_outs(
// CHECK:           scf.for {{.*}} -> (tensor<256x1xf32>, tensor<8xf32>)
// CHECK-NOT:     to tensor<1x8x?xf32>
// CHECK:         return
func.func @not_tiled(%A: tensor<2x8x256x256xf32>, %d: tensor<2x8x256xf32>, %u: tensor<2x8x256x1xf32>, %b: tensor<2x8x256xf32>, %c: tensor<2x8x256xf32>) -> (tensor<2x8x256xf32>, tensor<2x8x256xf32>, tensor<2x8xf32>) {
  %dest0 = tensor.empty() : tensor<2x8x256xf32>
  %0 = recurrence.scan dense schedule sequential transition(%A : tensor<2x8x256x256xf32>) input(%b : tensor<2x8x256xf32>) outs(%dest0 : tensor<2x8x256xf32>) -> tensor<2x8x256xf32>
  %dest1 = tensor.empty() : tensor<2x8x256xf32>
  %1 = recurrence.scan dplr<1> schedule sequential transition(%d, %u, %u : tensor<2x8x256xf32>, tensor<2x8x256x1xf32>, tensor<2x8x256x1xf32>) input(%b : tensor<2x8x256xf32>) outs(%dest1 : tensor<2x8x256xf32>) -> tensor<2x8x256xf32>
  %dest2 = tensor.empty() : tensor<2x8xf32>
  %2 = recurrence.scan diagonal schedule sequential transition(%d : tensor<2x8x256xf32>) input(%b : tensor<2x8x256xf32>) readout(%c : tensor<2x8x256xf32>) outs(%dest2 : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %0, %1, %2 : tensor<2x8x256xf32>, tensor<2x8x256xf32>, tensor<2x8xf32>
}
