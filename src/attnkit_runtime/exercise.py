"""The public tests of the student release, run on the learner's own steps.

`attnkit release` ships this module as `attnkit_runtime/exercise.py`, beside the kit's portable
`judge.py`, `loader.py` and `ladder.py` and a `data/` folder written at release time:
`course.json` (the steps, the concepts the hidden tests check, the known mistakes' texts, in every language) and
`snapshot.npz` (large public inputs and expected values, the known mistakes' outputs on the public
inputs). It holds no reference code and no mistake implementation: a mistake is named when the
learner's output matches its stored output, or the learner's error its stored error.

A step that imports earlier steps runs on the learner's own versions of them. When one of those does
not pass its own public tests, the later step's failure says so and names the step to fix first.
"""
import importlib.util
import json
import sys
import warnings
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from .i18n import pick
from .judge import build_arg, evaluate_safely, exception_note, portable_case, run_case, teaching_message
from .ladder import add_options, register
from .loader import (MissingFunction, StepLoader, StepLoadError, TimeLimitExceeded, learner_function, load_failure,
                     load_step, time_limit)
from .messages import say
from .show_call import LearnerError, UsageError, run_learner, yours

DATA_DIR = Path(__file__).resolve().parent / "data"


@lru_cache(maxsize=None)
def course():
    return json.loads((DATA_DIR / "course.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _snapshot():
    """The open snapshot: a member is read (and decompressed) only when a test asks for it."""
    return np.load(DATA_DIR / "snapshot.npz", allow_pickle=False)


def recipe(spec):
    """An array made as the case catalogue describes it, e.g. recipe({"normal": [3, 4], "seed": 7})."""
    return build_arg(spec)


def stored(key):
    """A stored array of the snapshot, e.g. stored("attention_batch_of_heads/input/0/Q")."""
    return _snapshot()[key]  # read anew at each call: a fresh array the learner's code may change


class _Layout:
    """The steps as `loader.load_step` and the ladder read them, from course.json."""

    @staticmethod
    @lru_cache(maxsize=None)
    def steps():
        return tuple(SimpleNamespace(**s, filename=f"{s['module']}.py") for s in course()["steps"])

    def step(self, module):
        return next(s for s in self.steps() if s.module == module)

    def provided_modules(self):
        return tuple(course()["provided"])


LAYOUT = _Layout()


def case(module, **spec):
    """One public case, as a test file spells it: its step module and its fields."""
    return portable_case(module, spec)


def for_function(params, function):
    """The pytest.params of `params` whose case calls `function`."""
    return [p for p in params if p.values[0].function == function]


def hide_kit_frame(excinfo):
    """pytest `__tracebackhide__` rule: hide the kit's frames around the learner's exceptions.

    A pytest.fail message (our teaching message) keeps them, or pytest adds a note that every
    traceback entry is hidden.
    """
    return not isinstance(excinfo.value, pytest.fail.Exception)


_module = StepLoader(lambda step_module, folder: load_step(step_module, folder, layout=LAYOUT))


def _import_tests(path):
    spec = importlib.util.spec_from_file_location(f"_attnkit_public_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@lru_cache(maxsize=None)
def passes_own_tests(step_module, folder):
    """Whether the learner's `step_module` in `folder` passes every public case of its test file."""
    tests = folder / f"test_{step_module}.py"
    if not tests.is_file():
        return True  # nothing to tell: the failure is then the later step's own
    try:
        module = _module(step_module, folder)
        params = _import_tests(tests).CASES
        with np.errstate(all="ignore"), warnings.catch_warnings(), time_limit(f"the public tests of {step_module}"):
            warnings.simplefilter("ignore")
            return all(run_case(getattr(module, p.values[0].function), *p.values, p.values[0].forms)[0].passed
                       for p in params)
    except (Exception, TimeLimitExceeded):  # noqa: BLE001 - whatever the learner's step raises, it does not pass
        return False


def failing_dependency(step, folder, error_text=""):
    """The sentence naming an earlier step `step` imports that fails its own tests, or "".

    The step that `error_text` (the error the learner's call stopped on) names comes first.
    """
    failing = [dep for dep in step.depends_on if not passes_own_tests(dep, folder)]
    if not failing:
        return ""
    earlier = LAYOUT.step(next((dep for dep in failing if f"({dep}." in error_text), failing[0]))
    return say("depends.fix_first", earlier=earlier.number, step=step.number, file=earlier.filename, folder=folder.name)


def _mistake_text(entry):
    return f"{entry['code']} — {pick(entry['text'])}"


def diagnosis(case, calls, results):
    """The known mistake whose stored outputs the learner's `results` match, as text; "" if none."""
    with np.errstate(all="ignore"):
        for j, entry in enumerate(course()["mistakes"].get(case.name, [])):
            if "outputs" in entry:
                outputs = [{part: stored(f"{case.name}/mistake/{j}/{k}/{part}") for part in parts}
                           for k, parts in enumerate(entry["outputs"])]
                if evaluate_safely(case, calls, results, outputs, None).passed:
                    return _mistake_text(entry)
    return ""


def error_diagnosis(case, error):
    """The known mistake that raises this error on the case's calls, as text; "" if none."""
    name, text = type(error).__name__, str(error)
    return next((_mistake_text(m) for m in course()["mistakes"].get(case.name, [])
                 if "error" in m and m["error"][0] == name and m["error"][1] and m["error"][1] in text), "")


def check(case, calls, expected, request):
    """Run `case` on the learner's function from the test file's folder; fail with a teaching message
    (with the whole arrays under pytest -vv)."""
    __tracebackhide__ = hide_kit_frame
    folder = Path(request.path).resolve().parent
    step = LAYOUT.step(case.step.module)
    try:
        fn = learner_function(_module, step.module, folder, case.function)
    except MissingFunction as err:
        failure = str(err)
    except StepLoadError as err:  # the step's import may have failed in an earlier step it imports
        failure = (err.first and failing_dependency(step, folder)) or load_failure(step.number, err)
    else:
        failure = None
    if failure:  # outside the except: pytest would show the import error again as its context
        pytest.fail(failure, pytrace=False)
    try:
        with time_limit(f"{step.module}.{case.function}()"):
            verdict, results = run_case(fn, case, calls, expected, case.forms)
    except TimeLimitExceeded as err:
        failure = failing_dependency(step, folder) or str(err)
    except NotImplementedError as err:
        blame = "" if f"({step.module}." in str(err) else failing_dependency(step, folder, str(err))
        if blame:
            raise NotImplementedError(say("depends.stopped_there", blame=blame, error=err)) from None
        raise
    except Exception as err:
        blame = failing_dependency(step, folder)
        if blame:
            pytest.fail(say("depends.with_it", blame=blame, function=case.function, error=f"{type(err).__name__}: {err}"),
                        pytrace=False)
        if hasattr(err, "add_note"):  # Python 3.11+; on 3.10 the learner's own traceback still shows
            err.add_note(exception_note(case, calls, error_diagnosis(case, err)))
        raise
    if failure:
        pytest.fail(failure, pytrace=False)
    if verdict.passed:
        return
    full_arrays = request.config.get_verbosity() >= 2
    blame = failing_dependency(step, folder)
    if blame:
        pytest.fail(f"{blame}\n{teaching_message(case, calls, verdict, full_arrays=full_arrays)}", pytrace=False)
    if results is None:
        pytest.fail(verdict.message, pytrace=False)
    pytest.fail(teaching_message(case, calls, verdict, diagnosis(case, calls, results), full_arrays), pytrace=False)


def show_main(argv=None):
    """`attnkit-show FUNCTION ARG…`: the learner's function from ./exercises/ on these arguments, each
    part of its result as a labelled grid. Exit 0, 1 when the learner's code failed, 2 on a wrong command."""
    argv = sys.argv[1:] if argv is None else argv
    functions = {name: (step, returns) for step in LAYOUT.steps() for name, returns in step.functions.items()}
    folder = Path.cwd() / "exercises"
    try:
        if not argv or argv[0] not in functions:
            raise UsageError(say("show.usage_release", names=", ".join(functions)))
        step, returns = functions[argv[0]]
        try:
            fn = learner_function(_module, step.module, folder, argv[0])
        except StepLoadError as err:
            raise LearnerError(str(err)) from None
        call, _, parts = run_learner(fn, argv[0], argv[1:], returns, folder / step.filename)
    except (UsageError, LearnerError) as err:
        print(f"attnkit-show: {err}", file=sys.stderr)
        return 2 if isinstance(err, UsageError) else 1
    print(yours(call, parts))
    return 0


def pytest_addoption(parser):
    """--lang en|zh: the language of the messages."""
    add_options(parser)


def pytest_configure(config):
    """--lang, short tracebacks (the learner's failing line) and the progress ladder after the summary."""
    register(config, LAYOUT.steps(), course()["hidden_concepts"], "exercises")
