"""Where croqjit's NVRTC comes from: the nvidia-cuda-nvrtc package's folder
under a sys.path entry (croqjit/_nvrtc.py, torch's way) before the
toolkit's. In an environment with that package installed (the wheel test's
`croqjit[cuda]` venv), the NVRTC that compiles is the package's."""

import os
import sys

import croqjit
from croqjit import _nvrtc
from kernels import ADD


def test_packaged_nvrtc_is_looked_for_in_absolute_sys_path_entries(monkeypatch):
    monkeypatch.setattr(sys, "path", ["", "relative/site", "/abs/site-packages"])
    name = _nvrtc.nvrtc_library_name()
    major = name.rsplit(".", 1)[1]
    assert list(_nvrtc.packaged_nvrtc_paths()) == [
        f"/abs/site-packages/nvidia/cu{major}/lib/{name}",
        f"/abs/site-packages/nvidia/cuda_nvrtc/lib/{name}",
    ]


def test_nvrtc_library_name_is_of_the_cuda_major_version():
    assert _nvrtc.nvrtc_library_name().startswith("libnvrtc.so.")
    assert _nvrtc.nvrtc_library_name().rsplit(".", 1)[1].isdigit()


def _loaded_nvrtc_files():
    with open("/proc/self/maps") as maps:
        return {line.split()[-1] for line in maps if line.rstrip().endswith("/" + _nvrtc.nvrtc_library_name())}


def test_the_packaged_nvrtc_compiles_when_installed():
    packaged = [p for p in _nvrtc.packaged_nvrtc_paths() if os.path.isfile(p)]
    add = croqjit.compile(ADD)
    add.prepare(croqjit.TensorSpec((16, 32), "f32"), croqjit.TensorSpec((16, 32), "f32"))
    loaded = {os.path.realpath(p) for p in _loaded_nvrtc_files()}
    assert len(loaded) == 1, loaded
    if packaged:
        assert loaded == {os.path.realpath(packaged[0])}
