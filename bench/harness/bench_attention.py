"""Forward attention, O = softmax(Q K^T / sqrt(D)) V per head, Q K V O
[B, H, S, D] in f16 or bf16, causal or not: croqjit's flash attention
(samples/attention_source.hpp, as samples/flash_attention.cpp runs it) in
its configurations (consumer warpgroups taking turns or not; three
consumers, 192 query rows a block, at D = 64) against torch
scaled_dot_product_attention through its cuDNN backend (the ratio's
reference) and its FlashAttention-2 backend, in one process on the same
tensors (harness.py says how rows are checked and timed). Both backends are
checked first against SDPA's math backend in fp32 on the same inputs.

FLOPs: 4 B H S T D, halved when causal. Inputs: torch.randn for Q, K and V
(three draws), seeded per row.

Grouped-query rows (GQA: H query heads over HK key/value heads): croq's
grouped kernel reads each key/value head for H / HK query heads; SDPA runs
the same work with enable_gqa=True where the backend takes it, else on K
and V repeated to H heads beforehand (outside the timing; the row's
`reference_kv` says which).

Packed rows (varlen: sequences of different lengths one after another,
Q K V O [H, total, D] with cumulative offsets, as FlashAttention's varlen
API): croq's varlen kernel in one call; SDPA (cuDNN, FlashAttention-2) once
per sequence on contiguous [1, H, len, D] copies made beforehand, which is
the same arithmetic. FLOPs: the sum over the sequences.

FP8 rows (`--only e4m3`): croq's FP8 forward (samples/attention_source.hpp,
Config::element "e4m3": e4m3 Q, K and V^T with per-tensor descale factors,
f16 output) on the row's randn inputs quantized per tensor (scale = amax /
448, FlashAttention-3's descale = that scale). The kernel takes V
transposed ([B, H, D, T]); the timed croq call includes that transposition
(a torch copy), and the row also times the kernel alone on a V^T made
beforehand ("croq fp8 kernel only"). References, all on the dequantized
inputs in f16 (the same values): SDPA's cuDNN backend, and croq's own f16
forward, whose ratio is the FP8 speedup; cuDNN's FP8 attention where
torch's SDPA takes float8 inputs (the row's `cudnn_fp8` says what was
found). The f16 sides are checked as the f16 rows are (fp32 attention,
TOLERANCE); the FP8 kernel rounds P to e4m3 before P V (as
FlashAttention-3 does, 2-2.5% off the unrounded softmax), so both of its
sides are held to their own truth instead (harness.OwnTruth):
`rounded_p_attention` replays the kernel's online softmax per key tile in
fp32 with P rounded to e4m3, as attention_check.hpp's check_fp8 does in
C++, under the f16 bounds plus one e4m3 step of each element's largest
term (FP8_ALLOWANCE_STEP). The row reports the FP8 time, croq f16's and
cuDNN f16's of the same run, FP8 / croq f16 (the target: at least
FP8_SPEEDUP_TARGET at D = 128) and, named as such, FlashAttention-3's
published FP8 figures (FA3_PAPER_FP8). With --quick, D = 128 only.

    python bench/harness/bench_attention.py [--quick] [--json OUT] [--only f16|bf16|e4m3] [--self-test]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
import kernel_text  # noqa: E402

# (B, H, S, D): S = T.
SHAPES = [(4, 16, 4096, 128), (8, 16, 2048, 64), (4, 16, 4096, 96), (4, 16, 4096, 256)]

# (B, H, HK, S, D): grouped-query attention, S = T.
GQA_SHAPES = [(2, 32, 8, 4096, 128)]

# FP8 rows (B, H, S, D): S = T.
FP8_SHAPES = [(4, 16, 4096, 128), (8, 16, 2048, 64), (4, 16, 4096, 256)]

# Packed rows: (H, D, sequence lengths).
VARLEN_ROWS = [(16, 128, (4096, 512, 3000, 1024, 2047, 129, 3500, 2200))]

# (name, ping_pong, consumers); three consumers have too few registers for
# D = 128's accumulators.
CONFIGS = [("BM=128 ping-pong", True, 2), ("BM=128", False, 2), ("BM=192 ping-pong", True, 3), ("BM=192", False, 3)]
QUICK_CONFIGS = [CONFIGS[0], CONFIGS[2]]

# attention_check.hpp's bound: P and O rounded to f16 / bf16 stay far
# inside it; a dropped key tile (1/32 of the keys at T = 4096) moves the
# output by about 18% of its RMS.
TOLERANCE = harness.Tolerance(rel_frobenius=1e-2, rms_fraction=0.05, rel_element=1e-2)
# The FP8 kernel against rounded_p_attention: what is left between them is
# the f16 output (2^-11), ex2.approx, the f32 sums' order and fp8 WGMMA's
# narrower accumulation of S and P V (about 2^-13 of a partial sum), all far
# inside TOLERANCE; and a p_j whose f32 value lies that close to an e4m3
# rounding boundary rounds the other way in one of them: one e4m3 step (at
# most 1/8 of p_j) of that term, so each element also gets 1/8 of its
# largest |p_j v_jc| / sum (attention_check.hpp's check_fp8 allows the same).
FP8_TOLERANCE = TOLERANCE
FP8_ALLOWANCE_STEP = 0.125
FP8_SPEEDUP_TARGET = 1.5  # FP8 / croq f16 at D = 128 (issue 33)
# FlashAttention-3's paper (Shah et al., 2024, arXiv 2407.08608), FP8
# forward on an H100 80GB SXM5 (not an H200), its inputs B S = 16k,
# H D = 2048: "close to 1.2 PFLOPs/s" (the abstract); the FP8 speed figures
# give 1171 TFLOP/s at D = 256, S = 16k, and at D = 128 918 TFLOP/s at
# S = 4k and 1008 at 16k. Printed beside the rows as published, never measured.
FA3_PAPER_FP8 = {128: "FA3 paper, H100 SXM5, FP8 fwd D128: 918 TFLOP/s at S=4k, 1008 at 16k",
                 256: "FA3 paper, H100 SXM5, FP8 fwd D256: 1171 TFLOP/s at S=16k (abstract: close to 1.2 PFLOP/s)"}

COLUMNS = (f"  {'attention (forward)':48s} {'croq TFLOP/s':>13s} {'cuDNN TFLOP/s':>14s} {'flash TFLOP/s':>14s}"
           f" {'croq/cuDNN':>11s} {'croq/flash':>11s}  croq ms [min, max]   config")


def configs_for(head_dim, quick):
    return [c for c in (QUICK_CONFIGS if quick else CONFIGS) if c[2] * 64 <= 128 or head_dim <= 64]


def inputs(torch, dtype, b, h, s, d, seed, label):
    g = harness.generator(seed, label)
    return tuple(torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(3))


def croq_side(croqjit, source, name, q, k, v, o, causal, config):
    kernel = croqjit.compile(source, source_name=f"attention {name}.co")

    def call():
        kernel(q, k, v, o, causal)
        return o

    return harness.Side(name, call, poison=lambda: o.fill_(float("nan")), config=config)


def sdpa_sides(torch, q, k, v, causal, how=None):
    """SDPA through cuDNN and FlashAttention-2. K and V with fewer heads than
    Q (GQA): each backend takes enable_gqa=True if it can, else K and V
    repeated to Q's heads (done here, outside the timing); `how` (a dict)
    records which, per backend."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def backend(which, name):
        kk, vv, extra = k, v, {}
        if k.shape[1] != q.shape[1]:
            extra = {"enable_gqa": True}
            try:
                with sdpa_kernel(which):
                    F.scaled_dot_product_attention(q, k, v, is_causal=causal, **extra)
                torch.cuda.synchronize()
                way = "enable_gqa"
            except RuntimeError:
                group = q.shape[1] // k.shape[1]
                kk, vv, extra = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1), {}
                way = "K/V repeated"
            if how is not None:
                how[name] = way

        def call():
            with sdpa_kernel(which):
                return F.scaled_dot_product_attention(q, kk, vv, is_causal=causal, **extra)

        return call

    return [harness.Side("cuDNN", backend(SDPBackend.CUDNN_ATTENTION, "cuDNN")),
            harness.Side("flash", backend(SDPBackend.FLASH_ATTENTION, "flash"))]


