"""Every code block of the documentation (docs/**/*.md and README.md) is a
test; docs/tools/docblocks.py describes the blocks and their markers.

- croq: `croq check`, then `croq compile --emit cuda` and `--emit ptx`
  (NVRTC) for the marker's shapes, sm_90a unless it names an arch; an
  `error=RULE` block must fail with that rule instead.
- cpp: built against the library (linked when it has a `main`); `run`
  runs it, `gpu` runs it only where a device is present.
- python: run with the built package. Without a GPU it must run up to the
  point where one is needed: it may end only in a croqjit.CudaError (or
  torch's) for the missing device. A block that imports torch or CuPy
  where they are missing is compile-only: its syntax, the croqjit names it
  uses and every Croqtile source in it are checked.
- sh: run only with `run`, in a folder laid out like the repository
  (`build/`, `include/`) holding the page's `file=` blocks, with the
  build's tools on PATH and a private kernel cache.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import docblocks
from conftest import OUTCOMES, REPO

TESTED = {"croq", "cpp", "python", "sh"}
MARKER_WORDS = {"shapes", "defines", "entry", "arch", "error", "file", "run", "gpu", "continue", "skip"}
# Fence languages that are never run: output, configuration, other tools.
UNTESTED = {"text", "console", "yaml", "cmake", "json", "toml", "ini", "diff"}
TIMEOUT = 600


def all_pages() -> list[Path]:
    return docblocks.tested_pages()


def all_blocks() -> list[docblocks.Block]:
    return [b for page in all_pages() for b in docblocks.blocks_of(page)]


def block_name(block: docblocks.Block) -> str:
    page = block.page.relative_to(REPO)
    return f"{page}:{block.line}:{block.language}"


def is_tested(block: docblocks.Block) -> bool:
    return block.language in TESTED and (block.language != "sh" or "run" in block.marker)


BLOCKS = [b for b in all_blocks() if is_tested(b)]


def have_gpu() -> bool:
    import croqjit

    return croqjit.cuda_available()


def run(cmd, cwd, env=None, timeout=TIMEOUT, shell=False) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, timeout=timeout, shell=shell, capture_output=True, text=True)


def shown(result: subprocess.CompletedProcess) -> str:
    return f"exit {result.returncode}\n--- stdout\n{result.stdout[-6000:]}\n--- stderr\n{result.stderr[-6000:]}"


def block_env(tmp_path: Path) -> dict:
    """The environment blocks run in: a private kernel cache, the build's
    package and tools."""
    env = dict(os.environ)
    build = docblocks.build_dir()
    env["CROQ_CACHE_DIR"] = str(tmp_path / "cache")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(build / "python"), env.get("PYTHONPATH")]))
    env["PATH"] = os.pathsep.join([str(build), str(build / "cache"), env.get("PATH", "")])
    return env


# ---------------------------------------------------------------- the blocks as a whole


def test_every_block_is_a_test_or_says_why_not():
    problems = []
    for block in all_blocks():
        name = block_name(block)
        if not block.info:
            problems.append(f"{name}: a code block without a language (```text for output)")
        elif block.language not in TESTED | UNTESTED | {"sh"}:
            problems.append(f"{name}: language `{block.language}` is neither tested nor known as untested")
        elif block.language in UNTESTED | {"sh"} and "__co__" in block.text and "run" not in block.marker:
            problems.append(f"{name}: Croqtile code in a `{block.language}` block; make it a croq block")
        unknown = set(block.marker) - MARKER_WORDS
        if unknown:
            problems.append(f"{name}: unknown test marker words {sorted(unknown)}")
        if "skip" in block.marker and not isinstance(block.marker["skip"], str):
            problems.append(f"{name}: skip needs its reason: skip=\"why\"")
    assert not problems, "\n".join(problems)


def test_the_pages_have_blocks_of_every_language():
    languages = {b.language for b in BLOCKS}
    assert {"croq", "cpp", "python", "sh"} <= languages


# ---------------------------------------------------------------- one test per block


@pytest.fixture
def gpu_only(request):
    return request.config.getoption("--gpu-only")


@pytest.mark.parametrize("block", BLOCKS, ids=block_name)
def test_block(block, tmp_path, request, gpu_only):
    if "skip" in block.marker:
        OUTCOMES[f"{block.language}: not tested, with a reason"] += 1
        pytest.skip(f"{block_name(block)}: {block.marker['skip']}")
    if gpu_only:
        if block.language not in ("python", "cpp"):
            pytest.skip("--gpu-only: this block needs no GPU")
        if not have_gpu():
            pytest.skip("--gpu-only: no CUDA device here")
    {"croq": croq_block, "cpp": cpp_block, "python": python_block, "sh": sh_block}[block.language](
        block, tmp_path, request.config)


# ---------------------------------------------------------------- croq


def croq_command(*args) -> list[str]:
    return [str(docblocks.build_dir() / "croq"), *args]


def croq_flags(marker: dict, with_shapes: bool) -> list[str]:
    flags = ["--arch", marker.get("arch", "sm_90a")]
    if "entry" in marker:
        flags += ["--entry", marker["entry"]]
    for define in shlex.split(marker.get("defines", "")):
        flags += ["--define", define]
    if with_shapes:
        for shape in shlex.split(marker.get("shapes", "")):
            flags += ["--shape", shape]
    return flags


def croq_block(block, tmp_path, config):
    path = tmp_path / block.marker.get("file", "block.co")
    path.write_text(docblocks.expand(block.text), encoding="utf-8")
    env = block_env(tmp_path)
    check = run(croq_command("check", str(path), *croq_flags(block.marker, False)), tmp_path, env)
    rule = block.marker.get("error")
    if rule:
        if check.returncode == 0:
            compiled = run(croq_command("compile", str(path), "--emit", "cuda", *croq_flags(block.marker, True)),
                           tmp_path, env)
            assert compiled.returncode == 1, f"an error example that compiles:\n{shown(compiled)}"
            assert f"[{rule}]" in compiled.stderr + compiled.stdout, shown(compiled)
        else:
            assert check.returncode == 1, shown(check)
            assert f"[{rule}]" in check.stderr + check.stdout, shown(check)
        OUTCOMES["croq: error examples, failing with their rule"] += 1
        return
    assert check.returncode == 0, f"croq check:\n{shown(check)}"
    cuda = run(croq_command("compile", str(path), "--emit", "cuda", *croq_flags(block.marker, True)), tmp_path, env)
    assert cuda.returncode == 0 and "__global__" in cuda.stdout, f"croq compile --emit cuda:\n{shown(cuda)}"
    ptx = run(croq_command("compile", str(path), "--emit", "ptx", *croq_flags(block.marker, True)), tmp_path, env)
    assert ptx.returncode == 0 and ".entry" in ptx.stdout, f"croq compile --emit ptx:\n{shown(ptx)}"
    OUTCOMES["croq: checked, compiled to CUDA and PTX"] += 1


# ---------------------------------------------------------------- C++


def cpp_block(block, tmp_path, config):
    source = tmp_path / "block.cpp"
    source.write_text(block.text, encoding="utf-8")
    opt = config.getoption
    compile_flags = [opt("--cxx"), "-std=c++20", "-I", opt("--croq-include"), "-I", opt("--cuda-include")]
    linked = "int main(" in block.text
    if linked:
        binary = tmp_path / "block"
        cmd = compile_flags + [str(source), "-o", str(binary), "-L", opt("--croq-lib-dir"), "-lcroqjit",
                               f"-Wl,-rpath,{opt('--croq-lib-dir')}", "-L", opt("--cudart-dir"), "-lcudart",
                               f"-Wl,-rpath,{opt('--cudart-dir')}"]
    else:
        cmd = compile_flags + ["-c", str(source), "-o", str(tmp_path / "block.o")]
    built = run(cmd, tmp_path)
    assert built.returncode == 0, f"{' '.join(cmd)}\n{shown(built)}"
    runs = linked and ("run" in block.marker or ("gpu" in block.marker and have_gpu()))
    if not runs:
        OUTCOMES["cpp: built" + (" (run where there is a GPU)" if "gpu" in block.marker else "")] += 1
        return
    ran = run([str(binary)], tmp_path, block_env(tmp_path))
    assert ran.returncode == 0, f"the program failed:\n{shown(ran)}"
    OUTCOMES["cpp: built and run" + (" on a GPU" if have_gpu() else " (no GPU: the program says so)")] += 1


# ---------------------------------------------------------------- Python

OPTIONAL_MODULES = ("torch", "cupy")

# Runs a block and, when it raises, says what it raised (module, type,
# message) in a JSON file before re-raising, so the test can tell a missing
# GPU from a real failure.
RUNNER = textwrap.dedent("""
    import json, sys, traceback
    path, report = sys.argv[1], sys.argv[2]
    code = compile(open(path, encoding="utf-8").read(), path, "exec")
    try:
        exec(code, {"__name__": "__main__"})
    except BaseException as e:
        with open(report, "w") as out:
            json.dump({"module": type(e).__module__, "type": type(e).__name__, "message": str(e)}, out)
        raise
