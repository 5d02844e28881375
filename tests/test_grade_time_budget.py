"""With --reference-factor, a submission's time budget is scaled to the reference's own time on the same
calls (measured when the run starts): an honest but slow submission (Python loops over rows and columns) still scores 100, and a
hostile one (every graded function loops forever, sleeps or allocates 1 TB) is stopped there, far before
--submission-seconds, each test an error or a timeout that says why. No timing is asserted."""
import re

import pytest

from attnkit.grader.bench import HOSTILE, copy_hostile, copy_slow
from attnkit.grader.sandbox import Limits
from attnkit.grader.sandbox_types import submission_budget
from attnkit_runtime.status import Status
from grading_support import grade_path, plan

BUDGET_SPENT = "not run (budget spent)"
SCALED = Limits(reference_factor=20.0)


def test_an_honest_submission_with_python_loops_in_its_core_steps_scores_full_marks(tmp_path):
    graded = grade_path(copy_slow(tmp_path / "slow"), SCALED)
    assert graded.score == 100.0, [(t.name, t.status, t.output[:200]) for t in graded.tests if t.score < t.max_score]


def test_the_budget_is_scaled_to_the_reference_and_capped_by_submission_seconds():
    jobs = plan().jobs
    budget = submission_budget(SCALED, jobs)
    assert SCALED.reference_allowance < budget < SCALED.submission_seconds
    assert submission_budget(Limits(submission_seconds=1.0, reference_factor=20.0), jobs) == 1.0
    assert submission_budget(Limits(), jobs) == Limits().submission_seconds  # off by default


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_a_hostile_submission_is_stopped_by_the_scaled_budget_and_scores_0(tmp_path, kind):
    graded = grade_path(copy_hostile(tmp_path / kind, kind), SCALED)
    assert graded.score == 0.0
    assert all(t.status in (Status.ERROR, Status.TIMEOUT) for t in graded.tests), \
        [(t.name, t.status) for t in graded.tests if t.status not in (Status.ERROR, Status.TIMEOUT)]
    spent = [t for t in graded.tests if BUDGET_SPENT in t.output]
    if kind != "allocate":  # a call that fails at once may leave the budget unspent
        seconds = float(re.search(r"time budget of ([\d.]+) s", spent[0].output).group(1))
        assert SCALED.reference_allowance < seconds < SCALED.submission_seconds
