"""croqjit.tune: croq::tune's semantics from Python (README "Autotuning"):
every configuration compiled and reported, the choice recorded and reused;
a progress report per configuration (a callable, tqdm or a plain line on a
terminal, nothing otherwise). Without a device every configuration is
compiled and TuneError reports them; the timed path is the gpu tests'."""

import sys

import pytest

import croqjit

# The tiled add the C++ tuning tests tune (tests/common/tune_sources.hpp):
# TM x TN threads per block; BIAS != 0 gives wrong sums; TM = 0 divides by zero.
TUNED_ADD = """#define TM 16
#define TN 16
#define BIAS 0
__co__ f32 [M, N] tuned_add(f32 [M, N] lhs, f32 [M, N] rhs) {
  f32 [M, N] out;
  parallel {p, q} by [M / TM, N / TN] : block {
    parallel {i, j} by [TM, TN] : thread {
      out.at(p # i, q # j) = lhs.at(p # i, q # j) + rhs.at(p # i, q # j) + BIAS;
    }
  }
  return out;
}
"""

needs_no_device = pytest.mark.skipif(croqjit.cuda_available(), reason="with a device the configurations are timed")


def test_cross_product_varies_the_last_name_fastest():
    assert croqjit.cross_product({"TM": [8, 16], "TN": [4, 8.5]}) == [
        {"TM": 8, "TN": 4}, {"TM": 8, "TN": 8.5}, {"TM": 16, "TN": 4}, {"TM": 16, "TN": 8.5}]
    assert croqjit.cross_product([("A", [1]), ("B", [2, 3])]) == [{"A": 1, "B": 2}, {"A": 1, "B": 3}]
    with pytest.raises(croqjit.ArgumentError, match="croq::cross_product: `TM` has no values"):
        croqjit.cross_product({"TM": []})
    with pytest.raises(croqjit.ArgumentError, match=r"cross_product\['TM'\] must be an int or a float, got str"):
        croqjit.cross_product({"TM": ["8"]})


@pytest.mark.parametrize("configs, message", [
    ([], "croq::tune: the configuration list is empty"),
    ("TM=8", "configs must be a sequence of dicts of #define values, or a dict of lists of them, got str"),
    ([{"TM": 8}, {"TM": "16"}], "configs[1]['TM'] must be an int or a float, got str"),
    ([{"TM": 8}, [("TM", 16)]], "configs[1] must be a dict of names to ints or floats, got list"),
    ([{}] * 1025, "croqjit.tune: 1025 configurations, more than 1024, the limit"),
])
def test_bad_configurations_are_argument_errors(np, configs, message):
    a = np.zeros((32, 32), np.float32)
    with pytest.raises(croqjit.ArgumentError) as e:
        croqjit.tune(TUNED_ADD, configs, a, a, progress=False)
    assert str(e.value) == message


