"""The default time limits count the learner's own process, not the clock (sandbox_meter): the CPU time it
uses and the time it sleeps, per call and per submission, scaled to the reference's CPU time on the same
calls. A machine made busy by CPU hogs (four runnable processes per CPU beside the grader) inflates
neither, so honest submissions keep their points there, while code that spins or sleeps is stopped by
those limits and the rest of its submission keeps its points."""
import dataclasses
import os
import shutil
import subprocess
import sys

import pytest

from attnkit.grader import bench
from attnkit.grader.sandbox import Limits, run_submission
from attnkit.grader.sandbox_types import Limit
from attnkit.paths import ROOT
from attnkit_runtime.harness import Ending
from grading_support import grade_path
from test_sandbox import JOBS, assert_correct, with_code

# as Plan's jobs are: the reference's time on each call known (a small call takes it microseconds)
TIMED_JOBS = [dataclasses.replace(job, reference_seconds=1e-4) for job in JOBS]
SPIN = "def softmax(S):\n    while True:\n        pass\n"
SLEEP = "import time\ndef raw_scores(Q, K):\n    time.sleep(3600)\n"


@pytest.fixture
def busy_machine():
    """Four processes per CPU that never stop computing, for the test's length."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4 * (os.cpu_count() or 1))]
    yield
    for hog in hogs:
        hog.kill()
        hog.wait()


@pytest.mark.parametrize("limits", [Limits(), Limits(reference_factor=20.0)], ids=["default", "factor_20"])
def test_an_honest_slow_submission_keeps_its_points_on_a_busy_machine(tmp_path, busy_machine, limits):
    graded = grade_path(bench.copy_slow(tmp_path / "slow"), limits)  # Python loops over rows and columns
    assert graded.score == 100, [(t.name, t.status, t.output) for t in graded.tests if t.status != "passed"]


def test_the_stubs_later_steps_waiting_on_the_reference_do_not_time_out_on_a_busy_machine(tmp_path, busy_machine):
    shutil.copytree(ROOT / "exercises", tmp_path / "stubs", ignore=shutil.ignore_patterns("__pycache__"))
    graded = grade_path(tmp_path / "stubs", Limits())
    assert not [t.name for t in graded.tests if t.status == "timeout"]


def test_a_function_that_spins_is_stopped_by_its_cpu_limit_and_one_that_sleeps_by_its_sleep_limit():
    sources = with_code("step2_scores", SLEEP, with_code("step4_softmax", SPIN))
    run = run_submission(sources, TIMED_JOBS, Limits())
    softmax = [run.results[job.key] for job in TIMED_JOBS if job.function == "softmax"]
    assert [(r.ending, r.exc_type) for r in softmax[:2]] == [(Ending.TIMEOUT, Limit.CPU)] * 2, softmax[:2]
    assert f"{Limits().call_floor_seconds:g} s of CPU time" in softmax[0].error  # the floor: a call of microseconds
    assert (run.results["raw_scores"].ending, run.results["raw_scores"].exc_type) == (Ending.TIMEOUT, Limit.IDLE)
    assert_correct(run, {job.key for job in TIMED_JOBS if job.function not in ("softmax", "raw_scores")})


def test_a_function_that_sleeps_between_calls_of_an_earlier_step_is_stopped_by_its_sleep_limit():
    """Its earlier step's calls are answered by the grader every few hundredths of a second: only the time
    the grader spent answering them is not the learner's, the sleep in between is."""
    sleeper = ("import time\ndef attention(Q, K, V, visible=None):\n    while True:\n        time.sleep(0.02)\n"
               "        softmax(Q[..., :1])\n")
    run = run_submission(with_code("step6_head", sleeper), TIMED_JOBS, Limits())
    attention = run.results["attention"]
    assert (attention.ending, attention.exc_type) == (Ending.TIMEOUT, Limit.IDLE), attention
    assert_correct(run, {job.key for job in TIMED_JOBS if job.step != "step6_head"})


def test_a_step_that_sleeps_while_being_imported_is_stopped_by_the_sleep_limit():
    run = run_submission(with_code("step4_softmax", "import time\ntime.sleep(3600)\n"), TIMED_JOBS, Limits())
    softmax = run.results[next(job.key for job in TIMED_JOBS if job.function == "softmax")]
    assert (softmax.ending, softmax.exc_type) == (Ending.TIMEOUT, Limit.IDLE), softmax
    assert "step4_softmax.py (while being imported)" in softmax.error
    assert_correct(run, {job.key for job in TIMED_JOBS if job.step != "step4_softmax"})


def test_a_submission_whose_every_function_spins_is_stopped_by_its_cpu_budget(tmp_path):
    graded = grade_path(bench.copy_hostile(tmp_path / "loop", "loop"), Limits())
    spent = [t for t in graded.tests if "CPU time" in t.output and "budget" in t.output]
    assert spent and graded.score == 0
