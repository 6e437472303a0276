"""croqjit.tune: croq::tune from Python, with a progress bar on a terminal."""

from __future__ import annotations

import sys
import warnings
from typing import Any, Callable, Mapping, Optional, Sequence, Union

from . import _croqjit
from .roofline import draw_trials

Config = Mapping[str, Union[int, float]]

_STAGE_WORDS = {"compile": "compiling", "time": "timing"}


class _PlainProgress:
    """One line per stage, rewritten in place: `croqjit.tune: compiling 3/6`."""

    def __init__(self, stream):
        self._stream = stream
        self._stage = None

    def update(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage and self._stage is not None:
            self._stream.write("\n")
        self._stage = stage
        self._stream.write(f"\rcroqjit.tune: {_STAGE_WORDS.get(stage, stage)} {done}/{total}")
        self._stream.flush()

    def close(self) -> None:
        if self._stage is not None:
            self._stream.write("\n")
            self._stream.flush()


class _TqdmProgress:
    """A tqdm bar per stage."""

    def __init__(self, tqdm, stream):
        self._tqdm = tqdm
        self._stream = stream
        self._stage = None
        self._bar = None

    def update(self, stage: str, done: int, total: int) -> None:
        if stage != self._stage:
            self.close()
            self._stage = stage
            self._bar = self._tqdm(total=total, desc=f"croqjit.tune: {_STAGE_WORDS.get(stage, stage)}",
                                   unit="config", file=self._stream, leave=True)
        self._bar.update(done - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _reporter(progress: Any):
    """What reports the tune's progress: `progress` itself when callable;
    on a terminal (or with progress=True) tqdm when installed, else a plain
    line; nothing when standard error is not a terminal or progress=False."""
    if callable(progress) and not isinstance(progress, bool):
        return progress, None
    if progress is False:
        return None, None
    if progress is not None and progress is not True:
        raise _croqjit.ArgumentError(f"progress must be None, a bool or a callable, got {type(progress).__name__}")
    stream = sys.stderr
    if progress is None and not (hasattr(stream, "isatty") and stream.isatty()):
        return None, None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        shown = _PlainProgress(stream)
    else:
        shown = _TqdmProgress(tqdm, stream)
    return shown.update, shown


def tune(source: str, configs: Union[Sequence[Config], Mapping[str, Sequence[Union[int, float]]]], *args: Any,
         entry: Optional[str] = None, defines: Optional[Config] = None, arch: Optional[str] = None,
         dynamic_dims: Optional[Sequence[str]] = None, source_name: Optional[str] = None,
         debug_line_info: bool = False, check: Optional[Callable[..., Optional[str]]] = None,
         rtol: Optional[float] = None, atol: Optional[float] = None, warmup: int = 3, repetitions: int = 10,
         device: Optional[int] = None, reuse_record: bool = True, progress: Any = None,
         plot: Optional[str] = None) -> "_croqjit.TuneResult":
    """Picks the fastest of several #define configurations of `source` on the
    real arguments, as ``croq::tune`` does (README "Autotuning").

    `configs` is a list of dicts of #define values ({"TM": 16, "TN": 32}),
    applied over `defines`, or a dict of lists, whose cross product is taken
    (the first name varying slowest; see `cross_product`). Each configuration
    is compiled and specialized for `args`, run once and checked, then timed
    (`warmup` launches, then the median of `repetitions`). `check(result,
    arguments)` gets the result and the written arguments as NumPy arrays
    (None for the others) and returns None when they are right, else why
    not; without it the first configuration that runs is the reference
    (integers exact, floats within atol + rtol * |reference|). A
    configuration that fails to compile, load or launch, or gives wrong
    outputs, is skipped and reported in ``trials``; when none succeeds,
    TuneError (with ``.trials``) is raised. The choice is recorded next to the
    kernel cache, and a later tune with the same inputs compiles it and times
    nothing (``from_cache``); ``reuse_record=False`` times again.

    `progress`: None shows a progress bar on standard error when it is a
    terminal (tqdm if installed, else a plain line), True always, False
    never; a callable gets (stage, done, total) with stage "compile" or
    "time". Ctrl-C ends the tune at the next configuration with
    KeyboardInterrupt.

    `plot`: a PNG path; the trials' times are drawn there
    (croqjit.roofline.draw_trials; matplotlib needed, ImportError before
    anything runs when it is missing), also when TuneError is raised. A
    choice from a record times nothing: then a warning, and no plot.
    """
    if isinstance(configs, Mapping):
        configs = _croqjit.cross_product(configs)
    if plot is not None:
        from .roofline import _figure

        _figure()  # matplotlib is there
    callback, shown = _reporter(progress)
    try:
        result = _croqjit._tune(source, configs, tuple(args), entry=entry, defines=defines, arch=arch,
                                dynamic_dims=dynamic_dims, source_name=source_name, debug_line_info=debug_line_info,
                                check=check, rtol=-1.0 if rtol is None else float(rtol),
                                atol=-1.0 if atol is None else float(atol), warmup=warmup, repetitions=repetitions,
                                device=-1 if device is None else device, reuse_record=reuse_record,
                                progress=callback)
    except _croqjit.TuneError as e:
        if plot is not None:
            draw_trials(plot, e.trials)
        raise
    finally:
        if shown is not None:
            shown.close()
    if plot is not None:
        if result.from_cache:
            warnings.warn(f"croqjit.tune: no plot written to {plot}: the choice came from an earlier tune's record "
                          "and nothing was timed (reuse_record=False times again)", stacklevel=2)
        else:
            draw_trials(plot, result.trials, result.index)
    return result
