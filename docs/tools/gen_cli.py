"""The commands' own help text, for docs/reference/cli.md: what
`croq --help`, `croq COMMAND --help` and `croq-cache --help` print, taken
from the built tools so the page cannot drift from them."""

from __future__ import annotations

import subprocess

from docblocks import build_dir

TOOLS = {"croq": ("croq",), "croq-cache": ("cache", "croq-cache")}


def tool_path(tool: str):
    path = build_dir().joinpath(*TOOLS[tool])
    if not path.exists():
        raise FileNotFoundError(f"{path} is not built (ninja -C {build_dir()} {tool})")
    return path


def help_text(tool: str, *command: str) -> str:
    result = subprocess.run([str(tool_path(tool)), *command, "--help"], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"`{tool} {' '.join(command)} --help` exited {result.returncode}: {result.stderr}")
    return result.stdout


def markdown(tool: str, *command: str) -> str:
    shown = " ".join((tool, *command, "--help"))
    return f"```text\n$ {shown}\n{help_text(tool, *command).rstrip()}\n```\n"
