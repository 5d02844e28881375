"""The sandbox that runs learner code: correct answers come back, and every trick costs only its
own jobs, never crashes the grader, and never lets the kit's secrets out.

Adversarial submissions are built here from the reference solutions, each with one file changed.
"""
import ast
import dataclasses
import os
import socket
import subprocess
import sys
import threading

import numpy as np
import pytest

from attnkit import cases, manifest, stubs
from attnkit_runtime.judge import named_outputs
from attnkit.grader import sandbox, sandbox_runner
from attnkit.grader.reference_worker import WORKERS
from attnkit.grader.sandbox import Job, Limits, run_submission
from attnkit.grader.sandbox_zygote import LEARNER_UIDS
from attnkit.paths import HIDDEN_CASES_DIR, ROOT, SOLUTIONS_DIR
from attnkit.reference import reference_function

FAST = Limits(call_seconds=1.0)
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="the OS-level barrier needs root; without it "
                                                         "only a clean environment protects the kit (SECURITY.md)")

_rng = np.random.default_rng(0)
JOBS = [
    Job("project", "step1_projection", "project", ("out",),
        {"Z": _rng.standard_normal((3, 4)), "W": _rng.standard_normal((4, 2)), "b": _rng.standard_normal(2)}),
    Job("raw_scores", "step2_scores", "raw_scores", ("kq",),
        {"Q": _rng.standard_normal((3, 2)), "K": _rng.standard_normal((3, 2))}),
    Job("scale", "step2_scores", "scale_scores", ("scaled",), {"kq": _rng.standard_normal((3, 3)), "d_h": 4}),
    Job("causal", "step3_masks", "causal_visible", ("visible",), {"n_query": 2, "n_key": 5}),
    Job("combine", "step3_masks", "combine_visible", ("visible",),
        {"*visibles": [np.tril(np.ones((3, 3), dtype=bool)), np.array([True, True, False])]}),
    Job("softmax#0", "step4_softmax", "softmax", ("P",), {"S": np.array([[0.0, 1.0, 2.0]])}),
    Job("softmax#1", "step4_softmax", "softmax", ("P",), {"S": np.array([[1000.0, 0.0], [-np.inf, -np.inf]])}),
    Job("weighted_sum", "step5_values", "weighted_sum", ("O",),
        {"P": np.array([[0.5, 0.5]], dtype=np.float32), "V": np.ones((2, 3), dtype=np.float32)}),
    Job("attention", "step6_head", "attention", ("O", "P"),
        {"Q": _rng.standard_normal((2, 3, 4)), "K": _rng.standard_normal((2, 3, 4)),
         "V": _rng.standard_normal((2, 3, 4)), "visible": None}),
]


def reference_sources():
    return {p.name: p.read_text(encoding="utf-8") for p in SOLUTIONS_DIR.glob("*.py")}


def with_code(step, code, base=None):
    """The reference submission with `code` appended to `step`'s file (a later def replaces one)."""
    sources = dict(base or reference_sources())
    sources[f"{step}.py"] += "\n\n" + code.strip() + "\n"
    return sources


def expected(job):
    args = [v for k, vs in job.kwargs.items() if k.startswith("*") for v in vs]
    kwargs = {k: v for k, v in job.kwargs.items() if not k.startswith("*")}
    return named_outputs(job.returns, reference_function(job.step, job.function)(*args, **kwargs))


def assert_correct(run, keys):
    for job in JOBS:
        if job.key in keys:
            got = run.results[job.key]
            assert got.ending == "returned", (job.key, got)
            for name, value in expected(job).items():
                assert type(got.parts[name]) is np.ndarray and got.parts[name].dtype == np.asarray(value).dtype
                np.testing.assert_array_equal(got.parts[name], value)


def others(*bad):
    return {job.key for job in JOBS} - set(bad)


