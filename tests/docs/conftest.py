"""Shared by the documentation tests: the site's tools on sys.path, the
build's package, the options CMake passes (how to build C++ blocks), and a
summary of what was tested."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "docs" / "tools"))

import docblocks  # noqa: E402

if str(docblocks.build_dir() / "python") not in sys.path:
    sys.path.insert(0, str(docblocks.build_dir() / "python"))

# What each block's test did, for the summary: outcome -> count.
OUTCOMES: collections.Counter = collections.Counter()


def pytest_addoption(parser):
    group = parser.getgroup("docs", "building the C++ blocks of the documentation")
    group.addoption("--cxx", default="g++", help="the C++ compiler")
    group.addoption("--croq-include", default=str(REPO / "include"), help="libcroqjit's include directory")
    group.addoption("--cuda-include", default="/usr/local/cuda/include", help="the CUDA toolkit's include directory")
    group.addoption("--croq-lib-dir", default=str(docblocks.build_dir()), help="where libcroqjit.so is")
    group.addoption("--cudart-dir", default="/usr/local/cuda/lib64", help="where libcudart.so is")
    group.addoption("--gpu-only", action="store_true",
                    help="run only the blocks that use a GPU, whole; skip every case without a device")


def pytest_terminal_summary(terminalreporter):
    if OUTCOMES:
        terminalreporter.section("documentation code blocks")
        for outcome, count in sorted(OUTCOMES.items()):
            terminalreporter.write_line(f"{count:4d}  {outcome}")
        terminalreporter.write_line(f"{sum(OUTCOMES.values()):4d}  blocks in all")
