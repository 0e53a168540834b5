// Every parse and verify error of recurrence.scan and of the recurrence
// attributes, with the exact text that is printed.
//
// RUN: recurrence-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Structure keyword inside recurrence.scan
//===----------------------------------------------------------------------===//

func.func @unknown_structure(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' unknown structure 'triangular'}}
  %h = recurrence.scan triangular input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @structure_missing_param(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' structure 'block_diagonal' needs a parameter, e.g. block_diagonal<4>}}
  %h = recurrence.scan block_diagonal input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// A zero parameter is reported like a missing one.
func.func @structure_zero_param(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' structure 'higher_order' needs a parameter of at least 1, got 0}}
  %h = recurrence.scan higher_order<0> input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @structure_negative_param(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' structure 'dplr' needs a parameter of at least 1, got -1}}
  %h = recurrence.scan dplr<-1> input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @structure_unexpected_param(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' structure 'identity' takes no parameter}}
  %h = recurrence.scan identity<2> input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @structure_param_not_integer(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{expected integer value}}
  %h = recurrence.scan block_diagonal<m> input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Schedule keyword inside recurrence.scan
//===----------------------------------------------------------------------===//

func.func @unknown_schedule(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' unknown schedule 'parallel'}}
  %h = recurrence.scan identity schedule parallel input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @chunked_zero(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' schedule 'chunked' needs a chunk size of at least 1, got 0}}
  %h = recurrence.scan identity schedule chunked<0> input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @chunked_without_size(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' schedule 'chunked' needs a parameter, e.g. chunked<4>}}
  %h = recurrence.scan identity schedule chunked input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @schedule_unexpected_size(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{custom op 'recurrence.scan' schedule 'sequential' takes no parameter}}
  %h = recurrence.scan identity schedule sequential<4> input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Standalone attributes
//===----------------------------------------------------------------------===//

// expected-error @+1 {{unknown attribute `foo` in dialect `recurrence`}}
func.func private @attr_unknown_structure() attributes {s = #recurrence.foo}

// -----

// expected-error @+1 {{structure 'block_diagonal' needs a parameter, e.g. block_diagonal<4>}}
func.func private @attr_missing_param() attributes {s = #recurrence.block_diagonal}

// -----

// expected-error @+1 {{structure 'dense' takes no parameter}}
func.func private @attr_unexpected_param() attributes {s = #recurrence.dense<3>}

// -----

// expected-error @+1 {{structure 'block_diagonal' needs a parameter of at least 1, got -4}}
func.func private @attr_negative_param() attributes {s = #recurrence.block_diagonal<-4>}

// -----

// expected-error @+1 {{integer value too large}}
func.func private @attr_param_overflow() attributes {s = #recurrence.higher_order<99999999999999999999>}

// -----

// expected-error @+1 {{unknown schedule 'fast'}}
func.func private @attr_unknown_schedule() attributes {s = #recurrence.schedule<fast>}

// -----

// expected-error @+1 {{schedule 'chunked' needs a chunk size of at least 1, got 0}}
func.func private @attr_chunked_zero() attributes {s = #recurrence.schedule<chunked<0>>}

// -----

// expected-error @+1 {{schedule 'chunked' needs a chunk size of at least 1, got -5}}
func.func private @attr_chunked_negative() attributes {s = #recurrence.schedule<chunked<-5>>}

// -----

// expected-error @+1 {{schedule 'auto' takes no parameter}}
func.func private @attr_schedule_unexpected_size() attributes {s = #recurrence.schedule<auto<1>>}

// -----

// expected-error @+1 {{unknown attribute `frobnicate` in dialect `recurrence`}}
func.func private @attr_unknown_mnemonic() attributes {s = #recurrence.frobnicate<dense>}

// -----

//===----------------------------------------------------------------------===//
// Input: exactly one of input(%b) and factored_input(%k, %v)
//===----------------------------------------------------------------------===//

// The custom syntax cannot say both; the generic form can.
func.func @both_inputs(%b: tensor<2x8x4x3xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op takes either `input` or `factored_input`, not both}}
  %h = "recurrence.scan"(%b, %k, %v, %h_dest) <{matrix, operandSegmentSizes = array<i32: 0, 1, 1, 1, 0, 0, 0, 1>, structure = #recurrence.identity}> : (tensor<2x8x4x3xf32>, tensor<2x8x4xf32>, tensor<2x8x3xf32>, tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

// An input with a stray factored value counts as both.
func.func @input_and_value(%b: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op takes either `input` or `factored_input`, not both}}
  %h = "recurrence.scan"(%b, %v, %h_dest) <{operandSegmentSizes = array<i32: 0, 1, 0, 1, 0, 0, 0, 1>, structure = #recurrence.identity}> : (tensor<2x8x4xf32>, tensor<2x8x3xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @no_input(%a: tensor<2x8xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op needs an input: `input(%b)` or `factored_input(%k, %v)`}}
  %h = recurrence.scan scalar transition(%a : tensor<2x8xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// A key alone is not a factored input.
func.func @key_without_value(%k: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op `factored_input` needs both a key and a value}}
  %h = "recurrence.scan"(%k, %h_dest) <{matrix, operandSegmentSizes = array<i32: 0, 0, 1, 0, 0, 0, 0, 1>, structure = #recurrence.identity}> : (tensor<2x8x4xf32>, tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

func.func @factored_input_without_matrix(%k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op `factored_input` builds b_t = k_t v_t^T, which needs a matrix state: add the `matrix` keyword}}
  %h = recurrence.scan identity factored_input(%k, %v : tensor<2x8x4xf32>, tensor<2x8x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Element types: floats only, and one for every operand and result
//===----------------------------------------------------------------------===//

func.func @integer_elements(%b: tensor<2x8x4xi32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xi32>
  // expected-error @+1 {{'recurrence.scan' op operand #0 must be ranked tensor of floating-point values, but got 'tensor<2x8x4xi32>'}}
  %h = recurrence.scan identity input(%b : tensor<2x8x4xi32>) outs(%h_dest : tensor<2x8x4xi32>) -> tensor<2x8x4xi32>
  return
}

// -----

func.func @transition_element_type(%a: tensor<2x8xf16>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of element type 'f32' (that of the input), got 'f16'}}
  %h = recurrence.scan scalar transition(%a : tensor<2x8xf16>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @readout_element_type(%a: tensor<2x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x8x4xf64>) {
  %h_dest = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{'recurrence.scan' op expected readout of element type 'f32' (that of the input), got 'f64'}}
  %h = recurrence.scan scalar transition(%a : tensor<2x8xf32>) input(%b : tensor<2x8x4xf32>) readout(%c : tensor<2x8x4xf64>) outs(%h_dest : tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

// The output fixes the element type, so an odd output blames operand #0.
func.func @output_element_type(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf64>
  // expected-error @+1 {{'recurrence.scan' op expected output of element type 'f32' (that of the input), got 'f64'}}
  %h = recurrence.scan identity input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf64>) -> tensor<2x8x4xf64>
  return
}

// -----

func.func @final_state_element_type(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x4xbf16>
  // expected-error @+1 {{'recurrence.scan' op expected final state of element type 'f32' (that of the input), got 'bf16'}}
  %h, %last = recurrence.scan identity input(%b : tensor<2x8x4xf32>) outs(%h_dest, %last_dest : tensor<2x8x4xf32>, tensor<2x4xbf16>) -> tensor<2x8x4xf32>, tensor<2x4xbf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Ranks of the tensor that fixes batch dims, T, N (and D)
//===----------------------------------------------------------------------===//

func.func @input_rank_too_small(%b: tensor<8xf32>) {
  %h_dest = tensor.empty() : tensor<8xf32>
  // expected-error @+1 {{'recurrence.scan' op expected input of rank at least 2 ([..., T, N]), got rank 1}}
  %h = recurrence.scan identity input(%b : tensor<8xf32>) outs(%h_dest : tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @matrix_input_rank_too_small(%b: tensor<8x4xf32>) {
  %h_dest = tensor.empty() : tensor<8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected input of rank at least 3 ([..., T, N, D]), got rank 2}}
  %h = recurrence.scan identity matrix input(%b : tensor<8x4xf32>) outs(%h_dest : tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @factored_key_rank_too_small(%k: tensor<8xf32>, %v: tensor<8x3xf32>) {
  %h_dest = tensor.empty() : tensor<8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op expected factored input key of rank at least 2 ([..., T, N]), got rank 1}}
  %h = recurrence.scan identity matrix factored_input(%k, %v : tensor<8xf32>, tensor<8x3xf32>) outs(%h_dest : tensor<8x4x3xf32>) -> tensor<8x4x3xf32>
  return
}

// -----

func.func @factored_value_rank(%k: tensor<2x8x4xf32>, %v: tensor<8x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op expected factored input value of rank 3 ([..., T, D]), got rank 2}}
  %h = recurrence.scan identity matrix factored_input(%k, %v : tensor<2x8x4xf32>, tensor<8x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Transition operand count and block size
//===----------------------------------------------------------------------===//

func.func @dplr_operand_count(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op structure 'dplr<1>' takes 3 transition operand(s), got 1}}
  %h = recurrence.scan dplr<1> transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @identity_operand_count(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op structure 'identity' takes 0 transition operand(s), got 1}}
  %h = recurrence.scan identity transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @diagonal_operand_count(%b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op structure 'diagonal' takes 1 transition operand(s), got 0}}
  %h = recurrence.scan diagonal input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @block_size_divides_n(%A: tensor<2x8x2x4x4xf32>, %b: tensor<2x8x6xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x6xf32>
  // expected-error @+1 {{'recurrence.scan' op block_diagonal<4> needs a state size N divisible by 4, got N = 6}}
  %h = recurrence.scan block_diagonal<4> transition(%A : tensor<2x8x2x4x4xf32>) input(%b : tensor<2x8x6xf32>) outs(%h_dest : tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Transition shapes, one per structure
//===----------------------------------------------------------------------===//

func.func @scalar_shape(%a: tensor<2x7xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8] for scalar with N = 4, got [2, 7]}}
  %h = recurrence.scan scalar transition(%a : tensor<2x7xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @diagonal_shape(%a: tensor<2x8x5xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4] for diagonal with N = 4, got [2, 8, 5]}}
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x5xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// A per-element diagonal needs a matrix state.
func.func @per_element_diagonal_without_matrix(%a: tensor<2x8x4x3xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4] for diagonal with N = 4, got [2, 8, 4, 3]}}
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4x3xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @per_element_diagonal_shape(%a: tensor<2x8x4x2xf32>, %b: tensor<2x8x4x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4, 3] for diagonal with N = 4, D = 3, got [2, 8, 4, 2]}}
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4x2xf32>) input(%b : tensor<2x8x4x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

func.func @block_diagonal_shape(%A: tensor<2x8x2x2x2xf32>, %b: tensor<2x8x8xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x8xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4, 2, 2] for block_diagonal<2> with N = 8, got [2, 8, 2, 2, 2]}}
  %h = recurrence.scan block_diagonal<2> transition(%A : tensor<2x8x2x2x2xf32>) input(%b : tensor<2x8x8xf32>) outs(%h_dest : tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return
}

// -----

// With N unknown the block count is unknown too, but m is still checked.
func.func @block_diagonal_dynamic_n(%A: tensor<2x8x3x4x2xf32>, %b: tensor<2x8x?xf32>) {
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %b, %c2 : tensor<2x8x?xf32>
  %h_dest = tensor.empty(%d0) : tensor<2x8x?xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, ?, 4, 4] for block_diagonal<4> with N = ?, got [2, 8, 3, 4, 2]}}
  %h = recurrence.scan block_diagonal<4> transition(%A : tensor<2x8x3x4x2xf32>) input(%b : tensor<2x8x?xf32>) outs(%h_dest : tensor<2x8x?xf32>) -> tensor<2x8x?xf32>
  return
}

// -----

func.func @dplr_diagonal_shape(%d: tensor<2x8x5xf32>, %u: tensor<2x8x4x2xf32>, %v: tensor<2x8x4x2xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4] for dplr<2> with N = 4, got [2, 8, 5]}}
  %h = recurrence.scan dplr<2> transition(%d, %u, %v : tensor<2x8x5xf32>, tensor<2x8x4x2xf32>, tensor<2x8x4x2xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @dplr_low_rank_shape(%d: tensor<2x8x4xf32>, %u: tensor<2x8x4x2xf32>, %v: tensor<2x8x4x1xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #2 of shape [2, 8, 4, 2] for dplr<2> with N = 4, got [2, 8, 4, 1]}}
  %h = recurrence.scan dplr<2> transition(%d, %u, %v : tensor<2x8x4xf32>, tensor<2x8x4x2xf32>, tensor<2x8x4x1xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @dense_shape(%A: tensor<2x8x4x3xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4, 4] for dense with N = 4, got [2, 8, 4, 3]}}
  %h = recurrence.scan dense transition(%A : tensor<2x8x4x3xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @higher_order_shape(%a: tensor<2x8x2x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 3, 4] for higher_order<3> with N = 4, got [2, 8, 2, 4]}}
  %h = recurrence.scan higher_order<3> transition(%a : tensor<2x8x2x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @transition_rank(%a: tensor<8x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4] for diagonal with N = 4, got [8, 4]}}
  %h = recurrence.scan diagonal transition(%a : tensor<8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// Dynamic sizes match anything, but known sizes must agree.
func.func @transition_shape_dynamic(%a: tensor<?x8x5xf32>, %b: tensor<2x?x4xf32>) {
  %c2 = arith.constant 2 : index
  %d1 = tensor.dim %b, %c2 : tensor<2x?x4xf32>
  %h_dest = tensor.empty(%d1) : tensor<2x8x?xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, ?, 4] for diagonal with N = 4, got [?, 8, 5]}}
  %h = recurrence.scan diagonal transition(%a : tensor<?x8x5xf32>) input(%b : tensor<2x?x4xf32>) outs(%h_dest : tensor<2x8x?xf32>) -> tensor<2x8x?xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Input shapes. The input (or the factored key) is what fixes the batch dims,
// T, N and D, so it always agrees with itself: a wrong input shows up as a
// mismatch of the operands that disagree with it.
//===----------------------------------------------------------------------===//

func.func @input_batch_disagrees(%a: tensor<3x8x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 4] for diagonal with N = 4, got [3, 8, 4]}}
  %h = recurrence.scan diagonal transition(%a : tensor<3x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @factored_key_disagrees(%a: tensor<2x8x4xf32>, %k: tensor<2x8x5xf32>, %v: tensor<2x8x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of shape [2, 8, 5] for diagonal with N = 5, D = 3, got [2, 8, 4]}}
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) factored_input(%k, %v : tensor<2x8x5xf32>, tensor<2x8x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

func.func @factored_value_shape(%a: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x9x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op expected factored input value of shape [2, 8, 3] for diagonal with N = 4, D = 3, got [2, 9, 3]}}
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) factored_input(%k, %v : tensor<2x8x4xf32>, tensor<2x9x3xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Init, readout, output and final state shapes
//===----------------------------------------------------------------------===//

func.func @init_shape(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %init: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected init of shape [2, 4] for diagonal with N = 4, got [2, 8, 4]}}
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) init(%init : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// A higher_order<m> init holds the m most recent states.
func.func @higher_order_init_shape(%a: tensor<2x8x2x4xf32>, %b: tensor<2x8x4xf32>, %init: tensor<2x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected init of shape [2, 2, 4] for higher_order<2> with N = 4, got [2, 4]}}
  %h = recurrence.scan higher_order<2> transition(%a : tensor<2x8x2x4xf32>) input(%b : tensor<2x8x4xf32>) init(%init : tensor<2x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @matrix_init_shape(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4x3xf32>, %init: tensor<2x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op expected init of shape [2, 4, 3] for diagonal with N = 4, D = 3, got [2, 4]}}
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4x3xf32>) init(%init : tensor<2x4xf32>) outs(%h_dest : tensor<2x8x4x3xf32>) -> tensor<2x8x4x3xf32>
  return
}

