// REQUIRES: shared-libs
// RUN: recurrence-opt --load-dialect-plugin=%lru_plugin %s -split-input-file -verify-diagnostics

func.func @odd_state(%r: tensor<2x8x3xf32>, %b: tensor<2x8x7xf32>) -> tensor<2x8x7xf32> {
  %h_dest = tensor.empty() : tensor<2x8x7xf32>
  // expected-error @+1 {{#lru.rotation acts on pairs of channels and needs an even N, got N = 7}}
  %h = recurrence.scan #lru.rotation transition(%r, %r : tensor<2x8x3xf32>, tensor<2x8x3xf32>) input(%b : tensor<2x8x7xf32>) outs(%h_dest : tensor<2x8x7xf32>) -> tensor<2x8x7xf32>
  return %h : tensor<2x8x7xf32>
}

// -----

func.func @one_operand(%r: tensor<2x8x3xf32>, %b: tensor<2x8x6xf32>) -> tensor<2x8x6xf32> {
  %h_dest = tensor.empty() : tensor<2x8x6xf32>
  // expected-error @+1 {{structure '#lru.rotation' takes 2 transition operand(s), got 1}}
  %h = recurrence.scan #lru.rotation transition(%r : tensor<2x8x3xf32>) input(%b : tensor<2x8x6xf32>) outs(%h_dest : tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  return %h : tensor<2x8x6xf32>
}

// -----

func.func @wrong_angle_shape(%r: tensor<2x8x3xf32>, %t: tensor<2x8x6xf32>, %b: tensor<2x8x6xf32>) -> tensor<2x8x6xf32> {
  %h_dest = tensor.empty() : tensor<2x8x6xf32>
  // expected-error @+1 {{expected transition operand #1 of shape [2, 8, 3] for #lru.rotation with N = 6, got [2, 8, 6]}}
  %h = recurrence.scan #lru.rotation transition(%r, %t : tensor<2x8x3xf32>, tensor<2x8x6xf32>) input(%b : tensor<2x8x6xf32>) outs(%h_dest : tensor<2x8x6xf32>) -> tensor<2x8x6xf32>
  return %h : tensor<2x8x6xf32>
}

// -----

// expected-error @+1 {{unknown attribute 'spin' in dialect 'lru'; expected 'rotation'}}
func.func private @unknown() attributes {s = #lru.spin}
