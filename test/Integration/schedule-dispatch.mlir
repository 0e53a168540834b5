// A batch size known only at run time: with 4 cores, the cost model prefers
// chunked<4096> for a batch smaller than the cores and sequential for a larger
// one (diagonal transitions on a 1 x 8 matrix state, T unknown too), so
// -recurrence-select-schedule clones the scan under an scf.if on the batch
// size; both clones write into the same destinations. The scan runs once with
// batch 1 (the chunked clone) and once with batch 4 (the sequential clone,
// in channel tiles), on the same per-sequence inputs: both must print the
// numbers of the recurrence, for every batch element.
//
// T = 4100 spans two chunks of 4096 and a third of 4, so the chunked clone
// carries the state across chunks and applies the next chunk's product to
// it. b = 1 everywhere, init[.., 0, d] = d (and 8 + d for batch element 3
// of the second call), a_t = 1 for t <= 4096 and 1/2 after:
//   h_t = init + t             for t <= 4096,
//   h_t = h_{t-1} / 2 + 1      for t > 4096,
// all exact in f32. Rows t = 4096 ... 4100 and the final state are printed.
//
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cpu cores=4" | FileCheck %s --check-prefix=DISPATCH
// RUN: recurrence-opt %s -recurrence-to-llvm="cores=4 inline=false" | %run | FileCheck %s

// DISPATCH-LABEL: func.func @scan(
// DISPATCH:         %[[OUT:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x1x8xf32>
// DISPATCH:         %[[LAST:.*]] = tensor.empty(%{{.*}}) : tensor<?x1x8xf32>
// DISPATCH:         %[[FEW:.*]] = arith.cmpi ult, %{{.*}}, %c4 : index
// DISPATCH-NOT:     tensor.empty
// DISPATCH:         scf.if %[[FEW]]
// DISPATCH-NEXT:      recurrence.scan diagonal schedule chunked<4096> matrix {{.*}} outs(%[[OUT]], %[[LAST]] : tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)
// DISPATCH:         } else {
// DISPATCH-NEXT:      recurrence.scan diagonal schedule sequential matrix {{.*}} outs(%[[OUT]], %[[LAST]] : tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)

func.func private @printMemrefF32(tensor<*xf32>)

func.func @scan(%a: tensor<?x?x1xf32>, %b: tensor<?x?x1x8xf32>, %init: tensor<?x1x8xf32>) -> (tensor<?x?x1x8xf32>, tensor<?x1x8xf32>) {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x1x8xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x1x8xf32>
  %h_dest = tensor.empty(%d0, %d1) : tensor<?x?x1x8xf32>
  %d2 = tensor.dim %init, %c0 : tensor<?x1x8xf32>
  %last_dest = tensor.empty(%d2) : tensor<?x1x8xf32>
  %h, %last = recurrence.scan diagonal matrix transition(%a : tensor<?x?x1xf32>) input(%b : tensor<?x?x1x8xf32>) init(%init : tensor<?x1x8xf32>) outs(%h_dest, %last_dest : tensor<?x?x1x8xf32>, tensor<?x1x8xf32>) -> tensor<?x?x1x8xf32>, tensor<?x1x8xf32>
  return %h, %last : tensor<?x?x1x8xf32>, tensor<?x1x8xf32>
}

