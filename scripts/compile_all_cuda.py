#!/usr/bin/env python3
"""Runs `croq compile --emit cuda` over Croqtile sources for
scripts/compare_generated.sh: every __co__ function a file has (croq
compiles each when no --entry is given; a croq from before that asks for
an entry and names them, and each is then compiled), each symbolic dim
given as 256 (the error that asks for one names it), for each architecture
given. Output is discarded: CROQ_DUMP_GENERATED keeps the kernels.

usage: compile_all_cuda.py CROQ ARCHS FILE...   (ARCHS: comma-separated)
"""
import re
import subprocess
import sys


def compile_one(croq, path, arch, entry=None):
    shapes = []
    for _ in range(16):
        cmd = [croq, "compile", path, "--emit", "cuda", "--arch", arch] + shapes
        if entry:
            cmd += ["--entry", entry]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0:
            return []
        dim = re.search(r"give it with --shape (\w+)=N", r.stderr)
        if dim:
            shapes += ["--shape", dim.group(1) + "=256"]
            continue
        several = re.search(r"defines several __co__ functions \(([^)]*)\)", r.stderr)
        if several and entry is None:
            return re.findall(r"`(\w+)`", several.group(1))
        return []
    return []


def main():
    croq, archs, files = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
    for arch in archs:
        for path in files:
            for entry in compile_one(croq, path, arch):
                compile_one(croq, path, arch, entry)


if __name__ == "__main__":
    main()
