"""The C++ API reference (docs/reference/cpp-api.md), generated from the
public headers include/croq/*.hpp: each header's opening comment, then each
declaration at namespace scope with the comment above it. Class bodies are
shown without their private sections; `detail` namespaces are left out.

A small line scanner, not a C++ parser: it relies on the headers' style
(declarations start on their own line, comments are `//` lines directly
above them) and fails loudly on anything it cannot place."""

from __future__ import annotations

import dataclasses
import re

from docblocks import REPO

HEADERS = REPO / "include" / "croq"
# Reading order: the entry points first, then the types they use.
ORDER = ["croq.hpp", "kernel.hpp", "options.hpp", "error.hpp", "tensor.hpp", "shape.hpp", "spandata.hpp",
         "dtype.hpp",
         "subbyte.hpp", "stats.hpp", "tune.hpp", "choreo.hpp", "choreo_host.hpp", "choreo_sparse.hpp"]


@dataclasses.dataclass
class Item:
    name: str
    comment: list[str]
    code: list[str]


def _code_part(line: str) -> str:
    """`line` without its // comment and string / char literal contents."""
    out, i, quote = [], 0, None
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = None
            i += 1
            continue
        if c in "\"'":
            # ' between digits is a digit separator (1'000)
            if c == "'" and i > 0 and line[i - 1].isalnum() and i + 1 < len(line) and line[i + 1].isalnum():
                i += 1
                continue
            quote = c
        elif line.startswith("//", i):
            break
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _name_of(code: list[str]) -> str:
    text = " ".join(_code_part(line) for line in code)
    text = re.sub(r"^\s*template\s*<[^{;]*?>\s*(requires\s*\([^{;]*?\)\s*)?", "", text)
    if m := re.match(r"\s*(?:enum\s+class|enum|class|struct|union)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)", text):
        return m[1]
    if m := re.match(r"\s*using\s+(?:namespace\s+)?(?:\w+::)*(\w+)", text):
        return m[1]
    if m := re.search(r"(operator\s*[^\s(]+|~?\w+)\s*\(", text):
        return m[1]
    if m := re.search(r"(\w+)\s*(?:<[^=;{]*>)?\s*(?:=|\{|;)", text):
        return m[1]
    raise ValueError(f"cannot name the declaration `{text.strip()[:80]}`")


def _without_private(code: list[str]) -> list[str]:
    out, hidden = [], False
    for line in code:
        s = line.strip()
        if s in ("private:", "protected:"):
            hidden = True
            continue
        if s == "public:":
            hidden = False
            continue
        if hidden and not (s.startswith("}") and line.startswith(" " * 0 + "}")):
            continue
        if s.startswith("friend "):
            continue
        out.append(line)
    # A blank line left before the closing brace by a removed section.
    while len(out) >= 2 and not out[-2].strip():
        del out[-2]
    return out


def items(path) -> tuple[list[str], list[Item]]:
    """The header's opening comment and its declarations."""
    lines = path.read_text(encoding="utf-8").splitlines()
    intro = []
    i = 0
    while i < len(lines) and lines[i].startswith("//"):
        intro.append(lines[i][2:].removeprefix(" "))
        i += 1
    found: list[Item] = []
    comment: list[str] = []
    scopes: list[str] = []   # per open brace: "ns", "detail" or "decl"
    current: Item | None = None
    depth_at_start = 0
    continued_preprocessor = False
    for line in lines[i:]:
        s = line.strip()
        if continued_preprocessor or (current is None and s.startswith("#")):
            continued_preprocessor = s.endswith("\\")
            comment = []
            continue
        in_detail = "detail" in scopes
        if current is None:
            if not s:
                comment = []
                continue
            if s.startswith("//"):
                comment.append(s[2:].removeprefix(" "))
                continue
            if m := re.match(r"namespace\s+([\w:]+)?\s*\{\s*(\}\s*)?$", s):
                if not m[2]:
                    scopes.append("detail" if m[1] == "detail" else "ns")
                comment = []
                continue
            if re.match(r"\}\s*(//.*)?$", s) and scopes and scopes[-1] in ("ns", "detail"):
                scopes.pop()
                comment = []
                continue
            if re.match(r"namespace\s+\w+\s*\{.*\}\s*$", s) or re.match(r"(class|struct)\s+\w+\s*;$", _code_part(s).strip()):
                comment = []  # one-line detail namespaces and forward declarations
                continue
            current = Item("", comment, [])
            comment = []
            depth_at_start = len(scopes)
        current.code.append(line)
        for c in _code_part(line):
            if c == "{":
                scopes.append("decl")
            elif c == "}":
                if not scopes or scopes[-1] != "decl":
                    raise ValueError(f"{path}: unbalanced braces near `{s}`")
                scopes.pop()
        code = _code_part(line).strip()
        if len(scopes) == depth_at_start and (code.endswith(";") or code.endswith("}")):
            if not in_detail and "ns" in scopes:
                current.name = _name_of(current.code)
                current.code = _without_private(current.code)
                found.append(current)
            current = None
    if current is not None or scopes:
        raise ValueError(f"{path}: a declaration or namespace is never closed")
    return intro, found


def _prose(comment: list[str]) -> str:
    """A comment as Markdown: plain lines joined into paragraphs, lines
    indented by two spaces or more (examples) as code blocks."""
    parts, para, code = [], [], []

    def flush_para():
        if para:
            parts.append(" ".join(para))
            para.clear()

    def flush_code():
        if code:
            parts.append("```cpp\n" + "\n".join(code) + "\n```")
            code.clear()

    for line in comment:
        if line.startswith("  ") and line.strip():
            flush_para()
            code.append(line[2:])
        elif line.strip():
            flush_code()
            para.append(line.strip())
        else:
            flush_code()
            flush_para()
    flush_code()
    flush_para()
    return "\n\n".join(parts)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "x"


def markdown() -> str:
    headers = sorted(HEADERS.glob("*.hpp"), key=lambda p: (ORDER.index(p.name) if p.name in ORDER else len(ORDER), p.name))
    out, anchors = [], set()

    def anchor(text: str) -> str:
        base = slug = _slug(text)
        n = 2
        while slug in anchors:
            slug, n = f"{base}-{n}", n + 1
        anchors.add(slug)
        return slug

    for path in headers:
        intro, found = items(path)
        out.append(f"## `<croq/{path.name}>` {{ #{anchor(path.stem + '-hpp')} }}\n")
        if intro:
            out.append(_prose(intro) + "\n")
        merged: list[Item] = []
        for item in found:
            if merged and merged[-1].name == item.name and not item.comment:
                merged[-1].code += [""] + item.code
            else:
                merged.append(item)
        for item in merged:
            out.append(f"### `{item.name}` {{ #{anchor(path.stem + '-' + item.name)} }}\n")
            if item.comment:
                out.append(_prose(item.comment) + "\n")
            out.append("```cpp\n" + "\n".join(item.code).strip("\n") + "\n```\n")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
