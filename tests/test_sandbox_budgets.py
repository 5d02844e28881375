"""Issue 7 class 5: a submission has budgets of CPU time, sleep, wall time and result bytes; once one is
spent its remaining tests are "not run (budget spent)" and score 0, the grader's memory stays bounded
with --jobs N, and the results store regrades when the limits change."""
import json
import subprocess
import sys

import numpy as np

from attnkit.grader.bench import copy_hostile, copy_solutions
from attnkit.grader.sandbox import Limits, run_submission
from attnkit.grader.sandbox_zygote import Zygote
from attnkit.paths import ROOT
from grading_support import grade_path, run_cli
from test_sandbox import JOBS, assert_correct, with_code

BUDGET_SPENT = "not run (budget spent)"
BIG = "np.zeros(1_900_000)"  # 15.2 MB: under the 16 MB a single call may return


def sleepy(tmp_path, seconds=1.85):
    """The solutions, sleeping `seconds` when each step is imported and in every call."""
    folder = copy_solutions(tmp_path / "sleepy")
    for path in sorted((tmp_path / "sleepy").glob("step*.py")):
        text = path.read_text(encoding="utf-8")
        text = text.replace('"""\n', f'"""\nimport time as _time\n_time.sleep({seconds})\n', 1)
        text = text.replace('    """\n', f'    """\n    _time.sleep({seconds})\n')
        path.write_text(text, encoding="utf-8")
    return folder


def test_a_submission_sleeping_at_import_and_in_every_call_is_cut_by_its_wall_time_budget(tmp_path):
    unlimited_sleep = {"call_idle_seconds": 60.0, "submission_idle_seconds": 60.0}  # only the wall time's backstop
    graded = grade_path(sleepy(tmp_path), Limits(submission_seconds=5.0, reference_factor=None, **unlimited_sleep))
    spent = [t for t in graded.tests if BUDGET_SPENT in t.output]
    ran = [t for t in graded.tests if BUDGET_SPENT not in t.output]
    assert len(ran) <= 3, [(t.name, t.status) for t in ran]  # 5 s is an import and a call or two
    assert len(spent) == len(graded.tests) - len(ran)
    assert all(t.score == 0.0 and t.status == "timeout" for t in spent)
    assert "5 s" in spent[0].output and graded.score < 10


def test_after_the_byte_budget_is_spent_the_remaining_calls_are_not_run():
    code = f"import numpy as np\ndef softmax(S):\n    return {BIG}\n"
    run = run_submission(with_code("step4_softmax", code), JOBS, Limits(submission_result_bytes=20_000_000))
    first, second = run.results["softmax#0"], run.results["softmax#1"]
    assert first.ending == "returned" and first.parts["P"].nbytes == 15_200_000
    assert second.ending == "budget" and "20000000 bytes" in second.error
    assert all(run.results[j.key].ending == "budget" for j in JOBS[7:])  # the later steps
    assert_correct(run, {j.key for j in JOBS[:5]})