def live_cmdlines(marker):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            with open(f"/proc/{pid}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and state != "Z":
            found.append(cmd)
    return found


# ------------------------------------------------------------------ what must work

def test_correct_submission_gives_the_reference_results_on_the_whole_catalogue():
    jobs = [Job(f"{c.name}#{k}", c.step.module, c.function, c.returns, kw)
            for c in cases.all_cases() for k, kw in enumerate(c.build_calls())]
    run = run_submission(reference_sources(), jobs)
    assert {key: r.ending for key, r in run.results.items() if r.ending != "returned"} == {}
    assert set(run.results) == {job.key for job in jobs}
    assert_correct(run_submission(reference_sources(), JOBS), others())


def test_arguments_keep_their_types_and_inputs_are_writable_copies():
    code = """
def scale_scores(kq, d_h):
    kq[...] = 0.0  # writing to an input must not fail (the public tests pass writable arrays too)
    return np.array([type(d_h).__name__, kq.dtype.name, str(kq.flags.writeable)]).view(np.uint8)
"""
    jobs = [Job(f"scale#{k}", "step2_scores", "scale_scores", ("scaled",), {"kq": kq, "d_h": d_h})
            for k, (kq, d_h) in enumerate([(np.ones((2, 2), dtype=np.float32), np.float64(4.0)),
                                           (np.ones((1, 1)), 4), (np.ones(1), True)])]
    run = run_submission(with_code("step2_scores", code), jobs)
    seen = [run.results[f"scale#{k}"].parts["scaled"].view("<U7").tolist() for k in range(3)]
    assert seen == [["float64", "float32", "True"], ["int", "float64", "True"], ["bool", "float64", "True"]]
    assert jobs[0].kwargs["kq"].sum() == 4.0  # the grader's own copy is untouched


def test_stubs_are_not_done_and_a_missing_file_is_a_load_error():
    sources = {name: (stubs.strip_solutions(text, manifest.step(name[:-3])) if name.startswith("step") else text)
               for name, text in reference_sources().items()}
    del sources["step5_values.py"]
    run = run_submission(sources, JOBS)
    for job in JOBS:
        got = run.results[job.key]
        if job.step == "step5_values":
            assert (got.ending, got.error) == ("load_error", "step5_values.py is missing")
        else:
            assert got.ending == "not_written" and got.exc_type == "NotImplementedError", (job.key, got)
            assert "not written yet" in got.error and got.parts is None


def test_errors_name_the_exception_and_the_learners_lines_only():
    run = run_submission(with_code("step4_softmax", "def softmax(S):\n    return S.no_such_thing"), JOBS)
    got = run.results["softmax#0"]
    assert got.ending == "raised" and got.exc_type == "AttributeError"
    assert "step4_softmax.py, line" in got.error and "return S.no_such_thing" in got.error
    assert str(ROOT) not in got.error and "sandbox" not in got.error
    assert_correct(run, others("softmax#0", "softmax#1"))


def test_concurrent_submissions_from_threads():
    bad = with_code("step4_softmax", "def softmax(S):\n    import os; os._exit(1)")
    runs = {}

    def grade(name, sources):
        runs[name] = run_submission(sources, JOBS)

    threads = [threading.Thread(target=grade, args=(k, bad if k % 2 else reference_sources())) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, run in runs.items():
        assert_correct(run, others("softmax#0", "softmax#1") if k % 2 else others())
    assert len(runs) == 4


def test_a_zygote_outlives_the_thread_that_started_it(monkeypatch):
    # batch workers come and go; a zygote one of them started serves the next (it ends with its control socket)
    import subprocess
    from attnkit.grader.sandbox_zygote import ZygotePool
    pool = ZygotePool()
    monkeypatch.setattr(sandbox, "_POOL", pool)
    thread = threading.Thread(target=run_submission, args=(reference_sources(), JOBS[:1]))
    thread.start()
    thread.join()
    zygote = pool._idle[0]
    with pytest.raises(subprocess.TimeoutExpired):
        zygote.proc.wait(1.0)  # still running a second after its thread ended
    assert_correct(run_submission(reference_sources(), JOBS), others())
    assert pool._idle == [zygote]
    pool.close()


def test_barrier_is_described():
    text = sandbox.barrier_description()
    assert text
    if os.geteuid() == 0:
        assert "private root filesystem" in text and "uid 65534" in text


def test_barrier_is_described_in_the_graders_language(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    text = sandbox.barrier_description()
    assert "private root filesystem" not in text and "seccomp" in text
    if os.geteuid() == 0:
        assert "私有的根文件系统" in text and "uid 65534" in text
    monkeypatch.setenv("ATTNKIT_LANG", "en")
    assert "私有" not in sandbox.barrier_description()  # the same zygote, asked again in English


def test_isolation_without_the_barrier_is_described_in_the_graders_language(monkeypatch):
    from attnkit.grader import sandbox_barrier, sandbox_zygote
    monkeypatch.setattr(sandbox_barrier, "bwrap", lambda: "/bin/false")
    pool = sandbox_zygote.ZygotePool()
    monkeypatch.setattr(sandbox, "_POOL", pool)
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    try:
        with pytest.raises(sandbox.BarrierUnavailable, match="bubblewrap 无法建起沙箱"):
            sandbox.barrier_description()
        assert sandbox.barrier_description(allow_no_barrier=True).startswith("无：bubblewrap 无法建起沙箱")
    finally:
        pool.close()


# ------------------------------------------------------------------ exits, crashes, hangs


@pytest.mark.parametrize("code, status, exc_type, says", [
    ("import os\nos._exit(3)", "crashed", "", "exit code 3"),
    ("import ctypes\nctypes.string_at(0)", "crashed", "", "SIGSEGV"),
    ("raise KeyboardInterrupt", "crashed", "KeyboardInterrupt", "KeyboardInterrupt"),
    ("raise SystemExit(2)", "crashed", "SystemExit", "SystemExit"),
    ("import numpy as np\nreturn np.ones(10**11)", "crashed", "MemoryError", "MemoryError"),
    ("import numpy as np\nblocks = []\nwhile True:\n    blocks.append(np.empty(10**7))", "crashed", "MemoryError",
     "MemoryError"),
], ids=["os._exit", "segfault", "KeyboardInterrupt", "SystemExit", "np.ones(1e11)", "growing list"])
def test_a_dying_function_costs_only_its_own_calls(code, status, exc_type, says):
    body = "\n".join("    " + line for line in code.splitlines())
    run = run_submission(with_code("step4_softmax", f"def softmax(S):\n{body}"), JOBS, FAST)
    for key in ("softmax#0", "softmax#1"):
        got = run.results[key]
        assert (got.ending, got.exc_type) == (status, exc_type), got
        assert says in got.error
    assert_correct(run, others("softmax#0", "softmax#1"))


def test_a_list_growing_past_the_memory_cap_costs_only_its_own_calls():
    code = "def softmax(S):\n    x = [0] * 10**6\n    while True:\n        x += x"
    run = run_submission(with_code("step4_softmax", code), JOBS, Limits(call_seconds=1.0, memory_mb=400))
    for key in ("softmax#0", "softmax#1"):  # MemoryError at the cap, or out of time on a slow machine
        assert run.results[key].ending in ("crashed", "timeout"), run.results[key]
    assert_correct(run, others("softmax#0", "softmax#1"))


def test_an_endless_loop_times_out_and_the_rest_of_the_step_still_runs():
    jobs = JOBS + [Job(f"raw_scores#{k}", "step2_scores", "raw_scores", ("kq",), JOBS[1].kwargs) for k in range(3)]
    sources = with_code("step2_scores", "def raw_scores(Q, K):\n    while True:\n        pass")
    run = run_submission(sources, jobs, Limits(call_seconds=0.3))
    endings = [run.results[k].ending for k in ("raw_scores", "raw_scores#0", "raw_scores#1", "raw_scores#2")]
    assert endings == ["timeout"] * 2 + ["not_run"] * 2  # after two timeouts the rest is skipped
    assert "did not finish within 0.3 s" in run.results["raw_scores"].error
    assert run.results["raw_scores#2"].error == (
        "not run (raw_scores() already ran out of time 2 times): make the calls that timed out finish first")
    assert_correct(run, others("raw_scores"))


def test_a_reference_workers_start_is_the_graders_time_not_the_learners():
    WORKERS.close()  # none idle: step 6's first "ref" request starts a python that loads the reference (> 0.1 s)
    run = run_submission(reference_sources(), JOBS, Limits(call_seconds=0.1))
    assert_correct(run, others())


@pytest.mark.parametrize("code, status, says", [
    ("import sys\nsys.exit()", "load_error", "failed while being imported: SystemExit"),
    ("def raw_scores(Q, K)\n    return Q", "load_error", "syntax error on line"),
    ("import a_module_that_does_not_exist", "load_error", "ModuleNotFoundError"),
    ("import os\nos._exit(4)", "crashed", "while being imported"),
    ("while True:\n    pass", "timeout", "being imported"),
], ids=["sys.exit", "syntax error", "import error", "os._exit", "endless loop"])
def test_a_file_that_cannot_be_imported_costs_only_its_step(code, status, says):
    run = run_submission(with_code("step2_scores", code), JOBS, Limits(call_seconds=0.5))
    for key in ("raw_scores", "scale"):
        got = run.results[key]
        assert got.ending == status and says in got.error, got
    assert_correct(run, others("raw_scores", "scale"))


def test_a_submission_cannot_start_a_process():
    code = """
def softmax(S):
    import os, subprocess
    refused = []
    for start in (lambda: subprocess.Popen(["sleep", "4242"]), os.fork,
                  lambda: os.posix_spawn("/bin/sleep", ["sleep", "4243"], {})):
        try:
            refused.append(start() == 0 and os._exit(0))
        except PermissionError:
            refused.append("refused")
    refused.append("refused" if os.system("setsid sleep 4244 &") else "ran")  # 127: the shell never started
    print("STARTED", refused)
    return _reference_softmax(S)
"""
    sources = with_code("step4_softmax", "_reference_softmax = softmax\n" + code)
    run = run_submission(sources, JOBS, FAST)
    assert_correct(run, others())
    assert "STARTED ['refused', 'refused', 'refused', 'refused']" in run.stdout, run.stdout
    assert live_cmdlines("sleep 424") == []


@ROOT_ONLY
def test_files_left_in_tmp_do_not_reach_the_next_submission():
    leave = "_reference_softmax = softmax\ndef softmax(S):\n    open('/tmp/left-behind', 'w').write('x')\n" \
            "    open('/dev/shm/left-behind', 'w').write('x')\n    return _reference_softmax(S)"
    look = "_reference_softmax = softmax\ndef softmax(S):\n    import os\n" \
           "    print('LEFT', os.listdir('/tmp'), os.listdir('/dev/shm'))\n    return _reference_softmax(S)"
    run_submission(with_code("step4_softmax", leave), JOBS[5:6])
    run = run_submission(with_code("step4_softmax", look), JOBS[5:6])
    assert "left-behind" not in run.stdout and "LEFT" in run.stdout


def test_a_fork_bomb_costs_only_its_own_calls():
    code = """
def softmax(S):
    import os, time
    while True:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
"""
    run = run_submission(with_code("step4_softmax", code), JOBS, Limits(call_seconds=0.5))
    got = run.results["softmax#0"]
    assert (got.ending, got.exc_type) == ("raised", "PermissionError"), got  # the first fork is refused
    assert_correct(run, others("softmax#0", "softmax#1"))


def test_a_step_that_leaves_a_thread_behind_does_not_share_its_process_with_the_next_step():
    step1 = """
import os, threading, time
def _saboteur():  # waits in the background until step 3 runs, then takes the process down
    for _ in range(500):
        if os.path.exists("step3-started"):
            os._exit(9)
        time.sleep(0.01)
threading.Thread(target=_saboteur, daemon=True).start()
"""
    step3 = """
_reference_causal_visible = causal_visible
def causal_visible(n_query, n_key=None):
    import time
    open("step3-started", "w").close()
    time.sleep(0.1)
    return _reference_causal_visible(n_query, n_key)
"""
    sources = with_code("step3_masks", step3, with_code("step1_projection", step1))
    assert_correct(run_submission(sources, JOBS), others())


# ------------------------------------------------------------------ output and the protocol channel

def test_output_is_captured_from_python_and_c_level_and_never_parsed():
    fake = '{"nonce": "0", "status": "ok", "error": "", "exc_type": "", "arrays": []}'
    code = f"""
import os, sys, ctypes
print({fake!r})
_reference_softmax = softmax
def softmax(S):
    print("hello from softmax", {fake!r})
    os.write(1, b"raw fd write\\n")
    os.write(2, b"to stderr\\n")
    ctypes.CDLL(None).printf(b"C printf\\n")
    return _reference_softmax(S)
"""
    run = run_submission(with_code("step4_softmax", code), JOBS)
    assert_correct(run, others())
    assert fake in run.stdout and "hello from softmax" in run.stdout
    assert "raw fd write" in run.stdout and "C printf" in run.stdout
    assert "to stderr" in run.stderr


def test_output_is_capped():
    code = "_reference_softmax = softmax\ndef softmax(S):\n    print('x' * 100_000)\n    return _reference_softmax(S)"
    run = run_submission(with_code("step4_softmax", code), JOBS, Limits(output_bytes=1000))
    assert len(run.stdout) < 1100 and "more bytes not kept" in run.stdout
    assert_correct(run, others())


@pytest.mark.parametrize("payload", [
    b"garbage that is not a message",
    b"\xff\xff\xff\xff",  # a header length of 4 GB
    b'\x00\x00\x00\x4f{"nonce": "x", "status": "ok", "arrays": [{"name": "P", "dtype": "|O", "shape": [1]}]}',
], ids=["garbage", "huge length", "fake message"])
def test_writing_to_the_protocol_socket_costs_only_that_call(payload):
    code = f"_reference_softmax = softmax\ndef softmax(S):\n    import os\n    os.write(3, {payload!r})\n" \
           "    return _reference_softmax(S)"
    run = run_submission(with_code("step4_softmax", code), JOBS, FAST)
    for key in ("softmax#0", "softmax#1"):
        assert run.results[key].ending in ("garbled", "timeout", "crashed"), run.results[key]
    assert_correct(run, others("softmax#0", "softmax#1"))


def test_patching_numpy_in_the_child_changes_nothing_here():
    code = """
import numpy as np
np.allclose = np.isclose = np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = np.testing.assert_array_equal = lambda *a, **k: None
"""
    run = run_submission(with_code("step1_projection", code), JOBS)
    assert_correct(run, others())
    assert not np.allclose(1.0, 2.0) and not np.array_equal([1], [2])
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(1.0, 2.0)


@pytest.mark.parametrize("returned, says", [
    ("__import__('pickle').dumps(__import__('os').system)", "bytes"),
    ("np.array([object()])", "dtype object"),
    ("np.array(['text'])", "dtype <U4"),
    ("np.zeros(3, dtype=[('a', 'f8')])", "dtype"),
    ("[[1.0, 2.0]]", "list"),
    ("np.zeros((4000, 4000))", "bytes of arrays"),
], ids=["pickle bytes", "object array", "str array", "structured", "list", "gigantic"])
def test_only_numeric_arrays_come_back(returned, says):
    code = f"import numpy as np\ndef softmax(S):\n    return {returned}"
    run = run_submission(with_code("step4_softmax", code), JOBS)
    got = run.results["softmax#0"]
    assert got.ending == "returned" and got.parts is None and says in got.unnamed, got
    assert_correct(run, others("softmax#0", "softmax#1"))


@pytest.mark.parametrize("returned, shape, dtype", [
    ("np.float32(0.5)", (), np.float32), ("2.5", (), np.float64), ("np.array(True)", (), bool),
    ("np.ones((3, 4)).T", (4, 3), np.float64), ("np.zeros((0, 3), dtype=np.int32)", (0, 3), np.int32),
], ids=["numpy scalar", "float", "0-d bool", "transposed view", "empty"])
def test_results_keep_their_shape_and_dtype(returned, shape, dtype):
    run = run_submission(with_code("step4_softmax", f"def softmax(S):\n    return {returned}"), JOBS)
    got = run.results["softmax#0"].parts["P"]
    assert got.shape == shape and got.dtype == dtype
    np.testing.assert_array_equal(got, eval(returned))


def test_an_ndarray_subclass_comes_back_as_a_plain_array():
    code = """
import numpy as np
class Sneaky(np.ndarray):
    def __reduce__(self):
        return (print, ("unpickled!",))
_reference_softmax = softmax
def softmax(S):
    return _reference_softmax(S).view(Sneaky)
"""
    run = run_submission(with_code("step4_softmax", code), JOBS)
    assert_correct(run, others())


# ------------------------------------------------------------------ secrets

SPY = r"""
import gc, os, sys, types
_reference_softmax = softmax

def _readable(path):
    try:
        with open(path, "rb") as f:
            return f.read(200)
    except OSError:
        return None

def _found_on_disk(top, depth=6):
    hits = []
    for folder, dirs, files in os.walk(top):
        deep = folder.count(os.sep) - top.count(os.sep) >= depth
        dirs[:] = [] if deep else [d for d in dirs if d not in (".git", "__pycache__", "proc", "sys", "dev")]
        hits += [os.path.join(folder, f) for f in files
                 if f in ("step4_softmax.yaml", "step4_softmax.py", "manifest.yaml") or f.startswith("mistakes")]
    return [h for h in hits if _readable(h) is not None]

def _found_via_site(site):
    # follow what the installed kit leaves in site-packages (an editable install's paths)
    import re
    hits = []
    for entry in os.listdir(site):
        path = os.path.join(site, entry)
        if "attnkit" in entry and os.path.isdir(path):
            hits += _found_on_disk(path, 3)
        elif "attnkit" in entry:
            for named in re.findall(r"/[\w./-]+", (_readable(path) or b"").decode(errors="replace")):
                hits += [p for p in (named + "/attnkit/data/cases/step4_softmax.yaml",
                                     named + "/data/cases/step4_softmax.yaml") if _readable(p)]
    return hits

def _reference_in_memory():
    return [m.__name__ for m in gc.get_objects() if isinstance(m, types.ModuleType)
            and m.__name__.startswith("step") and not str(getattr(m, "__file__", "")).endswith(".py")]

def softmax(S):
    import numpy
    site = os.path.dirname(os.path.dirname(numpy.__file__))
    found = {
        "uid": os.getuid(),
        "cases": _readable(%(cases)r), "solution": _readable(%(solution)r),
        "via proc": _readable("/proc/1/root" + %(solution)r),
        "disk": _found_on_disk("/work") + _found_via_site(site) + _found_on_disk(%(root)r),
        "memory": _reference_in_memory(), "cwd": os.getcwd(), "path": sys.path, "env": dict(os.environ),
    }
    found["interfaces"] = [name for _, name in __import__("socket").if_nameindex()]
    for name in ("attnkit", "step4_softmax", "solutions.step4_softmax"):
        try:
            __import__(name)
            found["import " + name] = True
        except Exception:
            pass
    print("SPY", found)
    return _reference_softmax(S)
"""


def spy_sources(step="step4_softmax"):
    values = {"cases": str(HIDDEN_CASES_DIR / "step4_softmax.yaml"),
              "solution": str(SOLUTIONS_DIR / "step4_softmax.py"), "root": str(ROOT)}
    return with_code(step, SPY % values)


def test_the_child_has_a_clean_environment():
    run = run_submission(spy_sources(), JOBS)
    assert_correct(run, others())
    report = run.stdout
    assert "SPY" in report
    child_path = ast.literal_eval(report.split("'path': ")[1].split(", 'env'")[0])
    kit = [p for p in child_path if (p + "/").startswith(str(ROOT) + "/") and not p.startswith(sys.prefix)]
    assert not kit, child_path  # no kit folder on sys.path (a virtualenv inside the clone is python's own)
    assert "'cwd': '/work" not in report and "'import " not in report  # neither attnkit nor a reference
    assert "'memory': []" in report  # no reference of the graded step (or any step) in its process


@ROOT_ONLY
def test_the_child_cannot_read_the_hidden_cases_solutions_or_mistakes():
    run = run_submission(spy_sources(), JOBS)
    assert_correct(run, others())
    report = run.stdout
    assert "'uid': 65534" in report and "'interfaces': ['lo']" in report  # no network
    for key in ("cases", "solution", "via proc"):
        assert f"'{key}': None" in report, report
    assert "'disk': []" in report, report
    assert "BEGIN SOLUTION" not in report and "softmax_three_scores" not in report


@ROOT_ONLY
def test_a_step_imports_the_kits_modules_of_earlier_steps_and_none_of_its_own():
    code = SPY.replace("def softmax(S):", "def _spy(S):").replace("_reference_softmax = softmax", "") \
        .replace("return _reference_softmax(S)", "return None")
    sources = with_code("step6_head", code % {"cases": "", "solution": "", "root": "/nonexistent"}
                        + "\n_reference_attention = attention\n"
                        "def attention(Q, K, V, visible=None):\n    _spy(None)\n"
                        "    return _reference_attention(Q, K, V, visible)")
    run = run_submission(sources, JOBS)
    assert_correct(run, others())
    memory = run.stdout.split("'memory': ")[1].split("]")[0]
    assert "step6_head" not in memory and "step4_softmax" in memory  # the kit's (test_sandbox_reference.py)


# ------------------------------------------------------------------ without the barrier

@pytest.fixture
def no_barrier(monkeypatch):
    """A pool of zygotes started as if the grader had no rights to set up the barrier."""
    from attnkit.grader import sandbox_zygote
    monkeypatch.setattr(sandbox_zygote, "barrier_possible", lambda: (False, "switched off by the test"))
    pool = sandbox_zygote.ZygotePool()
    monkeypatch.setattr(sandbox, "_POOL", pool)
    yield
    pool.close()


def test_without_the_barrier_crashes_hangs_and_processes_are_still_handled(no_barrier):
    code = """
import os
_reference_softmax = softmax
def softmax(S):
    if S.shape[0] == 1:
        try:
            os.posix_spawn("/bin/sleep", ["sleep", "4245"], dict(os.environ))
        except PermissionError:
            print("SPAWN refused")
        return _reference_softmax(S)
    os._exit(5)

def weighted_sum(P, V):
    while True:
        pass
"""
    sources = with_code("step4_softmax", code)
    sources["step5_values.py"] = "def weighted_sum(P, V):\n    while True:\n        pass\n"
    run = run_submission(sources, JOBS, Limits(call_seconds=0.3), allow_no_barrier=True)
    assert run.isolation.startswith("none: switched off by the test")
    assert run.results["softmax#1"].ending == "crashed" and "exit code 5" in run.results["softmax#1"].error
    assert run.results["weighted_sum"].ending == "timeout"
    assert_correct(run, others("softmax#1", "weighted_sum"))
    assert "SPAWN refused" in run.stdout and live_cmdlines("sleep 424") == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can run learner code as another user")
def test_without_the_barrier_root_runs_learner_code_under_a_uid_of_its_own(no_barrier, tmp_path):
    secret = tmp_path / "secret.txt"  # root-only, as the Gradescope bundle leaves its secrets
    secret.write_text("hidden")
    secret.chmod(0o600)
    code = f"""
import os
_reference_softmax = softmax
def softmax(S):
    try:
        print("SPY read", open({str(secret)!r}).read())
    except OSError as err:
        print("SPY denied", type(err).__name__, "uid", os.getuid())
    return _reference_softmax(S)
"""
    run = run_submission(with_code("step4_softmax", code), JOBS, allow_no_barrier=True)
    assert run.isolation.startswith("none: switched off by the test")
    assert_correct(run, others())
    assert "SPY read" not in run.stdout
    uids = {int(line.rsplit(" ", 1)[1]) for line in run.stdout.splitlines() if line.startswith("SPY denied PermissionError uid")}
    assert len(uids) == 1 and uids <= set(LEARNER_UIDS), run.stdout  # the first free one: others may be graded meanwhile
    assert "uid of its own" in run.isolation


def test_when_bubblewrap_cannot_build_the_sandbox_the_grader_refuses_and_says_why(monkeypatch):
    from attnkit.grader import sandbox_barrier, sandbox_zygote
    monkeypatch.setattr(sandbox_barrier, "bwrap", lambda: "/bin/false")  # as bwrap exits where user namespaces are denied
    pool = sandbox_zygote.ZygotePool()
    monkeypatch.setattr(sandbox, "_POOL", pool)
    with pytest.raises(sandbox.BarrierUnavailable, match="bubblewrap could not build the sandbox"):
        sandbox.barrier_description()
    assert sandbox.barrier_description(allow_no_barrier=True).startswith("none: bubblewrap could not build")
    pool.close()


def test_without_the_barrier_the_sandbox_refuses_unless_allowed(no_barrier, tmp_path):
    marker = tmp_path / "ran"
    sources = with_code("step1_projection", f"open({str(marker)!r}, 'w').close()")
    with pytest.raises(sandbox.BarrierUnavailable, match="switched off by the test"):
        run_submission(sources, JOBS)
    with pytest.raises(sandbox.BarrierUnavailable):
        sandbox.barrier_description()
    assert not marker.exists()
    assert run_submission(sources, JOBS, allow_no_barrier=True).isolation.startswith("none:")


def test_a_reference_worker_whose_grader_is_gone_ends_quietly():
    mine, theirs = socket.socketpair()
    worker = subprocess.Popen([sys.executable, "-m", "attnkit.grader.reference_worker", "400"], stdin=theirs.fileno(),
                              stderr=subprocess.PIPE, cwd=ROOT / "src")
    theirs.close()
    mine.close()  # the grader is gone (ended, or killed) before the worker has loaded the reference
    assert (worker.wait(timeout=60), worker.stderr.read()) == (0, b"")


@pytest.mark.parametrize("forged", [5, ["step1_projection"], {"x": 1}], ids=["number", "list", "object"])
def test_a_reply_whose_earlier_stub_is_no_text_is_garbled(forged, monkeypatch):
    """The child's reply names an earlier step's stub as text (harness.Outcome.earlier_stub): any other value is
    a garbled answer for that call, never a crash of the grader."""
    runner = sandbox_runner.SubmissionRunner.__new__(sandbox_runner.SubmissionRunner)
    reply = {"ending": "not_written", "error": "x", "exc_type": "NotImplementedError", "unnamed": "",
             "warnings": [], "modified": [], "earlier_stub": forged}
    monkeypatch.setattr(runner, "_reply_to", lambda *args: (reply, {}), raising=False)
    job = next(job for job in JOBS if job.function == "softmax")
    assert runner._answer(job, "nonce", 0.0).ending == "garbled"


def test_out_of_memory_is_an_ending_only_a_memory_cases_call_may_answer(monkeypatch):
    """Only a memory case's call is judged on running out of memory (its address space is capped): the same
    answer to any other call is garbled, never a verdict the child chose."""
    runner = sandbox_runner.SubmissionRunner.__new__(sandbox_runner.SubmissionRunner)
    reply = {"ending": "out_of_memory", "error": "Unable to allocate", "exc_type": "MemoryError", "unnamed": "",
             "warnings": [], "modified": []}
    monkeypatch.setattr(runner, "_reply_to", lambda *args: (reply, {}), raising=False)
    job = next(job for job in JOBS if job.function == "softmax")
    assert runner._answer(job, "nonce", 0.0).ending == "garbled"
    measured = dataclasses.replace(job, measure_peak=True)
    assert runner._answer(measured, "nonce", 0.0).ending == "out_of_memory"
