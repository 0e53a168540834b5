// Cut off before the closing brace of the function.
func.func @truncated(%b: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %h_dest = tensor.empty() : tensor<2x8x4xf32>
  %h = recurrence.scan identity input(%b : tensor<2x8x4xf32>) outs(%h_dest : tensor<2x8x4xf32>) -> tensor<2x8x4xf32>
  return %h : tensor<2x8x4xf32>
