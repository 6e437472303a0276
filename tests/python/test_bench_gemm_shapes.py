"""bench_gemm_shapes and the softmax form switch without a GPU: the
kernel_sources tool prints the text and the configurations croqjit.gemm
has (one source), refuses wrong arguments, and each broken variant of the
self-tests compiles to PTX for its timed shape with the configuration the
model gives it."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "harness"))

import bench_gemm_shapes  # noqa: E402
import kernel_text  # noqa: E402

import croqjit  # noqa: E402
import croqjit.gemm  # noqa: E402


def tool():
    try:
        return kernel_text.kernel_sources_tool()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))


def test_the_tool_and_the_package_give_one_text_and_one_ranking():
    tool()
    for element in ("f16", "bf16"):
        assert kernel_text.gemm_any(element) == croqjit._croqjit._gemm_any_source(element)
    gemm = croqjit.gemm.Gemm(interpret=True)  # an H100's figures, as the tool's default
    for m, n, k in [(1, 4096, 4096), (16, 1024, 8192), (256, 14336, 4096), (16384, 28672, 8192), (333, 1000, 1032)]:
        assert kernel_text.gemm_configs(m, n, k, top=5) == gemm.candidates(m, n, k, top=5)
    assert kernel_text.gemm_config_name(gemm.config(16, 4096, 4096)) == "swap 16x64 s16 split2 b128"


def test_rows_take_a_chunk_count():
    tool()
    assert "#define THREADS 1024\n#define CHUNKS 2\n" in kernel_text.rows("softmax", "f16", 16384, chunks=2)
    assert "#define THREADS 256\n#define CHUNKS 8\n" in kernel_text.rows("softmax", "f16", 16384)


@pytest.mark.parametrize("args,why", [(["gemm-any", "f32"], "gemm-any takes f16 or bf16"),
                                      (["gemm-config", "0", "8", "8"], "`0` is not a positive number"),
                                      (["gemm-config", "16", "8"], "unknown kernel or wrong arguments"),
                                      (["gemm-config", "16", "8", "8", "132"], "takes M N K and optionally"),
                                      (["rows", "softmax", "f16", "4608", "--chunks", "4"], "whole warps"),
                                      (["rows", "layernorm", "f16", "4096", "--chunks", "2"], "--chunks takes")])
def test_the_tool_refuses_wrong_arguments(args, why):
    out = subprocess.run([tool(), *args], capture_output=True, text=True)
    assert out.returncode == 2
    assert why in out.stderr and out.stdout == ""


@pytest.mark.parametrize("element,shape,broken", [("f16", (16, 1024, 8192), bench_gemm_shapes.reduce_one_slice_short),
                                                  ("bf16", (4096, 4096, 4096), bench_gemm_shapes.bench_k_loop_short)])
def test_broken_variants_compile_for_the_timed_shape(tmp_path, element, shape, broken):
    croq = os.path.join(os.path.dirname(os.path.dirname(tool())), "croq")
    if not os.access(croq, os.X_OK):
        pytest.skip(f"no croq command at {croq}")
    m, n, k = shape
    defines = kernel_text.gemm_configs(m, n, k)[0]
    path = tmp_path / "variant.co"
    path.write_text(broken(kernel_text.gemm_any(element)))
    args = [croq, "compile", str(path), "--emit", "ptx", "--arch", "sm_90a", "--shape", f"M={m}", "--shape", f"N={n}",
            "--shape", f"K={k}"]
    for name, value in defines.items():
        args += ["--define", f"{name}={value}"]
    out = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if out.returncode != 0 and "could not be loaded" in out.stderr and "NVRTC" in out.stderr:
        pytest.skip("no NVRTC here (the wheel test hides the CUDA toolkit): PTX needs it")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(".entry") == (2 if defines["SPLITS"] > 1 else 1)
