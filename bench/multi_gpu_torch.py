"""torch's side of samples/multi_gpu_allgather_gemm.cpp: the same
all-gather + GEMM on every GPU of the node, in one process, with torch's
peer copies (Tensor.copy_ between devices: cudaMemcpyPeerAsync, over
NVLink where torch enabled peer access) and
torch.matmul (cuBLAS):

  allgather_then_gemm  the peers' row shards of A copied in, then C_i = A B_i^T
  fused                per shard: the local shard's matmul at once, the
                       copies on a side stream, each shard's matmul after
                       its copy (events between the streams)

Same shapes, sharding and timing as the sample's --bench: the median over
--runs of the wall time from all GPUs idle to all done (5 steps per run).
The result of each way is checked against a float64 reference on a random
sample of C (relative Frobenius error <= 1e-2).

    python bench/multi_gpu_torch.py [--size 8192] [--runs 15] [--json FILE]
"""
import argparse
import json
import sys
import time


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=8192, help="M = N = K")
    p.add_argument("--runs", type=int, default=15)
    p.add_argument("--json")
    args = p.parse_args(argv)
    try:
        import torch
    except ImportError as e:
        print(f"multi_gpu_torch: skipped: torch is not importable ({e})")
        return 0
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if gpus < 2:
        print(f"multi_gpu_torch: skipped: needs at least 2 CUDA GPUs, {gpus} present")
        return 0
    m = n = k = args.size
    rows, cols = m // gpus, n // gpus
    devices = [torch.device("cuda", i) for i in range(gpus)]
    gen = torch.Generator().manual_seed(7)
    a_host = [(torch.rand(rows, k, generator=gen) * 2 - 1).half() for _ in devices]
    b_host = [(torch.rand(cols, k, generator=gen) * 2 - 1).half() for _ in devices]
    a = []
    for i, d in enumerate(devices):
        full = torch.empty(m, k, device=d, dtype=torch.half)
        full[i * rows:(i + 1) * rows].copy_(a_host[i])
        a.append(full)
    b = [b_host[i].to(d) for i, d in enumerate(devices)]
    c = [torch.empty(m, cols, device=d, dtype=torch.half) for d in devices]
    # Streams of their own (not the legacy default stream, which would
    # serialize with everything): compute per device, side (the fused
    # form's copy stream) per device, and send[j][i] for the copies from
    # j to i, since torch runs a copy between devices on the source
    # device's current stream (two-way synchronized with the
    # destination's current stream).
    compute = [torch.cuda.Stream(device=d) for d in devices]
    side = [torch.cuda.Stream(device=d) for d in devices]
    send = [[torch.cuda.Stream(device=devices[j]) for _ in devices] for j in range(gpus)]
    done = [torch.cuda.Event() for _ in devices]
    arrived = [[torch.cuda.Event() for _ in devices] for _ in devices]

    def fetch(i, j):
        with torch.cuda.stream(send[j][i]):
            a[i][j * rows:(j + 1) * rows].copy_(a[j][j * rows:(j + 1) * rows], non_blocking=True)

    def allgather_then_gemm(i):
        with torch.cuda.device(i), torch.cuda.stream(compute[i]):
            for step in range(1, gpus):
                fetch(i, (i + step) % gpus)
            torch.matmul(a[i], b[i].t(), out=c[i])

    def fused(i):
        with torch.cuda.device(i):
            with torch.cuda.stream(side[i]):
                side[i].wait_event(done[i])
                for step in range(1, gpus):
                    j = (i + step) % gpus
                    fetch(i, j)
                    arrived[i][j].record(side[i])
            with torch.cuda.stream(compute[i]):
                torch.matmul(a[i][i * rows:(i + 1) * rows], b[i].t(), out=c[i][i * rows:(i + 1) * rows])
                for step in range(1, gpus):
                    j = (i + step) % gpus
                    compute[i].wait_event(arrived[i][j])
                    torch.matmul(a[i][j * rows:(j + 1) * rows], b[i].t(), out=c[i][j * rows:(j + 1) * rows])
                done[i].record(compute[i])

    def sync_all():
        for d in devices:
            torch.cuda.synchronize(d)

    def check(name):
        worst = 0.0
        for i in range(gpus):
            g = torch.Generator().manual_seed(100 + i)
            r = torch.randint(0, m, (4096,), generator=g)
            col = torch.randint(0, cols, (4096,), generator=g)
            got = c[i].cpu()[r, col].double()
            a_rows = torch.cat(a_host)[r].double()
            want = (a_rows * b_host[i][col].double()).sum(dim=1)
            worst = max(worst, ((got - want).norm() / want.norm()).item())
        ok = worst <= 1e-2
        print(f"multi_gpu_torch: {name}: relative Frobenius error {worst:.2e} on 4096 sampled elements per GPU: "
              f"{'ok' if ok else 'WRONG'}")
        return ok

    def timed(way, reps=5):
        sync_all()
        start = time.perf_counter()
        for _ in range(reps):
            for i in range(gpus):
                way(i)
        sync_all()
        return (time.perf_counter() - start) * 1e3 / reps

    ok = True
    figures = {}
    for name, way in (("allgather_then_gemm", allgather_then_gemm), ("fused", fused)):
        for cc in c:
            cc.fill_(float("nan"))
        sync_all()  # the fill and the inputs' uploads ran on the default streams
        for i in range(gpus):
            way(i)
        sync_all()
        ok = check(name) and ok
        timed(way, 2)
        figures[name + "_ms"] = sorted(timed(way) for _ in range(args.runs))[args.runs // 2]
    flops = 2.0 * m * cols * k
    print(f"torch all-gather + GEMM, M = N = K = {m}, f16, {gpus} x {torch.cuda.get_device_name(0)}, "
          f"median of {args.runs} runs:")
    for name in ("allgather_then_gemm", "fused"):
        ms = figures[name + "_ms"]
        print(f"  torch {name:20s} {ms:8.3f} ms  ({flops / ms / 1e9:6.1f} TFLOP/s per GPU)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(figures, gpus=gpus, m=m, n=n, k=k, runs=args.runs, checks_passed=ok), f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
