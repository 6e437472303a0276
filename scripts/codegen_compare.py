#!/usr/bin/env python3
"""Compares two codegen_snapshot.sh folders test by test: for every test
that passed in both, the IR (and CUDA) it printed must be byte-identical.

Usage: codegen_compare.py BEFORE_DIR AFTER_DIR
Prints each suite's count of identical tests, every test whose output
differs, and the tests that passed in only one; exits 1 on a difference.
"""
import pathlib
import re
import sys

RUN = re.compile(r"^\[ RUN      \] (.+)$")
END = re.compile(r"^\[ +(OK|FAILED) +\] (.+?)(, where .*)?$")


def sections(path):
    out, name, lines = {}, None, []
    for line in path.read_text(errors="replace").splitlines():
        m = RUN.match(line)
        if m:
            name, lines = m.group(1), []
            continue
        m = END.match(line)
        if m and name and m.group(2).startswith(name.split(",")[0]):
            out[name] = (m.group(1), "\n".join(lines))
            name = None
            continue
        if name:
            lines.append(line)
    return out


def main():
    before, after = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    bad = 0
    for b in sorted(before.glob("*.txt")):
        a = after / b.name
        if not a.exists():
            continue
        sb, sa = sections(b), sections(a)
        same = differ = 0
        for name, (status, text) in sb.items():
            if status != "OK" or name not in sa or sa[name][0] != "OK":
                continue
            if sa[name][1] == text:
                same += 1
            else:
                differ += 1
                print(f"{b.stem}: {name}: output differs")
        only = [n for n in sb if sb[n][0] == "OK" and (n not in sa or sa[n][0] != "OK")]
        kernels = sum(t.count("// CROQ_PRINT_IR_AFTER: after lower") for n, (s, t) in sb.items()
                      if s == "OK" and n in sa and sa[n][0] == "OK")
        print(f"{b.stem}: {same} tests identical ({kernels} kernels lowered), {differ} differ, "
              f"{len(only)} passed before only" + (": " + ", ".join(only) if only else ""))
        bad += differ
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
