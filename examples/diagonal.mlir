// A diagonal linear recurrence (an LRU / S4D-style channel mixer): every one
// of 256 channels decays by its own gate a_t[n] and adds its input b_t[n],
//
//   h_t = a_t * h_{t-1} + b_t,   t = 1..512,
//
// for a batch of 4; the function returns every state and the last one.
//
//   recurrence-run examples/diagonal.mlir
func.func @diagonal(%a: tensor<4x512x256xf32>, %b: tensor<4x512x256xf32>)
    -> (tensor<4x512x256xf32>, tensor<4x256xf32>) {
  %h_dest = tensor.empty() : tensor<4x512x256xf32>
  %last_dest = tensor.empty() : tensor<4x256xf32>
  %h, %last = recurrence.scan diagonal
      transition(%a : tensor<4x512x256xf32>)
      input(%b : tensor<4x512x256xf32>)
      outs(%h_dest, %last_dest : tensor<4x512x256xf32>, tensor<4x256xf32>)
      -> tensor<4x512x256xf32>, tensor<4x256xf32>
  return %h, %last : tensor<4x512x256xf32>, tensor<4x256xf32>
}
