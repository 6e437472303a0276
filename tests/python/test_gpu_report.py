"""croqjit.report, Kernel.time and device_peaks on a device: the roofline
PNG of a timed run, the figures it is drawn from, and tune(plot=...)."""

import struct

import pytest

import croqjit
from kernels import ADD, sample_source

pytestmark = pytest.mark.gpu


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_device_peaks_are_the_devices(torch):
    peaks = croqjit.device_peaks(torch.cuda.current_device())
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    assert peaks.device == props.name
    assert peaks.sm_count == props.multi_processor_count
    assert peaks.compute_capability == props.major * 10 + props.minor
    assert 1e11 < peaks.memory_bytes_per_second < 2e13
    if peaks.compute_capability == 90:
        names = [name for name, _ in peaks.compute]
        assert names[0] == "f8 tensor cores" and "f16/bf16 tensor cores" in names
        f16 = dict(peaks.compute)["f16/bf16 tensor cores"]
        assert f16 == pytest.approx(peaks.sm_count * peaks.clock_hz * 4096)
        assert 4e14 < f16 < 2e15  # H100 PCIe to SXM: ~756 to ~989 dense TFLOP/s


def test_time_and_report_of_a_gemm(torch, tmp_path):
    pytest.importorskip("matplotlib")
    matmul = croqjit.compile(sample_source("matmul_persistent"))
    m = n = k = 4096
    a = torch.randn(m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(n, k, device="cuda", dtype=torch.float16)
    c = torch.empty(m, n, device="cuda", dtype=torch.float16)
    timing = matmul.time(a, b, c, warmup=2, repetitions=10)
    assert timing.repetitions == 10 and 0 < timing.min_ms <= timing.median_ms < 100
    assert timing.bytes == (m * k + n * k + m * n) * 2
    path = tmp_path / "gemm.png"
    point = croqjit.report(matmul, a, b, c, path=str(path), flops=2 * m * n * k, repetitions=10)
    assert png_size(path)[0] > 0
    assert point.label.startswith("matmul(f16 [4096, 4096]")
    peaks = croqjit.device_peaks(0)
    # Achieved below the roofs, and not absurdly below (a real timed GEMM).
    assert 1e13 < point.flops_per_second < max(f for _, f in peaks.compute) * 1.05
    assert point.intensity == pytest.approx(2 * m * n * k / timing.bytes)
    print(f"gemm: {point.flops_per_second / 1e12:.1f} TFLOP/s, {point.bytes_per_second / 1e9:.0f} GB/s")


def test_report_of_an_elementwise_kernel_without_flops(torch, tmp_path):
    pytest.importorskip("matplotlib")
    add = croqjit.compile(ADD)
    # Two tensors: add(x, x) reads x once from DRAM (the vectorized kernel's
    # two loads of one address), which the byte count cannot know.
    x, y = torch.randn(4096, 4096, device="cuda"), torch.randn(4096, 4096, device="cuda")
    path = tmp_path / "add.png"
    point = croqjit.report(add, x, y, path=str(path))
    assert point.flops is None and point.bytes == 3 * 4096 * 4096 * 4
    assert 1e10 < point.bytes_per_second < croqjit.device_peaks(0).memory_bytes_per_second * 1.05
    assert png_size(path)[0] > 0


def test_tune_plots_its_trials(torch, tmp_path):
    pytest.importorskip("matplotlib")
    source = sample_source("matmul_persistent")
    a = torch.randn(1024, 512, device="cuda", dtype=torch.float16)
    b = torch.randn(768, 512, device="cuda", dtype=torch.float16)
    c = torch.empty(1024, 768, device="cuda", dtype=torch.float16)
    path = tmp_path / "trials.png"
    configs = [{"GROUP": 8}, {"GROUP": 4}]
    tuned = croqjit.tune(source, configs, a, b, c, reuse_record=False, progress=False, plot=str(path))
    assert [t.status for t in tuned.trials] == ["timed", "timed"]
    assert png_size(path)[0] > 0
    with pytest.warns(UserWarning, match="no plot written"):
        again = croqjit.tune(source, configs, a, b, c, progress=False, plot=str(tmp_path / "again.png"))
    assert again.from_cache
