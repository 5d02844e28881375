"""By default (--reference-factor 20) a submission's CPU budget, and each call's CPU limit, are scaled to the
reference's own CPU time on the same calls (measured when the run starts): an honest but slow submission (Python
loops over rows and columns) still scores 100, a hostile one (every graded function loops forever, sleeps or
allocates 1 TB) is stopped by its CPU or sleep budget, far before --submission-cpu-seconds or the wall time's
backstop, each test an error or a timeout that says why, and one function that never returns costs only its
own tests. No timing is asserted."""
import re

import pytest

from attnkit.grader import submission
from attnkit.grader.bench import HOSTILE, copy_hostile, copy_slow, copy_solutions
from attnkit.grader.grade import grade_submission
from attnkit.grader.plan import Plan
from attnkit.grader.runners import SandboxRunner
from attnkit.grader.sandbox import Limits
from attnkit.grader.sandbox_types import PROBE_SECONDS, CpuBudget, call_limit, submission_budget
from attnkit_runtime.status import Status
from grading_support import assert_only_functions_lost, grade_path, plan

BUDGET_SPENT = "not run (budget spent)"
SCALED = Limits(reference_factor=20.0)
HANG = "\n\ndef causal_visible(n_query, n_key=None):\n    while True:\n        pass\n"


def test_an_honest_submission_with_python_loops_in_its_core_steps_scores_full_marks(tmp_path):
    graded = grade_path(copy_slow(tmp_path / "slow"), SCALED)
    assert graded.score == 100.0, [(t.name, t.status, t.output[:200]) for t in graded.tests if t.score < t.max_score]


def test_the_budget_is_scaled_to_the_reference_and_capped_by_submission_seconds():
    jobs = plan().jobs
    budget = submission_budget(SCALED, jobs)
    assert SCALED.reference_allowance < budget < SCALED.submission_cpu_seconds
    assert submission_budget(Limits(), jobs) == budget  # the default
    assert submission_budget(Limits(submission_cpu_seconds=1.0, reference_factor=20.0), jobs) == 1.0
    assert submission_budget(Limits(reference_factor=None), jobs) == Limits().submission_cpu_seconds


def test_the_budget_leaves_room_for_one_function_that_never_returns():
    """One hanging function spends its timeouts (max_timeouts_per_function calls of it, at most its largest limits,
    each stopped at its limit counted from the first look, found at the next look) and the rest of the submission
    still has the reference-scaled budget: a hang costs only its own tests, however busy the machine."""
    jobs = Plan("extension").jobs  # calls of one function at different limits (GPT-2-sized and small ones)
    scaled = SCALED.reference_allowance + SCALED.reference_factor * sum(job.reference_seconds for job in jobs)
    by_function = {}
    for job in jobs:
        by_function.setdefault((job.step, job.function), []).append(call_limit(SCALED, job) + 2 * PROBE_SECONDS)
    one_hang = max(sum(sorted(costs)[-SCALED.max_timeouts_per_function:]) for costs in by_function.values())
    assert submission_budget(SCALED, jobs) == pytest.approx(min(SCALED.submission_cpu_seconds, scaled + one_hang))


def test_the_budget_grows_with_the_reference_time_of_the_calls_made_so_far():
    """Before any call a submission has the allowance and the room for one hang; each call made (once, however
    often it is run again) adds F x the reference's time on it, up to the whole budget once all are made."""
    jobs = plan().jobs
    budget = CpuBudget(SCALED, jobs)
    first = budget.seconds
    assert first == pytest.approx(submission_budget(SCALED, jobs)
                                  - SCALED.reference_factor * sum(job.reference_seconds for job in jobs))
    slowest = max(jobs, key=lambda job: job.reference_seconds)
    for _ in range(2):
        budget.made(slowest)
    assert budget.seconds == pytest.approx(first + SCALED.reference_factor * slowest.reference_seconds)
    for job in jobs:
        budget.made(job)
    assert budget.seconds == pytest.approx(submission_budget(SCALED, jobs))
    unscaled = CpuBudget(Limits(reference_factor=None), jobs)
    unscaled.made(slowest)
    assert unscaled.seconds == Limits().submission_cpu_seconds


def test_a_function_that_never_returns_in_the_first_extension_step_costs_only_its_own_tests(tmp_path):
    """Where the least of the budget is made (only step 7's calls sent yet), a hang of its GPT-2-sized layer still
    leaves the rest of the extension its budget."""
    extension = Plan("extension")
    folder = copy_solutions(tmp_path / "s")
    path = tmp_path / "s" / "step7_layer.py"
    path.write_text(path.read_text(encoding="utf-8") + "\n\ndef _hang(*args, **kwargs):\n    while True:\n"
                    "        pass\n\n\ngpt2_attention = _hang\n", encoding="utf-8")
    graded = grade_submission(extension, SandboxRunner(SCALED), submission.read(folder))
    for t, p in zip(graded.tests, extension.cases):
        assert (t.status != "passed") == (p.case.function == "gpt2_attention"), (t.name, t.status, t.output)
    assert {t.status for t in graded.tests if t.status != "passed"} == {Status.TIMEOUT, Status.ERROR}


def test_a_calls_limit_is_scaled_to_the_reference_on_it_between_the_floor_and_call_seconds():
    jobs = plan().jobs
    limits = [call_limit(SCALED, job) for job in jobs]
    assert min(limits) == SCALED.call_floor_seconds and max(limits) <= SCALED.call_cpu_seconds
    slowest = max(jobs, key=lambda job: job.reference_seconds)
    assert call_limit(Limits(reference_factor=20.0, call_floor_seconds=0.0), slowest) == 20.0 * slowest.reference_seconds
    assert {call_limit(Limits(reference_factor=None), job) for job in jobs} == {SCALED.call_cpu_seconds}


def test_a_function_that_never_returns_costs_only_its_own_tests_within_the_scaled_budget(tmp_path):
    folder = copy_solutions(tmp_path / "s")
    path = tmp_path / "s" / "step3_masks.py"
    path.write_text(path.read_text(encoding="utf-8") + HANG, encoding="utf-8")
    graded = grade_path(folder, SCALED)
    assert_only_functions_lost(graded, {("step3_masks", "causal_visible")})
    lost = [t for t in graded.tests if t.step == "step3_masks" and t.status != "passed"]
    assert {t.status for t in lost} == {Status.TIMEOUT, Status.ERROR}  # not run after two timeouts


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_submission_is_stopped_by_the_scaled_budget_and_scores_0(tmp_path, kind):
    graded = grade_path(copy_hostile(tmp_path / kind, kind), SCALED)
    assert graded.score == 0.0
    assert all(t.status in (Status.ERROR, Status.TIMEOUT) for t in graded.tests), \
        [(t.name, t.status) for t in graded.tests if t.status not in (Status.ERROR, Status.TIMEOUT)]
    spent = [t for t in graded.tests if BUDGET_SPENT in t.output]
    if kind == "loop":
        seconds = float(re.search(r"budget of ([\d.]+) s of CPU time", spent[0].output).group(1))
        assert SCALED.reference_allowance < seconds < submission_budget(SCALED, plan().jobs)  # calls made so far
    if kind == "sleep":  # a call that fails at once (allocate) may leave the budget unspent
        assert f"slept for {SCALED.submission_idle_seconds:g} s in all" in spent[0].output
