// A diagonal scan on shapes known only at run time, followed by an
// elementwise gate: for a batch of B sequences of T steps and N channels,
//
//   h_t = a_t * h_{t-1} + b_t,   y_t = h_t * b_t.
//
// The sizes are read off the operands (tensor.dim), so one compile serves
// every shape; the scan and the gate after it are lowered together.
//
// The Python tests and bench/gpu_check.py compile it with recurrence.compile,
// for the CPU and for CUDA.
func.func @gated(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>)
    -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<?x?x?xf32>)
      input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>
  %y = arith.mulf %h, %b : tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}
