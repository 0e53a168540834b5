// REQUIRES: shared-libs
// A structure from outside the project: `#lru.rotation` (the LRU's complex
// diagonal as 2 x 2 rotation-scaling blocks, test/Plugin/LruStructure) is
// loaded into recurrence-opt and into a stock mlir-opt, round-trips, and runs
// under every schedule against its float64 equation, written below as plain
// loops: for each pair k of channels,
//   h_t[2k]   = rho_t[k] (cos theta_t[k] h_{t-1}[2k] - sin theta_t[k] h_{t-1}[2k+1]) + b_t[2k]
//   h_t[2k+1] = rho_t[k] (sin theta_t[k] h_{t-1}[2k] + cos theta_t[k] h_{t-1}[2k+1]) + b_t[2k+1]
// B = 2, T = 9 (not a multiple of the chunk), N = 6, from init, forward and
// reversed, with the final state.
//
// RUN: recurrence-opt --load-dialect-plugin=%lru_plugin %s | FileCheck %s --check-prefix=PARSE
// RUN: recurrence-opt --load-dialect-plugin=%lru_plugin %s | recurrence-opt --load-dialect-plugin=%lru_plugin | FileCheck %s --check-prefix=PARSE
// RUN: recurrence-opt --load-dialect-plugin=%lru_plugin %s -recurrence-to-llvm | %run | FileCheck %s
// RUN: mlir-opt --load-dialect-plugin=%recurrence_plugin \
// RUN:   --load-dialect-plugin=%lru_plugin --load-pass-plugin=%recurrence_plugin %s \
// RUN:   --pass-pipeline="builtin.module(recurrence-to-llvm)" | %run | FileCheck %s

// PARSE: recurrence.scan #lru.rotation schedule sequential transition(
// PARSE: recurrence.scan #lru.rotation schedule chunked<4> transition(
// PARSE: recurrence.scan #lru.rotation schedule scan transition(
// PARSE: recurrence.scan #lru.rotation transition(
// PARSE: recurrence.scan #lru.rotation schedule sequential reverse transition(

func.func private @printMemrefF64(tensor<*xf64>)

/// A deterministic, non-trivial value for every index.
func.func @wave(%i: index, %j: index, %k: index, %scale: f64, %shift: f64) -> f64 {
  %c7 = arith.constant 7 : index
  %c3 = arith.constant 3 : index
  %a = arith.muli %i, %c7 : index
  %b = arith.muli %j, %c3 : index
  %s = arith.addi %a, %b : index
  %s2 = arith.addi %s, %k : index
  %n = arith.index_cast %s2 : index to i64
  %x = arith.sitofp %n : i64 to f64
  %y = math.sin %x : f64
  %z = arith.mulf %y, %scale : f64
  %w = arith.addf %z, %shift : f64
  return %w : f64
}

/// The float64 equation, one pair of channels at a time.
func.func @reference(%rho: tensor<2x9x3xf64>, %theta: tensor<2x9x3xf64>,
                     %x: tensor<2x9x6xf64>, %init: tensor<2x6xf64>,
                     %reverse: i1) -> (tensor<2x9x6xf64>, tensor<2x6xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %out0 = tensor.empty() : tensor<2x9x6xf64>
  %res:2 = scf.for %bi = %c0 to %c2 step %c1 iter_args(%o = %out0, %last = %init)
      -> (tensor<2x9x6xf64>, tensor<2x6xf64>) {
    %h0 = tensor.extract_slice %init[%bi, 0] [1, 6] [1, 1] : tensor<2x6xf64> to tensor<6xf64>
    %steps:2 = scf.for %s = %c0 to %c9 step %c1 iter_args(%h = %h0, %o2 = %o)
        -> (tensor<6xf64>, tensor<2x9x6xf64>) {
      %back = arith.subi %c8, %s : index
      %t = arith.select %reverse, %back, %s : index
      %pairs:2 = scf.for %k = %c0 to %c3 step %c1 iter_args(%hh = %h, %oo = %o2)
          -> (tensor<6xf64>, tensor<2x9x6xf64>) {
        %i0 = arith.muli %k, %c2 : index
        %i1 = arith.addi %i0, %c1 : index
        %p = tensor.extract %rho[%bi, %t, %k] : tensor<2x9x3xf64>
        %q = tensor.extract %theta[%bi, %t, %k] : tensor<2x9x3xf64>
        %cs = math.cos %q : f64
        %sn = math.sin %q : f64
        %u = tensor.extract %hh[%i0] : tensor<6xf64>
        %v = tensor.extract %hh[%i1] : tensor<6xf64>
        %b0 = tensor.extract %x[%bi, %t, %i0] : tensor<2x9x6xf64>
        %b1 = tensor.extract %x[%bi, %t, %i1] : tensor<2x9x6xf64>
        %cu = arith.mulf %cs, %u : f64
        %sv = arith.mulf %sn, %v : f64
        %su = arith.mulf %sn, %u : f64
        %cv = arith.mulf %cs, %v : f64
        %r0 = arith.subf %cu, %sv : f64
        %r1 = arith.addf %su, %cv : f64
        %m0 = arith.mulf %p, %r0 : f64
        %m1 = arith.mulf %p, %r1 : f64
        %n0 = arith.addf %m0, %b0 : f64
        %n1 = arith.addf %m1, %b1 : f64
        %hh1 = tensor.insert %n0 into %hh[%i0] : tensor<6xf64>
        %hh2 = tensor.insert %n1 into %hh1[%i1] : tensor<6xf64>
        %oo1 = tensor.insert %n0 into %oo[%bi, %t, %i0] : tensor<2x9x6xf64>
        %oo2 = tensor.insert %n1 into %oo1[%bi, %t, %i1] : tensor<2x9x6xf64>
        scf.yield %hh2, %oo2 : tensor<6xf64>, tensor<2x9x6xf64>
      }
      scf.yield %pairs#0, %pairs#1 : tensor<6xf64>, tensor<2x9x6xf64>
    }
    %l = tensor.insert_slice %steps#0 into %last[%bi, 0] [1, 6] [1, 1] : tensor<6xf64> into tensor<2x6xf64>
    scf.yield %steps#1, %l : tensor<2x9x6xf64>, tensor<2x6xf64>
  }
  return %res#0, %res#1 : tensor<2x9x6xf64>, tensor<2x6xf64>
}

