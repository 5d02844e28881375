"""How the public tests (the checkout's and the release's) show a harness.CaseResult under pytest, and skip
an optional step the learner has not started."""
import os

import pytest

from . import started
from .harness import stub_text
from .judge import exception_note
from .ladder import CORE_TRACK, NOT_WRITTEN
from .messages import say
from .status import Status


BLAMED = "attnkit_blamed"  # a test's user property: the earlier steps its failure is blamed on (the release)


def hide_kit_frame(excinfo):
    """pytest `__tracebackhide__` rule: hide the kit's frames around the learner's exceptions.

    A pytest.fail message (our teaching message) keeps them, or pytest adds a note that every
    traceback entry is hidden.
    """
    return not isinstance(excinfo.value, pytest.fail.Exception)


def raised_at(error):
    """"file:line: " of the line that raised `error` (relative to the working folder when inside it), "" when
    `error` has no traceback."""
    tb = getattr(error, "__traceback__", None)
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is None:
        return ""
    path = os.path.relpath(tb.tb_frame.f_code.co_filename)
    return f"{tb.tb_frame.f_code.co_filename if path.startswith('..') else path}:{tb.tb_lineno}: "


def report(result, calls, item, step, blame="", earlier=None):
    """Show a CaseResult as pytest does best: a stub's NotImplementedError is one line (where it was raised
    and its text, once: the ladder's plugin shortens the end-of-run summary's copy), a learner's exception
    is raised again (its traceback points at the learner's line; the exception gets the case as a note),
    anything else that failed is a pytest failure with the teaching message. `blame` (the release: the
    earlier step a failing call used that fails its own tests) comes first. The test `item` keeps
    whether the case is not written yet (for the ladder) and the earlier steps blamed. `step` is the
    case's (its number, module and read), which names a stub's own NotImplementedError in the learner's
    language; `earlier` is the earlier step whose stub the call stopped in (harness.Outcome.earlier_stub), if any."""
    __tracebackhide__ = hide_kit_frame
    stopped_on_a_stub = result.problem == "not_written"  # this step's stub, or an earlier one's it called
    item.user_properties += [(NOT_WRITTEN, stopped_on_a_stub), (BLAMED, list(result.blamed))]
    if result.passed:
        return
    error = result.exception
    if stopped_on_a_stub:
        stub = step if result.not_written else earlier
        text = stub_text(stub.number, stub.module, stub.read, error) if stub is not None else error
        text = text if result.not_written else say("depends.stopped_there", blame=blame, error=text)
        pytest.fail(f"{raised_at(error)}NotImplementedError: {text}", pytrace=False)
    if error is not None and result.status is Status.ERROR and not blame:
        if result.status is Status.ERROR and hasattr(error, "add_note"):  # Python 3.11+
            error.add_note(exception_note(result.case, calls, result.diagnosis_text))
        raise error.with_traceback(error.__traceback__)
    pytest.fail(f"{blame}\n{result.message}" if blame else result.message, pytrace=False)


_NOT_STARTED = {}  # step file path -> started.not_started: worked out once per run (each test builds its own stub)


def skip_unstarted(step, folder, stub, label="exercises"):
    """Skip the test when `step` is optional (not of the core track) and its file in `folder` still holds
    the handed-out stub's code (`started.not_started`; `stub()` gives the started.Stub, asked for only for
    an optional step, once per file and run); the reason says the step is optional and how to start it."""
    if step.track == CORE_TRACK:
        return
    path = folder / step.filename
    if path not in _NOT_STARTED:
        _NOT_STARTED[path] = started.not_started(path, stub())
    if _NOT_STARTED[path]:
        pytest.skip(say("optional.skipped", number=step.number, label=label, file=step.filename))
