// A batch size known only at run time: with 4 cores, the cost model prefers
// chunked<4096> for a batch smaller than the cores and sequential for a larger
// one (diagonal transitions on a 1 x 8 matrix state, T unknown too), so
// -recurrence-select-schedule clones the scan under an scf.if on the batch
// size; both clones write into the same destinations. The scan runs once with
// batch 1 (the chunked clone) and once with batch 4 (the sequential clone,
// in channel tiles), on the same per-sequence inputs: both must print the
// numbers of the recurrence, for every batch element.
//
// a = 0.5 and b = 1 everywhere, init[.., 0, d] = d (and 8 + d for batch
// element 3 of the second call), T = 3:
//   h_t[d] = d / 2^t + 2 - 2^(1-t), i.e. d/2 + 1, d/4 + 1.5, d/8 + 1.75.
//
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cpu cores=4" | FileCheck %s --check-prefix=DISPATCH
// RUN: recurrence-opt %s -recurrence-to-llvm="cores=4 inline=false" | %run | FileCheck %s

// DISPATCH-LABEL: func.func @scan(
// DISPATCH:         %[[FEW:.*]] = arith.cmpi ult, %{{.*}}, %c4 : index
// DISPATCH:         %[[OUT:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x1x8xf32>
// DISPATCH:         %[[LAST:.*]] = tensor.empty(%{{.*}}) : tensor<?x1x8xf32>
// DISPATCH:         scf.if %[[FEW]]
// DISPATCH-NEXT:      recurrence.scan diagonal schedule chunked<4096> matrix {{.*}} outs(%[[OUT]], %[[LAST]] : tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)
// DISPATCH:         } else {
// DISPATCH-NEXT:      recurrence.scan diagonal schedule sequential matrix {{.*}} outs(%[[OUT]], %[[LAST]] : tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)

func.func private @printMemrefF32(tensor<*xf32>)

func.func @scan(%a: tensor<?x?x1xf32>, %b: tensor<?x?x1x8xf32>, %init: tensor<?x1x8xf32>) -> (tensor<?x?x1x8xf32>, tensor<?x1x8xf32>) {
  %h, %last = recurrence.scan diagonal matrix transition(%a : tensor<?x?x1xf32>) input(%b : tensor<?x?x1x8xf32>) init(%init : tensor<?x1x8xf32>) -> tensor<?x?x1x8xf32>, tensor<?x1x8xf32>
  return %h, %last : tensor<?x?x1x8xf32>, tensor<?x1x8xf32>
}

func.func @print(%t: tensor<?x?x?x?xf32>) {
  %u = tensor.cast %t : tensor<?x?x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %half = arith.constant dense<0.5> : tensor<4x3x1xf32>
  %ones = arith.constant dense<1.0> : tensor<4x3x1x8xf32>
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

  // Batch 1: elements 0 of the inputs.
  %a1 = tensor.extract_slice %half[0, 0, 0] [1, 3, 1] [1, 1, 1] : tensor<4x3x1xf32> to tensor<1x3x1xf32>
  %b1 = tensor.extract_slice %ones[0, 0, 0, 0] [1, 3, 1, 8] [1, 1, 1, 1] : tensor<4x3x1x8xf32> to tensor<1x3x1x8xf32>
  %i1 = tensor.extract_slice %init[0, 0, 0] [1, 1, 8] [1, 1, 1] : tensor<4x1x8xf32> to tensor<1x1x8xf32>
  %a1d = tensor.cast %a1 : tensor<1x3x1xf32> to tensor<?x?x1xf32>
  %b1d = tensor.cast %b1 : tensor<1x3x1x8xf32> to tensor<?x?x1x8xf32>
  %i1d = tensor.cast %i1 : tensor<1x1x8xf32> to tensor<?x1x8xf32>
  %h1, %last1 = call @scan(%a1d, %b1d, %i1d) : (tensor<?x?x1xf32>, tensor<?x?x1x8xf32>, tensor<?x1x8xf32>) -> (tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)
  %h1u = tensor.cast %h1 : tensor<?x?x1x8xf32> to tensor<?x?x?x?xf32>
  call @print(%h1u) : (tensor<?x?x?x?xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [1, 3, 1, 8] strides = [24, 8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]],
  // CHECK-NEXT{LITERAL}: [[1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25]],
  // CHECK-NEXT{LITERAL}: [[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]]]]
  %last1u = tensor.cast %last1 : tensor<?x1x8xf32> to tensor<*xf32>
  call @printMemrefF32(%last1u) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [1, 1, 8] strides = [8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]]]

  // Batch 4: elements 0 and 3 are printed; 0 must match the batch-1 call.
  %a4 = tensor.cast %half : tensor<4x3x1xf32> to tensor<?x?x1xf32>
  %b4 = tensor.cast %ones : tensor<4x3x1x8xf32> to tensor<?x?x1x8xf32>
  %i4 = tensor.cast %init : tensor<4x1x8xf32> to tensor<?x1x8xf32>
  %h4, %last4 = call @scan(%a4, %b4, %i4) : (tensor<?x?x1xf32>, tensor<?x?x1x8xf32>, tensor<?x1x8xf32>) -> (tensor<?x?x1x8xf32>, tensor<?x1x8xf32>)
  %h4u = tensor.cast %h4 : tensor<?x?x1x8xf32> to tensor<?x?x?x?xf32>
  call @print(%h4u) : (tensor<?x?x?x?xf32>) -> ()
  // CHECK: rank = 4 offset = 0 sizes = [4, 3, 1, 8] strides = [24, 8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[[1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]],
  // CHECK-NEXT{LITERAL}: [[1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25]],
  // CHECK-NEXT{LITERAL}: [[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]]],
  // CHECK-NEXT{LITERAL}: [[[1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]],
  // CHECK-NEXT{LITERAL}: [[1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25]],
  // CHECK-NEXT{LITERAL}: [[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]]],
  // CHECK-NEXT{LITERAL}: [[[1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5]],
  // CHECK-NEXT{LITERAL}: [[1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25]],
  // CHECK-NEXT{LITERAL}: [[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]]],
  // CHECK-NEXT{LITERAL}: [[[5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5]],
  // CHECK-NEXT{LITERAL}: [[3.5, 3.75, 4, 4.25, 4.5, 4.75, 5, 5.25]],
  // CHECK-NEXT{LITERAL}: [[2.75, 2.875, 3, 3.125, 3.25, 3.375, 3.5, 3.625]]]]
  %last4u = tensor.cast %last4 : tensor<?x1x8xf32> to tensor<*xf32>
  call @printMemrefF32(%last4u) : (tensor<*xf32>) -> ()
  // CHECK: rank = 3 offset = 0 sizes = [4, 1, 8] strides = [8, 8, 1] data =
  // CHECK-NEXT{LITERAL}: [[[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]],
  // CHECK-NEXT{LITERAL}: [[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]],
  // CHECK-NEXT{LITERAL}: [[1.75, 1.875, 2, 2.125, 2.25, 2.375, 2.5, 2.625]],
  // CHECK-NEXT{LITERAL}: [[2.75, 2.875, 3, 3.125, 3.25, 3.375, 3.5, 3.625]]]
  return
}
