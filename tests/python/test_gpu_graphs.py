"""CUDA graph capture with torch: a prepared kernel is captured as a plain
launch and replays on new input contents; work that would break the
capture (a compile, host data) raises instead, leaving the capture valid."""

import pytest

import croqjit
from kernels import ADD, ADD_INTO, SCALE

pytestmark = pytest.mark.gpu


def test_prepared_call_is_captured_and_replayed(torch):
    add = croqjit.compile(ADD)
    a, b = torch.empty(300, 129, device="cuda"), torch.empty(300, 129, device="cuda")
    info = add.prepare(a, b)
    assert info.result_shape == (300, 129)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = add(a, b)  # allocated from the graph's memory pool
    for _ in range(3):
        a.copy_(torch.randn(300, 129, device="cuda") * 10)
        b.copy_(torch.randn(300, 129, device="cuda") * 10)
        out.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, a + b, rtol=0, atol=0)


def test_in_place_kernel_in_a_graph_with_other_work(torch):
    into = croqjit.compile(ADD_INTO)
    scale = croqjit.compile(SCALE)
    a, b, c, e = (torch.empty(5000, device="cuda") for _ in range(4))
    into(a, b, c)  # a first call prepares as well
    scale.prepare(c, e, 2.0)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        into(a, b, c)
        scale(c, e, 2.0)
        d = e + 1
    for _ in range(2):
        a.normal_(), b.normal_()
        c.fill_(float("nan")), e.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(d, (a + b) * 2 + 1, rtol=1e-6, atol=1e-6)


def test_unprepared_signature_raises_without_breaking_the_capture(torch, np):
    add = croqjit.compile(ADD)
    a, b = torch.randn(64, 64, device="cuda"), torch.randn(64, 64, device="cuda")
    add.prepare(a, b)
    other = torch.randn(3, 5, device="cuda")
    host = np.ones((64, 64), np.float32)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = add(a, b)
        with pytest.raises(croqjit.CudaError, match=r"compiling a new signature .* call prepare\(\)"):
            add(other, other)
        with pytest.raises(croqjit.CudaError, match="copying host arguments"):
            add(host, host)
    a.normal_(), b.normal_()
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)
    # Outside the capture the new signature just compiles.
    torch.testing.assert_close(add(other, other), other * 2, rtol=0, atol=0)
