// The core of a Mamba-style selective SSM: a diagonal recurrence on an
// N x D matrix state with a per-element transition a_t[n, d], the factored
// input b_t = B_t x_t^T and the readout y_t = C_t^T h_t, so the states never
// reach memory:
//
//   h_t[n, d] = a_t[n, d] h_{t-1}[n, d] + B_t[n] x_t[d],   y_t = C_t^T h_t
//
//   recurrence-run examples/selective_ssm.mlir
func.func @selective_ssm(%a: tensor<2x128x16x32xf32>, %B: tensor<2x128x16xf32>,
                         %x: tensor<2x128x32xf32>, %C: tensor<2x128x16xf32>)
    -> tensor<2x128x32xf32> {
  %y_dest = tensor.empty() : tensor<2x128x32xf32>
  %y = recurrence.scan diagonal matrix
      transition(%a : tensor<2x128x16x32xf32>)
      factored_input(%B, %x : tensor<2x128x16xf32>, tensor<2x128x32xf32>)
      readout(%C : tensor<2x128x16xf32>)
      outs(%y_dest : tensor<2x128x32xf32>) -> tensor<2x128x32xf32>
  return %y : tensor<2x128x32xf32>
}
