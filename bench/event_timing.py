"""Device time of a torch call, measured as bench/launch_timing.hpp measures
croq's kernels, for the reference scripts (gemm_reference.py,
attention_reference.py)."""
import torch

WARMUP, RUNS, BATCH = 3, 20, 10


def median_ms(fn):
    """Median over RUNS samples of the mean time of one fn call, each sample
    BATCH back-to-back calls between two CUDA events, after WARMUP calls: the
    host enqueues while the device runs, so this is device time, not Python
    launch overhead."""
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(RUNS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        for _ in range(BATCH):
            fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) / BATCH)
    times.sort()
    return times[len(times) // 2]