def test_a_spent_budget_is_told_in_the_learners_language(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    code = f"import numpy as np\ndef softmax(S):\n    return {BIG}\n"
    run = run_submission(with_code("step4_softmax", code), JOBS, Limits(submission_result_bytes=20_000_000))
    assert run.results["softmax#1"].error.startswith("没有运行（预算已用完）：这份提交的结果已达到 20000000 字节的上限")


def test_the_grader_stays_small_with_jobs_when_every_call_returns_16_mb(tmp_path):
    folders = []
    for k in range(4):
        folder = copy_solutions(tmp_path / f"big{k}")
        for step, function in (("step4_softmax", "softmax"), ("step5_values", "weighted_sum"),
                               ("step6_head", "attention"), ("step2_scores", "scale_scores")):
            with open(f"{folder}/{step}.py", "a", encoding="utf-8") as f:
                f.write(f"\n\ndef {function}(*args, **kwargs):\n    import numpy as np\n    return {BIG}\n")
        folders.append(folder)
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec from the forked parent (pytest, large)
    program = ("import sys\nfrom attnkit.cli import main\ncode = main(sys.argv[1:])\n"
               "hwm = next(l for l in open('/proc/self/status') if l.startswith('VmHWM:')).split()[1]\n"
               "print('MAXRSS_KB', hwm, file=sys.stderr)\n"
               "sys.exit(code)")
    done = subprocess.run([sys.executable, "-c", program, "grade", *folders, "--json", "--jobs", "2"], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 4 and all(any(BUDGET_SPENT in t["output"] for t in r["tests"]) for r in rows)
    maxrss_mb = int(done.stderr.split("MAXRSS_KB ")[1].split()[0]) / 1024
    assert maxrss_mb < 600, maxrss_mb  # without budgets: GBs


def test_the_results_store_regrades_when_the_limits_change(tmp_path):
    sub = copy_solutions(tmp_path / "sub")
    out = str(tmp_path / "out")
    first = run_cli("grade", sub, "--out", out)
    again = run_cli("grade", sub, "--out", out)
    other_limits = run_cli("grade", sub, "--out", out, "--submission-seconds", "50")
    for done in (first, again, other_limits):
        assert done.returncode == 0, done.stderr
    assert "already graded" not in first.stdout and "already graded" in again.stdout
    assert "already graded" not in other_limits.stdout


def test_the_budgets_are_options_of_grade(tmp_path):
    done = run_cli("grade", copy_hostile(tmp_path / "loop", "loop"), "--json", "--submission-cpu-seconds", "0.5",
                   "--reference-factor", "0", "--submission-result-bytes", "1000000")
    assert done.returncode == 0, done.stderr
    tests = json.loads(done.stdout)["tests"]
    assert sum(BUDGET_SPENT in t["output"] and "0.5 s of CPU time" in t["output"] for t in tests) >= len(tests) - 2
    assert np.isclose(sum(t["score"] for t in tests), json.loads(done.stdout)["score"])


EIGHT_CHILDREN = """
import ctypes, os, subprocess, time
import numpy as np
def softmax(S):
    held, refused = [], []
    for k in range(8):  # each would hold 300 MB: 2.4 GB together, past the submission's 1 GB
        try:
            pid = os.fork()
        except OSError as err:
            refused.append(err.strerror)
            continue
        if pid == 0:
            block = np.ones(300 << 17)  # 300 MB
            time.sleep(5)
            os._exit(0)
        held.append(pid)
    for start in (lambda: subprocess.Popen(["/bin/true"]), lambda: os.posix_spawn("/bin/true", ["true"], {})):
        try:
            start()
            refused.append("started")
        except OSError as err:
            refused.append(err.strerror)
    libc = ctypes.CDLL(None, use_errno=True)
    outside = {"shmget": libc.shmget(0, 300 << 20, 0o1600), "memfd": libc.memfd_create(b"x", 0)}
    print("HELD", held, "REFUSED", refused, "OUTSIDE", outside)
    return np.zeros_like(S)
"""


def test_one_submission_is_one_process_so_its_memory_budget_covers_all_it_holds():
    run = run_submission(with_code("step4_softmax", EIGHT_CHILDREN), JOBS[5:6], Limits(call_seconds=10.0))
    line = next(line for line in run.stdout.splitlines() if line.startswith("HELD"))
    assert line.startswith("HELD [] REFUSED ['Operation not permitted'"), line
    assert "started" not in line and "'shmget': -1, 'memfd': -1" in line, line  # no memory beside RLIMIT_AS
    assert run.results["softmax#0"].ending == "returned"


def test_a_submission_whose_every_call_ends_its_process_is_not_restarted_past_its_cap(tmp_path, monkeypatch):
    """Each call of the 'allocate' hostile ends its process (a MemoryError past RLIMIT_AS): a function is not
    called again after two such calls, and once the submission's process has been ended max_restarts times
    its remaining tests are not run, saying why, instead of a fresh process for every call."""
    spawned = []
    real_spawn = Zygote.spawn
    monkeypatch.setattr(Zygote, "spawn", lambda self, limits: spawned.append(limits) or real_spawn(self, limits))
    graded = grade_path(copy_hostile(tmp_path / "allocate", "allocate"), Limits())
    cap = Limits().max_restarts
    assert len(spawned) <= cap + 1, len(spawned)
    assert graded.score == 0
    not_run = [t for t in graded.tests if f"ended {cap} times" in t.output]
    assert not_run and all(t.score == 0 and t.status == "error" for t in not_run), graded.tests[-1].output
    again = [t for t in graded.tests if "already ended its process 2 times" in t.output]
    assert again, [t.output for t in graded.tests[:6]]


def test_a_function_that_ends_its_process_costs_only_its_own_tests():
    code = "def softmax(S):\n    return bytearray(1 << 40)\n"
    run = run_submission(with_code("step4_softmax", code), JOBS, Limits())
    assert [run.results[key].ending for key in ("softmax#0", "softmax#1")] == ["crashed", "crashed"]
    assert_correct(run, {j.key for j in JOBS if j.function != "softmax"})


def test_a_test_not_run_after_crashes_says_why_and_not_that_something_timed_out(tmp_path):
    """A function whose calls end its process is not called again; its later tests say so, with advice about
    the process ending, not the advice for calls that time out."""
    folder = copy_solutions(tmp_path / "exits")
    path = tmp_path / "exits" / "step5_values.py"
    path.write_text(path.read_text(encoding="utf-8").replace("return P @ V", "__import__('os')._exit(1)"),
                    encoding="utf-8")
    graded = grade_path(folder, Limits())
    not_run = [t.output for t in graded.tests if "already ended its process" in t.output]
    assert not_run and not [text for text in not_run if "timed out" in text], not_run[:1]
