// recurrence-run on block_diagonal<2> and <4> scans at static sizes, whose
// steps the CPU pipeline multiplies a vector register of blocks at a time
// (-recurrence-vectorize-block-steps): 15 blocks of 4 in f32 are 3 groups
// of 4 and 3 blocks left over, 13 blocks of 2 in f64 are 3 groups of 4 and
// one left over; each is checked against the float64 reference, and the
// derived gradient (whose forward steps take the same path) against
// central differences.
//
// RUN: recurrence-run %s --entry blocks4 | FileCheck %s --check-prefix=B4
// RUN: recurrence-run %s --entry blocks2 --seed 3 | FileCheck %s --check-prefix=B2
// RUN: recurrence-opt %s -recurrence-differentiate | recurrence-run - --entry blocks2_grad | FileCheck %s --check-prefix=GRAD
// RUN: recurrence-opt %s -recurrence-to-llvm -mlir-print-ir-after=recurrence-vectorize-block-steps -mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=IR
// RUN: recurrence-opt %s -recurrence-to-llvm="vector-bits=256" -mlir-print-ir-after=recurrence-vectorize-block-steps -mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=AVX2
// RUN: recurrence-opt %s -recurrence-to-llvm="vector-bits=0" -mlir-print-ir-after-all -mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=NONE

// The pipeline's vector-bits (512 unless given; the JIT gives its host's)
// sets the group: 2 blocks of 4 x 4 floats at 256 bits; 0 vectorizes none.
// AVX2-LABEL: func.func @blocks4
// AVX2:         vector.transfer_read {{.*}} vector<32xf32>
// AVX2-LABEL: func.func @blocks2
// AVX2:         vector.transfer_read {{.*}} vector<8xf64>
// NONE-NOT: VectorizeBlockStepsPass
// NONE-NOT: vector.shuffle

// IR-LABEL: func.func @blocks4
// IR:         vector.transfer_read {{.*}} vector<64xf32>
// IR-LABEL: func.func @blocks2
// IR:         vector.transfer_read {{.*}} vector<16xf64>

// B4: example {{.*}} @blocks4
// B4: result #0 ok
// B4: result #1 ok
func.func @blocks4(%a: tensor<2x9x15x4x4xf32>, %b: tensor<2x9x60xf32>, %h0: tensor<2x60xf32>) -> (tensor<2x9x60xf32>, tensor<2x60xf32>) {
  %h_dest = tensor.empty() : tensor<2x9x60xf32>
  %f_dest = tensor.empty() : tensor<2x60xf32>
  %h, %f = recurrence.scan block_diagonal<4> schedule sequential transition(%a : tensor<2x9x15x4x4xf32>) input(%b : tensor<2x9x60xf32>) init(%h0 : tensor<2x60xf32>) outs(%h_dest, %f_dest : tensor<2x9x60xf32>, tensor<2x60xf32>) -> tensor<2x9x60xf32>, tensor<2x60xf32>
  return %h, %f : tensor<2x9x60xf32>, tensor<2x60xf32>
}

// B2: example {{.*}} @blocks2
// B2: result #0 ok
// GRAD: gradient
// GRAD: argument #0 ok
// GRAD: argument #1 ok
// GRAD-NOT: FAIL
func.func @blocks2(%a: tensor<3x7x13x2x2xf64>, %b: tensor<3x7x26xf64>) -> tensor<3x7x26xf64> {
  %h_dest = tensor.empty() : tensor<3x7x26xf64>
  %h = recurrence.scan block_diagonal<2> reverse transition(%a : tensor<3x7x13x2x2xf64>) input(%b : tensor<3x7x26xf64>) outs(%h_dest : tensor<3x7x26xf64>) -> tensor<3x7x26xf64>
  return %h : tensor<3x7x26xf64>
}
