// RUN: recurrence-opt %s -split-input-file -recurrence-vectorize-block-steps -canonicalize | FileCheck %s
// RUN: recurrence-opt %s -split-input-file -recurrence-vectorize-block-steps="vector-bits=256" -canonicalize | FileCheck %s --check-prefix=AVX2

#a = affine_map<(g, i, d, j) -> (g, i, j)>
#h = affine_map<(g, i, d, j) -> (g, j, d)>
#o = affine_map<(g, i, d, j) -> (g, i, d)>

// 128 blocks of 4 x 4 in f32: 32 groups of 4 blocks (8 groups of 2 at 256
// bits), nothing left over. Term j takes column j of each block and each
// block's state element j, and adds in the generic's order and flags.
// CHECK-LABEL: func.func @whole_groups
// CHECK-DAG:     %[[A:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<128x4x4xf32> into tensor<2048xf32>
// CHECK-DAG:     %[[H:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2]] : tensor<128x4x1xf32> into tensor<512xf32>
// CHECK-DAG:     %[[X:.*]] = tensor.collapse_shape %arg2 {{\[\[}}0, 1, 2]] : tensor<128x4x1xf32> into tensor<512xf32>
// CHECK:         %[[LOOP:.*]] = scf.for %[[G:.*]] = %c0 to %c128 step %c4 iter_args(%[[O:.*]] = %[[X]])
// CHECK-DAG:       %[[SOFF:.*]] = arith.muli %[[G]], %c4
// CHECK-DAG:       %[[AOFF:.*]] = arith.muli %[[G]], %c16
// CHECK-DAG:       %[[AV:.*]] = vector.transfer_read %[[A]][%[[AOFF]]], %{{.*}} {in_bounds = [true]} : tensor<2048xf32>, vector<64xf32>
// CHECK-DAG:       %[[HV:.*]] = vector.transfer_read %[[H]][%[[SOFF]]], %{{.*}} {in_bounds = [true]} : tensor<512xf32>, vector<16xf32>
// CHECK-DAG:       %[[XV:.*]] = vector.transfer_read %[[O]][%[[SOFF]]], %{{.*}} {in_bounds = [true]} : tensor<512xf32>, vector<16xf32>
// CHECK:           %[[C0:.*]] = vector.shuffle %[[AV]], %[[AV]] [0, 4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44, 48, 52, 56, 60]
// CHECK:           %[[H0:.*]] = vector.shuffle %[[HV]], %[[HV]] [0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12]
// CHECK:           %[[P0:.*]] = arith.mulf %[[C0]], %[[H0]] : vector<16xf32>
// CHECK:           %[[S0:.*]] = arith.addf %[[XV]], %[[P0]] fastmath<reassoc> : vector<16xf32>
// CHECK:           vector.shuffle %[[AV]], %[[AV]] [1, 5, 9, 13, 17, 21, 25, 29, 33, 37, 41, 45, 49, 53, 57, 61]
// CHECK:           vector.shuffle %[[HV]], %[[HV]] [1, 1, 1, 1, 5, 5, 5, 5, 9, 9, 9, 9, 13, 13, 13, 13]
// CHECK:           arith.addf %[[S0]]
// CHECK:           vector.shuffle %[[AV]], %[[AV]] [2, 6,
// CHECK:           vector.shuffle %[[AV]], %[[AV]] [3, 7,
// CHECK:           %[[S3:.*]] = arith.addf {{.*}} fastmath<reassoc> : vector<16xf32>
// CHECK:           %[[W:.*]] = vector.transfer_write %[[S3]], %[[O]][%[[SOFF]]] {in_bounds = [true]} : vector<16xf32>, tensor<512xf32>
// CHECK:           scf.yield %[[W]]
// CHECK:         %[[R:.*]] = tensor.expand_shape %[[LOOP]] {{\[\[}}0, 1, 2]] output_shape [128, 4, 1]
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[R]]
// AVX2-LABEL: func.func @whole_groups
// AVX2:         scf.for %{{.*}} = %c0 to %c128 step %c2
// AVX2:           vector.transfer_read {{.*}} vector<32xf32>
// AVX2:           vector.shuffle {{.*}} [0, 4, 8, 12, 16, 20, 24, 28] : vector<32xf32>, vector<32xf32>
// AVX2-NOT:     linalg.generic
// AVX2:         return
func.func @whole_groups(%A: tensor<128x4x4xf32>, %h: tensor<128x4x1xf32>, %x: tensor<128x4x1xf32>) -> tensor<128x4x1xf32> {
  %r = linalg.generic {indexing_maps = [#a, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A, %h : tensor<128x4x4xf32>, tensor<128x4x1xf32>) outs(%x : tensor<128x4x1xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %p = arith.mulf %av, %hv : f32
    %s = arith.addf %out, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<128x4x1xf32>
  return %r : tensor<128x4x1xf32>
}

// -----

#a = affine_map<(g, i, d, j) -> (g, i, j)>
#h = affine_map<(g, i, d, j) -> (g, j, d)>
#o = affine_map<(g, i, d, j) -> (g, i, d)>

// 13 blocks of 2 x 2 in f64, 4 to a group: 3 groups, and the 13th block by
// the original generic on its slices.
// CHECK-LABEL: func.func @left_over
// CHECK:         %[[LOOP:.*]] = scf.for %{{.*}} = %c0 to %c12 step %c4
// CHECK:           vector.transfer_read {{.*}} : tensor<52xf64>, vector<16xf64>
// CHECK:           vector.shuffle {{.*}} [0, 2, 4, 6, 8, 10, 12, 14] : vector<16xf64>, vector<16xf64>
// CHECK:           vector.shuffle {{.*}} [1, 3, 5, 7, 9, 11, 13, 15] : vector<16xf64>, vector<16xf64>
// CHECK:         %[[WHOLE:.*]] = tensor.expand_shape %[[LOOP]] {{\[\[}}0, 1, 2]] output_shape [13, 2, 1]
// CHECK-DAG:     %[[RA:.*]] = tensor.extract_slice %arg0[12, 0, 0] [1, 2, 2] [1, 1, 1]
// CHECK-DAG:     %[[RH:.*]] = tensor.extract_slice %arg1[12, 0, 0] [1, 2, 1] [1, 1, 1]
// CHECK-DAG:     %[[RO:.*]] = tensor.extract_slice %[[WHOLE]][12, 0, 0] [1, 2, 1] [1, 1, 1]
// CHECK:         %[[REST:.*]] = linalg.generic {{.*}} ins(%[[RA]], %[[RH]] : tensor<1x2x2xf64>, tensor<1x2x1xf64>) outs(%[[RO]] : tensor<1x2x1xf64>)
// CHECK:         %[[R:.*]] = tensor.insert_slice %[[REST]] into %[[WHOLE]][12, 0, 0] [1, 2, 1] [1, 1, 1]
// CHECK:         return %[[R]]
func.func @left_over(%A: tensor<13x2x2xf64>, %h: tensor<13x2x1xf64>, %x: tensor<13x2x1xf64>) -> tensor<13x2x1xf64> {
  %r = linalg.generic {indexing_maps = [#a, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A, %h : tensor<13x2x2xf64>, tensor<13x2x1xf64>) outs(%x : tensor<13x2x1xf64>) {
  ^bb0(%av: f64, %hv: f64, %out: f64):
    %p = arith.mulf %hv, %av : f64
    %s = arith.addf %p, %out : f64
    linalg.yield %s : f64
  } -> tensor<13x2x1xf64>
  return %r : tensor<13x2x1xf64>
}

// -----

#a = affine_map<(g, i, d, j) -> (g, i, j)>
#h = affine_map<(g, i, d, j) -> (g, j, d)>
#o = affine_map<(g, i, d, j) -> (g, i, d)>

// Blocks counted at run time: whole groups up to (G / 4) * 4, the rest after.
// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[G:.*]] = tensor.dim %arg0, %c0
// CHECK:         %[[Q:.*]] = arith.divui %[[G]], %c4
// CHECK:         %[[WHOLE:.*]] = arith.muli %[[Q]], %c4
// CHECK:         %[[LOOP:.*]] = scf.for %{{.*}} = %c0 to %[[WHOLE]] step %c4
// CHECK:           vector.transfer_read {{.*}} : tensor<?xf32>, vector<64xf32>
// CHECK:         %[[LEFT:.*]] = arith.subi %[[G]], %[[WHOLE]]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<?x4x1xf32>)
// CHECK:         tensor.insert_slice {{.*}}[%[[WHOLE]], 0, 0] [%[[LEFT]], 4, 1] [1, 1, 1]
func.func @dynamic(%A: tensor<?x4x4xf32>, %h: tensor<?x4x1xf32>, %x: tensor<?x4x1xf32>) -> tensor<?x4x1xf32> {
  %r = linalg.generic {indexing_maps = [#a, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A, %h : tensor<?x4x4xf32>, tensor<?x4x1xf32>) outs(%x : tensor<?x4x1xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %p = arith.mulf %av, %hv : f32
    %s = arith.addf %out, %p fastmath<reassoc> : f32
    linalg.yield %s : f32
  } -> tensor<?x4x1xf32>
  return %r : tensor<?x4x1xf32>
}

// -----

#a = affine_map<(g, i, d, j) -> (g, i, j)>
#at = affine_map<(g, i, d, j) -> (g, j, i)>
#h = affine_map<(g, i, d, j) -> (g, j, d)>
#o = affine_map<(g, i, d, j) -> (g, i, d)>

// Left alone: blocks larger than max-block, blocks that do not fill a
// vector, a matrix state (D > 1), transposed blocks, another body.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     vector.
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT:     vector.
func.func @left_alone(%A8: tensor<8x8x8xf32>, %h8: tensor<8x8x1xf32>,
                      %A3: tensor<8x3x3xf32>, %h3: tensor<8x3x1xf32>,
                      %A4: tensor<8x4x4xf32>, %h4: tensor<8x4x2xf32>,
                      %g4: tensor<8x4x1xf32>)
    -> (tensor<8x8x1xf32>, tensor<8x3x1xf32>, tensor<8x4x2xf32>, tensor<8x4x1xf32>, tensor<8x4x1xf32>) {
  %r8 = linalg.generic {indexing_maps = [#a, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A8, %h8 : tensor<8x8x8xf32>, tensor<8x8x1xf32>) outs(%h8 : tensor<8x8x1xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %p = arith.mulf %av, %hv : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8x1xf32>
  %r3 = linalg.generic {indexing_maps = [#a, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A3, %h3 : tensor<8x3x3xf32>, tensor<8x3x1xf32>) outs(%h3 : tensor<8x3x1xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %p = arith.mulf %av, %hv : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x3x1xf32>
  %rd = linalg.generic {indexing_maps = [#a, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A4, %h4 : tensor<8x4x4xf32>, tensor<8x4x2xf32>) outs(%h4 : tensor<8x4x2xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %p = arith.mulf %av, %hv : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4x2xf32>
  %rt = linalg.generic {indexing_maps = [#at, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A4, %g4 : tensor<8x4x4xf32>, tensor<8x4x1xf32>) outs(%g4 : tensor<8x4x1xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %p = arith.mulf %av, %hv : f32
    %s = arith.addf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4x1xf32>
  %rs = linalg.generic {indexing_maps = [#a, #h, #o], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%A4, %g4 : tensor<8x4x4xf32>, tensor<8x4x1xf32>) outs(%g4 : tensor<8x4x1xf32>) {
  ^bb0(%av: f32, %hv: f32, %out: f32):
    %p = arith.mulf %av, %hv : f32
    %s = arith.subf %out, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x4x1xf32>
  return %r8, %r3, %rd, %rt, %rs : tensor<8x8x1xf32>, tensor<8x3x1xf32>, tensor<8x4x2xf32>, tensor<8x4x1xf32>, tensor<8x4x1xf32>
}
