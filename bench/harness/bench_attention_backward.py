"""Attention backward, dQ, dK and dV of O = softmax(Q K^T / sqrt(D)) V per
head, Q K V O dO [B, H, S, D] in f16 or bf16, causal or not: croqjit's
backward program (samples/attention_backward_source.hpp, as
samples/flash_attention_backward.cpp runs it, from the log-sum-exp its
forward wrote) against torch's autograd backward of
scaled_dot_product_attention through its cuDNN backend (the ratio's
reference) and its FlashAttention-2 backend, in one process on the same
tensors (harness.py says how rows are checked and timed). Only the backward
is timed: each side's forward runs once before (ours: the forward that
writes O and the log-sum-exp; SDPA: its forward with the graph kept, whose
backward is then called with retain_graph). Both backends are checked
first against SDPA's math backend in fp32 on the same inputs; each of dQ,
dK and dV must match.

FLOPs: 10 B H S T D (the algorithm's five products: S, dP, dV, dK, dQ),
halved when causal. Two configurations of ours are checked and timed for
selection (the row's "selection_ms"): "croq", whose third kernel walks
the key tiles again for dQ (S and dP multiplied twice, seven products, the
figure counts five), and "croq dQ atomics", dQ accumulated in f32 with
atomics by the key-tile kernel (five products). D = 256: a reference that
refuses the head dim (torch's cuDNN backend may) is left out of the row
and named in it ("refused"); a row no reference runs is reported as such,
not as a failure. Inputs: torch.randn for Q, K, V and dO (four draws),
seeded per row.

    python bench/harness/bench_attention_backward.py [--quick] [--json OUT] [--only f16|bf16] [--self-test]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kernel_text  # noqa: E402

# (B, H, S, D): S = T.
SHAPES = [(4, 16, 4096, 128), (4, 16, 4096, 64), (4, 16, 4096, 256)]
QUICK_SHAPES = SHAPES[:1]

# Gradients pass through P and dS rounded to f16 / bf16; a key tile of dK
# and dV left out, or a query tile missing from dQ, moves whole rows. bf16
# keeps 8 significant bits to f16's 11, so its per-element bounds are 4x
# wider: at f16's, cuDNN's own causal bf16 gradients missed the fp32 truth
# by up to 2.8x the bound (H200), while a dropped tile misses it by orders
# of magnitude at either width.
TOLERANCE = {"f16": harness.Tolerance(rel_frobenius=2e-2, rms_fraction=0.05, rel_element=2e-2),
             "bf16": harness.Tolerance(rel_frobenius=3e-2, rms_fraction=0.2, rel_element=8e-2)}

COLUMNS = (f"  {'attention (backward)':40s} {'croq TFLOP/s':>13s} {'cuDNN TFLOP/s':>14s} {'flash TFLOP/s':>14s}"
           f" {'croq/cuDNN':>11s} {'croq/flash':>11s}  croq ms [min, max]")


def inputs(torch, dtype, b, h, s, d, seed, label):
    g = harness.generator(seed, label)
    return tuple(torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(4))


def compare_gradients(got, want, tol):
    """dQ, dK and dV each against the reference's; the row's comparison is
    the worst of the three (its index leads with 0, 1 or 2 for dQ, dK, dV)."""
    checks = [harness.compare(g, w, tol) for g, w in zip(got, want)]
    which = max(range(3), key=lambda i: (not checks[i].passed, checks[i].worst_ratio))
    w = checks[which]
    return harness.Comparison(all(c.passed for c in checks), max(c.rel_error for c in checks), w.worst_ratio,
                              (which, *w.worst_index), w.worst_got, w.worst_want, sum(c.nonfinite for c in checks))


def croq_side(croqjit, element, d, q, k, v, dout, causal, name="croq", backward_source=None):
    """Our forward once (O and the log-sum-exp), then the timed backward."""
    import torch

    forward = croqjit.compile(croqjit._croqjit._attention_source("forward_lse", element, d),
                              source_name=f"attention forward lse {element} D{d}.co")
    backward = croqjit.compile(backward_source or croqjit._croqjit._attention_source("backward", element, d),
                               source_name=f"attention backward {name} {element} D{d}.co")
    o = torch.empty_like(q)
    lse = torch.empty(*q.shape[:3], 8, device="cuda", dtype=torch.float32)
    forward(q, k, v, o, lse, causal)
    grads = tuple(torch.empty_like(t) for t in (q, k, v))

    def call():
        backward(q, k, v, o, dout, lse, *grads, causal)
        return grads

    def poison():
        for g in grads:
            g.fill_(float("nan"))

    return harness.Side(name, call, poison=poison, config={"kernels": 3, "dq": "pass" if "dq pass" in name.lower() else "atomic"})


def sdpa_backward(torch, q, k, v, dout, causal, which, upcast=False):
    """The backward of SDPA through backend `which`: the forward once with
    the graph kept, then each call runs its backward."""
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel

    leaves = [t.detach().float() if upcast else t.detach() for t in (q, k, v)]
    leaves = [t.requires_grad_() for t in leaves]
    grad = dout.float() if upcast else dout
    with sdpa_kernel(which):
        out = F.scaled_dot_product_attention(*leaves, is_causal=causal)

    def call():
        return torch.autograd.grad(out, leaves, grad, retain_graph=True)

    return call


def sdpa_sides(torch, q, k, v, dout, causal, refused=None):
    """cuDNN's and FlashAttention-2's backward. With `refused` (a dict), a
    backend that raises at this shape (forward or backward) is left out and
    its first line of error recorded there; without it, it raises."""
    from torch.nn.attention import SDPBackend

    sides = []
    for name, backend in (("cuDNN", SDPBackend.CUDNN_ATTENTION), ("flash", SDPBackend.FLASH_ATTENTION)):
        try:
            call = sdpa_backward(torch, q, k, v, dout, causal, backend)
            if refused is not None:
                call()
                torch.cuda.synchronize()
            sides.append(harness.Side(name, call))
        except RuntimeError as exc:
            if refused is None:
                raise
            refused[name] = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:300]
    return sides


def fp32_gradients(torch, q, k, v, dout, causal):
    from torch.nn.attention import SDPBackend

    return sdpa_backward(torch, q, k, v, dout, causal, SDPBackend.MATH, upcast=True)()


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    for element in ("f16", "bf16"):
        if args.only and args.only != element:
            continue
        dtype = torch.float16 if element == "f16" else torch.bfloat16
        for b, h, s, d in QUICK_SHAPES if args.quick else SHAPES:
            for causal in (False, True):
                label = f"{element} B={b} H={h} S={s} D={d} {'causal' if causal else 'non-causal'}"

                def row_fn(b=b, h=h, s=s, d=d, causal=causal, label=label):
                    q, k, v, dout = inputs(torch, dtype, b, h, s, d, args.seed, label)
                    atomics = croqjit._croqjit._attention_source("backward_dq_atomics", element, d)
                    ours = [croq_side(croqjit, element, d, q, k, v, dout, causal),
                            croq_side(croqjit, element, d, q, k, v, dout, causal, "croq dQ atomics", atomics)]
                    refused = {}
                    references = sdpa_sides(torch, q, k, v, dout, causal, refused)
                    if not references:
                        report.skip(label, f"every reference refuses D={d}: {refused}")
                        return
                    row = harness.run_row(label, ours, references, TOLERANCE[element],
                                          settings, timer, truth=lambda: fp32_gradients(torch, q, k, v, dout, causal),
                                          compare_fn=compare_gradients)
                    if refused:
                        row["refused"] = refused
                    add_row(report, row, element, b, h, s, d, causal, args)

                harness.guarded(report, label, row_fn)


def add_row(report, row, element, b, h, s, d, causal, args):
    flops = 10.0 * b * h * s * s * d / (2 if causal else 1)
    row.update({"dtype": element, "b": b, "h": h, "s": s, "t": s, "d": d, "causal": causal,
                "seed": harness.row_seed(args.seed, row["label"])})
    figures = {name: flops / (summary["median_ms"] * 1e-3) / 1e12
               for name, summary in [("croq", row["ours"]), *row["references"].items()]}
    row["tflops"] = figures
    nan = float("nan")  # a reference that refused the shape (row["refused"])
    line = (f"  {row['label']:40s} {figures['croq']:13.1f} {figures.get('cuDNN', nan):14.1f}"
            f" {figures.get('flash', nan):14.1f} {row['ratios'].get('cuDNN', nan):11.3f}"
            f" {row['ratios'].get('flash', nan):11.3f}  {harness.spread(row['ours'])}")
    if "selection_ms" in row:
        line += "  selection ms " + ", ".join(f"{n}: {t:.4f}" for n, t in row["selection_ms"].items())
    if "refused" in row:
        line += f"  refused: {', '.join(row['refused'])}"
    report.add(row, line, args.min_ratio)


def drop_last_query_tile(source: str) -> str:
    """The backward with dK and dV missing the last query tile's share."""
    return kernel_text.replace_exactly(source, "tiles = cdiv(S, 64) > first ? cdiv(S, 64) - first : 0;",
                                       "tiles = cdiv(S, 64) > first + 1 ? cdiv(S, 64) - first - 1 : 0;", 1)


