"""Host overhead of a hot croqjit call from Python, against torch.add and a
Triton kernel launch on the same torch tensors, in one run.

    python bench/python/launch_overhead.py [--json OUT.json] [--check]

Each method is called `--iters` times back to back and timed on the host
only (the GPU keeps up: each kernel is a few microseconds on 4096
elements), in `--rounds` interleaved rounds; the figure is the median round,
in microseconds per call. The goal (issue 17): the croqjit call with three
torch tensors at most 1.5x torch.add(a, b, out=c), and below Triton.
--check exits 1 when the goal is missed. Needs torch with CUDA; Triton is
optional (its column says why it is missing).
"""

import argparse
import json
import statistics
import sys
import time

import torch

import croqjit

ADD_INTO = """__co__ void add_into(f32 [N] lhs, f32 [N] rhs, f32 [N] out) {
  parallel i by N
    out.at(i) = lhs.at(i) + rhs.at(i);
}
"""

ADD = """__co__ f32 [N] add(f32 [N] lhs, f32 [N] rhs) {
  f32 [lhs.span] output;
  parallel i by N
    output.at(i) = lhs.at(i) + rhs.at(i);
  return output;
}
"""


def triton_launcher(a, b, c):
    """A Triton add over the same tensors, or the reason there is none."""
    try:
        import triton
        import triton.language as tl
    except ImportError as e:
        return None, f"triton not importable: {e}"

    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask),
                 mask=mask)

    n = a.numel()
    grid = (triton.cdiv(n, 1024),)
    return (lambda: add_kernel[grid](a, b, c, n, BLOCK=1024)), f"triton {triton.__version__}"


def host_us_per_call(fn, iters):
    torch.cuda.synchronize()
    start = time.perf_counter_ns()
    for _ in range(iters):
        fn()
    elapsed = time.perf_counter_ns() - start
    torch.cuda.synchronize()
    return elapsed / iters / 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4096, help="elements per tensor")
    parser.add_argument("--iters", type=int, default=2000, help="calls per round")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", help="also write the figures here")
    parser.add_argument("--check", action="store_true", help="exit 1 when the goal is missed")
    args = parser.parse_args()
    if not torch.cuda.is_available() or not croqjit.cuda_available():
        print(f"launch_overhead: needs a CUDA device ({croqjit.cuda_unavailable_reason() or 'torch sees none'})")
        return 0

    a = torch.randn(args.n, device="cuda")
    b = torch.randn(args.n, device="cuda")
    c = torch.empty(args.n, device="cuda")
    add_into = croqjit.compile(ADD_INTO)
    add = croqjit.compile(ADD)
    methods = {
        "croqjit add_into(a, b, c)": lambda: add_into(a, b, c),
        "torch.add(a, b, out=c)": lambda: torch.add(a, b, out=c),
        "croqjit add(a, b) -> new tensor": lambda: add(a, b),
        "torch.add(a, b) -> new tensor": lambda: torch.add(a, b),
    }
    triton_call, triton_note = triton_launcher(a, b, c)
    if triton_call is not None:
        methods["triton add_kernel[grid](a, b, c, n)"] = triton_call

    # Warm up (compiles) and check every method's result once.
    for name, fn in methods.items():
        c.fill_(float("nan"))
        result = fn()
        got = result if isinstance(result, torch.Tensor) else c
        torch.cuda.synchronize()
        if not torch.equal(got, a + b):
            print(f"launch_overhead: {name} computed a wrong result", file=sys.stderr)
            return 1
        for _ in range(200):
            fn()

    samples = {name: [] for name in methods}
    names = list(methods)
    for r in range(args.rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:  # rotate the order
            samples[name].append(host_us_per_call(methods[name], args.iters))
    us = {name: statistics.median(values) for name, values in samples.items()}

    croq = us["croqjit add_into(a, b, c)"]
    torch_add = us["torch.add(a, b, out=c)"]
    triton_us = us.get("triton add_kernel[grid](a, b, c, n)")
    ratios = {name: value / torch_add for name, value in us.items()}
    goal_torch = croq <= 1.5 * torch_add
    goal_triton = triton_us is None or croq < triton_us

    device = torch.cuda.get_device_name()
    print(f"launch overhead on {device}: host time per call, median of {args.rounds} rounds x {args.iters} calls, "
          f"f32 tensors of {args.n} elements")
    print(f"torch {torch.__version__}, croqjit {croqjit.__version__}, {triton_note}")
    print(f"{'method':42} {'us/call':>9} {'x torch.add(out=)':>18}")
    for name in names:
        print(f"{name:42} {us[name]:9.2f} {ratios[name]:18.2f}")
    print(f"goal: croqjit <= 1.5x torch.add(out=): {'met' if goal_torch else 'MISSED'} "
          f"({croq / torch_add:.2f}x)")
    if triton_us is None:
        print(f"goal: croqjit below Triton: not measured ({triton_note})")
    else:
        print(f"goal: croqjit below Triton: {'met' if goal_triton else 'MISSED'} ({croq:.2f} vs {triton_us:.2f} us)")

    if args.json:
        with open(args.json, "w") as f:
            json.dump({
                "device": device, "torch": torch.__version__, "croqjit": croqjit.__version__, "triton": triton_note,
                "elements": args.n, "iters": args.iters, "rounds": args.rounds,
                "us_per_call": us, "ratio_to_torch_add_out": ratios, "samples_us": samples,
                "goal_at_most_1_5x_torch_add": goal_torch, "goal_below_triton": goal_triton if triton_us else None,
            }, f, indent=2)
    return 0 if (goal_torch and goal_triton) or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
