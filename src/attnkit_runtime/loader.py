"""Import a step's flat module from a folder without touching the global import state.

A step module imports earlier steps by their plain names (`from step4_softmax import softmax`).
`load_step` runs the module with those names bound to modules of our choosing (the learner's own,
or the reference solutions), so a learner's step is always judged with known neighbours.

It also holds what the public tests put around learner code, in the checkout and in the release
alike: `time_limit` (an endless loop fails its test instead of hanging the run) and `StepLoader`
(a step that cannot be imported is reported once, not once per test).

Standard library only: the student release ships this file as it is, with its own `layout`.
"""
import importlib.util
import os
import signal
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path

from .messages import say

TIME_LIMIT_ENV = "ATTNKIT_TIME_LIMIT"
DEFAULT_TIME_LIMIT = 3.0  # seconds; the slowest public case takes milliseconds


class StepLoadError(Exception):
    """A learner's file is missing or could not be imported; the message says which and why.

    `first` is False when the same step already failed to load earlier in the run.
    """

    def __init__(self, message, first=True):
        super().__init__(message)
        self.first = first


class MissingFunction(StepLoadError):
    """The learner's step was imported but has no function of the name the test or the command calls."""


class TimeLimitExceeded(BaseException):
    """Learner code ran past its time limit. A BaseException, so `except Exception` in the learner's
    loop does not swallow it; its message says what was stopped and why."""


def time_limit_seconds():
    """The per-call limit: $ATTNKIT_TIME_LIMIT seconds if set, else DEFAULT_TIME_LIMIT."""
    text = os.environ.get(TIME_LIMIT_ENV, "")
    try:
        seconds = float(text) if text else DEFAULT_TIME_LIMIT
    except ValueError:
        raise ValueError(say("limit.not_number", variable=TIME_LIMIT_ENV, got=repr(text))) from None
    if seconds <= 0:
        raise ValueError(say("limit.not_positive", variable=TIME_LIMIT_ENV, got=repr(text)))
    return seconds


_stopped = {}  # what -> its limit in seconds, for the code a time limit stopped in this run


@contextmanager
def time_limit(what, seconds=None):
    """Raise TimeLimitExceeded in the block after `seconds` (default `time_limit_seconds()`).

    `what` names the code for the message ("step4_softmax.softmax()"). Code once stopped is not run
    again in the same run (each of a function's tests would wait the whole limit): the block is not
    entered and TimeLimitExceeded says so. POSIX main thread only
    (SIGALRM): elsewhere (Windows, another thread) the block runs without a limit, and so does a
    block inside another `time_limit`, which keeps its own. Once fired, the alarm fires again every
    second until the block ends, in case the learner's code caught it.
    """
    if what in _stopped:
        raise TimeLimitExceeded(say("limit.not_run_again", what=what, seconds=_stopped[what]))
    seconds = time_limit_seconds() if seconds is None else seconds
    if not hasattr(signal, "setitimer") or signal.getitimer(signal.ITIMER_REAL)[0]:
        yield  # no timer here, or one already running (an enclosing limit): leave it alone
        return
    armed = [True]

    def stop(signum, frame):
        if armed[0]:
            _stopped[what] = seconds
            raise TimeLimitExceeded(say("limit.stopped", what=what, seconds=seconds, variable=TIME_LIMIT_ENV))

    try:
        previous = signal.signal(signal.SIGALRM, stop)
    except ValueError:  # not the main thread: no signal handler can be set here
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _where(err, path):
    """" on line N (the line's code)" for the last frame of `err` in the learner's file `path`, or ""."""
    frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename == str(path)]
    return say("load.on_line", line=frames[-1].lineno, code=frames[-1].line) if frames else ""


def _exec_module(name, path, bound):
    if not path.is_file():
        raise StepLoadError(say("load.missing", path=path))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    saved = {key: sys.modules.get(key) for key in [*bound, name]}
    sys.modules.update(bound)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as err:
        source = f"\n    {err.text.strip()}" if err.text and err.text.strip() else ""
        raise StepLoadError(say("load.syntax", path=path, line=err.lineno, error=err.msg, source=source)) from err
    except Exception as err:  # the learner's module failed while being imported
        raise StepLoadError(say("load.import_failed", path=path, where=_where(err, path),
                                error=f"{type(err).__name__}: {err}")) from err
    finally:
        for key, old in saved.items():
            if old is None:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = old
    return module


def load_step(module, folder, deps_folder=None, _cache=None, *, layout, bind=None):
    """Return step `module` (e.g. "step6_head") imported from `folder`.

    The steps it depends on and the provided modules come from `deps_folder` when given (the
    reference), else from `folder` too. Raises StepLoadError with a plain message on failure.
    `layout` gives `provided_modules()` and `step(module).depends_on` (the kit's manifest, or the
    release's course.json). `bind(dep, dep_module)`, when given, is what a step imports as its earlier
    step `dep` (the release: the module with its functions recorded by a `harness.CallLog`).
    """
    folder = Path(folder)
    deps = Path(deps_folder) if deps_folder is not None else folder
    cache = {} if _cache is None else _cache
    bound = {}
    for name in layout.provided_modules():
        key = (name, deps)
        if key not in cache:
            cache[key] = _exec_module(name, deps / f"{name}.py", {})
        bound[name] = cache[key]
    for dep in layout.step(module).depends_on:
        key = (dep, deps)
        if key not in cache:
            cache[key] = load_step(dep, deps, deps, cache, layout=layout, bind=bind)
        bound[dep] = bind(dep, cache[key]) if bind else cache[key]
    return _exec_module(module, folder / f"{module}.py", bound)


class StepLoader:
    """`load(step_module, folder)` run once per step and folder, under the time limit.

    A module is kept; a failure is remembered, so the step's later tests get a short
    StepLoadError (first=False) instead of the same import error again.
    """

    def __init__(self, load):
        self._load, self._modules, self._failed = load, {}, {}

    def __call__(self, step_module, folder):
        key = (step_module, folder)
        if key in self._failed:
            raise StepLoadError(str(self._failed[key]), first=False)
        if key not in self._modules:
            try:
                with time_limit(say("limit.importing", path=Path(folder, step_module + ".py"))):
                    self._modules[key] = self._load(step_module, folder)
            except TimeLimitExceeded as err:
                self._failed[key] = StepLoadError(str(err))
                raise self._failed[key] from None
            except StepLoadError as err:
                self._failed[key] = err
                raise
        return self._modules[key]


def learner_function(load, step_module, folder, function):
    """The learner's `function` from step `step_module` in `folder`, imported by `load(step_module, folder)`
    (a StepLoader). Raises StepLoadError when the step cannot be imported, MissingFunction when it has no
    such function."""
    fn = getattr(load(step_module, folder), function, None)
    if not callable(fn):
        raise MissingFunction(say("load.no_function", file=f"{Path(folder).name}/{step_module}.py", function=function))
    return fn


def load_failure(step_number, err):
    """The public test's failure text for a StepLoadError of step `step_number`."""
    if isinstance(err, MissingFunction):
        return str(err)
    if err.first:
        return say("load.failure", step=step_number, error=err)
    return say("load.failure_again", step=step_number)
