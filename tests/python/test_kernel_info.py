"""kernel.info(*args): what a specialization's kernels use, from ptxas's
report without a device (checked here) and from the driver with one (the
gpu test)."""

import pathlib

import pytest

import croqjit
from kernels import ADD, sample_source

# A kernel built to spill, shared with the C++ tests.
SPILLING = (pathlib.Path(__file__).resolve().parents[1] / "data" / "info" / "spill.co").read_text()

needs_no_device = pytest.mark.skipif(croqjit.cuda_available(), reason="with a device the figures are the driver's")


@needs_no_device
def test_figures_without_a_device_are_ptxas_report(np):
    add = croqjit.compile(ADD, arch="sm_90a")
    a = np.zeros((64, 32), np.float32)
    info = add.info(a, a)
    assert isinstance(info, croqjit.KernelInfo)
    assert info.function == "add" and info.device is None
    assert info.specialization.signature == "f32 [64, 32], f32 [64, 32]"
    (k,) = info.kernels
    assert isinstance(k, croqjit.KernelImageInfo)
    assert k.figures == "nvrtc"
    assert k.registers > 0
    assert (k.spill_store_bytes, k.spill_load_bytes, k.local_bytes, k.static_shared_bytes) == (0, 0, 0, 0)
    assert k.max_threads_per_block is None and k.blocks_per_sm is None and k.active_clusters is None
    # 2048 elements, 4 a thread (vectorize_elementwise): 512 threads.
    assert k.block == (256, 1, 1) and k.grid == (2, 1, 1) and k.cluster == (0, 0, 0)
    assert k.arch == "sm_90a" and not k.image_is_ptx and k.image_bytes > 0
    assert k.source in ("compiled", "disk", "memory")
    text = str(info)
    assert text.startswith("specialization: add(f32 [64, 32], f32 [64, 32]) for sm_90a\n")
    assert f"  registers: {k.registers} per thread (nvrtc)\n" in text
    # The same specialization again: found in memory, the same figures.
    again = croqjit.compile(ADD, arch="sm_90a").info(croqjit.TensorSpec((64, 32), "f32"), a)
    assert again.kernels[0].source == "memory" and again.kernels[0].registers == k.registers


@needs_no_device
def test_a_kernel_built_to_spill(np):
    (k,) = croqjit.compile(SPILLING, arch="sm_90a").info(croqjit.TensorSpec((1024, 160), "f64")).kernels
    assert k.spill_store_bytes > 0 and k.spill_load_bytes > 0
    assert k.local_bytes >= 160 * 8


@needs_no_device
def test_programs_list_each_kernel(np):
    info = croqjit.compile(sample_source("row_scale"), arch="sm_90a").info(np.zeros((300, 517), np.float32))
    assert len(info.kernels) == 3
    assert len({k.entry for k in info.kernels}) == 3
    assert info.kernels[2].grid == ((300 * 517 + 255) // 256, 1, 1)
    assert "kernel 3 of 3: " in str(info)


def test_arguments_are_checked_as_for_a_call(np):
    add = croqjit.compile(ADD)
    with pytest.raises(croqjit.ArgumentError, match="argument 2 'rhs': expected f32"):
        add.info(np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float64))
    with pytest.raises(croqjit.ArgumentError, match="unexpected keyword argument 'out'"):
        add.info(np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32), out=None)


@pytest.mark.gpu
def test_figures_with_a_device_are_the_drivers(torch):
    add = croqjit.compile(ADD)
    a = torch.zeros(64, 32, device="cuda")
    info = add.info(a, a)
    (k,) = info.kernels
    assert k.figures == "driver" and info.device == torch.cuda.get_device_name()
    assert k.registers > 0 and k.max_threads_per_block >= 256 and k.blocks_per_sm >= 1
    assert k.spill_store_bytes == 0
    assert "(driver)" in str(info)
