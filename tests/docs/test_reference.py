"""The reference pages against the code, both ways: every environment
variable the code reads, every command and flag the tools take and every
sema rule is documented, and nothing the pages document is missing from the
code. The pages read are the hand-written Markdown (the generated parts are
made from the code itself)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import docblocks
import gen_rules
from conftest import REPO

DOCS = REPO / "docs"
ENVIRONMENT_PAGE = DOCS / "reference" / "environment.md"
CLI_PAGE = DOCS / "reference" / "cli.md"

# ---------------------------------------------------------------- environment variables

# Where the code reads its environment: C++ (the support::env_* helpers and
# getenv), Python (os.environ, os.getenv) and the scripts (shell expansions).
CPP_READ = re.compile(r'\b(?:getenv|env_string|env_flag|env_milliseconds|env_bytes)\(\s*"([A-Z][A-Z0-9_]*)"')
PY_READ = re.compile(r"""os\.(?:environ(?:\.get)?\s*[\(\[]|getenv\()\s*["']([A-Z][A-Z0-9_]*)["']""")
SH_READ = re.compile(r"\$\{?(CROQ_[A-Z0-9_]+)")
# A loop over names (`for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) getenv(var)`).
CPP_NAME_LIST = re.compile(r'for \(const char\* \w+ : \{([^}]*)\}\)')

# Variables the code reads that are not for users to set, each with why.
NOT_OURS = {
    "CROQ_TEST_ONCE_FLAG": "tests/jit/environment_test.cpp sets it to test the flag reader",
    "CROQ_TUNE_TEST_CHILD": "tests/gpu/tune_gpu_test.cpp marks the child process it starts",
    "CROQJIT_EXPECT_PACKAGE_DIR": "CMake tells tests/python which package folder it built",
    "CUDA_VISIBLE_DEVICES": "CUDA's own; bench/harness reads it to describe the machine",
    "PATH": "the tests look up tools on it",
}
# The tests also exercise the environment readers with names of their own;
# of theirs, only the project's variables count.
TEST_VARIABLE = re.compile(r"^(CROQ|CROQJIT|CHOREO)_")


def source_files(*folders: str, suffixes: tuple[str, ...]) -> list[Path]:
    files = []
    for folder in folders:
        root = REPO / folder
        files += [p for p in root.rglob("*") if p.is_file() and p.suffix in suffixes] if root.is_dir() else []
    return files


def variables_read(files: list[Path]) -> dict[str, set[str]]:
    """Variable -> the files that read it."""
    found: dict[str, set[str]] = {}
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        names = set()
        if path.suffix in (".cpp", ".hpp", ".h"):
            names |= set(CPP_READ.findall(text))
            for listed in CPP_NAME_LIST.findall(text):
                names |= set(re.findall(r'"([A-Z][A-Z0-9_]*)"', listed))
        elif path.suffix == ".py":
            names |= set(PY_READ.findall(text))
        elif path.suffix == ".sh":
            names |= set(SH_READ.findall(text))
        for name in names:
            found.setdefault(name, set()).add(str(path.relative_to(REPO)))
    return found


def documented_variables() -> set[str]:
    """The names in the first column of the environment page's tables."""
    names = set()
    for line in ENVIRONMENT_PAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            names |= set(re.findall(r"`([A-Z][A-Z0-9_]*)`", line.split("|")[1]))
    return names


def test_every_variable_the_code_reads_is_documented():
    user_facing = variables_read(source_files("src", "include", "cache", "python", "scripts", "bench", "docs/tools",
                                              suffixes=(".cpp", ".hpp", ".h", ".py", ".sh")))
    tests = variables_read(source_files("tests", suffixes=(".cpp", ".hpp", ".py", ".sh")))
    read = dict(user_facing)
    for name, where in tests.items():
        if TEST_VARIABLE.match(name):
            read.setdefault(name, set()).update(where)
    missing = {name: sorted(where) for name, where in read.items()
               if name not in documented_variables() and name not in NOT_OURS}
    assert not missing, f"read by the code but not in {ENVIRONMENT_PAGE.relative_to(REPO)}: {missing}"
    assert {"CROQ_CACHE_DIR", "CROQ_ARCH", "CROQ_CACHE_REMOTE", "CROQ_HOST_CHECK_ONLY"} <= set(read)


def test_every_documented_variable_is_in_the_code():
    code = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in source_files(
        "src", "include", "cache", "python", "scripts", "bench", "tests", "cmake", "docs/tools",
        suffixes=(".cpp", ".hpp", ".h", ".py", ".sh", ".cmake", ".txt")))
    absent = sorted(name for name in documented_variables() if not re.search(rf"\b{name}\b", code))
    assert not absent, f"documented in {ENVIRONMENT_PAGE.relative_to(REPO)} but read nowhere: {absent}"


def test_the_exempt_variables_are_still_read():
    read = variables_read(source_files("src", "include", "cache", "python", "scripts", "bench", "tests",
                                       suffixes=(".cpp", ".hpp", ".h", ".py", ".sh")))
    stale = sorted(set(NOT_OURS) - set(read))
    assert not stale, f"NOT_OURS names variables nothing reads any more: {stale}"


# ---------------------------------------------------------------- commands and flags

CROQ_MAIN = REPO / "src" / "cli" / "croq_main.cpp"
CACHE_TOOL = REPO / "cache" / "croq_cache.cpp"
FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*|-[a-zA-Z])(?![\w-])")


def croq_subcommands() -> dict[str, str]:
    """Each `croq` command and its usage and option help, from its table."""
    text = CROQ_MAIN.read_text(encoding="utf-8")
    table = text[text.index("kSubcommands[]"):]
    commands = {}
    for m in re.finditer(r'\{"([a-z]+)",\s*((?:"(?:[^"\\]|\\.)*"\s*)+),\s*((?:"(?:[^"\\]|\\.)*"\s*)+),'
                         r'\s*((?:"(?:[^"\\]|\\.)*"\s*)+),', table):
        commands[m[1]] = " ".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m[2] + m[4]))
    return commands


