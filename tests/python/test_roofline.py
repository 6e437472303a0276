"""croqjit.roofline, croqjit.report and tune(plot=...): the drawing from
given figures (no GPU), the errors without matplotlib or a device, and the
command `croq bench --plot` runs. The timed runs are test_gpu_report.py's."""

import json
import struct
import sys

import pytest

import croqjit
from croqjit import roofline

H100_PEAKS = {"device": "NVIDIA H100 80GB HBM3", "memory_bytes_per_second": 3.35e12,
              "compute": [("f16/bf16 tensor cores", 989e12), ("f32 CUDA cores", 67e12)]}


def png_size(path):
    """(width, height) of a PNG, read from its IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", head[:8]
    assert head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


@pytest.fixture
def matplotlib():
    return pytest.importorskip("matplotlib")


def test_point_figures():
    p = roofline.roofline_point("gemm", 2e-3, 100e6, 1e12)
    assert p.bytes_per_second == pytest.approx(50e9)
    assert p.flops_per_second == pytest.approx(5e14)
    assert p.intensity == pytest.approx(1e4)
    assert p["label"] == "gemm"
    q = roofline.roofline_point("copy", 1e-3, 2e9)
    assert q.flops is None and q.flops_per_second is None and q.intensity is None
    assert q.bytes_per_second == pytest.approx(2e12)
    with pytest.raises(ValueError, match="seconds must be a positive number, got 0"):
        roofline.roofline_point("x", 0, 1)
    with pytest.raises(ValueError, match="bytes must be a positive number, got -1"):
        roofline.roofline_point("x", 1, -1)
    with pytest.raises(ValueError, match="flops must be a positive number or None, got 'many'"):
        roofline.roofline_point("x", 1, 1, "many")


def test_roofline_png_from_given_figures(matplotlib, tmp_path):
    points = [roofline.roofline_point("matmul(f16 [4096, 4096], ...)", 0.2e-3, 3 * 4096 * 4096 * 2, 2 * 4096**3),
              roofline.roofline_point("add(f32 [4096, 4096], ...)", 0.06e-3, 3 * 4096 * 4096 * 4)]
    path = tmp_path / "roofline.png"
    roofline.draw_roofline(str(path), H100_PEAKS, points, title="two kernels")
    width, height = png_size(path)
    assert (width, height) == (880, 605)  # 8 x 5.5 inches at 110 dpi
    # An architecture without documented rates: the memory roof alone.
    alone = tmp_path / "memory-only.png"
    roofline.draw_roofline(str(alone), {"device": "X", "memory_bytes_per_second": 1e12, "compute": []}, points[:1])
    assert png_size(alone) == (880, 605)
    with pytest.raises(ValueError, match="peaks has no memory_bytes_per_second"):
        roofline.draw_roofline(str(alone), {"compute": []}, points)


def test_a_clear_error_without_matplotlib(monkeypatch, tmp_path, np):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    message = r"croqjit's plots need matplotlib, which is not installed \(pip install matplotlib\)"
    with pytest.raises(ImportError, match=message):
        roofline.draw_roofline(str(tmp_path / "r.png"), H100_PEAKS, [])
    with pytest.raises(ImportError, match=message):
        roofline.draw_trials(str(tmp_path / "t.png"), [{"config": {"TM": 8}, "status": "not run"}])
    # report and tune say so before any work.
    k = croqjit.compile("__co__ void fill(s32 [64] x) {\n  parallel i by 64\n    x.at(i) = 3;\n}\n")
    with pytest.raises(ImportError, match=message):
        croqjit.report(k, np.zeros(64, np.int32), path=str(tmp_path / "r.png"))
    with pytest.raises(ImportError, match=message):
        croqjit.tune("__co__ void f(s32 [64] x) {\n  parallel i by 64\n    x.at(i) = 3;\n}\n", [{}],
                     np.zeros(64, np.int32), plot=str(tmp_path / "t.png"), progress=False)
    assert not list(tmp_path.iterdir())


class FakeTrial:
    """A TuneTrial as tune returns it."""

    def __init__(self, config, status, median_ms=0.0, min_ms=0.0):
        self.config, self.status, self.median_ms, self.min_ms = config, status, median_ms, min_ms


def test_trials_png_from_fake_trials(matplotlib, tmp_path):
    trials = [FakeTrial({"TM": 8, "TN": 16}, "timed", 0.12, 0.11),
              FakeTrial({"TM": 16, "TN": 16}, "timed", 0.08, 0.079),
              FakeTrial({"TM": 0, "TN": 16}, "compile failed"),
              {"config": {"TM": 32, "TN": 16}, "status": "wrong result"}]
    path = tmp_path / "trials.png"
    roofline.draw_trials(str(path), trials, chosen=1)
    assert png_size(path) == (880, 605)
    with pytest.raises(ValueError, match="no trials to draw"):
        roofline.draw_trials(str(path), [])


@pytest.mark.skipif(croqjit.cuda_available(), reason="with a device the configurations are timed")
def test_tune_plots_its_trials_when_none_could_be_timed(matplotlib, np, tmp_path):
    source = "#define TM 16\n__co__ void fill(s32 [64] x) {\n  parallel i by 64 / TM\n    x.at(i) = 3;\n}\n"
    path = tmp_path / "trials.png"
    with pytest.raises(croqjit.TuneError) as e:
        croqjit.tune(source, {"TM": [8, 16]}, np.zeros(64, np.int32), arch="sm_90a", plot=str(path), progress=False)
    assert [t.status for t in e.value.trials] == ["not run", "not run"]
    assert png_size(path) == (880, 605)


def test_report_and_time_refuse_what_they_cannot_time(np, tmp_path, matplotlib):
    k = croqjit.compile("__co__ void fill(s32 [64] x) {\n  parallel i by 64\n    x.at(i) = 3;\n}\n")
    with pytest.raises(croqjit.ArgumentError, match="report takes a croqjit.Kernel, got str"):
        croqjit.report("fill", path=str(tmp_path / "r.png"))
    with pytest.raises(croqjit.ArgumentError, match=r"path must be a non-empty str \(the PNG to write\)"):
        croqjit.report(k, np.zeros(64, np.int32), path="")
    with pytest.raises(croqjit.ArgumentError,
                       match=r"croq::time_kernel: argument 1 is host memory; a call on host data copies it, "
                             r"which is not the kernel's time \(pass device tensors\)"):
        k.time(np.zeros(64, np.int32))
    with pytest.raises(croqjit.ArgumentError, match="croq::time_kernel: warmup must be from 1 to 10000, got 0"):
        k.time(croqjit.TensorSpec([64], "s32", device=0), warmup=0)
    with pytest.raises(croqjit.ArgumentError, match="repetitions must be an int, got str"):
        k.time(np.zeros(64, np.int32), repetitions="many")
    assert not list(tmp_path.iterdir())


@pytest.mark.skipif(croqjit.cuda_available(), reason="a device has peaks")
def test_device_peaks_without_a_device():
    with pytest.raises(croqjit.CudaError):
        croqjit.device_peaks(0)


def test_the_command_croq_bench_plot_runs(matplotlib, tmp_path, capsys):
    figures = {"peaks": {"device": "NVIDIA H100 80GB HBM3", "memory_bytes_per_second": 3.35e12,
                         "compute": [["f16/bf16 tensor cores", 989e12]]},
               "kernels": [{"label": "matmul(f16 [512, 512], f16 [512, 512])", "seconds": 2e-5,
                            "bytes": 1572864, "flops": 268435456},
                           {"label": "add", "seconds": 1e-5, "bytes": 1e6, "flops": None}]}
    path = tmp_path / "bench.png"
    assert roofline.main(["--figures", json.dumps(figures), "-o", str(path)]) == 0
    assert png_size(path) == (880, 605)
    assert roofline.main(["--figures", "{\"peaks\": {}}", "-o", str(tmp_path / "bad.png")]) == 2
    assert "croqjit.roofline: bad figures: KeyError('kernels')" in capsys.readouterr().err
    assert roofline.main(["--figures", json.dumps(figures), "-o", str(tmp_path / "missing" / "x.png")]) == 1
    assert "croqjit.roofline: cannot write" in capsys.readouterr().err
