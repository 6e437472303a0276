"""The attention texts the package runs (croqjit.attention, the backward
bench) come from the samples' generators through the extension, and
compile for sm_90a at the benchmarked shape without a GPU (NVRTC): the
forward that writes the log-sum-exp, the backward program, and the bench
self-test's broken backward."""

import os
import sys

import pytest

import croqjit

HARNESS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "bench", "harness")


def test_the_texts_are_the_generators():
    forward = croqjit._croqjit._attention_source("forward", "f16", 64)
    with_lse = croqjit._croqjit._attention_source("forward_lse", "f16", 64)
    backward = croqjit._croqjit._attention_source("backward", "bf16", 128)
    assert "lse" not in forward
    assert "global f32 [B, H, S, 8] lse," in with_lse
    assert backward.startswith("__co__ void attention_backward(global bf16 [B, H, S, 128] q,")
    # The forward with the log-sum-exp is the sample's forward plus its lse
    # parameter and the lines that store it.
    stripped = with_lse.replace(" global f32 [B, H, S, 8] lse,", "")
    assert "\n".join(line for line in stripped.splitlines() if "lse_rows" not in line) + "\n" == forward
    # Grouped key/value heads and packed sequences: the sample's own variants.
    grouped = croqjit._croqjit._attention_source("forward_lse", "bf16", 96, True)
    assert "global bf16 [B, HK, T, 96] k," in grouped and "global f32 [B, H, S, 8] lse," in grouped
    varlen = croqjit._croqjit._attention_source("varlen", "f16", 256, True)
    assert "global f16 [HK, TK, 256] k," in varlen and "global s32 [B1] cu_q," in varlen
    varlen_lse = croqjit._croqjit._attention_source("varlen_lse", "f16", 64, True)
    assert "global f32 [H, TQ, 8] lse, global s32 [B1] cu_q," in varlen_lse
    varlen_backward = croqjit._croqjit._attention_source("varlen_backward", "bf16", 256)
    assert varlen_backward.startswith("__co__ void attention_backward(global bf16 [H, TQ, 256] q,")
    assert "global s32 [B1] cu_q, global s32 [B1] cu_k, bool causal)" in varlen_backward
    # dQ from a third pass over the key tiles; the `_dq_atomics` kinds add it from kernel 2.
    assert "dq_acc" not in backward and "mma.row.col dq0, dscores" in backward
    atomics = croqjit._croqjit._attention_source("backward_dq_atomics", "bf16", 128)
    assert "mma.col.col dq, ds_s[p - 1]" in atomics and "__atomic_add(dq_acc.at(" in atomics


@pytest.mark.parametrize("args,message", [
    (("sideways", "f16", 64),
     r"kind must be forward, forward_lse, varlen, varlen_lse, backward, varlen_backward, backward_dq_atomics or "
     r"varlen_backward_dq_atomics, got 'sideways'"),
    (("backward", "f32", 64), r"element must be f16 or bf16, got 'f32'"),
    (("backward", "f16", 96), r"the backward's head_dim must be 64, 128 or 256, got 96"),
    (("backward", "f16", 192), r"the backward's head_dim must be 64, 128 or 256, got 192"),
    (("backward", "f16", 64, True), r"the backward has no grouped variant"),
    (("forward_lse", "f16", 32), r"head_dim of 'forward_lse' must be a multiple of 32 from 64 to 256, got 32"),
    (("varlen_lse", "f16", 32), r"head_dim of 'varlen_lse' must be a multiple of 32 from 64 to 256, got 32"),
    (("varlen", "bf16", 80), r"head_dim of 'varlen' must be a multiple of 32 from 32 to 256, got 80"),
])
def test_what_has_no_text_is_named(args, message):
    with pytest.raises(croqjit.ArgumentError, match=message):
        croqjit._croqjit._attention_source(*args)


def signature(element, d, backward, b=4, h=16, s=4096):
    qkv = croqjit.TensorSpec((b, h, s, d), element)
    lse = croqjit.TensorSpec((b, h, s, 8), "f32")
    if backward:
        return (qkv,) * 5 + (lse,) + (qkv,) * 3 + (True,)
    return (qkv,) * 4 + (lse, True)


# No spills with the toolkit's NVRTC 13.0; with the nvidia-cuda-nvrtc 13.2
# wheel the croqjit wheel test installs, the dense backward's kernel 2 at
# bf16 D=128 stores and loads 8 bytes a thread (since each query tile's lse
# and delta come by TMA with its stage), and the atomic form's (not the
# default) 40; bounded at those here.
BACKWARD_SPILL_BYTES = 8
SPILL_BYTES = {"forward_lse": 0, "backward": BACKWARD_SPILL_BYTES, "backward_dq_atomics": 40}


@pytest.mark.parametrize("element,d", [("bf16", 128)])  # the GPU tests compile every configuration
def test_forward_and_backward_compile_for_sm90a_without_spills(element, d):
    """ptxas's report of NVRTC's sm_90a compile (or the driver's): every
    kernel (the backward has three) keeps its accumulators in registers."""
    for kind in ("forward_lse", "backward", "backward_dq_atomics"):
        kernel = croqjit.compile(croqjit._croqjit._attention_source(kind, element, d), arch="sm_90a")
        expect_no_spills(kernel.info(*signature(element, d, kind != "forward_lse")), 1 if kind == "forward_lse" else 3,
                         SPILL_BYTES[kind])