/// max |a - b| over all elements, or max |a| when b is zeros.
func.func @maxdiff(%a: tensor<?xf64>, %b: tensor<?xf64>) -> f64 {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%a, %b : tensor<?xf64>, tensor<?xf64>) outs(%f : tensor<f64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %d = arith.subf %x, %y : f64
    %ad = math.absf %d : f64
    %m = arith.maximumf %acc, %ad : f64
    linalg.yield %m : f64
  } -> tensor<f64>
  %v = tensor.extract %r[] : tensor<f64>
  return %v : f64
}

/// 1 when the output and the final state agree with the reference to 1e-12
/// relative to the reference's size, else 0.
func.func @agrees(%h: tensor<2x9x6xf64>, %last: tensor<2x6xf64>,
                  %hr: tensor<2x9x6xf64>, %lastr: tensor<2x6xf64>) -> f64 {
  %hf = tensor.collapse_shape %h [[0, 1, 2]] : tensor<2x9x6xf64> into tensor<108xf64>
  %hrf = tensor.collapse_shape %hr [[0, 1, 2]] : tensor<2x9x6xf64> into tensor<108xf64>
  %lf = tensor.collapse_shape %last [[0, 1]] : tensor<2x6xf64> into tensor<12xf64>
  %lrf = tensor.collapse_shape %lastr [[0, 1]] : tensor<2x6xf64> into tensor<12xf64>
  %h1 = tensor.cast %hf : tensor<108xf64> to tensor<?xf64>
  %h2 = tensor.cast %hrf : tensor<108xf64> to tensor<?xf64>
  %l1 = tensor.cast %lf : tensor<12xf64> to tensor<?xf64>
  %l2 = tensor.cast %lrf : tensor<12xf64> to tensor<?xf64>
  %dh = call @maxdiff(%h1, %h2) : (tensor<?xf64>, tensor<?xf64>) -> f64
  %dl = call @maxdiff(%l1, %l2) : (tensor<?xf64>, tensor<?xf64>) -> f64
  %zeros = arith.constant dense<0.0> : tensor<108xf64>
  %z = tensor.cast %zeros : tensor<108xf64> to tensor<?xf64>
  %size = call @maxdiff(%h2, %z) : (tensor<?xf64>, tensor<?xf64>) -> f64
  %d = arith.maximumf %dh, %dl : f64
  %eps = arith.constant 1.0e-12 : f64
  %tol = arith.mulf %size, %eps : f64
  %ok = arith.cmpf olt, %d, %tol : f64
  %big = arith.constant 0.5 : f64
  %nontrivial = arith.cmpf ogt, %size, %big : f64
  %both = arith.andi %ok, %nontrivial : i1
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  %r = arith.select %both, %one, %zero : f64
  return %r : f64
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %fr = arith.constant 0.15 : f64
  %sr = arith.constant 0.8 : f64
  %ft = arith.constant 1.7 : f64
  %st = arith.constant 0.4 : f64
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  %rho = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @wave(%i, %j, %k, %fr, %sr) : (index, index, index, f64, f64) -> f64
    tensor.yield %v : f64
  } : tensor<2x9x3xf64>
  %theta = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @wave(%j, %k, %i, %ft, %st) : (index, index, index, f64, f64) -> f64
    tensor.yield %v : f64
  } : tensor<2x9x3xf64>
  %x = tensor.generate {
  ^bb0(%i: index, %j: index, %k: index):
    %v = func.call @wave(%k, %i, %j, %one, %zero) : (index, index, index, f64, f64) -> f64
    tensor.yield %v : f64
  } : tensor<2x9x6xf64>
  %init = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = func.call @wave(%i, %j, %c0, %one, %zero) : (index, index, index, f64, f64) -> f64
    tensor.yield %v : f64
  } : tensor<2x6xf64>

  %false = arith.constant false
  %true = arith.constant true
  %hr, %lr = call @reference(%rho, %theta, %x, %init, %false)
      : (tensor<2x9x3xf64>, tensor<2x9x3xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>, i1) -> (tensor<2x9x6xf64>, tensor<2x6xf64>)
  %hrr, %lrr = call @reference(%rho, %theta, %x, %init, %true)
      : (tensor<2x9x3xf64>, tensor<2x9x3xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>, i1) -> (tensor<2x9x6xf64>, tensor<2x6xf64>)

  %h1_dest = tensor.empty() : tensor<2x9x6xf64>
  %l1_dest = tensor.empty() : tensor<2x6xf64>
  %h1, %l1 = recurrence.scan #lru.rotation schedule sequential transition(%rho, %theta : tensor<2x9x3xf64>, tensor<2x9x3xf64>) input(%x : tensor<2x9x6xf64>) init(%init : tensor<2x6xf64>) outs(%h1_dest, %l1_dest : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  %h2_dest = tensor.empty() : tensor<2x9x6xf64>
  %l2_dest = tensor.empty() : tensor<2x6xf64>
  %h2, %l2 = recurrence.scan #lru.rotation schedule chunked<4> transition(%rho, %theta : tensor<2x9x3xf64>, tensor<2x9x3xf64>) input(%x : tensor<2x9x6xf64>) init(%init : tensor<2x6xf64>) outs(%h2_dest, %l2_dest : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  %h3_dest = tensor.empty() : tensor<2x9x6xf64>
  %l3_dest = tensor.empty() : tensor<2x6xf64>
  %h3, %l3 = recurrence.scan #lru.rotation schedule scan transition(%rho, %theta : tensor<2x9x3xf64>, tensor<2x9x3xf64>) input(%x : tensor<2x9x6xf64>) init(%init : tensor<2x6xf64>) outs(%h3_dest, %l3_dest : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  %h4_dest = tensor.empty() : tensor<2x9x6xf64>
  %l4_dest = tensor.empty() : tensor<2x6xf64>
  %h4, %l4 = recurrence.scan #lru.rotation transition(%rho, %theta : tensor<2x9x3xf64>, tensor<2x9x3xf64>) input(%x : tensor<2x9x6xf64>) init(%init : tensor<2x6xf64>) outs(%h4_dest, %l4_dest : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  %h5_dest = tensor.empty() : tensor<2x9x6xf64>
  %l5_dest = tensor.empty() : tensor<2x6xf64>
  %h5, %l5 = recurrence.scan #lru.rotation schedule sequential reverse transition(%rho, %theta : tensor<2x9x3xf64>, tensor<2x9x3xf64>) input(%x : tensor<2x9x6xf64>) init(%init : tensor<2x6xf64>) outs(%h5_dest, %l5_dest : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  %h6_dest = tensor.empty() : tensor<2x9x6xf64>
  %l6_dest = tensor.empty() : tensor<2x6xf64>
  %h6, %l6 = recurrence.scan #lru.rotation schedule chunked<4> reverse transition(%rho, %theta : tensor<2x9x3xf64>, tensor<2x9x3xf64>) input(%x : tensor<2x9x6xf64>) init(%init : tensor<2x6xf64>) outs(%h6_dest, %l6_dest : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>
  %h7_dest = tensor.empty() : tensor<2x9x6xf64>
  %l7_dest = tensor.empty() : tensor<2x6xf64>
  %h7, %l7 = recurrence.scan #lru.rotation schedule scan reverse transition(%rho, %theta : tensor<2x9x3xf64>, tensor<2x9x3xf64>) input(%x : tensor<2x9x6xf64>) init(%init : tensor<2x6xf64>) outs(%h7_dest, %l7_dest : tensor<2x9x6xf64>, tensor<2x6xf64>) -> tensor<2x9x6xf64>, tensor<2x6xf64>

  %a1 = call @agrees(%h1, %l1, %hr, %lr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  %a2 = call @agrees(%h2, %l2, %hr, %lr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  %a3 = call @agrees(%h3, %l3, %hr, %lr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  %a4 = call @agrees(%h4, %l4, %hr, %lr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  %a5 = call @agrees(%h5, %l5, %hrr, %lrr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  %a6 = call @agrees(%h6, %l6, %hrr, %lrr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  %a7 = call @agrees(%h7, %l7, %hrr, %lrr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  // The reversed reference differs from the forward one (so that a schedule
  // ignoring `reverse` fails): a forward scan does not agree with it.
  %a8 = call @agrees(%h1, %l1, %hrr, %lrr) : (tensor<2x9x6xf64>, tensor<2x6xf64>, tensor<2x9x6xf64>, tensor<2x6xf64>) -> f64
  %flags = tensor.from_elements %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8 : tensor<8xf64>
  %u = tensor.cast %flags : tensor<8xf64> to tensor<*xf64>
  call @printMemrefF64(%u) : (tensor<*xf64>) -> ()
  // CHECK: rank = 1 offset = {{[0-9]+}} sizes = [8] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [1, 1, 1, 1, 1, 1, 1, 0]
  return
}
