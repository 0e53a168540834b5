"""The model ops through recurrence.torch, forward and forward + backward,
against a plain torch loop over time on the same inputs in the same run (the
CPU fallback that model code runs without a kernel). One BENCH-MODEL line
per op with both times, the speedup over the loop and the agreement of the
two outputs."""

import os

import torch

from python_bench import bench_parser, best_seconds, parse_bench_args


def loop_selective_ssm(x, delta, A, B, C):
    """h_t[d, n] = exp(delta_t[d] A[d, n]) h_{t-1}[d, n] + delta_t[d] x_t[d]
    B_t[n], y_t[d] = sum_n C_t[n] h_t[d, n]."""
    h = x.new_zeros(x.shape[0], x.shape[2], A.shape[1])
    ys = []
    for t in range(x.shape[1]):
        h = torch.exp(delta[:, t, :, None] * A) * h + (
            delta[:, t] * x[:, t])[:, :, None] * B[:, t, None, :]
        ys.append((h * C[:, t, None, :]).sum(-1))
    return torch.stack(ys, 1)


def elu1(x):
    return torch.where(x > 0, x + 1, torch.exp(torch.clamp(x, max=0)))


def loop_linear_attention(q, k, v):
    """S_t = S_{t-1} + phi(k_t) v_t^T, z_t = z_{t-1} + phi(k_t),
    y_t = phi(q_t)^T S_t / phi(q_t)^T z_t."""
    fq, fk = elu1(q), elu1(k)
    S = q.new_zeros(q.shape[0], q.shape[2], v.shape[2])
    z = q.new_zeros(q.shape[0], q.shape[2])
    ys = []
    for t in range(q.shape[1]):
        S = S + fk[:, t, :, None] * v[:, t, None, :]
        z = z + fk[:, t]
        num = (fq[:, t, :, None] * S).sum(1)
        den = (fq[:, t] * z).sum(1, keepdim=True)
        ys.append(num / torch.clamp(den, min=1e-8))
    return torch.stack(ys, 1)


def loop_delta_rule(q, k, v, beta):
    """S_t = (I - beta_t k_t k_t^T) S_{t-1} + beta_t k_t v_t^T,
    y_t = S_t^T q_t."""
    S = q.new_zeros(q.shape[0], q.shape[2], v.shape[2])
    ys = []
    for t in range(q.shape[1]):
        kt, bt = k[:, t], beta[:, t, None]
        kS = (kt[:, :, None] * S).sum(1)
        S = S - (bt * kt)[:, :, None] * kS[:, None, :] + (
            bt * kt)[:, :, None] * v[:, t, None, :]
        ys.append((q[:, t, :, None] * S).sum(1))
    return torch.stack(ys, 1)


def loop_hlru(gates, v):
    """h_t = sum_i a_{i,t} h_{t-i} + a_{m,t} v_t (the m state gates, then the
    input gate)."""
    m = gates.shape[-1] - 1
    past = [v.new_zeros(v.shape[0], v.shape[2]) for _ in range(m)]
    hs = []
    for t in range(v.shape[1]):
        h = gates[:, t, :, m] * v[:, t]
        for i in range(m):
            h = h + gates[:, t, :, i] * past[i]
        past = [h] + past[:-1]
        hs.append(h)
    return torch.stack(hs, 1)


def loop_bdlru(gates, v):
    """h_t = A_t h_{t-1} + a_{0,t} * v_t on blocks of m: A_t's block rows
    are gates[..., :m], the input gate gates[..., m]."""
    B, T, H, m, _ = gates.shape
    h = v.new_zeros(B, H, m)
    hs = []
    for t in range(T):
        g = gates[:, t]
        h = (g[..., :m] * h[:, :, None, :]).sum(-1) + g[..., m] * v[
            :, t].reshape(B, H, m)
        hs.append(h.reshape(B, H * m))
    return torch.stack(hs, 1)


