"""The public tests of the student release, run on the learner's own steps.

`attnkit release` ships this module as `attnkit_runtime/exercise.py`, beside the rest of the runtime
and a `data/` folder written at release time: `course.json` (the steps, the concepts the hidden tests
check, and every public case in the stored form of `stored.py`, its known mistakes included) and
`snapshot.npz` (the cases' large arrays). It holds no reference code and no mistake implementation: a
mistake is named when the learner's output matches its stored output, or the learner's error its
stored error (`stored.StoredMistakes`). A test file is one line per function,
`test_softmax = case_test("step4_softmax", "softmax")`; a failure shows the inputs of each call.

Cases are run and judged by the one harness (`harness.call_case`, `harness.judge_outcome`). A step
that imports earlier steps runs on the learner's own versions of them, their functions recorded by a
`harness.CallLog`: when the failing call used one of them and that step does not pass its own public
cases, the failure says so and names the step to fix first.
"""
import json
import types
import warnings
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from . import harness, kept_inputs, stored
from .judge import build_arg, portable_case
from .ladder import add_options, register
from .loader import (MissingFunction, StepLoader, StepLoadError, TimeLimitExceeded, learner_function, load_failure,
                     load_step, time_limit)
from .messages import say
from .pytest_report import hide_kit_frame, report, skip_unstarted
from .started import Stub

DATA_DIR = Path(__file__).resolve().parent / "data"


@lru_cache(maxsize=None)
def course():
    return json.loads((DATA_DIR / "course.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def _store():
    """The open snapshot: a member is read (and decompressed) only when a case asks for it."""
    return np.load(DATA_DIR / "snapshot.npz", allow_pickle=False)


@lru_cache(maxsize=None)
def _mistakes():
    return stored.StoredMistakes({spec["name"]: spec["mistakes"] for specs in course()["cases"].values()
                                  for spec in specs}, _store())


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
LOG = harness.CallLog()
_BUILD = kept_inputs.keep(build_arg)  # the GPT-2-sized arguments are drawn once, not on every run


def _recorded(dep, module):
    """The learner's earlier step `dep` as a later step imports it: its graded functions recorded by LOG
    (not the provided helpers a later step's provided code calls, which are the kit's)."""
    graded = LAYOUT.step(dep).functions
    wrapped = types.ModuleType(module.__name__, module.__doc__)
    wrapped.__dict__.update({name: LOG.wrap(dep, value) if name in graded and callable(value) else value
                             for name, value in vars(module).items()})
    return wrapped


learner_module = StepLoader(lambda step_module, folder: load_step(step_module, folder, layout=LAYOUT, bind=_recorded))


@lru_cache(maxsize=None)
def _calls(module, name):
    """The arguments of each call of stored case `name`, built once (the harness passes copies of them)."""
    spec = next(spec for spec in course()["cases"][module] if spec["name"] == name)
    return [stored.call(call, _store(), _BUILD) for call in spec["calls"]]


def _run(spec, module, folder, diagnosis=None, earlier_passes=None, full_arrays=None):
    """(CaseResult, Outcome, calls) of the stored case `spec` of step `module` on the learner's function
    from `folder`. Raises StepLoadError (MissingFunction) when there is no function to call."""
    __tracebackhide__ = True
    fn = learner_function(learner_module, module, folder, spec["function"])
    case = portable_case(module, spec)
    calls = _calls(module, spec["name"])
    outcome = harness.call_case(fn, case, calls, LOG)
    result = harness.judge_outcome(case, calls, outcome, lambda: stored.outputs(spec["expected"], _store()),
                                   case.forms, diagnosis, earlier_passes, full_arrays)
    return result, outcome, calls


@lru_cache(maxsize=None)
def passes_own_tests(step_module, folder):
    """Whether the learner's `step_module` in `folder` passes every public case of its step."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings(), time_limit(f"the public tests of {step_module}"):
            warnings.simplefilter("ignore")
            return all(_run(spec, step_module, folder)[0].passed for spec in course()["cases"][step_module])
    except (Exception, TimeLimitExceeded):  # noqa: BLE001 - whatever the learner's step raises, it does not pass
        return False


def fix_first(step, folder, failing):
    """The sentence naming the earlier step to fix first among `failing` (modules that do not pass their own
    tests, in the order the learner's calls first used them); "" when none."""
    if not failing:
        return ""
    earlier = LAYOUT.step(failing[0])
    return say("depends.fix_first", earlier=earlier.number, step=step.number, file=earlier.filename, folder=folder.name)


def check(case, spec, request):
    """Run `case` (its stored form `spec`) on the learner's function from the test file's folder; fail with
    a teaching message (with the whole arrays under pytest -vv)."""
    __tracebackhide__ = hide_kit_frame
    folder = Path(request.path).resolve().parent
    step = LAYOUT.step(case.step.module)
    skip_unstarted(step, folder, lambda: Stub.of_prints(step.stub))
    try:
        result, outcome, calls = _run(spec, step.module, folder, _mistakes(), lambda dep: passes_own_tests(dep, folder),
                                      request.config.get_verbosity() >= 2)
    except MissingFunction as err:
        failure = str(err)
    except StepLoadError as err:  # the step's import may have failed in an earlier step it imports
        failing = [dep for dep in step.depends_on if not passes_own_tests(dep, folder)]
        failure = (err.first and fix_first(step, folder, failing)) or load_failure(step.number, err)
    else:
        failure = None
    if failure:  # outside the except: pytest would show the import error again as its context
        pytest.fail(failure, pytrace=False)
    earlier = LAYOUT.step(outcome.earlier_stub) if outcome.earlier_stub else None
    report(result, calls, request.node, step, fix_first(step, folder, result.blamed), earlier)


def case_test(module, function):
    """A pytest test function that runs every stored public case of `module.function`."""
    params = [pytest.param(portable_case(module, spec), spec, id=spec["name"])
              for spec in course()["cases"][module] if spec["function"] == function]

    @pytest.mark.parametrize("case, spec", params)  # `case` tells the ladder its step
    def test(case, spec, request):
        __tracebackhide__ = hide_kit_frame
        check(case, spec, request)

    test.__name__ = f"test_{function}"
    test.__doc__ = f"The public cases of {module}.{function} (stored in attnkit_runtime/data/course.json)."
    return test


def pytest_addoption(parser):
    """--lang en|zh: the language of the messages."""
    add_options(parser)


def pytest_configure(config):
    """--lang, short tracebacks (the learner's failing line) and the progress ladder after the summary."""
    register(config, LAYOUT.steps(), course()["hidden_concepts"], "exercises")
