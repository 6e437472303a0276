"""torch scaled_dot_product_attention on the shapes of attention_bench, in the
same device run, through its cuDNN and FlashAttention-2 backends, and the
ratios croq / cuDNN and croq / flash. Q, K, V [B, H, S, D], f16 or bf16,
forward only, scale 1/sqrt(D); causal rows as attention_bench counts them
(FLOPs 4 B H S T D, halved when causal). Each backend is timed as
attention_bench times croq: the median of 20 samples, each the mean of 10
back-to-back calls between CUDA events, after 3 warm-ups. A backend that
this torch or device does not offer is reported as such.

Usage: attention_reference.py attention_bench.json [--json OUT]"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F

from event_timing import median_ms


def backends():
    from torch.nn.attention import SDPBackend
    return {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}


def time_backend(backend, q, k, v, causal):
    from torch.nn.attention import sdpa_kernel
    with sdpa_kernel(backend):
        return median_ms(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bench_json")
    parser.add_argument("--json", dest="json_out")
    args = parser.parse_args()
    with open(args.bench_json) as f:
        rows_in = json.load(f)
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}, cuDNN {torch.backends.cudnn.version()}")
    header = ["croq", "cuDNN", "flash", "croq/cuDNN", "croq/flash"]
    print(f"{'':44s}" + "".join(f"{h:>12s}" for h in header))
    rows = []
    for r in rows_in:
        dt = torch.float16 if r["dtype"] == "f16" else torch.bfloat16
        b, h, s, t, d, causal = r["b"], r["h"], r["s"], r["t"], r["d"], r["causal"]
        q = (torch.rand(b, h, s, d, device="cuda", dtype=dt) * 4 - 2)
        k = (torch.rand(b, h, t, d, device="cuda", dtype=dt) * 4 - 2)
        v = (torch.rand(b, h, t, d, device="cuda", dtype=dt) * 2 - 1)
        flops = 4.0 * b * h * s * t * d / (2 if causal else 1)
        row = dict(r)
        row["croq_tflops"] = r["tflops"]
        cols = [f"{r['tflops']:.1f}"]
        ratios = []
        for name, backend in backends().items():
            try:
                ms = time_backend(backend, q, k, v, causal)
                row[f"{name}_ms"] = ms
                row[f"{name}_tflops"] = flops / (ms * 1e-3) / 1e12
                row[f"croq_over_{name}"] = r["tflops"] / row[f"{name}_tflops"]
                cols.append(f"{row[f'{name}_tflops']:.1f}")
                ratios.append(f"{row[f'croq_over_{name}']:.3f}")
            except Exception as exc:  # a backend this build or device lacks: say so, keep going
                row[name] = f"failed: {exc!r}"
                print(f"  {name} {r['dtype']} B={b} H={h} S={s} D={d} failed: {exc}", file=sys.stderr)
                cols.append("failed")
                ratios.append("-")
        rows.append(row)
        label = f"{r['dtype']:4s} B={b} H={h} S={s} D={d} {'causal' if causal else 'non-causal'}"
        print(f"{label:44s}" + "".join(f"{c:>12s}" for c in cols + ratios))
        del q, k, v
        torch.cuda.empty_cache()
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(rows, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
