// On the GPU (the schedules its pipeline lowers), a scan whose lanes and T
// are both dynamic gets two run-time choices: sequential threads for 2228
// lanes or more; below, the chunked schedule with the chunk the cost model
// picks for the assumed T (4096 steps: chunks of 64) under 32768 steps, and
// the one it picks for 64 times as many (chunks of 256, since the carry
// walks the chunks one dependent step at a time, yet a chunked thread
// streams too little for fewer threads) from there on. Every
// clone writes the same destinations. A static T needs no second choice.
//
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=sequential,chunked" | FileCheck %s
// RUN: recurrence-opt %s -recurrence-select-schedule="target=cuda schedules=sequential,chunked explain=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @dynamic_steps(
// CHECK:         %[[DEST:.*]] = tensor.empty(%{{.*}}) : tensor<?x?x?xf32>
// CHECK:         %[[FEW:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK:         scf.if %[[FEW]] -> (tensor<?x?x?xf32>) {
// CHECK:           %[[T:.*]] = tensor.dim %arg1, %c1
// CHECK:           %[[SHORT:.*]] = arith.cmpi ult, %[[T]], %c32768 : index
// CHECK:           scf.if %[[SHORT]] -> (tensor<?x?x?xf32>) {
// CHECK-NEXT:        recurrence.scan diagonal schedule chunked<64> {{.*}} outs(%[[DEST]] : tensor<?x?x?xf32>)
// CHECK:           } else {
// CHECK-NEXT:        recurrence.scan diagonal schedule chunked<256> {{.*}} outs(%[[DEST]] : tensor<?x?x?xf32>)
// CHECK:         } else {
// CHECK-NEXT:      recurrence.scan diagonal schedule sequential {{.*}} outs(%[[DEST]] : tensor<?x?x?xf32>)
// REMARK: select-schedule-steps.mlir:[[@LINE+11]]:{{[0-9]+}}: remark: schedule chunked<64> chosen for cuda (270336 threads, 4000 GB/s) below 2228 lanes; estimated seconds: chunked<64>
// REMARK: select-schedule-steps.mlir:[[@LINE+10]]:{{[0-9]+}}: remark: schedule sequential chosen for cuda (270336 threads, 4000 GB/s) otherwise; estimated seconds: sequential
// REMARK: select-schedule-steps.mlir:[[@LINE+9]]:{{[0-9]+}}: remark: schedule chunked<256> chosen for cuda (270336 threads, 4000 GB/s) for sequences of 32768 steps or more; estimated seconds: chunked<256>
func.func @dynamic_steps(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %b, %c0 : tensor<?x?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %b, %c1 : tensor<?x?x?xf32>
  %c2 = arith.constant 2 : index
  %d2 = tensor.dim %b, %c2 : tensor<?x?x?xf32>
  %h_dest = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<?x?x?xf32>) input(%b : tensor<?x?x?xf32>) outs(%h_dest : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %h : tensor<?x?x?xf32>
}

// CHECK-LABEL: func.func @static_steps(
// CHECK:         scf.if
// CHECK-NOT:     scf.if
// CHECK:         recurrence.scan diagonal schedule chunked<
// CHECK:         } else {
// CHECK-NEXT:      recurrence.scan diagonal schedule sequential
// REMARK-NOT: for sequences of
func.func @static_steps(%a: tensor<?x4096x?xf32>, %b: tensor<?x4096x?xf32>) -> tensor<?x4096x?xf32> {
  %c0 = arith.constant 0 : index
  %d3 = tensor.dim %b, %c0 : tensor<?x4096x?xf32>
  %c2 = arith.constant 2 : index
  %d4 = tensor.dim %b, %c2 : tensor<?x4096x?xf32>
  %h_dest = tensor.empty(%d3, %d4) : tensor<?x4096x?xf32>
  %h = recurrence.scan diagonal transition(%a : tensor<?x4096x?xf32>) input(%b : tensor<?x4096x?xf32>) outs(%h_dest : tensor<?x4096x?xf32>) -> tensor<?x4096x?xf32>
  return %h : tensor<?x4096x?xf32>
}
