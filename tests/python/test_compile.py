"""compile(), Kernel metadata, prepare() and the package itself, without a GPU."""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

import croqjit
from kernels import ADD, ADD_INTO, SCALE, TWO_FUNCTIONS

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_compile_describes_the_function():
    add = croqjit.compile(ADD, dynamic_dims="M")
    assert isinstance(add, croqjit.Kernel)
    assert add.name == "add"
    assert add.returns_tensor
    assert [(p.name, p.is_tensor, p.type, p.rank, p.dynamic) for p in add.params] == [
        ("lhs", True, "f32", 2, (True, False)),
        ("rhs", True, "f32", 2, (True, False)),
    ]
    assert repr(add) == "<croqjit.Kernel add(lhs, rhs)>"
    scale = croqjit.compile(SCALE)
    assert not scale.returns_tensor
    assert [(p.name, p.is_tensor, p.type) for p in scale.params] == [
        ("x", True, "f32"), ("y", True, "f32"), ("factor", False, "float")]


def test_options_are_keyword_only():
    with pytest.raises(TypeError):
        croqjit.compile(ADD, "add")


def test_entry_and_defines_select_what_is_compiled(np):
    with pytest.raises(croqjit.CompileError, match="first|second|entry"):
        croqjit.compile(TWO_FUNCTIONS)
    second = croqjit.compile(TWO_FUNCTIONS, entry="second")
    assert second.name == "second"
    info = second.prepare(np.zeros(64, np.float32))
    assert info.result_shape == (2, 64)
    wide = croqjit.compile(TWO_FUNCTIONS, entry="second", defines={"WIDTH": 96})
    assert wide.prepare(np.zeros(96, np.float32)).result_shape == (2, 96)
    with pytest.raises(croqjit.ArgumentError, match=r"expected f32 \[WIDTH\], got f32 \[64\]"):
        wide.prepare(np.zeros(64, np.float32))
    with pytest.raises(croqjit.ArgumentError, match=r"defines\['WIDTH'\] must be an int or a float, got str"):
        croqjit.compile(TWO_FUNCTIONS, entry="second", defines={"WIDTH": "96"})


def test_prepare_reports_result_and_writes_without_running(np):
    add = croqjit.compile(ADD)
    a = np.zeros((37, 129), np.float32)
    info = add.prepare(a, a)
    assert isinstance(info, croqjit.CallInfo)
    assert info.has_result
    assert info.result_dtype == "f32"
    assert info.result_shape == (37, 129)
    assert info.result_extent_sources == ((-1, -1), (-1, -1))
    assert info.written == (False, False)
    into = croqjit.compile(ADD_INTO)
    x = np.zeros(100, np.float32)
    info = into.prepare(x, x, x)
    assert not info.has_result
    assert info.result_dtype is None and info.result_shape is None
    assert info.written == (False, False, True)


def test_prepare_with_tensor_specs_and_dynamic_dims():
    add = croqjit.compile(ADD, dynamic_dims=["M"])
    for m in (1, 1000):
        spec = croqjit.TensorSpec((m, 48), "f32", device=0)
        assert spec.shape == (m, 48) and spec.dtype == "f32" and spec.device == 0
        info = add.prepare(spec, croqjit.TensorSpec([m, 48], "float32", 0))
        assert info.result_shape == (m, 48)
        assert info.result_extent_sources == ((0, 0), (-1, -1))
    assert croqjit.TensorSpec((2,), "bf16").device is None
    with pytest.raises(croqjit.ArgumentError, match="unknown dtype 'f99'"):
        croqjit.TensorSpec((2,), "f99")
    with pytest.raises(croqjit.Error, match="rank above 8"):
        croqjit.TensorSpec((1,) * 9, "f32")
    with pytest.raises(croqjit.ArgumentError, match="negative"):
        croqjit.TensorSpec((-1,), "f32")


def test_prepare_for_a_ptx_arch(np):
    add = croqjit.compile(ADD, arch="compute_80")
    assert add.prepare(np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32)).result_shape == (4, 4)


def test_cuda_availability_is_reported():
    available = croqjit.cuda_available()
    assert isinstance(available, bool)
    reason = croqjit.cuda_unavailable_reason()
    assert (reason == "") == available


def test_version_is_the_projects():
    cmake = (REPO / "CMakeLists.txt").read_text()
    assert croqjit.__version__ == re.search(r"project\(CroqJIT VERSION ([0-9.]+)", cmake).group(1)


def test_importing_loads_no_framework():
    code = "import croqjit, sys; print(sorted(m for m in ('torch', 'cupy', 'numpy') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_stubs_match_the_extension():
    stub = pathlib.Path(croqjit.__file__).with_name("_croqjit.pyi")
    tree = ast.parse(stub.read_text())
    declared = {node.name for node in tree.body if isinstance(node, (ast.ClassDef, ast.FunctionDef))}
    declared |= {node.target.id for node in tree.body if isinstance(node, ast.AnnAssign)}
    public = {name for name in dir(croqjit._croqjit) if not name.startswith("_")} | {"__version__"}
    assert declared == public
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    for name in ("Kernel", "CallInfo", "ParamInfo", "TensorSpec", "Diagnostic"):
        members = {n.name for n in classes[name].body if isinstance(n, ast.FunctionDef)}
        actual = {m for m in dir(getattr(croqjit, name)) if not m.startswith("_")}
        assert members - {"__init__", "__call__"} == actual, name
    assert (pathlib.Path(croqjit.__file__).parent / "py.typed").exists()


