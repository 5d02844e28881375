"""The public tests: each public case of the catalogue becomes one pytest test of the learner's code.

A test file in exercises/ is one line per function: `test_softmax = case_test("step4_softmax", "softmax")`.
The learner's step is imported from the folder that holds the test file (or from solutions/ with
`pytest exercises --solutions`), with the reference versions of the earlier steps it imports, so a
mistake in step 4 is reported by step 4's tests only.
"""
from pathlib import Path

import pytest

from . import checks
from attnkit_runtime import judge
from .cases import cases_for
from attnkit_runtime.loader import StepLoader, StepLoadError, TimeLimitExceeded, learner_function, load_failure, time_limit
from .paths import SOLUTIONS_DIR
from .reference import learner_step
from attnkit_runtime.exercise import hide_kit_frame

SOLUTIONS_OPTION = "--solutions"


_module = StepLoader(learner_step)


def learner_folder(config, test_path):
    """Where the code under test lives: solutions/ with --solutions, else the test file's folder."""
    return SOLUTIONS_DIR if config.getoption(SOLUTIONS_OPTION) else Path(test_path).resolve().parent


def _diagnosis(case, calls, results=None, error=None):
    """The likely mistake behind wrong `results`, or behind the exception `error`; "" if none is known."""
    from . import mistakes  # the catalogue of known mistakes, loaded only when something failed

    if error is not None:
        code = mistakes.diagnose_exception(case, type(error).__name__, str(error))
    else:
        code = mistakes.diagnose(case, calls, results)
    return mistakes.describe(code) if code else ""


def check_case(case, folder, full_arrays=False):
    """Run `case` on the learner's function from `folder`; fail with a teaching message if wrong.

    `full_arrays` (pytest -vv) adds the whole expected and actual arrays to the message.
    """
    __tracebackhide__ = hide_kit_frame
    try:
        fn = learner_function(_module, case.step.module, Path(folder), case.function)
    except StepLoadError as err:
        failure = load_failure(case.step.number, err)
    else:
        failure = None
    if failure:  # outside the except: pytest would show the import error again as its context
        pytest.fail(failure, pytrace=False)
    calls = case.build_calls()
    try:
        with time_limit(f"{case.step.module}.{case.function}()"):
            verdict, results = judge.run_case(fn, case, calls, lambda: checks.expected_outputs(case, calls),
                                              lambda: checks.expected_forms(case, calls))
    except NotImplementedError:
        raise
    except TimeLimitExceeded as err:
        failure = str(err)
    except Exception as err:
        if hasattr(err, "add_note"):  # Python 3.11+; on 3.10 the learner's own traceback still shows
            err.add_note(judge.exception_note(case, calls, _diagnosis(case, calls, error=err)))
        raise
    if failure:
        pytest.fail(failure, pytrace=False)
    if results is None:
        pytest.fail(verdict.message, pytrace=False)
    if not verdict.passed:
        pytest.fail(judge.teaching_message(case, calls, verdict, _diagnosis(case, calls, results), full_arrays),
                    pytrace=False)


def case_test(step_module, function):
    """A pytest test function that runs every public case of `step_module.function`."""

    @pytest.mark.parametrize("case", cases_for(step_module, "public", function), ids=str)
    def test(case, request):
        __tracebackhide__ = hide_kit_frame
        check_case(case, learner_folder(request.config, request.path), request.config.get_verbosity() >= 2)

    test.__name__ = f"test_{function}"
    test.__doc__ = f"The public cases of {step_module}.{function} (src/attnkit/data/cases/{step_module}.yaml)."
    return test
