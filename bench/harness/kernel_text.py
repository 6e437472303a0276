"""The Croqtile text of the benchmarked kernels, and their deliberately
broken variants.

The text comes from where the C++ samples keep it (samples/*.cpp raw
strings, samples/attention_source.hpp's generator), printed by the
`kernel_sources` tool of the build (bench/harness/kernel_sources.cpp), so
the harness and the samples run one source. The element-wise add is
bench/harness/kernels/add_f32.co.

A broken variant is the same text with one edit (`broken`): the edit must
apply exactly where the variant says, else BrokenVariantError, so a change
of the kernel cannot quietly turn a self-test into a test of nothing.
"""
from __future__ import annotations

import functools
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))


class BrokenVariantError(Exception):
    """A variant's edit does not fit the kernel's text any more."""


def kernel_sources_tool() -> str:
    """The kernel_sources executable: CROQ_KERNEL_SOURCES, else next to the
    croqjit package of the build tree (BUILD/python/croqjit ->
    BUILD/bench/kernel_sources), else CROQ_BUILD_DIR or build/."""
    explicit = os.environ.get("CROQ_KERNEL_SOURCES")
    if explicit:
        return explicit
    candidates = []
    try:
        import croqjit

        candidates.append(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(croqjit.__file__))),
                                       "bench", "kernel_sources"))
    except ImportError:
        pass
    build = os.environ.get("CROQ_BUILD_DIR") or os.path.join(os.path.dirname(os.path.dirname(HERE)), "build")
    candidates.append(os.path.join(build, "bench", "kernel_sources"))
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError("no kernel_sources tool: build the `kernel_sources` target, or set CROQ_KERNEL_SOURCES "
                            f"(looked at {', '.join(candidates)})")


@functools.lru_cache(maxsize=None)
def tool_source(*args: str) -> str:
    """`kernel_sources ARGS...`'s text."""
    out = subprocess.run([kernel_sources_tool(), *args], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise RuntimeError(f"kernel_sources {' '.join(args)}: exit {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def gemm(element: str) -> str:
    """The persistent GEMM (f16, bf16 or fp8 inputs): C = A B^T, A [M, K], B [N, K]."""
    return tool_source("gemm", element)


def attention(element: str, head_dim: int, ping_pong: bool = True, consumers: int = 2, grouped: bool = False,
              varlen: bool = False, output: str = "f16") -> str:
    """samples/attention_source.hpp's forward; element "e4m3": the FP8
    forward (e4m3 Q, K and V^T, descales, O of type `output`)."""
    args = ["attention", element, str(head_dim), "--output", output]
    if not ping_pong:
        args.append("--no-ping-pong")
    args += ["--consumers", str(consumers)]
    if grouped:
        args.append("--grouped")
    if varlen:
        args.append("--varlen")
    return tool_source(*args)


def readme_gemm(readme: str) -> str:
    return tool_source("readme-gemm", readme)


def add() -> str:
    with open(os.path.join(HERE, "kernels", "add_f32.co")) as f:
        return f.read()


def rows(kind: str, element: str, hidden: int, chunks: int = 0, rows_per_block: int = 0) -> str:
    """samples/row_norm_source.hpp's softmax, rmsnorm or layernorm for rows of
    `hidden` elements (softmax, rmsnorm: `chunks` 8-element chunks a thread
    and `rows_per_block` rows a block when not 0, else the generator's choice)."""
    return tool_source("rows", kind, element, str(hidden), *(["--chunks", str(chunks)] if chunks else []),
                       *(["--rows", str(rows_per_block)] if rows_per_block > 0 else []))


def gemm_any(element: str) -> str:
    """The GEMM for every shape (samples/gemm_any_source.hpp): every size a #define."""
    return tool_source("gemm-any", element)


def gemm_configs(m: int, n: int, k: int, device=None, top: int = 1) -> list[dict]:
    """The configurations gemm_any's model ranks best for this shape, best
    first, as #define dicts; `device`: (SMs, DRAM bytes/s, tensor FLOP/s),
    else an H100's figures."""
    args = ["gemm-config", str(m), str(n), str(k)]
    if device is not None:
        args += [str(int(device[0])), f"{device[1]:.6g}", f"{device[2]:.6g}"]
    text = tool_source(*args, "--top", str(top))
    return [{name: int(value) for name, value in (pair.split("=") for pair in line.split())}
            for line in text.splitlines() if line.strip()]


def gemm_config_name(defines: dict) -> str:
    """gemm_any::Config::name's text: "64x128 s8 split4 b132" (" c2" after it in clusters of 2;
    "swap 16x64 ..." for the swapped form, its tile TOKENS x 64 per consumer)."""
    cluster = defines.get("CLUSTER", 1)
    swapped = defines.get("SWAP", 0)
    tile = (f"swap {defines['TOKENS']}x{64 * defines['CONSUMERS']}" if swapped
            else f"{64 * defines['CONSUMERS']}x{defines['BN']}")
    return (f"{tile} s{defines['STAGES']} split{defines['SPLITS']} "
            f"b{defines['BLOCKS']}" + (f" c{cluster}" if cluster > 1 else ""))


def elementwise(kind: str, element: str) -> str:
    """bench/harness/kernels/ew_<kind>.co (add, fma, cast, transpose) for one
    element type: add, fma and transpose with f32 replaced by it, cast (from
    f32) with its bf16 target replaced by it."""
    import re

    with open(os.path.join(HERE, "kernels", f"ew_{kind}.co")) as f:
        text = f.read()
    if kind == "cast":
        return re.sub(r"\bbf16\b", element, text)
    return re.sub(r"\bf32\b", element, text)


def replace_exactly(text: str, old: str, new: str, count: int) -> str:
    """text with `old` replaced by `new`, which must occur `count` times."""
    found = text.count(old)
    if found != count:
        raise BrokenVariantError(f"expected {count} occurrence(s) of {old!r} in the kernel, found {found}")
    return text.replace(old, new)


# The broken variants: name -> (what it breaks, the edit).
def gemm_k_loop_short(source: str) -> str:
    """The K loop one tile short, in the producer and the consumers alike
    (so the pipeline stays in step and nothing hangs): the last K tile of
    every output tile is never multiplied."""
    return replace_exactly(source, "foreach {iv_k} in [cdiv(K, TK)]", "foreach {iv_k} in [cdiv(K, TK) - 1]", 2)


def gemm_wrong_tail(source: str) -> str:
    """Output tiles counted with M / BM instead of cdiv(M, BM): the rows of
    the last, partial tile row are never computed (wrong when M % BM != 0)."""
    return replace_exactly(source, "cdiv(M, BM)", "(M / BM)", source.count("cdiv(M, BM)") or 1)


def attention_drop_last_key_tile(source: str) -> str:
    """Non-causal blocks walk one key tile less: the last BN keys never
    enter the softmax (the producer and the consumers read the same count)."""
    return replace_exactly(source, ": cdiv(T, BN);", ": cdiv(T, BN) - 1;", 1)