@needs_no_device
def test_without_a_device_every_configuration_is_compiled_and_reported(np):
    a = np.zeros((32, 32), np.float32)
    seen = []
    with pytest.raises(croqjit.TuneError) as e:
        croqjit.tune(TUNED_ADD, {"TM": [8, 0, 16]}, a, a, arch="sm_90a",
                     progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert isinstance(e.value, croqjit.Error)
    assert str(e.value).startswith("croq::tune: no configuration can be timed without a CUDA device")
    trials = e.value.trials
    assert [t.config for t in trials] == [{"TM": 8}, {"TM": 0}, {"TM": 16}]
    assert [t.status for t in trials] == ["not run", "compile failed", "not run"]
    assert trials[0].why == "compiled; no CUDA device to run it on"
    assert "division by zero" in trials[1].why or "by zero" in trials[1].why
    assert seen == [("compile", 1, 3), ("compile", 2, 3), ("compile", 3, 3)]


@needs_no_device
def test_a_progress_callback_that_raises_ends_the_tune(np):
    a = np.zeros((32, 32), np.float32)
    calls = []

    def interrupt(stage, done, total):
        calls.append(done)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        croqjit.tune(TUNED_ADD, {"TM": [8, 16, 32]}, a, a, arch="sm_90a", progress=interrupt)
    assert calls == [1]  # nothing compiled after it

    def broken(stage, done, total):
        raise ValueError("the progress bar broke")

    with pytest.raises(ValueError, match="the progress bar broke"):
        croqjit.tune(TUNED_ADD, {"TM": [8, 16]}, a, a, arch="sm_90a", progress=broken)


class _Terminal:
    """A standard error that says it is a terminal and keeps what it gets."""

    def __init__(self, tty):
        self.tty, self.text = tty, ""

    def isatty(self):
        return self.tty

    def write(self, text):
        self.text += text

    def flush(self):
        pass


@needs_no_device
@pytest.mark.parametrize("tty, progress, shown", [
    (False, None, ""),
    (True, False, ""),
    (True, None, "\rcroqjit.tune: compiling 1/2\rcroqjit.tune: compiling 2/2\n"),
    (False, True, "\rcroqjit.tune: compiling 1/2\rcroqjit.tune: compiling 2/2\n"),
])
def test_plain_progress_line_on_a_terminal_without_tqdm(np, monkeypatch, tty, progress, shown):
    terminal = _Terminal(tty)
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import fails
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    a = np.zeros((32, 32), np.float32)
    with pytest.raises(croqjit.TuneError):
        croqjit.tune(TUNED_ADD, [{"TM": 8}, {"TM": 16}], a, a, arch="sm_90a", progress=progress)
    assert terminal.text == shown


@needs_no_device
def test_tqdm_bar_on_a_terminal(np, monkeypatch):
    pytest.importorskip("tqdm")
    terminal = _Terminal(True)
    monkeypatch.setattr(sys, "stderr", terminal)
    a = np.zeros((32, 32), np.float32)
    with pytest.raises(croqjit.TuneError):
        croqjit.tune(TUNED_ADD, [{"TM": 8}, {"TM": 16}], a, a, arch="sm_90a")
    assert "croqjit.tune: compiling" in terminal.text and "2/2" in terminal.text


def test_progress_must_be_a_bool_or_callable(np):
    a = np.zeros((32, 32), np.float32)
    with pytest.raises(croqjit.ArgumentError, match="progress must be None, a bool or a callable, got str"):
        croqjit.tune(TUNED_ADD, [{"TM": 8}], a, a, progress="yes")


@pytest.mark.gpu
def test_tune_times_checks_and_records(torch):
    a = torch.randn(64, 64, device="cuda")
    b = torch.randn(64, 64, device="cuda")
    configs = [{"TM": 16, "TN": 16}, {"TM": 8, "TN": 32}, {"TM": 0, "TN": 16}, {"TM": 16, "TN": 16, "BIAS": 1}]
    tuned = croqjit.tune(TUNED_ADD, configs, a, b, reuse_record=False, progress=False)
    statuses = [t.status for t in tuned.trials]
    assert statuses == ["timed", "timed", "compile failed", "wrong result"]
    assert tuned.index in (0, 1) and tuned.config == configs[tuned.index]
    assert not tuned.from_cache and tuned.record_path.endswith(f"tune-{tuned.key}.json")
    torch.testing.assert_close(tuned.kernel(a, b), a + b)
    assert "*" in tuned.table()
    again = croqjit.tune(TUNED_ADD, configs, a, b, progress=False)
    assert again.from_cache and again.index == tuned.index and again.trials == []

    def reject_wide(result, arguments):
        assert arguments == [None, None]
        return None if result.shape == (64, 64) else "wrong shape"

    checked = croqjit.tune(TUNED_ADD, configs[:2], a, b, check=reject_wide, reuse_record=False, progress=False)
    assert [t.status for t in checked.trials] == ["timed", "timed"]

    def reject_all(result, arguments):
        return "never right"

    with pytest.raises(croqjit.TuneError) as e:
        croqjit.tune(TUNED_ADD, configs[:2], a, b, check=reject_all, reuse_record=False, progress=False)
    assert [t.why for t in e.value.trials] == ["never right", "never right"]
