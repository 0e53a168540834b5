// One BD-LRU layer step over a sequence: a block-diagonal linear recurrent
// unit with 16 blocks of 4 x 4 on a state of N = 64, whose input is the
// value v_t gated elementwise by the input gate a0_t,
//
//   h_t = A_t h_{t-1} + a0_t * v_t,   t = 1..256,
//
// for a batch of 2, starting from a given state h_0; it returns the states.
//
//   recurrence-run examples/bdlru.mlir
func.func @bdlru_layer(%A: tensor<2x256x16x4x4xf64>,
                       %a0: tensor<2x256x64xf64>, %v: tensor<2x256x64xf64>,
                       %h0: tensor<2x64xf64>) -> tensor<2x256x64xf64> {
  %b = arith.mulf %a0, %v : tensor<2x256x64xf64>
  %h_dest = tensor.empty() : tensor<2x256x64xf64>
  %h = recurrence.scan block_diagonal<4>
      transition(%A : tensor<2x256x16x4x4xf64>)
      input(%b : tensor<2x256x64xf64>)
      init(%h0 : tensor<2x64xf64>)
      outs(%h_dest : tensor<2x256x64xf64>) -> tensor<2x256x64xf64>
  return %h : tensor<2x256x64xf64>
}
