#!/usr/bin/env python3
"""Compiles the Croqtile code blocks of Croqtile's documentation with croq.

    scripts/upstream_doc_blocks.py CROQTILE [--croq PATH] [--arch sm_90a]
                                   [--out DIR] [--json FILE] [--timeout S]

CROQTILE is a Croqtile checkout or a bare git directory; its HEAD's
Documents/Documentation/*.md are read at run time (nothing is copied into
this project). Every ```choreo block is classified:

  compiles      a complete program (at least one __co__ function with a
                body): `croq compile --arch ARCH --emit ptx` succeeded for
                every __co__ function of the block
  fragment      not a complete program; the reason says why (statements or
                declarations without a __co__ function, elided code `...`,
                a call of a function the block defines nowhere, a name it
                defines nowhere (croq's unknown-name))
  marked-error  the documentation shows it as an error (an `// error`
                comment in the block, or the sentence before it says the
                code is rejected / invalid / an error)
  fails         a complete program that croq refused: the rule id (or the
                message, when it has no rule id) and the first diagnostic

Symbolic dims a function leaves open are bound to 256 (`--shape N=256`, as
croq asks for them). Prints one line per block, the counts, and the failing
blocks grouped by cause. Exit status: 0 (the counts are the result), 2 on a
usage error.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

DOCS = "Documents/Documentation"
FENCE = re.compile(r"^\s*```(\w*)\s*$")
# A __co__ function with a body: `__co__ ... name(...) {` (not `{ ... }`).
CO_FUNCTION = re.compile(r"__co__\s+(?:[^;{()]*?\s)?(\w+)\s*\(", re.S)
ERROR_COMMENT = re.compile(r"//.*\b(error|invalid|illegal|rejected|not allowed)\b", re.I)
# The paragraph right before a block, when it presents the block as an error.
ERROR_PROSE = re.compile(
    r"\b(is|are|gets?|will be) rejected\b|\b(is|are) (an? )?(compile|compilation) error\b|\berror:|"
    r"\bdoes not compile\b|\bfails? to compile\b|\b(incorrect|invalid|illegal)( code| usage)?:\s*$", re.I)
RULE = re.compile(r"\[([a-z0-9][a-z0-9-]*)\]\s*$")
DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: error: (.*)$")
MISSING_SHAPE = re.compile(r"symbolic dim (\w+); give it with --shape")


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir=" + git_dir, *args], capture_output=True, text=True,
                          check=True).stdout


def git_dir_of(repo):
    probe = subprocess.run(["git", "-C", repo, "rev-parse", "--absolute-git-dir"], capture_output=True, text=True)
    return probe.stdout.strip() if probe.returncode == 0 else os.path.abspath(repo)


def blocks(git_dir):
    """(file, line, text, prose before) of every choreo block, in order."""
    names = [n for n in git(git_dir, "ls-tree", "-r", "--name-only", "HEAD", "--", DOCS).split()
             if n.endswith(".md")]
    for name in sorted(names):
        lines = git(git_dir, "show", "HEAD:" + name).split("\n")
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            end = i + 1
            while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
                end += 1
            if m.group(1) == "choreo":
                yield name, i + 1, "\n".join(lines[i + 1:end]) + "\n", paragraph_before(lines, i)
            i = end + 1


def paragraph_before(lines, fence):
    """The paragraph of prose right before line `fence` (empty after a heading or code)."""
    j = fence - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    paragraph = []
    while j >= 0 and lines[j].strip() and not lines[j].lstrip().startswith(("```", "#")):
        paragraph.insert(0, lines[j])
        j -= 1
    return "\n".join(paragraph)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


CALL = re.compile(r"\bcall\s+([A-Za-z_][\w:]*)")
DEFINED_FUNCTION = re.compile(r"\b(?:__device__|__co_device__|__co__|__host__)\b[^;{}()]*?\b(\w+)\s*(?:<[^;{}]*>)?\s*\(")
INTRINSIC_PRAGMA = re.compile(r"#pragma\s+croq\s+intrinsic\s+(prefix|namespace)\s+([\w:]+)")


def undefined_calls(code):
    """Functions the block calls (`call f`, or a `#pragma croq intrinsic`
    name, which Croqtile emits verbatim) without defining them."""
    defined = {m.group(1) for m in DEFINED_FUNCTION.finditer(code)}
    called = [m.group(1) for m in CALL.finditer(code)]
    for kind, name in INTRINSIC_PRAGMA.findall(code):
        name = name.rstrip(":")
        pattern = r"\b(%s\w*)\s*\(" % re.escape(name) if kind == "prefix" else r"\b(%s::\w+)\s*\(" % re.escape(name)
        called += re.findall(pattern, code)
    missing = []
    for name in called:
        if name.split("::")[-1] not in defined and name not in missing:
            missing.append(name)
    return missing


def fragment_reason(text):
    code = strip_comments(text)
    missing = undefined_calls(code)
    if missing and "__co__" in code:
        return "calls %s, defined nowhere in the block (code from outside the page)" % ", ".join(
            "`%s`" % m for m in missing)
    if "__co__" not in code:
        if re.search(r"\bparallel\b|=>|\bforeach\b|\bwait\b|\btrigger\b|\bmma\.", code):
            return "statements without their __co__ function"
        return "declarations or expressions without a __co__ function"
    if "..." in code or "…" in code:
        return "elided code (`...`)"
    if not any(code[m.end():].lstrip().startswith(("{",)) or re.match(r"[^;{]*\)\s*\{", code[m.end():])
               for m in CO_FUNCTION.finditer(code)):
        return "__co__ declarations without a body"
    return None


def marked_error(text, prose):
    if any(ERROR_COMMENT.search(l) for l in text.splitlines()):
        return "an `// error` comment in the block"
    if ERROR_PROSE.search(prose):
        return "the paragraph before it shows it as an error"
    return None


def entries(text):
    code = strip_comments(text)
    names = []
    for m in CO_FUNCTION.finditer(code):
        if re.match(r"[^;{]*\)\s*\{", code[m.end():], re.S) and m.group(1) not in names:
            names.append(m.group(1))
    return names


def compile_entry(croq, path, entry, arch, timeout):
    """None when it compiled, else (cause, first diagnostic)."""
    shapes = []
    for _ in range(8):
        cmd = [croq, "compile", path, "--arch", arch, "--emit", "ptx", "-o", os.devnull, "--entry", entry]
        for s in shapes:
            cmd += ["--shape", s + "=256"]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return "timeout", "timed out after %ss" % timeout
        out = run.stderr + run.stdout
        if run.returncode == 0:
            return None
        missing = [s for s in MISSING_SHAPE.findall(out) if s not in shapes]
        if missing:
            shapes += missing
            continue
        first = next((l for l in out.splitlines() if l.strip()), "exit %d" % run.returncode)
        rule = next((RULE.search(l).group(1) for l in out.splitlines() if DIAGNOSTIC.match(l) and RULE.search(l)),
                    None)
        diag = next((DIAGNOSTIC.match(l).group(1) for l in out.splitlines() if DIAGNOSTIC.match(l)), first)
        if rule:
            return rule, diag
        if run.returncode < 0:
            return "crash (signal %d)" % -run.returncode, first
        return "no rule id: " + re.sub(r"`[^`]*`", "`…`", diag)[:90], diag
    return "shapes", "croq kept asking for shapes: " + ", ".join(shapes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("repo")
    ap.add_argument("--croq", default=os.path.join(os.path.dirname(__file__), "..", "build", "croq"))
    ap.add_argument("--arch", default="sm_90a")
    ap.add_argument("--out", default=None, help="keep each block as a .co file here")
    ap.add_argument("--json", default=None, help="write the classification as JSON here")
    ap.add_argument("--timeout", type=int, default=120)
    args = ap.parse_args()
    if not os.access(args.croq, os.X_OK):
        print("no croq at %s: build it first" % args.croq, file=sys.stderr)
        return 2
    git_dir = git_dir_of(args.repo)
    out = args.out or tempfile.mkdtemp(prefix="upstream-doc-blocks-")
    os.makedirs(out, exist_ok=True)
    results = []
    for name, line, text, prose in blocks(git_dir):
        where = "%s:%d" % (name.split("/")[-1], line)
        record = {"block": where, "status": None, "reason": None, "detail": None}
        reason = marked_error(text, prose)
        if reason:
            record.update(status="marked-error", reason=reason)
        elif fragment_reason(text):
            record.update(status="fragment", reason=fragment_reason(text))
        else:
            path = os.path.join(out, where.replace(".md:", "_") + ".co")
            with open(path, "w") as f:
                f.write(text)
            failure = None
            for entry in entries(text):
                failure = compile_entry(args.croq, path, entry, args.arch, args.timeout)
                if failure:
                    break
            if failure and failure[0] == "unknown-name":
                # A name the block uses and defines nowhere: a part of the page, not a whole program.
                record.update(status="fragment", reason="uses a name it defines nowhere: " + failure[1])
            elif failure:
                record.update(status="fails", reason=failure[0], detail=failure[1])
            else:
                record.update(status="compiles")
        results.append(record)
        extra = "".join(": " + record[k] for k in ("reason", "detail") if record[k])
        print("%-13s %s%s" % (record["status"], where, extra[:300]), flush=True)
    counts = collections.Counter(r["status"] for r in results)
    print("\n%d choreo blocks: %s" % (len(results), ", ".join(
        "%s %d" % (s, counts[s]) for s in ("compiles", "fails", "fragment", "marked-error"))))
    complete = counts["compiles"] + counts["fails"]
    print("complete programs: %d, of which %d compile for %s" % (complete, counts["compiles"], args.arch))
    causes = collections.defaultdict(list)
    for r in results:
        if r["status"] == "fails":
            causes[r["reason"]].append(r["block"])
    if causes:
        print("failing blocks by cause:")
        for cause, where in sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("  %-40s %d: %s" % (cause, len(where), ", ".join(where)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