# An H100's or H200's shared memory per block (227 KiB): what the wide
# backward's tiling is for.
SHARED_BYTES_PER_BLOCK = 227 * 1024


@pytest.mark.parametrize("element,d", [("f16", 64), ("bf16", 128), ("f16", 256), ("bf16", 256)])
def test_the_backward_fits_shared_memory_without_spills(element, d):
    """Each head dim of the backward program (croqjit.attention runs the
    others on these: 96 at 128, 160, 192 and 224 at 256): its three
    kernels at the benchmark's shape keep their accumulators in registers
    and each block's shared memory within an H200's (at D = 256 the wide
    tiling, where D = 128's would take 384 KiB)."""
    kernel = croqjit.compile(croqjit._croqjit._attention_source("backward", element, d), arch="sm_90a")
    info = kernel.info(*signature(element, d, True))
    expect_no_spills(info, 3, BACKWARD_SPILL_BYTES)
    for image in info.kernels:
        assert image.static_shared_bytes + image.dynamic_shared_bytes <= SHARED_BYTES_PER_BLOCK, str(info)


# No spills with the toolkit's NVRTC 13.0; with the nvidia-cuda-nvrtc 13.2
# wheel the croqjit wheel test installs, 28 bytes stored and 44 loaded a
# thread at D=128, 8 at D=256 (one kernel each); bounded at 64 here.
@pytest.mark.parametrize("d", [128, 256])
def test_the_packed_backward_compiles_for_sm90a_without_spills(d):
    """attention_varlen's backward: the packed program (sequence offsets
    read on the device) at 16 heads of 16384 packed rows, its three kernels
    within registers (nearly: see above) and an H200's shared memory."""
    kernel = croqjit.compile(croqjit._croqjit._attention_source("varlen_backward", "bf16", d), arch="sm_90a")
    rows_q, rows_k = croqjit.TensorSpec((16, 16384, d), "bf16"), croqjit.TensorSpec((16, 16384, d), "bf16")
    lse = croqjit.TensorSpec((16, 16384, 8), "f32")
    offsets = croqjit.TensorSpec((5,), "s32")
    info = kernel.info(rows_q, rows_k, rows_k, rows_q, rows_q, lse, rows_q, rows_k, rows_k, offsets, offsets, True)
    expect_no_spills(info, 3, most_bytes=64)
    for image in info.kernels:
        assert image.static_shared_bytes + image.dynamic_shared_bytes <= SHARED_BYTES_PER_BLOCK, str(info)


def expect_no_spills(info, kernels, most_bytes=0):
    assert len(info.kernels) == kernels, str(info)
    for image in info.kernels:
        # With a driver the figures are its function attributes: no spill
        # counts, but the local memory spills would take.
        if image.figures == "nvrtc":
            assert image.spill_store_bytes <= most_bytes and image.spill_load_bytes <= most_bytes, str(info)
        assert image.local_bytes <= most_bytes, str(info)


# The grouped D=224 forward: no spills with the toolkit's NVRTC 13.0, 48
# bytes a thread with the nvidia-cuda-nvrtc 13.2 wheel the croqjit wheel
# test installs (168 registers over three warpgroups); bounded at 64 here.
@pytest.mark.parametrize("kind,d,grouped,most_bytes", [("forward_lse", 160, False, 0), ("forward_lse", 224, True, 64),
                                                       ("varlen", 96, True, 0)])
def test_the_other_forwards_compile_for_sm90a_without_spills(kind, d, grouped, most_bytes):
    """The configurations croqjit.attention adds (head dims with a last
    32-column slab above 128, grouped, packed): NVRTC's sm_90a compile."""
    kernel = croqjit.compile(croqjit._croqjit._attention_source(kind, "f16", d, grouped), arch="sm_90a")
    heads = 4 if grouped else 16
    if kind == "varlen":
        packed = croqjit.TensorSpec((16, 8192, d), "f16")
        offsets = croqjit.TensorSpec((5,), "s32")
        args = (packed, croqjit.TensorSpec((heads, 8192, d), "f16"), croqjit.TensorSpec((heads, 8192, d), "f16"),
                packed, offsets, offsets, True)
    else:
        args = signature("f16", d, False)
        args = (args[0], croqjit.TensorSpec((4, heads, 4096, d), "f16"), croqjit.TensorSpec((4, heads, 4096, d), "f16"),
                *args[3:])
    expect_no_spills(kernel.info(*args), 1, most_bytes)


def test_the_bench_self_tests_broken_backward_compiles():
    sys.path.insert(0, HARNESS)
    try:
        import bench_attention_backward
    finally:
        sys.path.remove(HARNESS)
    broken = bench_attention_backward.drop_last_query_tile(croqjit._croqjit._attention_source("backward", "f16", 128))
    assert broken != croqjit._croqjit._attention_source("backward", "f16", 128)
    croqjit.precompile(broken, [signature("f16", 128, True)], archs=["sm_90a"])
