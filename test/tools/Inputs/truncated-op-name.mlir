// Cut off right after the op name.
func.func @truncated(%b: tensor<2x8x4xf32>) {
  %h = recurrence.scan