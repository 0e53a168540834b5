// REQUIRES: shared-libs
// The backward of a structure from outside the project: -recurrence-
// differentiate derives @<name>_grad for scans of `#lru.rotation` from the
// plugin's transposed step and cotangent projection alone. Each gradient is
// checked against the loss it differentiates, L = sum(h * ybar) + sum(last *
// fbar), along a direction d through every operand (rho, theta, b, init):
// <grad, d> must match the central difference (L(x + e d) - L(x - e d)) / 2e
// to 1e-6, under every schedule and reversed. B = 2, T = 5 (not a multiple
// of the chunk), N = 4, float64.
//
// RUN: recurrence-opt --load-dialect-plugin=%lru_plugin %s -recurrence-differentiate \
// RUN:   | FileCheck %s --check-prefix=GRAD
// RUN: recurrence-opt --load-dialect-plugin=%lru_plugin %s -recurrence-differentiate \
// RUN:   -recurrence-to-llvm | %run | FileCheck %s

// The adjoint of rho R(theta) is rho R(-theta), read a step later: a scan
// over the T - 1 = 4 steps before mu_T, then one step to init's cotangent.
// GRAD-LABEL: func.func private @seq_grad(
// GRAD: recurrence.scan #lru.rotation schedule sequential matrix transition(
// GRAD: linalg.negf
// GRAD: recurrence.scan #lru.rotation schedule sequential matrix reverse transition(
// GRAD-SAME: tensor<2x4x2xf64>, tensor<2x4x2xf64>
// GRAD: recurrence.scan #lru.rotation schedule sequential matrix reverse transition(
// GRAD-SAME: tensor<2x1x2xf64>, tensor<2x1x2xf64>
func.func @seq(%rho: tensor<2x5x2xf64>, %theta: tensor<2x5x2xf64>, %b: tensor<2x5x4xf64>, %init: tensor<2x4xf64>)
    -> (tensor<2x5x4xf64>, tensor<2x4xf64>) {
  %h_dest = tensor.empty() : tensor<2x5x4xf64>
  %last_dest = tensor.empty() : tensor<2x4xf64>
  %h, %last = recurrence.scan #lru.rotation schedule sequential
      transition(%rho, %theta : tensor<2x5x2xf64>, tensor<2x5x2xf64>) input(%b : tensor<2x5x4xf64>) init(%init : tensor<2x4xf64>)
      outs(%h_dest, %last_dest : tensor<2x5x4xf64>, tensor<2x4xf64>)
      -> tensor<2x5x4xf64>, tensor<2x4xf64>
  return %h, %last : tensor<2x5x4xf64>, tensor<2x4xf64>
}
func.func @chunk(%rho: tensor<2x5x2xf64>, %theta: tensor<2x5x2xf64>, %b: tensor<2x5x4xf64>, %init: tensor<2x4xf64>)
    -> (tensor<2x5x4xf64>, tensor<2x4xf64>) {
  %h_dest = tensor.empty() : tensor<2x5x4xf64>
  %last_dest = tensor.empty() : tensor<2x4xf64>
  %h, %last = recurrence.scan #lru.rotation schedule chunked<2>
      transition(%rho, %theta : tensor<2x5x2xf64>, tensor<2x5x2xf64>) input(%b : tensor<2x5x4xf64>) init(%init : tensor<2x4xf64>)
      outs(%h_dest, %last_dest : tensor<2x5x4xf64>, tensor<2x4xf64>)
      -> tensor<2x5x4xf64>, tensor<2x4xf64>
  return %h, %last : tensor<2x5x4xf64>, tensor<2x4xf64>
}
func.func @blelloch(%rho: tensor<2x5x2xf64>, %theta: tensor<2x5x2xf64>, %b: tensor<2x5x4xf64>, %init: tensor<2x4xf64>)
    -> (tensor<2x5x4xf64>, tensor<2x4xf64>) {
  %h_dest = tensor.empty() : tensor<2x5x4xf64>
  %last_dest = tensor.empty() : tensor<2x4xf64>
  %h, %last = recurrence.scan #lru.rotation schedule scan
      transition(%rho, %theta : tensor<2x5x2xf64>, tensor<2x5x2xf64>) input(%b : tensor<2x5x4xf64>) init(%init : tensor<2x4xf64>)
      outs(%h_dest, %last_dest : tensor<2x5x4xf64>, tensor<2x4xf64>)
      -> tensor<2x5x4xf64>, tensor<2x4xf64>
  return %h, %last : tensor<2x5x4xf64>, tensor<2x4xf64>
}
func.func @rev(%rho: tensor<2x5x2xf64>, %theta: tensor<2x5x2xf64>, %b: tensor<2x5x4xf64>, %init: tensor<2x4xf64>)
    -> (tensor<2x5x4xf64>, tensor<2x4xf64>) {
  %h_dest = tensor.empty() : tensor<2x5x4xf64>
  %last_dest = tensor.empty() : tensor<2x4xf64>
  %h, %last = recurrence.scan #lru.rotation schedule sequential reverse
      transition(%rho, %theta : tensor<2x5x2xf64>, tensor<2x5x2xf64>) input(%b : tensor<2x5x4xf64>) init(%init : tensor<2x4xf64>)
      outs(%h_dest, %last_dest : tensor<2x5x4xf64>, tensor<2x4xf64>)
      -> tensor<2x5x4xf64>, tensor<2x4xf64>
  return %h, %last : tensor<2x5x4xf64>, tensor<2x4xf64>
}
// The gradients, declared for the calls below; the pass defines them.
func.func private @seq_grad(tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
func.func private @chunk_grad(tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
func.func private @blelloch_grad(tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
func.func private @rev_grad(tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
func.func private @printMemrefF64(tensor<*xf64>)

/// A deterministic, non-trivial [d0, d1, d2] tensor: scale sin(7i + 3j + k +
/// 11 seed) + shift.
func.func @wave(%d0: index, %d1: index, %d2: index, %seed: index, %scale: f64,
                %shift: f64) -> tensor<?x?x?xf64> {
  %c3 = arith.constant 3 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %w = tensor.generate %d0, %d1, %d2 {
  ^bb0(%i: index, %j: index, %k: index):
    %a = arith.muli %i, %c7 : index
    %b = arith.muli %j, %c3 : index
    %c = arith.muli %seed, %c11 : index
    %s = arith.addi %a, %b : index
    %s2 = arith.addi %s, %k : index
    %s3 = arith.addi %s2, %c : index
    %n = arith.index_cast %s3 : index to i64
    %x = arith.sitofp %n : i64 to f64
    %y = math.sin %x : f64
    %z = arith.mulf %y, %scale : f64
    %v = arith.addf %z, %shift : f64
    tensor.yield %v : f64
  } : tensor<?x?x?xf64>
  return %w : tensor<?x?x?xf64>
}

func.func @dot(%a: tensor<?x?x?xf64>, %b: tensor<?x?x?xf64>) -> f64 {
  %x = tensor.collapse_shape %a [[0, 1, 2]] : tensor<?x?x?xf64> into tensor<?xf64>
  %y = tensor.collapse_shape %b [[0, 1, 2]] : tensor<?x?x?xf64> into tensor<?xf64>
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %acc = linalg.fill ins(%zero : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %d = linalg.dot ins(%x, %y : tensor<?xf64>, tensor<?xf64>) outs(%acc : tensor<f64>) -> tensor<f64>
  %r = tensor.extract %d[] : tensor<f64>
  return %r : f64
}

func.func @dot3(%a: tensor<2x5x2xf64>, %b: tensor<2x5x2xf64>) -> f64 {
  %x = tensor.cast %a : tensor<2x5x2xf64> to tensor<?x?x?xf64>
  %y = tensor.cast %b : tensor<2x5x2xf64> to tensor<?x?x?xf64>
  %r = call @dot(%x, %y) : (tensor<?x?x?xf64>, tensor<?x?x?xf64>) -> f64
  return %r : f64
}

func.func @dotx(%a: tensor<2x5x4xf64>, %b: tensor<2x5x4xf64>) -> f64 {
  %x = tensor.cast %a : tensor<2x5x4xf64> to tensor<?x?x?xf64>
  %y = tensor.cast %b : tensor<2x5x4xf64> to tensor<?x?x?xf64>
  %r = call @dot(%x, %y) : (tensor<?x?x?xf64>, tensor<?x?x?xf64>) -> f64
  return %r : f64
}

func.func @doti(%a: tensor<2x4xf64>, %b: tensor<2x4xf64>) -> f64 {
  %x = tensor.expand_shape %a [[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf64> into tensor<2x4x1xf64>
  %y = tensor.expand_shape %b [[0], [1, 2]] output_shape [2, 4, 1] : tensor<2x4xf64> into tensor<2x4x1xf64>
  %xc = tensor.cast %x : tensor<2x4x1xf64> to tensor<?x?x?xf64>
  %yc = tensor.cast %y : tensor<2x4x1xf64> to tensor<?x?x?xf64>
  %r = call @dot(%xc, %yc) : (tensor<?x?x?xf64>, tensor<?x?x?xf64>) -> f64
  return %r : f64
}

/// L = sum(h * ybar) + sum(last * fbar).
func.func @loss(%h: tensor<2x5x4xf64>, %last: tensor<2x4xf64>, %ybar: tensor<2x5x4xf64>, %fbar: tensor<2x4xf64>) -> f64 {
  %a = call @dotx(%h, %ybar) : (tensor<2x5x4xf64>, tensor<2x5x4xf64>) -> f64
  %b = call @doti(%last, %fbar) : (tensor<2x4xf64>, tensor<2x4xf64>) -> f64
  %s = arith.addf %a, %b : f64
  return %s : f64
}

/// <grad, d> over the four operands.
func.func @along(%g0: tensor<2x5x2xf64>, %g1: tensor<2x5x2xf64>, %g2: tensor<2x5x4xf64>, %g3: tensor<2x4xf64>,
                 %d0: tensor<2x5x2xf64>, %d1: tensor<2x5x2xf64>, %d2: tensor<2x5x4xf64>, %d3: tensor<2x4xf64>) -> f64 {
  %a = call @dot3(%g0, %d0) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>) -> f64
  %b = call @dot3(%g1, %d1) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>) -> f64
  %c = call @dotx(%g2, %d2) : (tensor<2x5x4xf64>, tensor<2x5x4xf64>) -> f64
  %d = call @doti(%g3, %d3) : (tensor<2x4xf64>, tensor<2x4xf64>) -> f64
  %s1 = arith.addf %a, %b : f64
  %s2 = arith.addf %c, %d : f64
  %s = arith.addf %s1, %s2 : f64
  return %s : f64
}

/// 1.0 when |exact - (plus - minus) / 2e| <= 1e-6 (|exact| + 1), else 0.0.
func.func @agrees(%exact: f64, %plus: f64, %minus: f64, %eps: f64) -> f64 {
  %diff = arith.subf %plus, %minus : f64
  %two = arith.constant 2.0 : f64
  %den = arith.mulf %two, %eps : f64
  %fd = arith.divf %diff, %den : f64
  %err = arith.subf %exact, %fd : f64
  %abs = math.absf %err : f64
  %mag = math.absf %exact : f64
  %one = arith.constant 1.0 : f64
  %scale = arith.addf %mag, %one : f64
  %tol = arith.constant 1.0e-6 : f64
  %bound = arith.mulf %scale, %tol : f64
  %ok = arith.cmpf ole, %abs, %bound : f64
  %r = arith.select %ok, %one, %eps : f64
  %zero = arith.constant 0.0 : f64
  %flag = arith.select %ok, %one, %zero : f64
  return %flag : f64
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %c3 = arith.constant 3 : index
  %c6 = arith.constant 6 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %c12 = arith.constant 12 : index
  %c13 = arith.constant 13 : index
  %s0 = arith.constant 0.0 : f64
  %s1 = arith.constant 1.0 : f64
  %s01 = arith.constant 0.1 : f64
  %s085 = arith.constant 0.85 : f64
  %rhod = call @wave(%c2, %c5, %c2, %c1, %s01, %s085) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %rho = tensor.cast %rhod : tensor<?x?x?xf64> to tensor<2x5x2xf64>
  %thetad = call @wave(%c2, %c5, %c2, %c2, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %theta = tensor.cast %thetad : tensor<?x?x?xf64> to tensor<2x5x2xf64>
  %bd = call @wave(%c2, %c5, %c4, %c3, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %b = tensor.cast %bd : tensor<?x?x?xf64> to tensor<2x5x4xf64>
  %init3d = call @wave(%c2, %c4, %c1, %c4, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %init3 = tensor.cast %init3d : tensor<?x?x?xf64> to tensor<2x4x1xf64>
  %drhod = call @wave(%c2, %c5, %c2, %c5, %s01, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %drho = tensor.cast %drhod : tensor<?x?x?xf64> to tensor<2x5x2xf64>
  %dthetad = call @wave(%c2, %c5, %c2, %c6, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %dtheta = tensor.cast %dthetad : tensor<?x?x?xf64> to tensor<2x5x2xf64>
  %dbd = call @wave(%c2, %c5, %c4, %c7, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %db = tensor.cast %dbd : tensor<?x?x?xf64> to tensor<2x5x4xf64>
  %dinit3d = call @wave(%c2, %c4, %c1, %c8, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %dinit3 = tensor.cast %dinit3d : tensor<?x?x?xf64> to tensor<2x4x1xf64>
  %ybard = call @wave(%c2, %c5, %c4, %c9, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %ybar = tensor.cast %ybard : tensor<?x?x?xf64> to tensor<2x5x4xf64>
  %fbar3d = call @wave(%c2, %c4, %c1, %c10, %s1, %s0) : (index, index, index, index, f64, f64) -> tensor<?x?x?xf64>
  %fbar3 = tensor.cast %fbar3d : tensor<?x?x?xf64> to tensor<2x4x1xf64>
  %init = tensor.collapse_shape %init3 [[0], [1, 2]] : tensor<2x4x1xf64> into tensor<2x4xf64>
  %dinit = tensor.collapse_shape %dinit3 [[0], [1, 2]] : tensor<2x4x1xf64> into tensor<2x4xf64>
  %fbar = tensor.collapse_shape %fbar3 [[0], [1, 2]] : tensor<2x4x1xf64> into tensor<2x4xf64>
  // x +- e d, elementwise on tensors.
  %eps = arith.constant 1.0e-6 : f64
  %e3 = arith.constant dense<1.0e-6> : tensor<2x5x2xf64>
  %ex = arith.constant dense<1.0e-6> : tensor<2x5x4xf64>
  %ei = arith.constant dense<1.0e-6> : tensor<2x4xf64>
  %sr = arith.mulf %drho, %e3 : tensor<2x5x2xf64>
  %st = arith.mulf %dtheta, %e3 : tensor<2x5x2xf64>
  %sb = arith.mulf %db, %ex : tensor<2x5x4xf64>
  %si = arith.mulf %dinit, %ei : tensor<2x4xf64>
  %rhop = arith.addf %rho, %sr : tensor<2x5x2xf64>
  %rhom = arith.subf %rho, %sr : tensor<2x5x2xf64>
  %thetap = arith.addf %theta, %st : tensor<2x5x2xf64>
  %thetam = arith.subf %theta, %st : tensor<2x5x2xf64>
  %bp = arith.addf %b, %sb : tensor<2x5x4xf64>
  %bm = arith.subf %b, %sb : tensor<2x5x4xf64>
  %initp = arith.addf %init, %si : tensor<2x4xf64>
  %initm = arith.subf %init, %si : tensor<2x4xf64>
  %g0_seq, %g1_seq, %g2_seq, %g3_seq = call @seq_grad(%rho, %theta, %b, %init, %ybar, %fbar)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
  %exact_seq = call @along(%g0_seq, %g1_seq, %g2_seq, %g3_seq, %drho, %dtheta, %db, %dinit)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %hp_seq, %lp_seq = call @seq(%rhop, %thetap, %bp, %initp) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %hm_seq, %lm_seq = call @seq(%rhom, %thetam, %bm, %initm) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %plus_seq = call @loss(%hp_seq, %lp_seq, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %minus_seq = call @loss(%hm_seq, %lm_seq, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %ok_seq = call @agrees(%exact_seq, %plus_seq, %minus_seq, %eps) : (f64, f64, f64, f64) -> f64
  %g0_chunk, %g1_chunk, %g2_chunk, %g3_chunk = call @chunk_grad(%rho, %theta, %b, %init, %ybar, %fbar)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
  %exact_chunk = call @along(%g0_chunk, %g1_chunk, %g2_chunk, %g3_chunk, %drho, %dtheta, %db, %dinit)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %hp_chunk, %lp_chunk = call @chunk(%rhop, %thetap, %bp, %initp) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %hm_chunk, %lm_chunk = call @chunk(%rhom, %thetam, %bm, %initm) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %plus_chunk = call @loss(%hp_chunk, %lp_chunk, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %minus_chunk = call @loss(%hm_chunk, %lm_chunk, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %ok_chunk = call @agrees(%exact_chunk, %plus_chunk, %minus_chunk, %eps) : (f64, f64, f64, f64) -> f64
  %g0_blelloch, %g1_blelloch, %g2_blelloch, %g3_blelloch = call @blelloch_grad(%rho, %theta, %b, %init, %ybar, %fbar)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
  %exact_blelloch = call @along(%g0_blelloch, %g1_blelloch, %g2_blelloch, %g3_blelloch, %drho, %dtheta, %db, %dinit)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %hp_blelloch, %lp_blelloch = call @blelloch(%rhop, %thetap, %bp, %initp) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %hm_blelloch, %lm_blelloch = call @blelloch(%rhom, %thetam, %bm, %initm) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %plus_blelloch = call @loss(%hp_blelloch, %lp_blelloch, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %minus_blelloch = call @loss(%hm_blelloch, %lm_blelloch, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %ok_blelloch = call @agrees(%exact_blelloch, %plus_blelloch, %minus_blelloch, %eps) : (f64, f64, f64, f64) -> f64
  %g0_rev, %g1_rev, %g2_rev, %g3_rev = call @rev_grad(%rho, %theta, %b, %init, %ybar, %fbar)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>)
  %exact_rev = call @along(%g0_rev, %g1_rev, %g2_rev, %g3_rev, %drho, %dtheta, %db, %dinit)
      : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %hp_rev, %lp_rev = call @rev(%rhop, %thetap, %bp, %initp) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %hm_rev, %lm_rev = call @rev(%rhom, %thetam, %bm, %initm) : (tensor<2x5x2xf64>, tensor<2x5x2xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> (tensor<2x5x4xf64>, tensor<2x4xf64>)
  %plus_rev = call @loss(%hp_rev, %lp_rev, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %minus_rev = call @loss(%hm_rev, %lm_rev, %ybar, %fbar) : (tensor<2x5x4xf64>, tensor<2x4xf64>, tensor<2x5x4xf64>, tensor<2x4xf64>) -> f64
  %ok_rev = call @agrees(%exact_rev, %plus_rev, %minus_rev, %eps) : (f64, f64, f64, f64) -> f64
  // Control: the forward scan's gradient against the reversed scan's
  // differences must disagree.
  %control = call @agrees(%exact_seq, %plus_rev, %minus_rev, %eps) : (f64, f64, f64, f64) -> f64
  %flags = tensor.from_elements %ok_seq, %ok_chunk, %ok_blelloch, %ok_rev, %control : tensor<5xf64>
  %u = tensor.cast %flags : tensor<5xf64> to tensor<*xf64>
  call @printMemrefF64(%u) : (tensor<*xf64>) -> ()
  // CHECK: rank = 1 offset = {{[0-9]+}} sizes = [5] strides = [1] data =
  // CHECK-NEXT{LITERAL}: [1, 1, 1, 1, 0]
  return
}
