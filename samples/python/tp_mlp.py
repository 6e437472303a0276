"""A tensor-parallel MLP block whose GEMMs and activation are Croqtile
kernels (croqjit), one process per GPU under torchrun, the partial sums
joined by torch.distributed's NCCL all-reduce:

    Y = gelu(X W1^T) W2^T        X [T, H], W1 [F, H], W2 [H, F], f16

Rank r of P holds W1_r = W1[r F/P : (r+1) F/P] (column parallel: its slice
of the hidden activations needs no communication) and W2_r = W2[:, r F/P :
(r+1) F/P] (row parallel: each rank's product is a partial sum of Y), so
Y = all_reduce_sum(gelu(X W1_r^T) W2_r^T). The GEMM is the persistent
warp-specialized kernel of samples/matmul_persistent.cpp (C = A B^T, read
through the build's kernel_sources tool, as the benchmark harness does);
gelu (tanh approximation) is a one-line Croqtile kernel below.

Every rank checks Y against the same block computed by torch on one GPU
(the full W1 and W2, fp32 accumulation; relative Frobenius error <= 1e-2
and every element within 0.05 rms + 1e-2 |ref|), and the kernel cache is
asserted to have compiled each kernel once per node: the ranks share one
CROQ_CACHE_DIR, the first to need a kernel compiles it (the cache's
per-host compile lock), the others load it from disk, which their
croqjit kernel stats show (exactly one rank reports `compiled` per
signature). A second croqjit variant cuts T into --chunks row blocks and
all-reduces each block (async, on NCCL's stream) while the next one
multiplies. With --bench it times both against torch.matmul + F.gelu +
the same all-reduce, interleaved, median of --runs (the slowest rank's
time per run); the exit status is 1 when the faster croqjit variant is
below 1.0x torch.

    python samples/python/tp_mlp.py --ranks 4 [--tokens 8192 --hidden 8192 --ffn 32768] [--bench] [--json FILE]

Run this way it starts torchrun itself (python -m torch.distributed.run
--standalone) with a fresh cache directory; it prints "tp_mlp: skipped: ..."
and exits 0 when torch is not importable or there are fewer GPUs than ranks.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench", "harness"))

GELU_SOURCE = """
__co__ void gelu(f16 [N] x) {
  parallel i by N
    x.at(i) = __gelu(x.at(i));
}
"""


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ranks", type=int, default=2, help="processes (GPUs) to start under torchrun")
    p.add_argument("--tokens", type=int, default=8192, help="T: batch x sequence")
    p.add_argument("--hidden", type=int, default=8192, help="H")
    p.add_argument("--ffn", type=int, default=0, help="F (default 4 H)")
    p.add_argument("--bench", action="store_true", help="also time against torch.matmul + NCCL")
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--chunks", type=int, default=4, help="row blocks of the overlapped variant")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--json", help="write the figures here (rank 0)")
    args = p.parse_args(argv)
    args.ffn = args.ffn or 4 * args.hidden
    return args


def launch(args, argv) -> int:
    """Not under torchrun yet: check what it needs, then start it."""
    try:
        import torch
    except ImportError as e:
        print(f"tp_mlp: skipped: torch is not importable ({e})")
        return 0
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus < args.ranks:
        print(f"tp_mlp: skipped: needs {args.ranks} CUDA GPUs, {gpus} present")
        return 0
    cache = tempfile.mkdtemp(prefix="croqjit-tp-mlp-cache-")
    # The ranks that wait for the one compiling wait long enough for any
    # compile (the default 10 s would let a slow compile be repeated).
    env = dict(os.environ, CROQ_CACHE_DIR=cache, CROQ_CACHE="1", CROQ_CACHE_WAIT_MS="120000")
    env.pop("CROQ_CACHE_REQUIRE_HIT", None)
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc_per_node={args.ranks}",
               os.path.abspath(__file__), *argv]
    print("tp_mlp:", " ".join(command), f"(CROQ_CACHE_DIR={cache})", flush=True)
    try:
        return subprocess.run(command, env=env).returncode
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def compare(got, want):
    """(relative Frobenius error, worst element's share of its tolerance)."""
    got, want = got.float(), want.float()
    diff = got - want
    norm = want.norm()
    rel = (diff.norm() / norm).item()
    rms = (norm / want.numel() ** 0.5).item()
    ratio = (diff.abs() / (0.05 * rms + 1e-2 * want.abs())).nan_to_num(float("inf")).max().item()
    return rel, ratio


def worker(args) -> int:
    import torch
    import torch.distributed as dist
    import torch.nn.functional as F

    import croqjit
    import kernel_text

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    device = torch.device("cuda", local)
    dist.init_process_group("nccl", device_id=device)
    t, h, f = args.tokens, args.hidden, args.ffn
    if f % world or (f // world) % 8 or h % 8:
        raise SystemExit(f"tp_mlp: F / ranks and H must be multiples of 8 (F {f}, H {h}, {world} ranks)")
    shard = f // world

    # The same inputs on every rank (one seed), scaled so activations stay O(1).
    g = torch.Generator(device=device).manual_seed(args.seed)
    x = torch.randn(t, h, device=device, generator=g).half()
    w1 = (torch.randn(f, h, device=device, generator=g) / h ** 0.5).half()
    w2 = (torch.randn(h, f, device=device, generator=g) / f ** 0.5).half()
    w1_r = w1[rank * shard:(rank + 1) * shard].contiguous()
    w2_r = w2[:, rank * shard:(rank + 1) * shard].contiguous()

    sms = torch.cuda.get_device_properties(device).multi_processor_count
    gemm = croqjit.compile(kernel_text.gemm("f16"), defines={"NUM_SMS": sms}, source_name="gemm f16.co")
    gelu = croqjit.compile(GELU_SOURCE, source_name="gelu.co")
    hidden = torch.empty(t, shard, device=device, dtype=torch.half)
    y = torch.empty(t, h, device=device, dtype=torch.half)

    def croq_block():
        gemm(x, w1_r, hidden)          # hidden = X W1_r^T
        gelu(hidden.view(-1))          # in place
        gemm(hidden, w2_r, y)          # partial Y = gelu(.) W2_r^T
        dist.all_reduce(y)
        return y

    # The same with T cut into `chunks` row blocks: each block's all-reduce
    # (NCCL's stream) runs while the next block multiplies.
    rows = -(-t // args.chunks)
    cuts = [(r, min(r + rows, t)) for r in range(0, t, rows)]

    def croq_overlapped():
        pending = []
        for r0, r1 in cuts:
            gemm(x[r0:r1], w1_r, hidden[r0:r1])
            gelu(hidden[r0:r1].view(-1))
            gemm(hidden[r0:r1], w2_r, y[r0:r1])
            pending.append(dist.all_reduce(y[r0:r1], async_op=True))
        for work in pending:
            work.wait()
        return y

    def torch_block():
        part = torch.matmul(F.gelu(torch.matmul(x, w1_r.t()), approximate="tanh"), w2_r.t())
        dist.all_reduce(part)
        return part

    blocks = {"croq": croq_block, "croq_overlapped": croq_overlapped, "torch": torch_block}
    # The check: every block against the block on one GPU.
    outs = {name: block().clone() for name, block in blocks.items()}
    torch.cuda.synchronize()
    with torch.no_grad():
        ref = torch.matmul(F.gelu(torch.matmul(x, w1.t()), approximate="tanh").float(), w2.float().t())
    failures = []
    for name, got in outs.items():
        rel, ratio = compare(got, ref)
        ok = rel <= 1e-2 and ratio <= 1
        print(f"tp_mlp rank {rank}: {name} tensor-parallel block vs one GPU: relative Frobenius error {rel:.2e}, "
              f"worst element {ratio:.2f} of its tolerance: {'ok' if ok else 'WRONG'}", flush=True)
        if not ok:
            failures.append(name)
    del ref, outs

    # Each kernel compiled by exactly one rank of the node: the others found it on disk.
    sources = {name: [s.source for s in k.stats().specializations] for name, k in (("gemm", gemm), ("gelu", gelu))}
    everyone = [None] * world
    dist.all_gather_object(everyone, sources)
    if rank == 0:
        for name in sources:
            per_rank = [ranks[name] for ranks in everyone]
            for sig in range(len(per_rank[0])):
                seen = [r[sig] for r in per_rank]
                compiled = seen.count("compiled")
                ok = compiled == 1 and all(s in ("compiled", "disk") for s in seen)
                print(f"tp_mlp: {name} signature {sig}: sources by rank {seen}: "
                      f"{'compiled once per node' if ok else 'NOT compiled exactly once per node'}", flush=True)
                if not ok:
                    failures.append(f"{name} cache")

    figures = {}
    if args.bench and not failures:
        figures = bench(args, blocks, rank, world, t, h, f)
        if figures["speedup"] < 1.0:
            failures.append("speed")
    status = torch.tensor([len(failures)], device=device)
    dist.all_reduce(status)
    if rank == 0:
        if args.json:
            with open(args.json, "w") as out_file:
                json.dump(dict(figures, ranks=world, tokens=t, hidden=h, ffn=f, failures=int(status.item())),
                          out_file, indent=1)
        print("tp_mlp: " + ("every check passed" if status.item() == 0 else "FAILED " + ", ".join(failures)), flush=True)
    dist.destroy_process_group()
    return 0 if status.item() == 0 else 1


def bench(args, blocks, rank, world, t, h, f):
    import torch
    import torch.distributed as dist

    def timed(block, reps=5):
        dist.barrier()
        torch.cuda.synchronize()
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            block()
        stop.record()
        stop.synchronize()
        slowest = torch.tensor([start.elapsed_time(stop) / reps], device="cuda")
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        return slowest.item()

    for block in blocks.values():  # warm-up
        timed(block, 2)
    times = {name: [] for name in blocks}
    for _ in range(args.runs):  # interleaved, so drift touches all alike
        for name, block in blocks.items():
            times[name].append(timed(block))
    ms = {name: sorted(v)[len(v) // 2] for name, v in times.items()}
    best = min(("croq", "croq_overlapped"), key=lambda name: ms[name])
    flops = 4.0 * t * h * f / world  # two GEMMs per rank
    labels = {"croq": "croqjit GEMMs + gelu + NCCL", "croq_overlapped": f"same, {args.chunks} chunks overlapped",
              "torch": "torch.matmul + gelu + NCCL"}
    if rank == 0:
        card = torch.cuda.get_device_name()
        print(f"tp_mlp bench, T {t}, H {h}, F {f}, f16, {world} x {card}, median of {args.runs} runs (slowest rank):")
        for name, label in labels.items():
            print(f"  {label:32s} {ms[name]:8.3f} ms  ({flops / ms[name] / 1e9:6.1f} TFLOP/s per GPU)")
        print(f"  croqjit ({best}) / torch speed  {ms['torch'] / ms[best]:8.3f}x (acceptance: >= 1.0x; "
              f"one all-reduce: {ms['torch'] / ms['croq']:.3f}x)", flush=True)
    return {"croq_ms": ms["croq"], "croq_overlapped_ms": ms["croq_overlapped"], "torch_ms": ms["torch"],
            "best": best, "speedup": ms["torch"] / ms[best], "chunks": args.chunks, "runs": args.runs}


def main(argv) -> int:
    args = parse_args(argv)
    if "LOCAL_RANK" not in os.environ:
        return launch(args, argv)
    return worker(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