""")


def imported_modules(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def page_script(block) -> str:
    """The block's code, after the page's earlier Python blocks when it
    continues them."""
    if "continue" not in block.marker:
        return block.text
    earlier = [b for b in docblocks.blocks_of(block.page) if b.language == "python" and b.line < block.line]
    chain = []
    for b in reversed(earlier):
        chain.insert(0, b.text)
        if "continue" not in b.marker:
            break
    return "\n".join(chain + [block.text])


def stopped_for_want_of_a_gpu(report: dict) -> bool:
    if have_gpu():
        return False
    if report.get("module", "").startswith("croqjit") and report.get("type") == "CudaError":
        return True
    # torch without a device: "Found no NVIDIA driver", "Torch not compiled with CUDA enabled", ...
    return report.get("module", "").startswith("torch") or (
        report.get("type") in ("RuntimeError", "AssertionError") and "CUDA" in report.get("message", ""))


def python_block(block, tmp_path, config):
    script = page_script(block)
    tree = ast.parse(script, filename=block_name(block))
    missing = [m for m in imported_modules(tree) & set(OPTIONAL_MODULES) if importlib.util.find_spec(m) is None]
    if missing:
        assert not config.getoption("--gpu-only") or not have_gpu(), f"{missing} missing on a GPU machine"
        python_compile_only(tree, script)
        OUTCOMES["python: compile-only (needs " + ", ".join(sorted(missing)) + ")"] += 1
        return
    path = tmp_path / "block.py"
    path.write_text(script, encoding="utf-8")
    report_path = tmp_path / "raised.json"
    ran = run([sys.executable, "-c", RUNNER, str(path), str(report_path)], tmp_path, block_env(tmp_path))
    if ran.returncode == 0:
        OUTCOMES["python: run" + (" on a GPU" if have_gpu() else " (no GPU needed)")] += 1
        return
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    assert stopped_for_want_of_a_gpu(report), f"the block failed:\n{shown(ran)}"
    OUTCOMES["python: run up to the point where a GPU is needed"] += 1


def python_compile_only(tree: ast.AST, script: str) -> None:
    """Without the framework a block needs: the croqjit names it uses exist,
    and every Croqtile source in it compiles (parse and check)."""
    import croqjit

    torch_module = ast.parse((REPO / "python" / "croqjit" / "torch.py").read_text(encoding="utf-8"))
    torch_names = {n.name for n in torch_module.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "croqjit":
            assert node.attr == "torch" or hasattr(croqjit, node.attr), f"croqjit.{node.attr} does not exist"
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Name) and node.value.value.id == "croqjit"
                and node.value.attr == "torch"):
            assert node.attr in torch_names, f"croqjit.torch.{node.attr} does not exist"
    sources = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
               and "__co__" in n.value]
    assert sources, "a compile-only block without Croqtile source tests nothing; mark it skip with a reason"
    for text in sources:
        croqjit.compile(text)


# ---------------------------------------------------------------- shell


def sh_block(block, tmp_path, config):
    (tmp_path / "build").symlink_to(docblocks.build_dir())
    (tmp_path / "include").symlink_to(REPO / "include")
    for other in docblocks.blocks_of(block.page):
        if other.language == "croq" and "file" in other.marker:
            (tmp_path / other.marker["file"]).write_text(docblocks.expand(other.text), encoding="utf-8")
    ran = run(["bash", "-e", "-o", "pipefail", "-c", block.text], tmp_path, block_env(tmp_path))
    assert ran.returncode == 0, f"the commands failed:\n{shown(ran)}"
    OUTCOMES["sh: run"] += 1
