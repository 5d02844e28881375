"""No double penalty, cheaply: an earlier step that passed every one of its cases serves the later
steps that import it with the learner's own module; only the steps that failed a case are proxies
the grader answers with the reference's results (docs/GRADING.md, *No double penalty*)."""
from collections import Counter
from pathlib import Path

import pytest

from attnkit.grader import sandbox_runner, submission
from attnkit.grader.bench import EDITS, copy_solutions
from attnkit.grader.runners import SandboxRunner
from attnkit_runtime.harness import Ending
from grading_support import assert_only_functions_lost, grade_path, plan


@pytest.fixture
def asked(monkeypatch):
    """Counter of (module, function) the child asked the grader for while the test graded."""
    counts, real = Counter(), sandbox_runner.answer

    def counting(step, request, *args, **kwargs):
        counts[request[0].get("module"), request[0].get("function")] += 1
        return real(step, request, *args, **kwargs)

    monkeypatch.setattr(sandbox_runner, "answer", counting)
    return counts


def test_earlier_steps_that_passed_everything_are_the_learners_own(tmp_path, asked):
    graded = grade_path(copy_solutions(tmp_path / "s"))
    assert graded.score == graded.max_score
    assert asked == Counter()


def test_only_a_failed_earlier_step_is_asked_for_and_it_costs_only_its_own_step(tmp_path, asked):
    graded = grade_path(copy_solutions(tmp_path / "s", EDITS[0]))  # scale_missing in step 2
    assert_only_functions_lost(graded, {("step2_scores", "scale_scores")})
    assert graded.steps["step6_head"] == (24.0, 24.0)
    assert asked and {module for module, _ in asked} == {"step2_scores"}


def test_a_step_whose_child_was_replaced_is_asked_for_again(tmp_path, asked):
    """Step 5 leaves a thread behind: step 6 runs in a fresh child, without the learner's steps 1-5."""
    folder = tmp_path / "s"
    copy_solutions(folder)
    path = folder / "step5_values.py"
    path.write_text("import threading, time\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
                    + path.read_text(encoding="utf-8"), encoding="utf-8")
    graded = grade_path(folder)
    assert graded.score == graded.max_score
    assert "step5_values" in {module for module, _ in asked}


def test_a_stub_left_in_an_earlier_own_step_comes_back_as_a_field_not_in_the_words(tmp_path):
    """Step 5 passed every case but keeps a stub that step 6 calls: the reply names step 5 as a field."""
    folder = copy_solutions(tmp_path / "s")
    step5, step6 = Path(folder) / "step5_values.py", Path(folder) / "step6_head.py"
    step5.write_text(step5.read_text(encoding="utf-8") + "\n\ndef helper():\n    raise NotImplementedError('later')\n",
                     encoding="utf-8")
    step6.write_text(step6.read_text(encoding="utf-8").replace(
        "def attention(Q, K, V, visible=None):\n", "def attention(Q, K, V, visible=None):\n"
        "    import step5_values\n    step5_values.helper()\n", 1), encoding="utf-8")
    sub = submission.read(folder)
    attention = next(job for job in plan().jobs if job.step == "step6_head" and job.function == "attention")
    jobs = [job for job in plan().jobs if job.step == "step5_values"] + [attention]
    run = SandboxRunner()(sub.sources, jobs, lambda step, results: True)  # step 5 serves as its own
    result = run.results[attention.key]
    assert result.ending == Ending.NOT_WRITTEN and result.earlier_stub == "step5_values"
