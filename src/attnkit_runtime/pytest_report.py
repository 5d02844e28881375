"""How the public tests (the checkout's and the release's) show a harness.CaseResult under pytest."""
import pytest

from .judge import exception_note
from .ladder import NOT_WRITTEN
from .messages import say
from .status import Status


BLAMED = "attnkit_blamed"  # a test's user property: the earlier steps its failure is blamed on (the release)


def hide_kit_frame(excinfo):
    """pytest `__tracebackhide__` rule: hide the kit's frames around the learner's exceptions.

    A pytest.fail message (our teaching message) keeps them, or pytest adds a note that every
    traceback entry is hidden.
    """
    return not isinstance(excinfo.value, pytest.fail.Exception)


def report(result, calls, item, blame=""):
    """Show a CaseResult as pytest does best: a stub's NotImplementedError and a learner's exception are
    raised again (their traceback points at the learner's line; the exception gets the case as a note),
    anything else that failed is a pytest failure with the teaching message. `blame` (the release: the
    earlier step a failing call used that fails its own tests) comes first. The test `item` keeps
    whether the case is not written yet (for the ladder) and the earlier steps blamed."""
    __tracebackhide__ = hide_kit_frame
    stopped_on_a_stub = result.problem == "not_written"  # this step's stub, or an earlier one's it called
    item.user_properties += [(NOT_WRITTEN, stopped_on_a_stub), (BLAMED, list(result.blamed))]
    if result.passed:
        return
    error = result.exception
    if result.problem == "not_written" and not result.not_written:  # an earlier step's stub stopped the call
        raise NotImplementedError(say("depends.stopped_there", blame=blame, error=error)) from None
    if result.not_written or (error is not None and result.status is Status.ERROR and not blame):
        if result.status is Status.ERROR and hasattr(error, "add_note"):  # Python 3.11+
            error.add_note(exception_note(result.case, calls, result.diagnosis_text))
        raise error.with_traceback(error.__traceback__)
    pytest.fail(f"{blame}\n{result.message}" if blame else result.message, pytrace=False)