def test_cache_and_logging_follow_the_environment(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, CROQ_CACHE_DIR=str(cache), CROQ_LOG_LEVEL="debug")
    code = (
        "import croqjit\n"
        f"k = croqjit.compile({SCALE!r})\n"
        "k.prepare(croqjit.TensorSpec((64,), 'f32'), croqjit.TensorSpec((64,), 'f32'), 2.0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "nvrtc: compiled croq_scale" in out.stderr, out.stderr
    assert len(list(cache.glob("*.cubin"))) == 1 and len(list(cache.glob("*.json"))) == 1
    env = dict(env, CROQ_CACHE="0", CROQ_CACHE_DIR=str(tmp_path / "unused"), CROQ_LOG_LEVEL="off")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stderr == ""
    assert not (tmp_path / "unused").exists() or not any((tmp_path / "unused").iterdir())


def _run_python(code, **env):
    full = dict(os.environ, **env)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=full, check=True)


def test_stats_say_where_each_specialization_came_from(tmp_path):
    # A fresh process with a private cache: the first prepare compiles, the
    # next process finds it on disk, a second Kernel in the same process in memory.
    code = (
        "import croqjit, json\n"
        f"a = croqjit.compile({ADD!r})\n"
        "a.prepare(croqjit.TensorSpec((16, 32), 'f32'), croqjit.TensorSpec((16, 32), 'f32'))\n"
        "a.prepare(croqjit.TensorSpec((64, 32), 'f32'), croqjit.TensorSpec((64, 32), 'f32'))\n"
        f"b = croqjit.compile({ADD!r})\n"
        "b.prepare(croqjit.TensorSpec((16, 32), 'f32'), croqjit.TensorSpec((16, 32), 'f32'))\n"
        "print(json.dumps([[(s.signature, s.arch, s.source, s.reason, s.images, s.images_compiled)\n"
        "                   for s in k.stats().specializations] + [k.stats().nvrtc_compiles] for k in (a, b)]))\n"
    )
    env = {"CROQ_CACHE_DIR": str(tmp_path / "cache"), "CROQ_ARCH": "sm_90a", "CROQ_CACHE": "1"}
    import json

    cold = json.loads(_run_python(code, **env).stdout)
    assert cold[0][0][:3] == ["f32 [16, 32], f32 [16, 32]", "sm_90a", "compiled"]
    assert cold[0][0][3].startswith("first call of `add`; not in the disk cache")
    assert cold[0][1][2] == "compiled"
    assert cold[0][1][3] == ("argument 1 'lhs' dim 0 (M) changed from 16 to 64, "
                             "argument 2 'rhs' dim 0 (M) changed from 16 to 64; not in the disk cache")
    assert cold[0][2] == 2
    assert cold[1][0][2:] == ["memory", "", 1, 0]
    warm = json.loads(_run_python(code, **env).stdout)
    assert [s[2] for s in warm[0][:2]] == ["disk", "disk"]
    assert warm[0][2] == 0


def test_precompile_fills_the_cache_for_each_arch(tmp_path):
    code = (
        "import croqjit\n"
        f"stats = croqjit.precompile({ADD!r}, [(croqjit.TensorSpec((16, 32), 'f32'),) * 2],\n"
        "                           archs=['sm_90a', 'sm_80'])\n"
        "print(repr(stats))\n"
        "for s in stats.specializations: print(s.arch, s.source, s.reason)\n"
        f"k = croqjit.compile({ADD!r})\n"
        "k.prepare(croqjit.TensorSpec((16, 32), 'f32'), croqjit.TensorSpec((16, 32), 'f32'))\n"
        "print(k.stats().specializations[0].source)\n"
    )
    env = {"CROQ_CACHE_DIR": str(tmp_path / "cache"), "CROQ_ARCH": "sm_90a", "CROQ_CACHE": "1",
           "CROQ_CACHE_REQUIRE_HIT": "1"}
    lines = _run_python(code, **env).stdout.splitlines()
    assert lines[0] == "<KernelStats 2 specializations: 2 compiled, 0 disk, 0 remote, 0 memory>"
    assert lines[1].startswith("sm_90a compiled first call of `add`")
    assert lines[2] == "sm_80 compiled arch changed from sm_90a to sm_80; not in the disk cache"
    assert lines[3] == "memory"  # the precompiled image, already in this process
    # A replica that must start warm: required to hit, and it does.
    replica = (
        "import croqjit\n"
        f"k = croqjit.compile({ADD!r})\n"
        "k.prepare(croqjit.TensorSpec((16, 32), 'f32'), croqjit.TensorSpec((16, 32), 'f32'))\n"
        "print(k.stats().specializations[0].source)\n"
        "try:\n"
        "    k.prepare(croqjit.TensorSpec((8, 32), 'f32'), croqjit.TensorSpec((8, 32), 'f32'))\n"
        "except croqjit.CacheError as e:\n"
        "    print(e)\n"
    )
    lines = _run_python(replica, **env).stdout.splitlines()
    assert lines[0] == "disk"
    assert lines[1].startswith("CROQ_CACHE_REQUIRE_HIT=1: `add`(f32 [8, 32], f32 [8, 32]) for sm_90a is in no cache")


def test_precompile_rejects_bad_signatures():
    with pytest.raises(croqjit.ArgumentError):
        croqjit.precompile(ADD, [(croqjit.TensorSpec((16, 32), "f32"),)])
    with pytest.raises(croqjit.ArgumentError, match=r"^signatures\[0\] must be a sequence of call arguments, got int$"):
        croqjit.precompile(ADD, [5])
    with pytest.raises(croqjit.ArgumentError, match=r"^signatures must be a sequence of argument sequences, got int$"):
        croqjit.precompile(ADD, 5)
    with pytest.raises(croqjit.ArgumentError, match=r"^archs\[0\] "):
        croqjit.precompile(ADD, [], archs=[5])
