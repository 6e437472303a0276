"""The code blocks of the documentation's Markdown pages.

Shared by the MkDocs hook (docs/tools/hooks.py), which expands the sample
includes before rendering, and by the tests (tests/docs/), which run every
block. A block is a fenced code block (``` or ~~~, at any indentation, so
blocks inside admonitions count) and the test marker on the line before it:

    <!-- test: shapes="M=128 N=256" file=add.co -->
    ```croq
    ...
    ```

A marker holds shell-like words, `key=value` or a bare `flag`:

    shapes="M=128 N=256"  croq: the --shape bindings `croq compile` gets
    defines="T=64"        croq: --define bindings
    entry=NAME            croq: which __co__ function
    arch=sm_80            croq: the target (default sm_90a)
    error=RULE-ID         croq: an intentional error example: it must fail
                          with that rule (at `croq check`, else at
                          `croq compile`)
    file=NAME             croq: saved under NAME for the later `run` blocks
                          of the page
    run                   cpp: run the program after building it; sh:
                          run the block's `$ ` commands
    gpu                   cpp: run only where a GPU is present (built
                          everywhere)
    continue              python: run after the page's previous Python
                          blocks, in one process
    skip="why"            not tested, with the reason

Inside a croq block, a line `@sample NAME` stands for the Croqtile source of
samples/NAME.cpp (its one R"croq(...)croq" string) and `@kernel_sources
ARGS...` for what the build's kernel_sources tool prints for ARGS (the
attention sample's text is generated per head dim).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shlex
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"

# Languages whose blocks are tests, by their fence name.
LANGUAGES = {"croq": "croq", "cpp": "cpp", "c++": "cpp", "python": "python", "py": "python"}
# Shell blocks are tests only with a `run` marker.
SHELL = {"sh", "console", "shell", "bash"}

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
_MARKER = re.compile(r"^\s*<!--\s*test:(?P<words>.*?)-->\s*$")


@dataclasses.dataclass
class Block:
    page: Path            # the Markdown file
    line: int             # 1-based line of the opening fence
    end_line: int         # 1-based line of the closing fence
    indent: int           # spaces before the fence; stripped from the text
    info: str             # the fence's info string ("croq", 'cpp title="x.cpp"')
    text: str             # the block's content, dedented, includes not expanded
    marker: dict          # the test marker's words: {"shapes": "...", "run": True}

    @property
    def language(self) -> str:
        word = self.info.split()[0].lower() if self.info.split() else ""
        if word in LANGUAGES:
            return LANGUAGES[word]
        return "sh" if word in SHELL else word

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def parse_marker(words: str, where: str) -> dict:
    marker = {}
    for word in shlex.split(words):
        key, eq, value = word.partition("=")
        if not re.fullmatch(r"[a-z][a-z-]*", key):
            raise ValueError(f"{where}: bad test marker word `{word}`")
        marker[key] = value if eq else True
    return marker


def blocks_of(page: Path, text: str | None = None) -> list[Block]:
    """Every fenced block of `page`, in order. Raises ValueError for an
    unclosed fence or a malformed marker."""
    lines = (page.read_text(encoding="utf-8") if text is None else text).split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, info = len(m["indent"]), m["fence"], m["info"].strip()
        close = re.compile(r"^ {0,%d}%s%s*\s*$" % (indent + 3, re.escape(fence[0]) * len(fence), re.escape(fence[0])))
        j = i + 1
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        if j == len(lines):
            raise ValueError(f"{page}:{i + 1}: the code block is never closed")
        body = [line[indent:] if line[:indent].strip() == "" else line.lstrip() for line in lines[i + 1:j]]
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        marker = {}
        if k >= 0 and (mm := _MARKER.match(lines[k])):
            marker = parse_marker(mm["words"], f"{page}:{k + 1}")
        blocks.append(Block(page, i + 1, j + 1, indent, info, "\n".join(body) + "\n", marker))
        i = j + 1
    return blocks


def pages() -> list[Path]:
    """The site's hand-written Markdown pages (docs/tools is not a page)."""
    return sorted(p for p in DOCS.rglob("*.md") if "tools" not in p.relative_to(DOCS).parts)


def tested_pages() -> list[Path]:
    """The pages whose code blocks are tests: the site's and the README."""
    return pages() + [REPO / "README.md"]


def build_dir() -> Path:
    """The build tree the generated parts come from: CROQ_BUILD_DIR, else build/."""
    return Path(os.environ.get("CROQ_BUILD_DIR") or REPO / "build").resolve()


def sample_source(name: str) -> str:
    """The Croqtile text of samples/NAME.cpp: its one R"croq(...)croq" string."""
    path = REPO / "samples" / f"{name}.cpp"
    text = path.read_text(encoding="utf-8")
    parts = text.split('R"croq(')
    if len(parts) != 2 or ')croq"' not in parts[1]:
        raise ValueError(f"{path} does not hold exactly one R\"croq(...)croq\" source")
    return parts[1].split(')croq"')[0].lstrip("\n")


def kernel_sources(args: list[str]) -> str:
    tool = build_dir() / "bench" / "kernel_sources"
    if not tool.exists():
        raise FileNotFoundError(f"{tool} is not built (ninja -C {build_dir()} kernel_sources)")
    return subprocess.run([str(tool), *args], check=True, capture_output=True, text=True).stdout


def expand(text: str) -> str:
    """A croq block's text with its `@sample` / `@kernel_sources` lines replaced."""
    out = []
    for line in text.splitlines(keepends=True):
        word = line.strip().split()
        if word and word[0] == "@sample" and len(word) == 2:
            out.append(sample_source(word[1]))
        elif word and word[0] == "@kernel_sources":
            out.append(kernel_sources(word[1:]))
        else:
            out.append(line)
    return "".join(out)


def expand_page(text: str, page: Path) -> str:
    """The page's Markdown with each croq block's includes expanded (at the
    block's indentation), for rendering."""
    lines = text.split("\n")
    for block in reversed(blocks_of(page, text)):
        if block.language != "croq" or "@" not in block.text:
            continue
        body = expand(block.text).rstrip("\n").split("\n")
        lines[block.line:block.end_line - 1] = [(" " * block.indent + b) if b else b for b in body]
    return "\n".join(lines)
