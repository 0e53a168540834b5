// A number where the structure keyword belongs.
func.func @garbled(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h = recurrence.scan 42 input(%b : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}
