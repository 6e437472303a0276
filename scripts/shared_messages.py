#!/usr/bin/env python3
"""Message texts that two source folders both hold (issue 31: each rule and
each user-facing message exists once, in sema or after bind).

Usage: shared_messages.py DIR_A DIR_B [--min-words N]
Prints every string literal (adjacent literals joined) of at least
--min-words words (default 3) that occurs in a .cpp/.hpp/.def file of both
folders, with where; exits 1 when there is one, 0 otherwise.
"""
import argparse
import pathlib
import re
import sys

# A C++ string literal (no raw strings in these folders), with its escapes.
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/', re.S)


def literals(path):
    text = path.read_text(encoding="utf-8", errors="replace")
    # Blank comments (keeping line breaks) so quotes in them do not count.
    text = COMMENT.sub(lambda m: re.sub(r'[^\n]', ' ', m.group(0)), text)
    out = []
    pos = 0
    while True:
        m = LITERAL.search(text, pos)
        if not m:
            return out
        line = text.count("\n", 0, m.start()) + 1
        value = m.group(1)
        end = m.end()
        while True:  # "a" "b" is one literal
            nxt = re.match(r'\s*"((?:[^"\\\n]|\\.)*)"', text[end:])
            if not nxt:
                break
            value += nxt.group(1)
            end += nxt.end()
        out.append((value, line))
        pos = end


def messages(folder, min_words):
    found = {}
    for path in sorted(pathlib.Path(folder).rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".def"):
            continue
        for value, line in literals(path):
            if len(value.split()) >= min_words:
                found.setdefault(value.strip(), []).append(f"{path}:{line}")
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("a")
    parser.add_argument("b")
    parser.add_argument("--min-words", type=int, default=3)
    args = parser.parse_args()
    a = messages(args.a, args.min_words)
    b = messages(args.b, args.min_words)
    shared = sorted(set(a) & set(b))
    for text in shared:
        print(f'"{text}"\n  {" ".join(a[text])}\n  {" ".join(b[text])}')
    print(f"{len(shared)} message texts in both {args.a} and {args.b}")
    return 1 if shared else 0


if __name__ == "__main__":
    sys.exit(main())
