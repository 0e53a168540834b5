// REQUIRES: shared-libs
// A stock mlir-opt loads Recurrence as a dialect and pass plugin: it parses
// recurrence IR, runs the lowering passes and the whole recurrence-to-llvm
// pipeline, and the result executes. (Plugin passes are named in
// --pass-pipeline: mlir-opt parses its flags before loading plugins.)
//
// RUN: mlir-opt --load-dialect-plugin=%recurrence_plugin \
// RUN:   --load-pass-plugin=%recurrence_plugin %s | FileCheck %s --check-prefix=PARSE
// RUN: mlir-opt --load-dialect-plugin=%recurrence_plugin \
// RUN:   --load-pass-plugin=%recurrence_plugin %s \
// RUN:   --pass-pipeline="builtin.module(recurrence-lower-sequential)" \
// RUN:   | FileCheck %s --check-prefix=LOWER
// RUN: mlir-opt --load-dialect-plugin=%recurrence_plugin \
// RUN:   --load-pass-plugin=%recurrence_plugin %s \
// RUN:   --pass-pipeline="builtin.module(recurrence-to-llvm)" \
// RUN:   | %run | FileCheck %s --check-prefix=EXEC

// PARSE: recurrence.scan diagonal schedule sequential reverse transition
// LOWER-NOT: recurrence.scan
// LOWER: scf.for

func.func private @printMemrefF32(tensor<*xf32>)

// h_t = 0.5 h_{t+1} + 1 from h_4 = 0, backwards: h_3 = 1, h_2 = 1.5,
// h_1 = 1.75.
// EXEC: [1.75,  1.5,  1]
func.func @main() {
  %a = arith.constant dense<0.5> : tensor<3xf32>
  %b = arith.constant dense<1.0> : tensor<3x1xf32>
  %a2 = tensor.expand_shape %a [[0, 1]] output_shape [3, 1] : tensor<3xf32> into tensor<3x1xf32>
  %h_dest = tensor.empty() : tensor<3x1xf32>
  %h = recurrence.scan diagonal schedule sequential reverse transition(%a2 : tensor<3x1xf32>)
      input(%b : tensor<3x1xf32>)
      outs(%h_dest : tensor<3x1xf32>) -> tensor<3x1xf32>
  %flat = tensor.collapse_shape %h [[0, 1]] : tensor<3x1xf32> into tensor<3xf32>
  %u = tensor.cast %flat : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
