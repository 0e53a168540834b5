// A misspelled op name.
func.func @unknown_op(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h = recurrence.scann identity input(%b : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
}