def cache_commands() -> list[str]:
    usage = CACHE_TOOL.read_text(encoding="utf-8")
    usage = usage[usage.index("commands:"):usage.index("exit status")]
    return re.findall(r"^  ([a-z]+)\b", usage, re.M)


def parsed_flags() -> set[str]:
    """The flags the tools' argument parsers accept."""
    flags = set()
    for path in list((REPO / "src" / "cli").glob("*.cpp")) + [CACHE_TOOL]:
        text = path.read_text(encoding="utf-8")
        flags |= set(re.findall(r'(?:value|current\(\) ==|a ==|args\[0\] ==)\s*\(?\s*"(-{1,2}[a-zA-Z][a-z0-9-]*)"', text))
    return flags


def script_flags() -> set[str]:
    flags = set()
    for path in (REPO / "scripts").glob("*.sh"):
        for case in re.findall(r"^\s*((?:-[-a-zA-Z0-9]+\|?)+)\)", path.read_text(encoding="utf-8"), re.M):
            flags |= set(case.split("|"))
    return flags


def cli_sections() -> dict[str, str]:
    """`## \\`croq NAME\\`` heading -> its section's text."""
    text = CLI_PAGE.read_text(encoding="utf-8")
    parts = re.split(r"^## ", text, flags=re.M)
    return {p.split("\n", 1)[0].strip().strip("`"): p for p in parts[1:]}


def test_every_command_has_its_section():
    sections = cli_sections()
    missing = [f"croq {name}" for name in croq_subcommands() if f"croq {name}" not in sections]
    assert not missing, f"commands without a section in {CLI_PAGE.relative_to(REPO)}: {missing}"
    cache_text = sections.get("croq-cache", "")
    missing_cache = [c for c in cache_commands() if f"`{c}`" not in cache_text]
    assert not missing_cache, f"croq-cache commands the page does not describe: {missing_cache}"
    assert len(croq_subcommands()) >= 6 and len(cache_commands()) >= 7


def test_every_flag_of_a_command_is_in_its_section():
    sections = cli_sections()
    problems = []
    for name, help_text in croq_subcommands().items():
        section = sections.get(f"croq {name}", "") + sections.get("Common rules", "")
        # Only the flags croq takes: the help quotes g++ lines (-I, -L) too.
        for flag in set(FLAG.findall(help_text)) & parsed_flags():
            if not re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", section):
                problems.append(f"croq {name} {flag}")
    assert not problems, f"flags missing from their command's section of {CLI_PAGE.relative_to(REPO)}: {problems}"


def test_every_flag_the_tools_take_is_documented():
    on_page = set(FLAG.findall(CLI_PAGE.read_text(encoding="utf-8")))
    assert {"--emit", "--shape", "--signatures", "--max-bytes", "--quick"} <= parsed_flags() | script_flags()
    undocumented = sorted(parsed_flags() - on_page - {"-h"})
    assert not undocumented, f"flags the tools take but {CLI_PAGE.relative_to(REPO)} does not name: {undocumented}"


def test_every_documented_flag_is_taken_by_a_tool():
    on_page = set(FLAG.findall(CLI_PAGE.read_text(encoding="utf-8")))
    code = parsed_flags() | script_flags()
    unknown = sorted(f for f in on_page if f.startswith("--") and f not in code | {"--help"})
    assert not unknown, f"flags {CLI_PAGE.relative_to(REPO)} names that no tool takes: {unknown}"


# ---------------------------------------------------------------- rules


def test_every_rule_is_on_the_generated_page():
    rules = gen_rules.rules()
    ids = [r.id for r in rules]
    assert len(ids) == len(set(ids)) and len(ids) > 150
    page = gen_rules.markdown()
    missing = [i for i in ids if f"### `{i}` {{ #{i} }}" not in page]
    assert not missing, f"rules without their section: {missing}"


def test_every_rule_the_pages_name_exists():
    ids = {r.id for r in gen_rules.rules()}
    named = set()
    for page in docblocks.tested_pages():
        text = page.read_text(encoding="utf-8")
        named |= set(re.findall(r"errors\.md#([a-z0-9-]+)", text))
        named |= {b.marker["error"] for b in docblocks.blocks_of(page) if "error" in b.marker}
        named |= set(re.findall(r"\[([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\]", text))
        named |= set(re.findall(r"rule `([a-z0-9-]+)`", text))
    unknown = sorted(named - ids)
    assert not unknown, f"rule ids the pages name that rules.def lacks: {unknown}"


# ---------------------------------------------------------------- links outside the site


@pytest.mark.parametrize("page", ["README.md"])
def test_relative_links_resolve(page):
    path = REPO / page
    text = path.read_text(encoding="utf-8")
    broken = [link for link in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    if "://" not in link and not (path.parent / link).exists()]
    assert not broken, f"{page} links to missing files: {broken}"
