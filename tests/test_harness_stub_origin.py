"""Whether a case stopped on its own step's stub or on an earlier step's is a field the harness records (the
CallLog sees the NotImplementedError pass through an earlier step's function), never read from the error's words."""
from types import SimpleNamespace

from attnkit_runtime import harness
from attnkit_runtime.harness import Ending

CASE = SimpleNamespace(step=SimpleNamespace(module="step3_masks"), function="causal_mask", returns=("M",),
                       measure_peak=False)
EARLIER = "step2_scores"


def _judged(fn, log):
    outcome = harness.call_case(fn, CASE, [{"x": 1}], log, seconds=0)
    return outcome, harness.judge_outcome(CASE, [{"x": 1}], outcome, None, None, earlier_passes=lambda m: False)


def test_an_earlier_steps_stub_is_recorded_as_its_own_whatever_its_words_say():
    log = harness.CallLog()

    def earlier(x):  # its words name the later step: they decide nothing
        raise NotImplementedError(f"Step 3 ({CASE.step.module}.{CASE.function}) is not written yet")
    wrapped = log.wrap(EARLIER, earlier)
    outcome, result = _judged(lambda x: wrapped(x), log)
    assert outcome.ending == Ending.NOT_WRITTEN and outcome.earlier_stub == EARLIER
    assert not result.not_written and result.blamed == (EARLIER,) and result.problem == "not_written"


def test_a_not_implemented_error_of_this_step_after_an_earlier_step_returned_is_this_steps():
    log = harness.CallLog()
    wrapped = log.wrap(EARLIER, lambda x: x)

    def fn(x):
        wrapped(x)  # the earlier step returned (and fails its own cases)
        raise NotImplementedError("my own placeholder")  # no module named in it
    outcome, result = _judged(fn, log)
    assert outcome.earlier_stub == "" and result.not_written and result.blamed == (EARLIER,)


def test_an_earlier_stub_caught_by_the_learner_is_not_the_one_that_stopped_the_case():
    log = harness.CallLog()

    def earlier(x):
        raise NotImplementedError("earlier")
    wrapped = log.wrap(EARLIER, earlier)

    def fn(x):
        try:
            wrapped(x)
        except NotImplementedError:
            pass
        raise NotImplementedError("mine")
    outcome, result = _judged(fn, log)
    assert outcome.earlier_stub == "" and result.not_written


def test_the_innermost_earlier_step_is_the_stubs():
    log = harness.CallLog()

    def first(x):
        raise NotImplementedError("")
    inner = log.wrap("step1_projection", first)
    outer = log.wrap(EARLIER, lambda x: inner(x))
    outcome, result = _judged(lambda x: outer(x), log)
    assert outcome.earlier_stub == "step1_projection" and not result.not_written