// -----

func.func @readout_shape(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x8xf32>) {
  %y_dest = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{'recurrence.scan' op expected readout of shape [2, 8, 4] for diagonal with N = 4, got [2, 8]}}
  %y = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) readout(%c : tensor<2x8xf32>) outs(%y_dest : tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @output_shape(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x5xf32>
  // expected-error @+1 {{'recurrence.scan' op expected output of shape [2, 8, 4] for diagonal with N = 4, got [2, 8, 5]}}
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x5xf32>) -> tensor<2x8x5xf32>
  return
}

// -----

func.func @matrix_output_shape(%a: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected output of shape [2, 8, 4, 3] for diagonal with N = 4, D = 3, got [2, 8, 4]}}
  %h = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) factored_input(%k, %v : tensor<2x8x4xf32>, tensor<2x8x3xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// With a readout the output holds y_t = c_t^T h_t, not the states.
func.func @readout_output_shape(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x8x4xf32>) {
  %y_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected output (readout) of shape [2, 8] for diagonal with N = 4, got [2, 8, 4]}}
  %y = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) readout(%c : tensor<2x8x4xf32>) outs(%y_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @matrix_readout_output_shape(%a: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x3xf32>, %c: tensor<2x8x4xf32>) {
  %y_dest = tensor.empty() : tensor<2x8xf32>
  // expected-error @+1 {{'recurrence.scan' op expected output (readout) of shape [2, 8, 3] for diagonal with N = 4, D = 3, got [2, 8]}}
  %y = recurrence.scan diagonal matrix transition(%a : tensor<2x8x4xf32>) factored_input(%k, %v : tensor<2x8x4xf32>, tensor<2x8x3xf32>) readout(%c : tensor<2x8x4xf32>) outs(%y_dest : tensor<2x8xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @final_state_shape(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected final state of shape [2, 4] for diagonal with N = 4, got [2, 8, 4]}}
  %h, %last = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest, %last_dest : tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>, tensor<2x8x4xf32>
  return
}

// -----

func.func @higher_order_final_state_shape(%a: tensor<2x8x2x4xf32>, %b: tensor<2x8x4x3xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4x3xf32>
  %last_dest = tensor.empty() : tensor<2x4x3xf32>
  // expected-error @+1 {{'recurrence.scan' op expected final state of shape [2, 2, 4, 3] for higher_order<2> with N = 4, D = 3, got [2, 4, 3]}}
  %h, %last = recurrence.scan higher_order<2> matrix transition(%a : tensor<2x8x2x4xf32>) input(%b : tensor<2x8x4x3xf32>) outs(%h_dest, %last_dest : tensor<2x8x4x3xf32>, tensor<2x4x3xf32>) -> tensor<2x8x4x3xf32>, tensor<2x4x3xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Destinations: `outs` names one tensor per result, of the result's type
//===----------------------------------------------------------------------===//

// `outs` is mandatory (destination-passing style, as in linalg).
func.func @outs_missing(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'recurrence.scan' op expected 1 destination(s) in `outs`, one per result, got 0}}
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// One destination for an op with a final state too.
func.func @outs_too_few(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %d0: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'recurrence.scan' op expected 2 destination(s) in `outs`, one per result, got 1}}
  %h, %last = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%d0 : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @outs_too_many(%b: tensor<2x8x4xf32>, %d0: tensor<2x8x4xf32>, %d1: tensor<2x4xf32>) {
  // expected-error @+1 {{'recurrence.scan' op expected 1 destination(s) in `outs`, one per result, got 2}}
  %h = recurrence.scan identity input(%b : tensor<2x8x4xf32>) outs(%d0, %d1 : tensor<2x8x4xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// The generic form can pair destinations with results in any number.
func.func @outs_count_generic(%b: tensor<2x8x4xf32>, %d0: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'recurrence.scan' op expected 1 destination(s) in `outs`, one per result, got 2}}
  %h = "recurrence.scan"(%b, %d0, %d0) <{operandSegmentSizes = array<i32: 0, 1, 0, 0, 0, 0, 0, 2>, structure = #recurrence.identity}> : (tensor<2x8x4xf32>, tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// The final state's destination is checked against the final state.
func.func @outs_final_state_type(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %d0: tensor<2x8x4xf32>, %d1: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'recurrence.scan' op expected destination #1 of type 'tensor<2x4xf32>' (that of its result), got 'tensor<2x8x4xf32>'}}
  %h, %last = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%d0, %d1 : tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>, tensor<2x4xf32>
  return
}

// -----

// The type must be the result's exactly: a more dynamic one is not enough.
func.func @outs_less_static(%b: tensor<2x8x4xf32>, %d0: tensor<?x8x4xf32>) {
  // expected-error @+1 {{'recurrence.scan' op expected destination #0 of type 'tensor<2x8x4xf32>' (that of its result), got 'tensor<?x8x4xf32>'}}
  %h = recurrence.scan identity input(%b : tensor<2x8x4xf32>) outs(%d0 : tensor<?x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

// With a readout the destination holds y_t, not the states.
func.func @outs_readout_type(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x8x4xf32>, %d0: tensor<2x8x4xf32>) {
  // expected-error @+1 {{'recurrence.scan' op expected destination #0 of type 'tensor<2x8xf32>' (that of its result), got 'tensor<2x8x4xf32>'}}
  %y = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) readout(%c : tensor<2x8x4xf32>) outs(%d0 : tensor<2x8x4xf32>) -> tensor<2x8xf32>
  return
}

// -----

func.func @outs_element_type(%b: tensor<2x8x4xf32>, %d0: tensor<2x8x4xf16>) {
  // expected-error @+1 {{'recurrence.scan' op expected destination #0 of type 'tensor<2x8x4xf32>' (that of its result), got 'tensor<2x8x4xf16>'}}
  %h = recurrence.scan identity input(%b : tensor<2x8x4xf32>) outs(%d0 : tensor<2x8x4xf16>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @schedule_is_not_a_structure(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{unknown structure 'schedule'; expected a structure: identity, scalar, diagonal, block_diagonal<m>, dplr<r>, dense, higher_order<m>, or an attribute implementing RecurrenceStructureInterface}}
  %h = recurrence.scan schedule scan input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// -----

func.func @attribute_is_not_a_structure(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{expected a structure: identity, scalar, diagonal, block_diagonal<m>, dplr<r>, dense, higher_order<m>, or an attribute implementing RecurrenceStructureInterface; got #recurrence.schedule<scan>}}
  %h = recurrence.scan #recurrence.schedule<scan> input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// -----

func.func @generic_form_needs_a_structure(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{structure}}
  %h = "recurrence.scan"(%b, %h_dest) <{operandSegmentSizes = array<i32: 0, 1, 0, 0, 0, 0, 0, 1>, structure = unit}> : (tensor<2x8x4xf32>, tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}

// -----

func.func @accumulate_narrower(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected an accumulation type at least as wide as the operands' 'f32', got 'bf16'}}
  %h = recurrence.scan diagonal accumulate(bf16) transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @accumulate_init(%a: tensor<2x8x4xbf16>, %b: tensor<2x8x4xbf16>, %h0: tensor<2x4xbf16>) {
  %h_dest = tensor.empty() : tensor<2x8x4xbf16>
  // expected-error @+1 {{'recurrence.scan' op expected init of element type 'f32' (the accumulation type), got 'bf16'}}
  %h = recurrence.scan diagonal accumulate(f32) transition(%a : tensor<2x8x4xbf16>) input(%b : tensor<2x8x4xbf16>) init(%h0 : tensor<2x4xbf16>) outs(%h_dest : tensor<2x8x4xbf16>) -> tensor<2x8x4xbf16>
  return
}

// -----

func.func @accumulate_final_state(%a: tensor<2x8x4xf16>, %b: tensor<2x8x4xf16>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf16>
  %last_dest = tensor.empty() : tensor<2x4xf16>
  // expected-error @+1 {{'recurrence.scan' op expected final state of element type 'f32' (the accumulation type), got 'f16'}}
  %h, %last = recurrence.scan diagonal accumulate(f32) transition(%a : tensor<2x8x4xf16>) input(%b : tensor<2x8x4xf16>) outs(%h_dest, %last_dest : tensor<2x8x4xf16>, tensor<2x4xf16>) -> tensor<2x8x4xf16>, tensor<2x4xf16>
  return
}

// -----

func.func @accumulate_output(%a: tensor<2x8x4xbf16>, %b: tensor<2x8x4xbf16>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf64>
  // expected-error @+1 {{'recurrence.scan' op expected output of element type 'bf16' (that of the input) or 'f32' (the accumulation type), got 'f64'}}
  %h = recurrence.scan diagonal accumulate(f32) transition(%a : tensor<2x8x4xbf16>) input(%b : tensor<2x8x4xbf16>) outs(%h_dest : tensor<2x8x4xf64>) -> tensor<2x8x4xf64>
  return
}

// -----

func.func @accumulate_operand(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xbf16>) {
  %h_dest = tensor.empty() : tensor<2x8x4xbf16>
  // expected-error @+1 {{'recurrence.scan' op expected transition operand #0 of element type 'bf16' (that of the input), got 'f32'}}
  %h = recurrence.scan diagonal accumulate(f32) transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xbf16>) outs(%h_dest : tensor<2x8x4xbf16>) -> tensor<2x8x4xbf16>
  return
}

// -----

func.func @accumulate_same_width(%a: tensor<2x8x4xf16>, %b: tensor<2x8x4xf16>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf16>
  // expected-error @+1 {{'recurrence.scan' op expected an accumulation type at least as wide as the operands' 'f16', got 'bf16'}}
  %h = recurrence.scan diagonal accumulate(bf16) transition(%a : tensor<2x8x4xf16>) input(%b : tensor<2x8x4xf16>) outs(%h_dest : tensor<2x8x4xf16>) -> tensor<2x8x4xf16>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Packed sequences (offsets)
//===----------------------------------------------------------------------===//

func.func @offsets_init_per_batch(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %h0: tensor<2x4xf32>, %o: tensor<4xi32>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected init of shape [2, 3, 4] for diagonal with N = 4, got [2, 4]}}
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) init(%h0 : tensor<2x4xf32>) offsets(%o : tensor<4xi32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return
}

// -----

func.func @offsets_final_per_sequence(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>, %o: tensor<?xi64>) {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %last_dest = tensor.empty() : tensor<2x4xf32>
  // expected-error @+1 {{'recurrence.scan' op expected final state of shape [2, ?, 4] for diagonal with N = 4, got [2, 4]}}
  %h, %last = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8x4xf32>) offsets(%o : tensor<?xi64>) outs(%h_dest, %last_dest : tensor<2x8x4xf32>, tensor<2x4xf32>) -> tensor<2x8x4xf32>, tensor<2x4xf32>
  return
}

// -----

func.func @offsets_higher_order(%a: tensor<8x2x4xf32>, %b: tensor<8x4xf32>, %o: tensor<3xi64>) {
  %h_dest = tensor.empty() : tensor<8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op `offsets` need a first-order structure; 'higher_order<2>' keeps 2 past states}}
  %h = recurrence.scan higher_order<2> transition(%a : tensor<8x2x4xf32>) input(%b : tensor<8x4xf32>) offsets(%o : tensor<3xi64>) outs(%h_dest : tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @offsets_float(%b: tensor<8x4xf32>, %o: tensor<3xf32>) {
  %h_dest = tensor.empty() : tensor<8x4xf32>
  // expected-error @+1 {{'recurrence.scan' op operand #1 must be 1D tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<3xf32>'}}
  %h = recurrence.scan identity input(%b : tensor<8x4xf32>) offsets(%o : tensor<3xf32>) outs(%h_dest : tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}