def fp32_attention(torch, q, k, v, causal):
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    if k.shape[1] != q.shape[1]:
        group = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    with sdpa_kernel(SDPBackend.MATH):
        return F.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=causal)


def run_rows(report, settings, timer, args):
    import torch

    croqjit = harness.import_croqjit()
    if not args.only or args.only == "e4m3":
        fp8_rows(torch, croqjit, report, settings, timer, args)
    for element in ("f16", "bf16"):
        if args.only and args.only != element:
            continue
        dtype = torch.float16 if element == "f16" else torch.bfloat16
        for b, h, s, d in SHAPES:
            sources = {name: kernel_text.attention(element, d, ping_pong, consumers)
                       for name, ping_pong, consumers in configs_for(d, args.quick)}
            for causal in (False, True):
                label = f"{element} B={b} H={h} S={s} D={d} {'causal' if causal else 'non-causal'}"

                def row_fn(b=b, h=h, s=s, d=d, causal=causal, label=label, sources=sources):
                    q, k, v = inputs(torch, dtype, b, h, s, d, args.seed, label)
                    o = torch.empty_like(q)
                    ours = [croq_side(croqjit, sources[name], name, q, k, v, o, causal,
                                      {"ping_pong": pp, "consumers": n, "bm": 64 * n, "bn": 128})
                            for name, pp, n in configs_for(d, args.quick)]
                    row = harness.run_row(label, ours, sdpa_sides(torch, q, k, v, causal), TOLERANCE, settings,
                                          timer, truth=lambda: fp32_attention(torch, q, k, v, causal))
                    add_row(report, row, element, b, h, s, d, causal, args)

                harness.guarded(report, label, row_fn)
        for b, h, hk, s, d in GQA_SHAPES:
            source = kernel_text.attention(element, d, True, 2, grouped=True)
            for causal in (False, True):
                label = f"{element} GQA B={b} H={h} HK={hk} S={s} D={d} {'causal' if causal else 'non-causal'}"

                def gqa_row_fn(b=b, h=h, hk=hk, s=s, d=d, causal=causal, label=label, source=source):
                    g = harness.generator(args.seed, label)
                    q = torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g)
                    k, v = (torch.randn(b, hk, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
                    o = torch.empty_like(q)
                    how = {}
                    ours = [croq_side(croqjit, source, "BM=128 ping-pong grouped", q, k, v, o, causal,
                                      {"ping_pong": True, "consumers": 2, "bm": 128, "bn": 128, "grouped": True})]
                    refs = sdpa_sides(torch, q, k, v, causal, how)
                    row = harness.run_row(label, ours, refs, TOLERANCE, settings, timer,
                                          truth=lambda: fp32_attention(torch, q, k, v, causal))
                    row["hk"] = hk
                    row["reference_kv"] = how
                    add_row(report, row, element, b, h, s, d, causal, args)

                harness.guarded(report, label, gqa_row_fn)
        for h, d, lengths in VARLEN_ROWS:
            source = kernel_text.attention(element, d, varlen=True)
            for causal in (False, True):
                label = f"{element} varlen {len(lengths)} seqs H={h} D={d} {'causal' if causal else 'non-causal'}"
                harness.guarded(report, label, lambda h=h, d=d, lengths=lengths, causal=causal, label=label, source=source:
                                varlen_row(torch, croqjit, report, settings, timer, args, element, dtype, h, d, lengths,
                                           causal, label, source))


def quantized(torch, t):
    """`t` as e4m3 with one scale (amax / 448) and that scale, the descale."""
    scale = max(t.abs().max().item(), 1e-12) / 448.0
    return (t.float() / scale).to(torch.float8_e4m3fn), scale


def cudnn_fp8_side(torch, q8, k8, v8, causal):
    """SDPA on float8 inputs through cuDNN, if torch takes them: (side or
    None, what was found)."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def call():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return F.scaled_dot_product_attention(q8, k8, v8, is_causal=causal)

    try:
        out = call()
        torch.cuda.synchronize()
    except Exception as exc:  # noqa: BLE001 - what torch says is the finding
        return None, f"not taken by torch {torch.__version__}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
    # The same values unscaled: the output is comparable only after the
    # descales, which SDPA does not take; it is timed, not checked.
    return harness.Side("cuDNN fp8 (unscaled)", lambda: call().to(torch.float16)), f"ran: output {out.dtype}"


def rounded_p_attention(torch, q, k, v, causal, key_tile, row_chunk=256):
    """The FP8 forward's arithmetic in fp32 on the device: q, k, v [B, H,
    S|T, D] (the stored e4m3 values times their descales, as f32), key tiles
    of `key_tile` keys as the kernel walks them, the running maximum after
    each tile, p_j = exp(s_j - max) summed unrounded (the kernel's f32 row
    sum) and rounded to e4m3 for P V, both rescaled as the maximum grows.
    Returns (O, allowance): allowance is FP8_ALLOWANCE_STEP of each
    element's largest |p_j v_jc| / sum (see FP8_TOLERANCE). Causal: query i
    sees keys j <= i + T - S."""
    b, h, s, d = q.shape
    t = k.shape[2]
    q, k, v = q.float() / d ** 0.5, k.float(), v.float()
    acc = torch.zeros(b, h, s, d, device=q.device)
    largest = torch.zeros_like(acc)
    row_sum = torch.zeros(b, h, s, 1, device=q.device)
    peak = torch.full((b, h, s, 1), float("-inf"), device=q.device)
    rows = torch.arange(s, device=q.device).view(s, 1)
    for first in range(0, t, key_tile):
        kt, vt = k[:, :, first:first + key_tile], v[:, :, first:first + key_tile]
        scores = q @ kt.transpose(-1, -2)
        if causal:
            keys = torch.arange(first, first + kt.shape[2], device=q.device).view(1, -1)
            scores.masked_fill_(keys > rows + (t - s), float("-inf"))
        tile_peak = torch.maximum(peak, scores.amax(-1, keepdim=True))
        # A row that has seen no key yet subtracts 0 (its p_j are all 0).
        base = torch.where(torch.isfinite(tile_peak), tile_peak, torch.zeros_like(tile_peak))
        rescale = torch.exp(peak - base)
        p = torch.exp(scores - base)
        row_sum = row_sum * rescale + p.sum(-1, keepdim=True)
        acc = acc * rescale + p.to(torch.float8_e4m3fn).float() @ vt
        largest.mul_(rescale)
        magnitude = vt.abs()
        for r in range(0, s, row_chunk):  # max_j p_j |v_jc|, a row chunk at a time
            terms = p[:, :, r:r + row_chunk, :, None] * magnitude[:, :, None]
            largest[:, :, r:r + row_chunk] = torch.maximum(largest[:, :, r:r + row_chunk], terms.amax(-2))
            del terms
        peak = tile_peak
    seen = row_sum > 0
    out = torch.where(seen, acc / row_sum, torch.zeros_like(acc))
    allowance = torch.where(seen, FP8_ALLOWANCE_STEP * largest / row_sum, torch.zeros_like(acc))
    return out, allowance


def fp8_own_truth(torch, q8, k8, v8, scales, causal):
    """harness.OwnTruth of the FP8 sides: rounded_p_attention on the stored
    inputs times their descales, computed at the first check and kept."""
    d = q8.shape[-1]
    kept = {}

    def compare(got):
        if not kept:
            q, k, v = (t8.float() * scale for t8, scale in zip((q8, k8, v8), scales))
            with harness.full_fp32_matmul(torch):
                kept["want"], kept["allowance"] = rounded_p_attention(torch, q, k, v, causal, 64 if d > 128 else 128)
        return harness.compare(got, kept["want"], FP8_TOLERANCE, kept["allowance"])

    return harness.OwnTruth("the kernel's rounding (fp32, P rounded to e4m3 per key tile)", compare)


def fp8_rows(torch, croqjit, report, settings, timer, args):
    for b, h, s, d in FP8_SHAPES[:1] if args.quick else FP8_SHAPES:  # --quick: D128 only
        source = kernel_text.attention("e4m3", d, output="f16")
        f16_source = kernel_text.attention("f16", d, True, 2)
        for causal in (False, True):
            label = f"e4m3 B={b} H={h} S={s} D={d} {'causal' if causal else 'non-causal'}"
            harness.guarded(report, label, lambda b=b, h=h, s=s, d=d, causal=causal, label=label, source=source,
                            f16_source=f16_source: fp8_row(torch, croqjit, report, settings, timer, args, b, h, s, d,
                                                           causal, label, source, f16_source))


def fp8_row(torch, croqjit, report, settings, timer, args, b, h, s, d, causal, label, source, f16_source):
    """One FP8 row (see the module's text)."""
    q, k, v = inputs(torch, torch.float16, b, h, s, d, args.seed, label)
    (q8, qs), (k8, ks), (v8, vs) = (quantized(torch, t) for t in (q, k, v))
    del q, k, v
    # The same values in f16 for the references and the truth.
    q16, k16, v16 = (t8.to(torch.float16) * scale for t8, scale in ((q8, qs), (k8, ks), (v8, vs)))
    vt = torch.empty(b, h, d, s, device="cuda", dtype=torch.float8_e4m3fn)
    vt_given = v8.transpose(-1, -2).contiguous()
    o, o_kernel, o16 = (torch.empty_like(q16) for _ in range(3))
    kernel = croqjit.compile(source, source_name=f"attention e4m3 D{d}.co")
    f16_kernel = croqjit.compile(f16_source, source_name=f"attention f16 D{d}.co")

    def ours():
        vt.copy_(v8.transpose(-1, -2))
        kernel(q8, k8, vt, o, qs, ks, vs, causal)
        return o

    def kernel_only():
        kernel(q8, k8, vt_given, o_kernel, qs, ks, vs, causal)
        return o_kernel

    def croq_f16():
        f16_kernel(q16, k16, v16, o16, causal)
        return o16

    truth = fp8_own_truth(torch, q8, k8, v8, (qs, ks, vs), causal)
    side = harness.Side("croq fp8 (V^T in the call)", ours, poison=lambda: o.fill_(float("nan")),
                        config={"ping_pong": True, "consumers": 2, "element": "e4m3", "output": "f16"},
                        own_truth=truth)
    refs = [sdpa_sides(torch, q16, k16, v16, causal)[0], harness.Side("croq f16", croq_f16),
            harness.Side("croq fp8 kernel only", kernel_only, own_truth=truth)]
    cudnn_fp8, found = cudnn_fp8_side(torch, q8, k8, v8, causal)
    row = harness.run_row(label, [side], refs, TOLERANCE, settings, timer,
                          truth=lambda: fp32_attention(torch, q16, k16, v16, causal))
    row["cudnn_fp8"] = found
    if cudnn_fp8 is not None:  # timed on its own: its output has no descales to compare
        times, _ = harness.measure([cudnn_fp8], settings, timer)
        row["cudnn_fp8_ms"] = harness.round_summary(times[cudnn_fp8.name])["median_ms"]
    figures = row_figures(row, "e4m3", b, h, s, d, causal, args)
    speedup = row["ratios"]["croq f16"]
    row["fp8_speedup_over_croq_f16"] = speedup
    if d == 128:
        row["fp8_speedup_target"] = FP8_SPEEDUP_TARGET
        row["fp8_speedup_target_met"] = speedup >= FP8_SPEEDUP_TARGET
    row["fa3_paper_fp8"] = FA3_PAPER_FP8.get(d)
    ms = {name: summary["median_ms"] for name, summary in [("fp8", row["ours"]), *row["references"].items()]}
    target = ("" if d != 128 else
              f" (target {FP8_SPEEDUP_TARGET}x: {'met' if row['fp8_speedup_target_met'] else 'NOT MET'})")
    line = (f"  {label:48s} fp8 {figures['croq']:7.1f} TFLOP/s {ms['fp8']:.4f} ms"
            f" (kernel alone {figures['croq fp8 kernel only']:7.1f}), croq f16 {figures['croq f16']:7.1f}"
            f" TFLOP/s {ms['croq f16']:.4f} ms, cuDNN f16 {figures['cuDNN']:7.1f} TFLOP/s {ms['cuDNN']:.4f} ms;"
            f" fp8/croq-f16 {speedup:.3f}{target}, fp8/cuDNN-f16 {row['ratios']['cuDNN']:.3f}"
            f"  {harness.spread(row['ours'])}; cuDNN fp8: {found}"
            + (f"; published, not measured here: {row['fa3_paper_fp8']}" if row["fa3_paper_fp8"] else ""))
    report.add(row, line, None)


def varlen_row(torch, croqjit, report, settings, timer, args, element, dtype, h, d, lengths, causal, label, source):
    """One packed batch: ours in one call, SDPA per sequence (see the module's text)."""
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel

    g = harness.generator(args.seed, label)
    total = sum(lengths)
    q, k, v = (torch.randn(h, total, d, device="cuda", dtype=dtype, generator=g) for _ in range(3))
    o = torch.empty_like(q)
    offsets = [0]
    for n in lengths:
        offsets.append(offsets[-1] + n)
    cu = torch.tensor(offsets, device="cuda", dtype=torch.int32)
    pieces = [tuple(t[:, a:b].unsqueeze(0).contiguous() for t in (q, k, v)) for a, b in zip(offsets, offsets[1:])]

    def packed(outputs):  # per-sequence [1, H, len, D] outputs -> [H, total, D]
        return torch.cat([x[0] for x in outputs], dim=1) if isinstance(outputs, list) else outputs

    def backend(which):
        def call():
            with sdpa_kernel(which):
                return [F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal) for qq, kk, vv in pieces]
        return call

    kernel = croqjit.compile(source, source_name="attention varlen.co")

    def ours():
        kernel(q, k, v, o, cu, cu, causal)
        return o

    side = harness.Side("BM=128 ping-pong varlen", ours, poison=lambda: o.fill_(float("nan")),
                        config={"ping_pong": True, "consumers": 2, "varlen": True})
    refs = [harness.Side("cuDNN", backend(SDPBackend.CUDNN_ATTENTION)),
            harness.Side("flash", backend(SDPBackend.FLASH_ATTENTION))]
    row = harness.run_row(label, [side], refs, TOLERANCE, settings, timer,
                          truth=lambda: [fp32_attention(torch, qq, kk, vv, causal) for qq, kk, vv in pieces],
                          compare_fn=lambda got, want, tol: harness.compare(packed(got), packed(want), tol))
    row["lengths"] = list(lengths)
    row["reference_kv"] = {"cuDNN and flash": "once per sequence"}
    flops = sum(4.0 * h * n * n * d / (2 if causal else 1) for n in lengths)
    add_row(report, row, element, 1, h, total, d, causal, args, flops=flops)


def row_figures(row, element, b, h, s, d, causal, args, flops=None):
    """The row's shape fields, and each side's TFLOP/s (also row["tflops"])."""
    flops = flops or 4.0 * b * h * s * s * d / (2 if causal else 1)
    row.update({"dtype": element, "b": b, "h": h, "s": s, "t": s, "d": d, "causal": causal,
                "seed": harness.row_seed(args.seed, row["label"])})
    figures = {name: flops / (summary["median_ms"] * 1e-3) / 1e12
               for name, summary in [("croq", row["ours"]), *row["references"].items()]}
    row["tflops"] = figures
    return figures


def add_row(report, row, element, b, h, s, d, causal, args, flops=None):
    figures = row_figures(row, element, b, h, s, d, causal, args, flops)
    line = (f"  {row['label']:48s} {figures['croq']:13.1f} {figures['cuDNN']:14.1f} {figures['flash']:14.1f}"
            f" {row['ratios']['cuDNN']:11.3f} {row['ratios']['flash']:11.3f}  {harness.spread(row['ours'])}"
            f"  {row['config']['name']}"
            + (f" (SDPA: {', '.join(f'{k} {w}' for k, w in row['reference_kv'].items())})" if row.get("reference_kv") else ""))
    report.add(row, line, args.min_ratio)


# The FP8 self-test's small shape (B, H, S, D), causal.
FP8_SELF_TEST_SHAPE = (1, 4, 1024, 128)


def self_test_cases(args):
    """At B=4 H=16 S=4096 D=128, f16, non-causal: the last key tile (128 of
    4096 keys) dropped. FP8 at FP8_SELF_TEST_SHAPE: the kernel held to its
    own truth (rounded_p_attention) passes, and the same kernel given K with
    its key tiles in another order (V as it was) is refused."""
    import torch

    croqjit = harness.import_croqjit()
    b, h, s, d = SHAPES[0]
    label = f"f16 B={b} H={h} S={s} D={d} non-causal"
    q, k, v = inputs(torch, torch.float16, b, h, s, d, args.seed, label)
    o = torch.empty_like(q)
    name, ping_pong, consumers = CONFIGS[0]
    source = kernel_text.attention("f16", d, ping_pong, consumers)
    config = {"ping_pong": ping_pong, "consumers": consumers}
    return [harness.SelfTestCase(
        label, croq_side(croqjit, source, name, q, k, v, o, False, config),
        croq_side(croqjit, kernel_text.attention_drop_last_key_tile(source), f"{name}, last key tile dropped",
                  q, k, v, o, False, config),
        sdpa_sides(torch, q, k, v, False)[:1], TOLERANCE), fp8_self_test_case(torch, croqjit, args)]


def fp8_self_test_case(torch, croqjit, args):
    b, h, s, d = FP8_SELF_TEST_SHAPE
    label = f"e4m3 B={b} H={h} S={s} D={d} causal"
    q, k, v = inputs(torch, torch.float16, b, h, s, d, args.seed, label)
    (q8, qs), (k8, ks), (v8, vs) = (quantized(torch, t) for t in (q, k, v))
    q16, k16, v16 = (t8.to(torch.float16) * scale for t8, scale in ((q8, qs), (k8, ks), (v8, vs)))
    vt = v8.transpose(-1, -2).contiguous()
    key_tile = 64 if d > 128 else 128
    # Every key tile one place on, V not (rolled as bytes: torch's roll
    # takes no float8 on CUDA).
    k8_moved = torch.roll(k8.view(torch.uint8), key_tile, dims=2).view(k8.dtype)
    o = torch.empty_like(q16)
    kernel = croqjit.compile(kernel_text.attention("e4m3", d, output="f16"), source_name=f"attention e4m3 D{d}.co")
    truth = fp8_own_truth(torch, q8, k8, v8, (qs, ks, vs), True)

    def fp8_side(name, keys):
        def call():
            kernel(q8, keys, vt, o, qs, ks, vs, True)
            return o

        return harness.Side(name, call, poison=lambda: o.fill_(float("nan")), own_truth=truth)

    return harness.SelfTestCase(label, fp8_side("croq fp8", k8), fp8_side("croq fp8, key tiles moved", k8_moved),
                                sdpa_sides(torch, q16, k16, v16, True)[:1], TOLERANCE)


def main():
    return harness.script_main("bench_attention", __doc__.split("\n\n")[0], ["f16", "bf16", "e4m3"], COLUMNS, run_rows,
                               self_test_cases, budget_help="croq/cuDNN throughput ratio")


if __name__ == "__main__":
    sys.exit(main())