def self_test_cases(args):
    """At B=4 H=16 S=4096 D=128, f16 non-causal and bf16 causal: dK and dV
    without the last query tile (64 of 4096 queries)."""
    import torch

    croqjit = harness.import_croqjit()
    b, h, s, d = SHAPES[0]
    cases = []
    # bf16 causal too: its wider bounds must still refuse a dropped tile.
    for element, dtype, causal in (("f16", torch.float16, False), ("bf16", torch.bfloat16, True)):
        label = f"{element} B={b} H={h} S={s} D={d} {'causal' if causal else 'non-causal'}"
        q, k, v, dout = inputs(torch, dtype, b, h, s, d, args.seed, label)
        broken = drop_last_query_tile(croqjit._croqjit._attention_source("backward", element, d))
        cases.append(harness.SelfTestCase(
            label, croq_side(croqjit, element, d, q, k, v, dout, causal),
            croq_side(croqjit, element, d, q, k, v, dout, causal, "croq, last query tile dropped", broken),
            sdpa_sides(torch, q, k, v, dout, causal)[:1], TOLERANCE[element], compare_gradients))
    return cases


def main():
    return harness.script_main("bench_attention_backward", __doc__.split("\n\n")[0], ["f16", "bf16"], COLUMNS,
                               run_rows, self_test_cases, budget_help="croq/cuDNN throughput ratio")


if __name__ == "__main__":
    sys.exit(main())