def cases(scale, rt):
    """(name, shape text, ours, loop, inputs) per model op."""
    g = torch.Generator().manual_seed(0)
    r = lambda *s: torch.rand(*s, generator=g)
    n = lambda *s: torch.randn(*s, generator=g)
    T = 2048 // scale
    Bt, Dm, N = 4, 256, 16
    ssm = (n(Bt, T, Dm), r(Bt, T, Dm) * 0.1, -r(Dm, N) - 0.5, n(Bt, T, N),
           n(Bt, T, N))
    la = (n(Bt, T, 64) * 0.5, n(Bt, T, 64) * 0.5, n(Bt, T, 64))
    k = torch.nn.functional.normalize(n(Bt, T // 2, 64), dim=-1)
    dr = (n(Bt, T // 2, 64), k, n(Bt, T // 2, 64), r(Bt, T // 2) * 0.9)
    hl = (r(Bt, T, 256, 3) * 0.45, n(Bt, T, 256))
    bd = (r(Bt, T, 64, 4, 5) * 0.2, n(Bt, T, 256))
    return [
        ("selective_ssm", f"(B,T,Dm,N)=({Bt},{T},{Dm},{N})",
         lambda *a: rt.selective_ssm(*a), loop_selective_ssm, ssm),
        ("linear_attention", f"(B,T,dk,dv)=({Bt},{T},64,64)",
         lambda *a: rt.linear_attention(*a), loop_linear_attention, la),
        ("delta_rule", f"(B,T,dk,dv)=({Bt},{T // 2},64,64)",
         lambda *a: rt.delta_rule(*a), loop_delta_rule, dr),
        ("hlru<2>", f"(B,T,N)=({Bt},{T},256)", lambda *a: rt.hlru(*a),
         loop_hlru, hl),
        ("bdlru<4>", f"(B,T,H,m)=({Bt},{T},64,4)", lambda *a: rt.bdlru(*a),
         loop_bdlru, bd),
    ]


def compiled_model_op(scale, reps):
    """The selective SSM as the compiler's model op (recurrence.models, on
    NumPy arrays): its gates exp(delta A) computed inside the time loop,
    against the torch loop's forward on the same values."""
    import recurrence.models as models
    g = torch.Generator().manual_seed(1)
    Bt, T, Dm, N = 4, 2048 // scale, 256, 16
    x, B, C = (torch.randn(Bt, T, n, generator=g) for n in (Dm, N, N))
    delta = torch.rand(Bt, T, Dm, generator=g) * 0.1
    A = -torch.rand(Dm, N, generator=g) - 0.5
    arrays = [t.numpy() for t in (x, delta, A, B, C)]
    got = torch.from_numpy(models.selective_ssm(*arrays))
    with torch.no_grad():
        want = loop_selective_ssm(x, delta, A, B, C)
        loop = best_seconds(reps, lambda: loop_selective_ssm(x, delta, A, B,
                                                             C))
    ours = best_seconds(reps, lambda: models.selective_ssm(*arrays))
    agree = float(((got - want).abs() / (want.abs() + want.pow(2).mean()
                                         .sqrt())).max())
    print(f"BENCH-MODEL selective_ssm (model op, NumPy) (B,T,Dm,N)=({Bt},{T},"
          f"{Dm},{N}) float32 forward_ms={ours * 1e3:.1f} "
          f"loop_ms={loop * 1e3:.1f} speedup={loop / ours:.1f} "
          f"agree={agree:.1e}", flush=True)


def forward_backward(f, inputs):
    leaves = [x.detach().requires_grad_() for x in inputs]
    f(*leaves).sum().backward()


def main():
    parser = bench_parser(__doc__, python_dir="build/python")
    parser.add_argument("--models", default="",
                        help="comma-separated names to run (default: all)")
    parser.add_argument("--composed", action="store_true",
                        help="every model composed of scans and torch ops, "
                        "rather than its compiled model op and gradient")
    args = parse_bench_args(parser)
    chosen = set(filter(None, args.models.split(",")))
    import recurrence.torch as rt
    if args.composed:
        rt._runs_compiled_model = lambda tensors, offsets: False

    scale, reps = (8, 1) if args.quick else (1, 2)
    # Ours take milliseconds: the best of more runs, as steady as the
    # loops' best of two, which take seconds.
    our_reps = reps if args.quick else 10
    torch.set_num_threads(os.cpu_count() or 1)
    if not chosen or "selective_ssm" in chosen:
        compiled_model_op(scale, reps)
    for name, shape, ours, loop, inputs in cases(scale, rt):
        if chosen and name not in chosen:
            continue
        with torch.no_grad():
            got, want = ours(*inputs), loop(*inputs)
            agree = float(((got - want).abs() / (want.abs() + want.pow(2)
                           .mean().sqrt())).max())
            fwd = best_seconds(our_reps, lambda: ours(*inputs))
            fwd_loop = best_seconds(reps, lambda: loop(*inputs))
        forward_backward(ours, inputs)  # compiles the adjoint
        both = best_seconds(our_reps,
                            lambda: forward_backward(ours, inputs))
        both_loop = best_seconds(1, lambda: forward_backward(loop, inputs))
        form = " (composed)" if args.composed else ""
        print(f"BENCH-MODEL {name}{form} {shape} float32 "
              f"forward_ms={fwd * 1e3:.1f} loop_ms={fwd_loop * 1e3:.1f} "
              f"speedup={fwd_loop / fwd:.1f} "
              f"forward_backward_ms={both * 1e3:.1f} "
              f"loop_ms={both_loop * 1e3:.1f} "
              f"speedup={both_loop / both:.1f} agree={agree:.1e}",
              flush=True)


if __name__ == "__main__":
    main()
