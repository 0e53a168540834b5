// bf16 and f16 operands with an f32 state (`accumulate(f32)`), under every
// schedule, run by recurrence-run against the float64 reference on the same
// (rounded) operands. The f32 final state matches to f32 roundoff, which a
// state held in bf16 would miss by orders of magnitude; the output, stored
// in the operands' type, to that type's rounding.
//
// RUN: for f in diagonal_seq diagonal_chunked diagonal_scan blocks_seq blocks_chunked blocks_scan; do \
// RUN:   recurrence-run %s --entry $f; done | FileCheck %s
//
// The sequential lowering extends each operand row when it loads it and
// rounds the state into the output row when it stores it.
// RUN: recurrence-opt %s --recurrence-lower-sequential \
// RUN:   | FileCheck %s --check-prefix=LOWERED

// CHECK-COUNT-6: result #0 ok
// CHECK-NOT: FAIL

// LOWERED-LABEL: func.func @diagonal_seq
// LOWERED: linalg.copy ins(%{{.*}} : tensor<8xbf16>) outs(%{{.*}} : tensor<8xf32>)
// LOWERED: linalg.copy ins(%{{.*}} : tensor<8xbf16>) outs(%{{.*}} : tensor<8xf32>)
// LOWERED: linalg.copy ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xbf16>)
// LOWERED-LABEL: func.func @blocks_seq
// LOWERED: linalg.copy ins(%{{.*}} : tensor<2x2x2xf16>) outs(%{{.*}} : tensor<2x2x2xf32>)
// LOWERED: linalg.copy ins(%{{.*}} : tensor<5xf32>) outs(%{{.*}} : tensor<5xf16>)

func.func @diagonal_seq(%a: tensor<2x37x8xbf16>, %b: tensor<2x37x8xbf16>, %h0: tensor<2x8xf32>) -> (tensor<2x37x8xbf16>, tensor<2x8xf32>) {
  %h_dest = tensor.empty() : tensor<2x37x8xbf16>
  %last_dest = tensor.empty() : tensor<2x8xf32>
  %h, %last = recurrence.scan diagonal schedule sequential accumulate(f32) transition(%a : tensor<2x37x8xbf16>) input(%b : tensor<2x37x8xbf16>) init(%h0 : tensor<2x8xf32>) outs(%h_dest, %last_dest : tensor<2x37x8xbf16>, tensor<2x8xf32>) -> tensor<2x37x8xbf16>, tensor<2x8xf32>
  return %h, %last : tensor<2x37x8xbf16>, tensor<2x8xf32>
}

func.func @diagonal_chunked(%a: tensor<2x37x8xbf16>, %b: tensor<2x37x8xbf16>, %h0: tensor<2x8xf32>) -> (tensor<2x37x8xbf16>, tensor<2x8xf32>) {
  %h_dest = tensor.empty() : tensor<2x37x8xbf16>
  %last_dest = tensor.empty() : tensor<2x8xf32>
  %h, %last = recurrence.scan diagonal schedule chunked<8> accumulate(f32) transition(%a : tensor<2x37x8xbf16>) input(%b : tensor<2x37x8xbf16>) init(%h0 : tensor<2x8xf32>) outs(%h_dest, %last_dest : tensor<2x37x8xbf16>, tensor<2x8xf32>) -> tensor<2x37x8xbf16>, tensor<2x8xf32>
  return %h, %last : tensor<2x37x8xbf16>, tensor<2x8xf32>
}

func.func @diagonal_scan(%a: tensor<2x37x8xbf16>, %b: tensor<2x37x8xbf16>, %h0: tensor<2x8xf32>) -> (tensor<2x37x8xbf16>, tensor<2x8xf32>) {
  %h_dest = tensor.empty() : tensor<2x37x8xbf16>
  %last_dest = tensor.empty() : tensor<2x8xf32>
  %h, %last = recurrence.scan diagonal schedule scan accumulate(f32) transition(%a : tensor<2x37x8xbf16>) input(%b : tensor<2x37x8xbf16>) init(%h0 : tensor<2x8xf32>) outs(%h_dest, %last_dest : tensor<2x37x8xbf16>, tensor<2x8xf32>) -> tensor<2x37x8xbf16>, tensor<2x8xf32>
  return %h, %last : tensor<2x37x8xbf16>, tensor<2x8xf32>
}

// block_diagonal<2>, a factored matrix state read out, reversed, in f16.
func.func @blocks_seq(%a: tensor<3x21x2x2x2xf16>, %k: tensor<3x21x4xf16>, %v: tensor<3x21x5xf16>, %c: tensor<3x21x4xf16>) -> (tensor<3x21x5xf16>, tensor<3x4x5xf32>) {
  %y_dest = tensor.empty() : tensor<3x21x5xf16>
  %last_dest = tensor.empty() : tensor<3x4x5xf32>
  %y, %last = recurrence.scan block_diagonal<2> schedule sequential matrix reverse accumulate(f32) transition(%a : tensor<3x21x2x2x2xf16>) factored_input(%k, %v : tensor<3x21x4xf16>, tensor<3x21x5xf16>) readout(%c : tensor<3x21x4xf16>) outs(%y_dest, %last_dest : tensor<3x21x5xf16>, tensor<3x4x5xf32>) -> tensor<3x21x5xf16>, tensor<3x4x5xf32>
  return %y, %last : tensor<3x21x5xf16>, tensor<3x4x5xf32>
}

func.func @blocks_chunked(%a: tensor<3x21x2x2x2xf16>, %k: tensor<3x21x4xf16>, %v: tensor<3x21x5xf16>, %c: tensor<3x21x4xf16>) -> (tensor<3x21x5xf16>, tensor<3x4x5xf32>) {
  %y_dest = tensor.empty() : tensor<3x21x5xf16>
  %last_dest = tensor.empty() : tensor<3x4x5xf32>
  %y, %last = recurrence.scan block_diagonal<2> schedule chunked<4> matrix reverse accumulate(f32) transition(%a : tensor<3x21x2x2x2xf16>) factored_input(%k, %v : tensor<3x21x4xf16>, tensor<3x21x5xf16>) readout(%c : tensor<3x21x4xf16>) outs(%y_dest, %last_dest : tensor<3x21x5xf16>, tensor<3x4x5xf32>) -> tensor<3x21x5xf16>, tensor<3x4x5xf32>
  return %y, %last : tensor<3x21x5xf16>, tensor<3x4x5xf32>
}

func.func @blocks_scan(%a: tensor<3x21x2x2x2xf16>, %k: tensor<3x21x4xf16>, %v: tensor<3x21x5xf16>, %c: tensor<3x21x4xf16>) -> (tensor<3x21x5xf16>, tensor<3x4x5xf32>) {
  %y_dest = tensor.empty() : tensor<3x21x5xf16>
  %last_dest = tensor.empty() : tensor<3x4x5xf32>
  %y, %last = recurrence.scan block_diagonal<2> schedule scan matrix reverse accumulate(f32) transition(%a : tensor<3x21x2x2x2xf16>) factored_input(%k, %v : tensor<3x21x4xf16>, tensor<3x21x5xf16>) readout(%c : tensor<3x21x4xf16>) outs(%y_dest, %last_dest : tensor<3x21x5xf16>, tensor<3x4x5xf32>) -> tensor<3x21x5xf16>, tensor<3x4x5xf32>
  return %y, %last : tensor<3x21x5xf16>, tensor<3x4x5xf32>
}
