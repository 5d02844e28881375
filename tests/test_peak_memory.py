"""A `largest_intermediate` case measures how much memory its calls hold at once, where learner code runs
(`harness.call_case`, by tracemalloc), and judges the figure outside (`judge.check_property`): a function
that builds an array far larger than the case's budget fails it, one that works in blocks passes, and a
call that stops or clears the tracing to hide its peak fails too."""
import re
import tracemalloc
from types import SimpleNamespace

import numpy as np

from attnkit_runtime import harness, judge
from attnkit_runtime.messages import say
from attnkit_runtime.status import Status

BLOCK = (64, 16)  # the case's [T_q, block]: 8 KiB of float64
EXPLAIN = {"en": "work one block at a time", "zh": "一次只算一块"}


def _case(arrays=4):
    return SimpleNamespace(name="peak_case", step=SimpleNamespace(module="step_x"), function="f", returns=("O",),
                           concept={"en": "c", "zh": "c"}, read="lessons/en/x.md", hint="",
                           tolerance={"atol": 1e-8, "rtol": 1e-6},
                           expect={"property": "largest_intermediate", "shape": list(BLOCK), "arrays": arrays,
                                   "explain": EXPLAIN})


def _judged(fn, calls=({"n": 1024},)):
    case = _case()
    outcome = harness.call_case(fn, case, list(calls), seconds=0)
    forms = [{"O": ((64,), np.dtype(np.float64))} for _ in calls]
    return outcome, harness.judge_outcome(case, list(calls), outcome, None, forms)


def in_blocks(n):
    """[64] sums of a [64, n] product, one [64, 16] block at a time."""
    total = np.zeros(64)
    for start in range(0, n, 16):
        total += np.ones((64, min(16, n - start))).sum(axis=1)
    return total


def all_at_once(n):
    """The same sums from the whole [64, n] array (512 KiB for n = 1024)."""
    return np.ones((64, n)).sum(axis=1)


def test_a_function_that_works_in_blocks_passes_and_its_peak_is_recorded():
    outcome, result = _judged(in_blocks)
    assert result.status is Status.PASSED, result.message
    assert len(outcome.peaks) == 1 and 0 < outcome.peaks[0] <= 4 * 64 * 16 * 8


def test_a_function_that_builds_the_whole_array_fails_and_the_message_gives_both_figures():
    outcome, result = _judged(all_at_once)
    assert outcome.peaks[0] >= 64 * 1024 * 8
    assert result.status is Status.FAILED and result.problem == "property"
    assert re.search(r"f\(\) held 51\d\.\d KiB of arrays at once; 4 float64 arrays of \[64, 16\] \(32\.0 KiB\)",
                     result.message) and EXPLAIN["en"] in result.message


def test_every_call_of_a_case_is_measured_on_its_own():
    outcome, result = _judged(lambda n: in_blocks(n) if n < 2000 else all_at_once(n), ({"n": 1024}, {"n": 4096}))
    assert len(outcome.peaks) == 2 and outcome.peaks[0] < outcome.peaks[1]
    assert result.status is Status.FAILED and re.search(r"call 2: f\(\) held 20\d\d\.\d KiB", result.message)


def test_a_call_that_stops_or_clears_the_tracing_has_no_peak_and_fails():
    def stopped(n):
        tracemalloc.stop()
        tracemalloc.start()
        return all_at_once(n)

    def cleared(n):
        out = all_at_once(n)
        tracemalloc.clear_traces()
        return out

    for hiding in (stopped, cleared):
        outcome, result = _judged(hiding)
        assert outcome.peaks == (None,) and result.status is Status.FAILED
        assert say("property.peak_hidden", call=1, function="f") in result.message
    assert not tracemalloc.is_tracing()  # the harness stops what it started, whatever the call did


def test_a_case_that_measures_nothing_records_no_peak_and_leaves_tracing_off():
    case = SimpleNamespace(**{**vars(_case()), "expect": {"reference": True}})
    outcome = harness.call_case(all_at_once, case, [{"n": 8}], seconds=0)
    assert outcome.peaks == () and not tracemalloc.is_tracing()


def test_tracing_already_on_in_the_learners_process_stays_on():
    tracemalloc.start()
    try:
        outcome, result = _judged(all_at_once)
        assert tracemalloc.is_tracing() and result.status is Status.FAILED and outcome.peaks[0] >= 64 * 1024 * 8
    finally:
        tracemalloc.stop()


def test_the_resident_peak_measured_outside_fails_a_call_whose_tracemalloc_peak_was_hidden_low():
    """The grader's outside figure (harness.Outcome.resident) is judged beside tracemalloc's: past the budget by
    more than judge.RESIDENT_SLACK_BYTES the call fails, whatever tracemalloc said; within it, it passes."""
    case, calls = _case(), [{"n": 1024}]
    forms = [{"O": ((64,), np.dtype(np.float64))}]
    budget = 4 * 64 * 16 * 8
    for resident, passed in ((budget + judge.RESIDENT_SLACK_BYTES + 1, False), (budget + (1 << 20), True)):
        outcome = harness.Outcome(harness.Ending.RETURNED, [{"O": np.zeros(64)}], peaks=(100,), resident=(resident,))
        result = harness.judge_outcome(case, calls, outcome, None, forms)
        assert result.passed is passed, result.message
        assert passed or "measured by the operating system" in result.message
