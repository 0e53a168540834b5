// Linalg ops outside any scan, large enough (2^16 points) to be shared
// among two cores by -recurrence-parallelize-linalg, against plain loops of
// the same formulas: x[b, t, d, n] = b + 2t + 3d + 5n (built by a linalg op
// of its indices), its transpose y[b, t, n, d] = 2 x[b, t, d, n] (all dims
// parallel: b and t shared, n and d serial inside) and the contraction
// z[b, t, n] = sum_d x[b, t, d, n] (a reduction before a parallel dim).
// Every value is an integer below 2^24, exact in f32: each sum of |errors|
// is 0. n and d have one size, so that an index that goes to the wrong
// serial loop reads the wrong element rather than out of bounds.
//
// RUN: recurrence-opt %s -recurrence-to-llvm="cores=2 openmp" | %run | FileCheck %s

#x = affine_map<(b, t, d, n) -> (b, t, d, n)>
#y = affine_map<(b, t, d, n) -> (b, t, n, d)>
#z = affine_map<(b, t, d, n) -> (b, t, n)>

func.func private @printMemrefF32(tensor<*xf32>)

func.func @print(%value: f32) {
  %t = tensor.from_elements %value : tensor<1xf32>
  %u = tensor.cast %t : tensor<1xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// b + 2t + 3d + 5n as f32.
func.func @formula(%b: index, %t: index, %d: index, %n: index) -> f32 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %t2 = arith.muli %t, %c2 : index
  %d3 = arith.muli %d, %c3 : index
  %n5 = arith.muli %n, %c5 : index
  %s0 = arith.addi %b, %t2 : index
  %s1 = arith.addi %s0, %d3 : index
  %s2 = arith.addi %s1, %n5 : index
  %i = arith.index_cast %s2 : index to i64
  %f = arith.sitofp %i : i64 to f32
  return %f : f32
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32

  %xe = tensor.empty() : tensor<2x8x64x64xf32>
  %x = linalg.generic {indexing_maps = [#x],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      outs(%xe : tensor<2x8x64x64xf32>) {
  ^bb0(%out: f32):
    %b = linalg.index 0 : index
    %t = linalg.index 1 : index
    %d = linalg.index 2 : index
    %n = linalg.index 3 : index
    %f = func.call @formula(%b, %t, %d, %n) : (index, index, index, index) -> f32
    linalg.yield %f : f32
  } -> tensor<2x8x64x64xf32>

  %ye = tensor.empty() : tensor<2x8x64x64xf32>
  %y = linalg.generic {indexing_maps = [#x, #y],
                       iterator_types = ["parallel", "parallel", "parallel",
                                         "parallel"]}
      ins(%x : tensor<2x8x64x64xf32>) outs(%ye : tensor<2x8x64x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %two : f32
    linalg.yield %v : f32
  } -> tensor<2x8x64x64xf32>

  %ze = tensor.empty() : tensor<2x8x64xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ze : tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %z = linalg.generic {indexing_maps = [#x, #z],
                       iterator_types = ["parallel", "parallel", "reduction",
                                         "parallel"]}
      ins(%x : tensor<2x8x64x64xf32>) outs(%zf : tensor<2x8x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %v = arith.addf %acc, %in : f32
    linalg.yield %v : f32
  } -> tensor<2x8x64xf32>

  // The references, as plain loops; sums of |error|.
  %ey, %ez = scf.for %b = %c0 to %c2 step %c1 iter_args(%sy0 = %zero, %sz0 = %zero) -> (f32, f32) {
    %ry, %rz = scf.for %t = %c0 to %c8 step %c1 iter_args(%sy1 = %sy0, %sz1 = %sz0) -> (f32, f32) {
      %qy, %qz = scf.for %n = %c0 to %c64 step %c1 iter_args(%sy2 = %sy1, %sz2 = %sz1) -> (f32, f32) {
        %py, %sum = scf.for %d = %c0 to %c64 step %c1 iter_args(%sy3 = %sy2, %s = %zero) -> (f32, f32) {
          %f = func.call @formula(%b, %t, %d, %n) : (index, index, index, index) -> f32
          %want = arith.mulf %f, %two : f32
          %got = tensor.extract %y[%b, %t, %n, %d] : tensor<2x8x64x64xf32>
          %err = arith.subf %got, %want : f32
          %abs = math.absf %err : f32
          %sy4 = arith.addf %sy3, %abs : f32
          %s1 = arith.addf %s, %f : f32
          scf.yield %sy4, %s1 : f32, f32
        }
        %gz = tensor.extract %z[%b, %t, %n] : tensor<2x8x64xf32>
        %dz = arith.subf %gz, %sum : f32
        %az = math.absf %dz : f32
        %sz3 = arith.addf %sz2, %az : f32
        scf.yield %py, %sz3 : f32, f32
      }
      scf.yield %qy, %qz : f32, f32
    }
    scf.yield %ry, %rz : f32, f32
  }
  // CHECK: [0]
  call @print(%ey) : (f32) -> ()
  // CHECK: [0]
  call @print(%ez) : (f32) -> ()
  return
}
