// Cut off in the middle of a tensor type.
func.func @truncated(%a: tensor<2x8x4xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h = recurrence.scan diagonal transition(%a : tensor<2x8x4xf32>) input(%b : tensor<2x8
