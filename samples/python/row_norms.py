"""Softmax, RMSNorm and LayerNorm written in Croqtile (the text of
samples/row_norm_source.hpp, read through the build's kernel_sources tool,
as the benchmark harness does), called on torch tensors in place and
checked against torch in float64 on random data (f16 and bf16; outputs
poisoned with NaN first): every element within two units of the last place
of the element type, relative to the reference, plus 1e-3 (1e-6 for
softmax's small probabilities).

    python samples/python/row_norms.py [--tokens 37] [--hidden 1024 4096 16384]

Says "row_norms: skipped" (a ctest skip) without torch or a CUDA device.
"""
import argparse
import os
import subprocess
import sys


def kernel_text(kind, element, hidden):
    tool = os.environ.get("CROQ_KERNEL_SOURCES") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "build", "bench", "kernel_sources")
    return subprocess.run([tool, "rows", kind, element, str(hidden)], check=True, capture_output=True,
                          text=True).stdout


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", type=int, default=37)
    p.add_argument("--hidden", type=int, nargs="+", default=[1024, 4096, 16384])
    args = p.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        print("row_norms: skipped (needs torch)")
        return 0
    if not torch.cuda.is_available():
        print("row_norms: skipped (needs a CUDA device)")
        return 0
    import croqjit

    failures = 0
    g = torch.Generator(device="cuda").manual_seed(2026)
    for kind in ["softmax", "rmsnorm", "layernorm"]:
        for element, dt, ulp in [("f16", torch.float16, 2.0 ** -10), ("bf16", torch.bfloat16, 2.0 ** -7)]:
            for hidden in args.hidden:
                kernel = croqjit.compile(kernel_text(kind, element, hidden), source_name=f"{kind}.co")
                x = (torch.randn(args.tokens, hidden, device="cuda", generator=g) * 2).to(dt)
                w = (torch.rand(hidden, device="cuda", generator=g) + 0.5).to(dt)
                b = (torch.randn(hidden, device="cuda", generator=g) * 0.5).to(dt)
                y = torch.full_like(x, float("nan"))
                xd, wd, bd = x.double(), w.double(), b.double()
                if kind == "softmax":
                    kernel(x, y)
                    want = torch.softmax(xd, dim=-1)
                elif kind == "rmsnorm":
                    kernel(x, w, y)
                    want = xd * torch.rsqrt(xd.pow(2).mean(-1, keepdim=True) + 1e-6) * wd
                else:
                    kernel(x, w, b, y)
                    want = F.layer_norm(xd, (hidden,), wd, bd, eps=1e-5)
                floor = 1e-6 if kind == "softmax" else 1e-3
                ratio = ((y.double() - want).abs() / (2 * ulp * want.abs() + floor)).nan_to_num(nan=float("inf"))
                worst = float(ratio.max())
                ok = worst <= 1
                failures += not ok
                print(f"row_norms {kind} {element} [{args.tokens}, {hidden}]: worst element at {worst:.2f} of its "
                      f"tolerance{'' if ok else '  WRONG'}")
    print("row_norms: every output matched torch" if not failures else f"row_norms: {failures} mismatch(es)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
