"""Plots where people would rather look: a kernel's achieved FLOP/s and
bytes/s against its device's roofline, and a tune's trials.

The drawing takes given figures and needs no GPU (matplotlib, an optional
dependency: ``pip install matplotlib``); ``croqjit.report`` times a kernel
and reads the device's peaks, then draws. ``python -m croqjit._bench_plot
--figures JSON -o FILE.png`` (main) is what ``croq bench --plot`` runs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Iterable, Mapping, Optional, Sequence

__all__ = ["RooflinePoint", "draw_roofline", "draw_trials", "roofline_point"]


def _figure():
    """A matplotlib Figure drawn without pyplot (no GUI backend, no global state)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("croqjit's plots need matplotlib, which is not installed (pip install matplotlib)") from None
    return Figure(figsize=(8, 5.5), layout="constrained")


def _field(obj: Any, name: str, default: Any = None) -> Any:
    """obj[name] for a mapping, else obj.name (DevicePeaks, TuneTrial)."""
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


class RooflinePoint(dict):
    """What one kernel achieved: `label`, `seconds` (a call's median),
    `bytes`, `flops` (None when not given), and derived `bytes_per_second`,
    `flops_per_second` and `intensity` (FLOP per byte; None without flops)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def roofline_point(label: str, seconds: float, bytes: float, flops: Optional[float] = None) -> RooflinePoint:
    """The achieved figures of a kernel whose call takes `seconds` and moves `bytes` (and does `flops`)."""
    if not (isinstance(seconds, (int, float)) and seconds > 0 and math.isfinite(seconds)):
        raise ValueError(f"seconds must be a positive number, got {seconds!r}")
    if not (isinstance(bytes, (int, float)) and bytes > 0):
        raise ValueError(f"bytes must be a positive number, got {bytes!r}")
    if flops is not None and not (isinstance(flops, (int, float)) and flops > 0):
        raise ValueError(f"flops must be a positive number or None, got {flops!r}")
    return RooflinePoint(label=label, seconds=float(seconds), bytes=float(bytes),
                         flops=None if flops is None else float(flops),
                         bytes_per_second=bytes / seconds,
                         flops_per_second=None if flops is None else flops / seconds,
                         intensity=None if flops is None else flops / bytes)


def _si(value: float, unit: str) -> str:
    for factor, prefix in ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if value >= factor:
            return f"{value / factor:.3g} {prefix}{unit}"
    return f"{value:.3g} {unit}"


def draw_roofline(path: str, peaks: Any, points: Sequence[Mapping[str, Any]], title: Optional[str] = None) -> None:
    """Writes a roofline PNG to `path`: the memory roof (`peaks`'
    memory_bytes_per_second), each compute roof (`peaks`' compute: (name,
    FLOP/s) pairs), and each point (roofline_point's) at its arithmetic
    intensity and achieved FLOP/s. A point without flops cannot be placed:
    its achieved bandwidth is drawn on the memory roof's axis instead, as a
    dashed line. `peaks` is a croqjit.DevicePeaks or a dict of the same."""
    bandwidth = float(_field(peaks, "memory_bytes_per_second", 0) or 0)
    if bandwidth <= 0:
        raise ValueError("peaks has no memory_bytes_per_second")
    compute = [(str(name), float(flops)) for name, flops in (_field(peaks, "compute", None) or [])]
    device = _field(peaks, "device", "") or "the device"
    placed = [p for p in points if p.get("flops")]
    # Intensities (FLOP/byte) around the ridges and the points.
    ridges = [f / bandwidth for _, f in compute] or [1.0]
    xs = ridges + [p["intensity"] for p in placed]
    low, high = min(xs) / 100, max(xs) * 100
    fig = _figure()
    ax = fig.add_subplot()
    ax.set_xscale("log")
    ax.set_yscale("log")
    steps = 200
    grid = [low * (high / low) ** (i / steps) for i in range(steps + 1)]
    top = max([f for _, f in compute] or [bandwidth * high])
    ax.plot(grid, [min(bandwidth * x, top) for x in grid], color="black", linewidth=2,
            label=f"memory {_si(bandwidth, 'B/s')}")
    for i, (name, flops) in enumerate(compute):
        ridge = flops / bandwidth
        ax.plot([ridge, high], [flops, flops], linestyle="-" if i == 0 else ":", linewidth=1.5,
                label=f"{name} {_si(flops, 'FLOP/s')}")
    for p in placed:
        ax.plot([p["intensity"]], [p["flops_per_second"]], marker="o", markersize=9, linestyle="none",
                label=f"{p['label']}: {_si(p['flops_per_second'], 'FLOP/s')}, {_si(p['bytes_per_second'], 'B/s')}")
    for p in points:
        if p.get("flops"):
            continue
        # No FLOP count: the achieved bandwidth, as the memory roof would carry it.
        achieved = p["bytes_per_second"]
        ax.plot(grid, [min(achieved * x, top) for x in grid], linestyle="--",
                label=f"{p['label']}: {_si(achieved, 'B/s')} ({100 * achieved / bandwidth:.0f}% of memory; "
                      f"FLOPs not given)")
    ax.set_xlabel("arithmetic intensity (FLOP / byte)")
    ax.set_ylabel("FLOP/s")
    ax.set_title(title or f"roofline of {device}")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")
    fig.savefig(path, format="png", dpi=110)


def draw_trials(path: str, trials: Iterable[Any], chosen: int = -1, title: Optional[str] = None) -> None:
    """Writes a PNG of a tune's trials to `path`: the median and minimum
    time of each timed configuration (the chosen one, index `chosen`,
    highlighted) and the status of the others. `trials` are
    croqjit.TuneTrial objects or dicts with config, status, median_ms,
    min_ms."""
    trials = list(trials)
    if not trials:
        raise ValueError("no trials to draw (a choice from an earlier tune's record times nothing)")
    fig = _figure()
    ax = fig.add_subplot()
    labels, medians, minimums, colors, notes = [], [], [], [], []
    for i, t in enumerate(trials):
        config = _field(t, "config", {}) or {}
        labels.append(", ".join(f"{k}={v}" for k, v in config.items()) or f"#{i}")
        timed = _field(t, "status") == "timed"
        medians.append(float(_field(t, "median_ms", 0)) if timed else 0.0)
        minimums.append(float(_field(t, "min_ms", 0)) if timed else math.nan)  # no tick
        colors.append("tab:green" if i == chosen else "tab:blue" if timed else "lightgray")
        notes.append(None if timed else _field(t, "status"))
    rows = list(range(len(trials)))
    ax.barh(rows, medians, color=colors)
    ax.plot(minimums, rows, marker="|", markersize=12, linestyle="none", color="black", label="min")
    longest = max(medians) or 1.0
    for row, note in zip(rows, notes):
        if note:
            ax.text(longest * 0.01, row, note, va="center", fontsize="small", color="dimgray")
    ax.set_yticks(rows, labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("median ms per call (bars), min (ticks)")
    ax.set_title(title or "tune trials" + (f" (chosen: {labels[chosen]})" if 0 <= chosen < len(labels) else ""))
    ax.grid(True, axis="x", alpha=0.3)
    fig.savefig(path, format="png", dpi=110)


def main(argv: Optional[Sequence[str]] = None) -> int:
    """`python -m croqjit._bench_plot --figures JSON -o FILE.png`: JSON is
    {"peaks": {device, memory_bytes_per_second, compute: [[name, FLOP/s]]},
    "kernels": [{label, seconds, bytes, flops (or null)}], "title": optional}."""
    parser = argparse.ArgumentParser(prog="python -m croqjit._bench_plot", description=main.__doc__)
    parser.add_argument("--figures", required=True, help="the figures, as JSON")
    parser.add_argument("-o", "--output", required=True, help="the PNG to write")
    options = parser.parse_args(argv)
    try:
        figures = json.loads(options.figures)
        points = [roofline_point(str(k["label"]), k["seconds"], k["bytes"], k.get("flops"))
                  for k in figures["kernels"]]
        draw_roofline(options.output, figures["peaks"], points, figures.get("title"))
    except ImportError as e:
        print(f"croqjit.roofline: {e}", file=sys.stderr)
        return 3
    except (ValueError, KeyError, TypeError) as e:
        print(f"croqjit.roofline: bad figures: {e!r}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"croqjit.roofline: cannot write {options.output}: {e.strerror or e}", file=sys.stderr)
        return 1
    return 0

