"""The public tests: each public case of the catalogue becomes one pytest test of the learner's code.

A test file in exercises/ is one line per function: `test_softmax = case_test("step4_softmax", "softmax")`.
The learner's step is imported from the folder that holds the test file (or from solutions/ with
`pytest exercises --solutions`), with the reference versions of the earlier steps it imports, so a
mistake in step 4 is reported by step 4's tests only.
"""
from functools import lru_cache
from pathlib import Path

import pytest

from . import checks, manifest, stubs
from .catalogue_diagnosis import CATALOGUE
from attnkit_runtime import harness, kept_inputs
from .cases import build_arg, cases_for
from attnkit_runtime.loader import StepLoader, StepLoadError, learner_function, load_failure
from .paths import SOLUTIONS_DIR
from .reference import learner_step
from attnkit_runtime.pytest_report import hide_kit_frame, report, skip_unstarted
from attnkit_runtime.started import Stub

SOLUTIONS_OPTION = "--solutions"


_module = StepLoader(learner_step)
_BUILD = kept_inputs.keep(build_arg)  # the GPT-2-sized arguments are drawn once, not on every run


def learner_folder(config, test_path):
    """Where the code under test lives: solutions/ with --solutions, else the test file's folder."""
    return SOLUTIONS_DIR if config.getoption(SOLUTIONS_OPTION) else Path(test_path).resolve().parent


@lru_cache(maxsize=None)
def handed_out_stub(step_module):
    """`step_module`'s stub (started.Stub) as `attnkit stubs` writes it from solutions/."""
    step = manifest.step(step_module)
    return Stub.of_source(stubs.strip_solutions((SOLUTIONS_DIR / step.filename).read_text(encoding="utf-8"), step))


def check_case(case, folder, item, full_arrays=False):
    """Run `case` on the learner's function from `folder`; fail with a teaching message if wrong.

    The earlier steps the learner's step imports are the reference's, so nothing else is to blame;
    `item` is the pytest test, which keeps what the ladder needs.
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
    calls = case.build_calls(_BUILD)
    outcome = harness.call_case(fn, case, calls)
    result = harness.judge_outcome(case, calls, outcome, lambda: checks.expected_outputs(case, calls),
                                   lambda: checks.expected_forms(case, calls), CATALOGUE, full_arrays=full_arrays)
    report(result, calls, item, case.step)


def case_test(step_module, function):
    """A pytest test function that runs every public case of `step_module.function`."""

    @pytest.mark.parametrize("case", cases_for(step_module, "public", function), ids=str)
    def test(case, request):
        __tracebackhide__ = hide_kit_frame
        folder = learner_folder(request.config, request.path)
        skip_unstarted(case.step, folder, lambda: handed_out_stub(case.step.module))
        check_case(case, folder, request.node, request.config.get_verbosity() >= 2)

    test.__name__ = f"test_{function}"
    test.__doc__ = f"The public cases of {step_module}.{function} (src/attnkit/data/cases/{step_module}.yaml)."
    return test
