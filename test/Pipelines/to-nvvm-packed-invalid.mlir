// On the GPU a scan over packed sequences runs sequentially: an explicit
// chunked schedule would allocate a tile of the restarted transitions in
// every thread, so -recurrence-to-nvvm refuses it with a diagnostic.
//
// RUN: not recurrence-opt %s -recurrence-to-nvvm 2>&1 | FileCheck %s

// CHECK: [[@LINE+12]]:12: error: 'recurrence.scan' op over packed sequences runs sequentially on the GPU; its schedule 'chunked' would allocate a tile of the restarted transitions in every thread

func.func @packed(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %h0: tensor<?x?x?xf32>, %o: tensor<?xi64>) -> (tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %s = tensor.dim %h0, %c1 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %l_dest = tensor.empty(%d0, %s, %d2) : tensor<?x?x?xf32>
  %h, %l = recurrence.scan diagonal schedule chunked<64> transition(%a : tensor<?x?x?xf32>)
      input(%b : tensor<?x?x?xf32>) init(%h0 : tensor<?x?x?xf32>)
      offsets(%o : tensor<?xi64>) outs(%h_dest, %l_dest : tensor<?x?x?xf32>, tensor<?x?x?xf32>)
      -> tensor<?x?x?xf32>, tensor<?x?x?xf32>
  return %h, %l : tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