// Prints rows 4095 ... 4099 (t = 4096 ... 4100) of every batch element.
func.func @print(%h: tensor<?x?x1x8xf32>) {
  %c0 = arith.constant 0 : index
  %batch = tensor.dim %h, %c0 : tensor<?x?x1x8xf32>
  %rows = tensor.extract_slice %h[0, 4095, 0, 0] [%batch, 5, 1, 8] [1, 1, 1, 1] : tensor<?x?x1x8xf32> to tensor<?x5x1x8xf32>
  %u = tensor.cast %rows : tensor<?x5x1x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  // a[i, s, 0] = 1 for s < 4096 (t <= 4096), 1/2 after.
  %gates = tensor.generate {
  ^bb0(%i: index, %s: index, %n: index):
    %c4096 = arith.constant 4096 : index
    %one = arith.constant 1.0 : f32
    %half = arith.constant 0.5 : f32
    %early = arith.cmpi ult, %s, %c4096 : index
    %g = arith.select %early, %one, %half : f32
    tensor.yield %g : f32
  } : tensor<4x4100x1xf32>
  %ones = arith.constant dense<1.0> : tensor<4x4100x1x8xf32>
  // init[i, 0, d] = d, plus 8 for batch element 3.
  %init = tensor.generate {
  ^bb0(%i: index, %n: index, %d: index):
    %c3 = arith.constant 3 : index
    %c8 = arith.constant 8 : index
    %last = arith.cmpi eq, %i, %c3 : index
    %shift = arith.select %last, %c8, %n : index
    %v = arith.addi %d, %shift : index
    %vi = arith.index_cast %v : index to i64
    %vf = arith.uitofp %vi : i64 to f32
    tensor.yield %vf : f32
  } : tensor<4x1x8xf32>

  // Batch 1: elements 0 of the inputs (the chunked clone).
  %a1 = tensor.extract_slice %gates[0, 0, 0] [1, 4100, 1] [1, 1, 1] : tensor<4x4100x1xf32> to tensor<1x4100x1xf32>
  %b1 = tensor.extract_slice %ones[0, 0, 0, 0] [1, 4100, 1, 8] [1, 1, 1, 1] : tensor<4x4100x1x8xf32> to tensor<1x4100x1x8xf32>
  %i1 = tensor.extract_slice %init[0, 0, 0] [1, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> to tensor<1x1x8xf32>
  %a1d = tensor.cast %a1 : tensor<1x4100x1xf32> to tensor<?x?x1xf32>
  %b1d = tensor.cast %b1 : tensor<1x4100x1x8xf32> to tensor<?x?x1x8xf32>
  %i1d = tensor.cast %i1 : tensor<1x1x8xf32> to tensor<?x1x8xf32>
  %h1, %last1 = call @scan(%a1d, %b1d, %i1d) : (tensor<?x?x1xf32>, tensor<?x?x1x8xf32>, tensor<?x1x8xf32>) -> (tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)
  call @print(%h1) : (tensor<?x?x1x8xf32>) -> ()
  // CHECK: rank = 4 offset = {{[0-9]+}} sizes = [1, 5, 1, 8] strides = [32800, 8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[4096, 4097, 4098, 4099, 4100, 4101, 4102, 4103]],
  // CHECK-NEXT{LITERAL}: [[2049, 2049.5, 2050, 2050.5, 2051, 2051.5, 2052, 2052.5]],
  // CHECK-NEXT{LITERAL}: [[1025.5, 1025.75, 1026, 1026.25, 1026.5, 1026.75, 1027, 1027.25]],
  // CHECK-NEXT{LITERAL}: [[513.75, 513.875, 514, 514.125, 514.25, 514.375, 514.5, 514.625]],
  // CHECK-NEXT{LITERAL}: [[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]]]]
  %last1u = tensor.cast %last1 : tensor<?x1x8xf32> to tensor<*xf32>
  call @printMemrefF32(%last1u) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 1, 8] strides = [8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]]]

  // Batch 4 (the sequential clone): elements 0 to 2 must match the batch-1
  // call, element 3 starts 8 higher.
  %a4 = tensor.cast %gates : tensor<4x4100x1xf32> to tensor<?x?x1xf32>
  %b4 = tensor.cast %ones : tensor<4x4100x1x8xf32> to tensor<?x?x1x8xf32>
  %i4 = tensor.cast %init : tensor<4x1x8xf32> to tensor<?x1x8xf32>
  %h4, %last4 = call @scan(%a4, %b4, %i4) : (tensor<?x?x1xf32>, tensor<?x?x1x8xf32>, tensor<?x1x8xf32>) -> (tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)
  call @print(%h4) : (tensor<?x?x1x8xf32>) -> ()
  // CHECK: rank = 4 offset = {{[0-9]+}} sizes = [4, 5, 1, 8] strides = [32800, 8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[4096, 4097, 4098, 4099, 4100, 4101, 4102, 4103]],
  // CHECK-NEXT{LITERAL}: [[2049, 2049.5, 2050, 2050.5, 2051, 2051.5, 2052, 2052.5]],
  // CHECK-NEXT{LITERAL}: [[1025.5, 1025.75, 1026, 1026.25, 1026.5, 1026.75, 1027, 1027.25]],
  // CHECK-NEXT{LITERAL}: [[513.75, 513.875, 514, 514.125, 514.25, 514.375, 514.5, 514.625]],
  // CHECK-NEXT{LITERAL}: [[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]]],
  // CHECK-NEXT{LITERAL}: [[[4096, 4097, 4098, 4099, 4100, 4101, 4102, 4103]],
  // CHECK-NEXT{LITERAL}: [[2049, 2049.5, 2050, 2050.5, 2051, 2051.5, 2052, 2052.5]],
  // CHECK-NEXT{LITERAL}: [[1025.5, 1025.75, 1026, 1026.25, 1026.5, 1026.75, 1027, 1027.25]],
  // CHECK-NEXT{LITERAL}: [[513.75, 513.875, 514, 514.125, 514.25, 514.375, 514.5, 514.625]],
  // CHECK-NEXT{LITERAL}: [[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]]],
  // CHECK-NEXT{LITERAL}: [[[4096, 4097, 4098, 4099, 4100, 4101, 4102, 4103]],
  // CHECK-NEXT{LITERAL}: [[2049, 2049.5, 2050, 2050.5, 2051, 2051.5, 2052, 2052.5]],
  // CHECK-NEXT{LITERAL}: [[1025.5, 1025.75, 1026, 1026.25, 1026.5, 1026.75, 1027, 1027.25]],
  // CHECK-NEXT{LITERAL}: [[513.75, 513.875, 514, 514.125, 514.25, 514.375, 514.5, 514.625]],
  // CHECK-NEXT{LITERAL}: [[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]]],
  // CHECK-NEXT{LITERAL}: [[[4104, 4105, 4106, 4107, 4108, 4109, 4110, 4111]],
  // CHECK-NEXT{LITERAL}: [[2053, 2053.5, 2054, 2054.5, 2055, 2055.5, 2056, 2056.5]],
  // CHECK-NEXT{LITERAL}: [[1027.5, 1027.75, 1028, 1028.25, 1028.5, 1028.75, 1029, 1029.25]],
  // CHECK-NEXT{LITERAL}: [[514.75, 514.875, 515, 515.125, 515.25, 515.375, 515.5, 515.625]],
  // CHECK-NEXT{LITERAL}: [[258.375, 258.438, 258.5, 258.562, 258.625, 258.688, 258.75, 258.812]]]]
  %last4u = tensor.cast %last4 : tensor<?x1x8xf32> to tensor<*xf32>
  call @printMemrefF32(%last4u) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [4, 1, 8] strides = [8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]],
  // CHECK-NEXT{LITERAL}: [[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]],
  // CHECK-NEXT{LITERAL}: [[257.875, 257.938, 258, 258.062, 258.125, 258.188, 258.25, 258.312]],
  // CHECK-NEXT{LITERAL}: [[258.375, 258.438, 258.5, 258.562, 258.625, 258.688, 258.75, 258.812]]]
  return
}
