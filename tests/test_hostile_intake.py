"""Hostile submissions at the grader's intake: links, special files, poisoned notebooks and messages.

What a submission is made of must never be followed, blocked on, or read beyond a cap; one bad
submission must never stop the others being graded (SECURITY.md, threat classes 1 and 2).
"""
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import threading
from csv import DictReader
from pathlib import Path

import pytest

from attnkit import manifest
from attnkit.grader import batch, submission
from attnkit.grader.bench import copy_solutions
from attnkit.grader.grade import grade
from attnkit.grader.journal import Journal
from attnkit.grader.runners import InProcessRunner
from attnkit.grader.sandbox import Limits, run_submission
from attnkit.grader.sandbox_wire import WireError, read_message
from attnkit.grader.sandbox_types import SubmissionRun
from attnkit.nbgrader_course import ASSIGNMENT
from attnkit.paths import EXERCISES_DIR, SOLUTIONS_DIR
from grading_support import assert_spec_shape, grade_path, notebook, plan, run_cli
from test_nbgrader_course import code_cell, course, run_cells, source  # noqa: F401 (course, source: fixtures)
from test_sandbox import JOBS, assert_correct, others, with_code

SECRET = "the secret text of a file the learner must not read"


def _step_points(module):
    return plan().step_points[module]


def _read_soon(path):
    """submission.read(path), failing (not hanging the test run) if it blocks."""
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("sub", submission.read(str(path))), daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), f"reading {path} blocked"
    return got["sub"]


def _secret(tmp_path):
    path = tmp_path / "shadow"
    path.write_text(SECRET, encoding="utf-8")
    return path


def _with_step2(tmp_path, make):
    """A copy of the solutions whose step2_scores.py is replaced by what `make(path)` puts there."""
    folder = Path(copy_solutions(tmp_path / "alice"))
    target = folder / "step2_scores.py"
    target.unlink()
    make(target)
    return folder


LINKS = {
    "to solutions": lambda tmp, path: path.symlink_to(SOLUTIONS_DIR / "step2_scores.py"),
    "to /etc/shadow-like": lambda tmp, path: path.symlink_to(_secret(tmp)),
    "relative, to another student": lambda tmp, path: path.symlink_to(Path("..") / "bob" / "step2_scores.py"),
    "to a folder": lambda tmp, path: path.symlink_to(tmp),
}


@pytest.mark.parametrize("make", LINKS.values(), ids=LINKS.keys())
def test_a_linked_step_file_is_an_error_for_its_step_only(tmp_path, make):
    copy_solutions(tmp_path / "bob")
    folder = _with_step2(tmp_path, lambda path: make(tmp_path, path))
    sub = _read_soon(folder)
    assert "step2_scores.py" not in sub.sources
    assert sub.unreadable["step2_scores.py"] == "step2_scores.py is a symbolic link: submit the file itself"
    graded = grade_path(folder)
    assert graded.steps["step2_scores"] == (0.0, _step_points("step2_scores"))
    assert graded.score == 100.0 - _step_points("step2_scores")
    step2 = [t for t in graded.tests if t.step == "step2_scores"]
    assert step2 and all(t.status == "error" and "is a symbolic link: submit the file itself" in t.output
                         for t in step2)
    assert SECRET not in json.dumps(graded.as_record())


def _fifo(path):
    os.mkfifo(path)


def _zero_device(path):
    os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # what /dev/zero is


SPECIAL = {
    "FIFO": (_fifo, "is a FIFO"),
    "folder": (lambda path: path.mkdir(), "is a folder"),
}


@pytest.mark.parametrize("kind", SPECIAL, ids=SPECIAL.keys())
def test_special_step_files_are_refused_without_blocking(tmp_path, kind):
    make, says = SPECIAL[kind]
    folder = _with_step2(tmp_path, make)
    sub = _read_soon(folder)
    assert "step2_scores.py" not in sub.sources and says in sub.unreadable["step2_scores.py"]
    assert set(sub.sources) == {s.filename for s in manifest.steps()} - {"step2_scores.py"}


_DROP_SYS_ADMIN = ["setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"]
_READ_AND_SHOW = ("import json, sys\nfrom attnkit.grader import submission\nsub = submission.read(sys.argv[1])\n"
                  "print(json.dumps({'sources': sorted(sub.sources), 'unreadable': sub.unreadable}))")


@pytest.mark.parametrize("prefix", [[], _DROP_SYS_ADMIN], ids=["as is", "without CAP_SYS_ADMIN"])
def test_intake_refuses_links_and_fifos_with_or_without_the_capability(tmp_path, prefix):
    if prefix and (os.geteuid() != 0 or not shutil.which("setpriv")):
        pytest.skip("dropping CAP_SYS_ADMIN needs root and setpriv")
    folder = _with_step2(tmp_path, lambda path: path.symlink_to(_secret(tmp_path)))
    (folder / "step4_softmax.py").unlink()
    os.mkfifo(folder / "step4_softmax.py")
    done = subprocess.run([*prefix, sys.executable, "-c", _READ_AND_SHOW, str(folder)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert got["unreadable"] == {"step2_scores.py": "step2_scores.py is a symbolic link: submit the file itself",
                                 "step4_softmax.py": "step4_softmax.py is a FIFO"}
    assert "step1_projection.py" in got["sources"] and SECRET not in done.stdout


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device node needs root (CAP_MKNOD)")
def test_a_character_device_step_file_is_refused_without_reading_it(tmp_path):
    folder = _with_step2(tmp_path, _zero_device)
    sub = _read_soon(folder)
    assert "is a character device" in sub.unreadable["step2_scores.py"]


def test_a_step_file_over_the_cap_is_refused(tmp_path):
    folder = _with_step2(tmp_path, lambda path: path.write_text("#" * (submission.MAX_FILE_BYTES + 1)))
    sub = _read_soon(folder)
    assert f"larger than {submission.MAX_FILE_BYTES} bytes" in sub.unreadable["step2_scores.py"]
    assert len(sub.sources) == len(manifest.steps()) - 1


def test_a_submission_folder_given_as_a_link_is_refused(tmp_path):
    (tmp_path / "alice").symlink_to(SOLUTIONS_DIR)
    sub = _read_soon(tmp_path / "alice")
    assert sub.sources == {} and "is a symbolic link" in sub.problem
    assert grade_path(tmp_path / "alice").score == 0.0


@pytest.mark.parametrize("kind", ["link", "FIFO"])
def test_a_notebook_that_is_a_link_or_a_fifo_is_an_error_row(tmp_path, kind):
    path = tmp_path / "alice.ipynb"
    if kind == "link":
        path.symlink_to(notebook(SOLUTIONS_DIR, tmp_path / "real.ipynb"))
    else:
        os.mkfifo(path)
    sub = _read_soon(path)
    assert sub.sources == {} and str(path) in sub.problem
    assert ("is a symbolic link" if kind == "link" else "is a FIFO") in sub.problem


# ------------------------------------------------------------------ class 2: poisoned input


def _notebook_text(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_notebook_of_nested_brackets_is_an_error_row(tmp_path):
    path = _notebook_text(tmp_path, "deep.ipynb", "[" * 200_000 + "]" * 200_000)
    sub = _read_soon(path)
    assert sub.sources == {} and "not a readable .ipynb notebook" in sub.problem


def test_a_notebook_over_the_size_cap_is_refused_before_parsing(tmp_path):
    cell = {"cell_type": "code", "metadata": {}, "source": "x = 1\n" * (submission.MAX_NOTEBOOK_BYTES // 6)}
    path = _notebook_text(tmp_path, "big.ipynb", json.dumps({"cells": [cell]}))
    sub = _read_soon(path)
    assert sub.sources == {} and f"larger than {submission.MAX_NOTEBOOK_BYTES} bytes" in sub.problem


@pytest.mark.parametrize("code", ["x = y" + ".a" * 100_000, "x = " + "not " * 100_000 + "y",
                                  "x = " + "(" * 100_000 + ")" * 100_000],
                         ids=["attribute chain", "not not", "brackets"])
def test_deep_learner_code_in_a_notebook_is_parsed_without_crashing(tmp_path, code):
    path = notebook(SOLUTIONS_DIR, tmp_path / "deep.ipynb", extra_cells=[code])
    sub = _read_soon(path)
    assert sub.problem == "" and len(sub.sources) == len(manifest.steps())


def test_deep_learner_code_in_a_step_cell_costs_that_step_only(tmp_path):
    folder = copy_solutions(tmp_path / "alice")
    step4 = Path(folder) / "step4_softmax.py"
    step4.write_text(step4.read_text(encoding="utf-8") + "\nx = y" + ".a" * 100_000 + "\n", encoding="utf-8")
    graded = grade_path(notebook(folder, tmp_path / "alice.ipynb"))
    assert graded.score == 100.0 - _step_points("step4_softmax")


class _PoisonedRunner(InProcessRunner):
    """The reference's results, but raises for the submission holding `marker`, as a grader bug would."""

    def __init__(self, marker):
        super().__init__()
        self.marker = marker

    def __call__(self, sources, jobs, passed=None):
        if any(self.marker in text for text in sources.values()):
            raise RecursionError("maximum recursion depth exceeded")
        return super().__call__(sources, jobs)


class _SilentRunner:
    """Gives no result at all, as a sandbox losing its answers would."""

    def __call__(self, sources, jobs, passed=None):
        return SubmissionRun({}, "", "")


def test_calls_without_a_result_are_errors_saying_so():
    graded = grade(plan(), _SilentRunner(), submission.read(str(SOLUTIONS_DIR)).sources, "silent")
    assert graded.score == 0.0 and {t.status for t in graded.tests} == {"error"}
    assert all("the grader got no result for this call" in t.output for t in graded.tests)


def test_an_exception_while_grading_one_submission_is_an_error_row_for_it_alone(tmp_path):
    poisoned = Path(copy_solutions(tmp_path / "poisoned"))
    (poisoned / "step1_projection.py").write_text("# POISON\n", encoding="utf-8")
    names = [str(EXERCISES_DIR), str(poisoned), str(SOLUTIONS_DIR)]
    journal = Journal(tmp_path / "results.jsonl")
    done, unreadable = batch.run(names, plan(), _PoisonedRunner("POISON"), jobs=2, journal=journal)
    assert unreadable == {} and set(done) == set(names)
    assert done[str(EXERCISES_DIR)].score == done[str(SOLUTIONS_DIR)].score == 100.0  # the reference's results
    row = done[str(poisoned)]
    assert row.score == 0.0 and all(t.status == "error" for t in row.tests)
    assert "the grader failed on this submission (RecursionError" in row.tests[0].output
    assert_spec_shape(row.as_spec())
    kept = [json.loads(line)["record"]["submission"] for line in journal.path.read_text().splitlines()]
    assert sorted(kept) == sorted([str(EXERCISES_DIR), str(SOLUTIONS_DIR)])  # the failed one is retried next run


def test_a_poisoned_submission_in_the_middle_of_a_batch_leaves_every_other_row_complete(tmp_path):
    poisoned = _notebook_text(tmp_path, "poisoned.ipynb", "[" * 200_000 + "]" * 200_000)
    csv = tmp_path / "grades.csv"
    names = [str(SOLUTIONS_DIR), str(poisoned), str(EXERCISES_DIR)]
    done = run_cli("grade", *names, "--json", "--csv", str(csv), "--jobs", "2")
    assert done.returncode == 0, done.stderr
    rows = {row["submission"]: row for row in map(json.loads, done.stdout.splitlines())}
    assert set(rows) == set(names)
    assert rows[str(SOLUTIONS_DIR)]["score"] == 100.0 and rows[str(poisoned)]["score"] == 0.0
    assert "not a readable .ipynb notebook" in rows[str(poisoned)]["tests"][0]["output"]
    assert [row["submission"] for row in DictReader(csv.open(newline=""))] == names
    journal = Path(f"{csv}.journal.jsonl").read_text().splitlines()
    assert len(journal) == 3


def _message(header_text):
    data = header_text.encode()
    return len(data).to_bytes(4, "big") + data


def _read(data):
    stream = io.BytesIO(data)
    return read_message(lambda n: stream.read(n), 1 << 20, 1 << 20)


@pytest.mark.parametrize("header", [
    '{"nonce": "x", "error": ' + "[" * 100_000 + "]" * 100_000 + "}",
    '{"nonce": "x", "error": ' + "[" * 40 + "]" * 40 + "}",
    '{"nonce": "x", "arrays": [{"name": "P", "dtype": ["<f8"], "shape": [1]}]}',
    '{"nonce": "x", "arrays": [{"name": "P", "dtype": "<f8", "shape": [1], "scalar": {"a": 1}}]}',
], ids=["200k brackets", "too deep", "dtype a list", "scalar a dict"])
def test_a_malformed_header_is_a_wire_error(header):
    with pytest.raises(WireError):
        _read(_message(header))


@pytest.mark.parametrize("reply", [
    '{"nonce": NONCE, "ending": ["returned"], "error": "", "exc_type": ""}',
    '{"nonce": NONCE, "ending": "raised", "error": {"a": [1, 2]}, "exc_type": ""}',
    '{"nonce": NONCE, "ending": "raised", "error": "", "exc_type": 7}',
    '{"nonce": NONCE, "ending": "returned", "modified": [["S"]]}',
    '{"nonce": NONCE, "error": ' + "[" * 100_000 + "]" * 100_000 + "}",
], ids=["ending a list", "error a dict", "exc_type a number", "modified a list of lists", "200k brackets"])
def test_a_mistyped_answer_from_the_child_costs_only_its_call(reply):
    code = ("import os, sys, json\n_reference_softmax = softmax\ndef softmax(S):\n"
            "    caller = sys._getframe(1)\n    while 'header' not in caller.f_locals:\n        caller = caller.f_back\n"
            "    nonce = json.dumps(caller.f_locals['header']['nonce'])  # the request's own\n"
            f"    text = {reply!r}.replace('NONCE', nonce).encode()\n"
            "    os.write(3, len(text).to_bytes(4, 'big') + text)\n    return _reference_softmax(S)")
    run = run_submission(with_code("step4_softmax", code), JOBS, Limits(call_seconds=1.0))
    first = run.results["softmax#0"]
    assert first.ending == "garbled" and first.error.startswith("garbled answer from softmax()"), first
    assert run.results["softmax#1"].ending in ("garbled", "timeout", "crashed"), run.results["softmax#1"]
    assert_correct(run, others("softmax#0", "softmax#1"))


# ------------------------------------------------------------------ class 6: output hygiene

FORGERY = "\x1b[2J\r100 / 100\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\u202e"


def _is_clean(text):
    return not any(ch in text for ch in "\x1b\r\x07\x9b\u202e")


def test_learner_output_and_folder_names_cannot_forge_terminal_lines(tmp_path):
    folder = tmp_path / f"bob{FORGERY}"
    copy_solutions(folder)
    step4 = folder / "step4_softmax.py"
    step4.write_text(step4.read_text(encoding="utf-8") + f"\nprint({FORGERY!r})\nimport sys\n"
                     f"print({FORGERY!r}, file=sys.stderr)\ndef softmax(S):\n    raise ValueError({FORGERY!r})\n",
                     encoding="utf-8")
    done = run_cli("grade", str(folder), str(tmp_path / f"gone{FORGERY}"))
    assert done.returncode == 2
    assert _is_clean(done.stdout) and _is_clean(done.stderr)
    assert "\\x1b[2J\\r100 / 100" in done.stdout and "gone\\x1b[2J\\r100 / 100" in done.stderr
    lines = done.stdout.splitlines()
    assert not [line for line in lines if line.lstrip().startswith("100 / 100")]
    assert sum(": 100 / 100" in line or line.endswith(" / 100") for line in lines) == 1  # the real score line


def test_each_submission_writes_its_own_gradescope_file(tmp_path):
    paths = [str(tmp_path / "alice" / "sub"), str(tmp_path / "alice_sub"), str(tmp_path / "Alice_sub")]
    for path in paths:  # once written as alice_sub.json, alice_sub.json and Alice_sub.json
        copy_solutions(path)
    out = tmp_path / "gradescope"
    done = run_cli("grade", *paths, "--gradescope", str(out), "--jobs", "3")
    assert done.returncode == 0, done.stderr
    names = [p.name for p in out.iterdir()]
    assert len({name.casefold() for name in names}) == len(names) == 3


# ------------------------------------------------------------------ issue 10 point 2: --gradescope with one path


@pytest.mark.parametrize("form", ["trailing slash", "existing folder", "file"])
def test_gradescope_with_one_path_writes_results_json(tmp_path, form):
    if form == "existing folder":
        (tmp_path / "out").mkdir()
    target = {"trailing slash": f"{tmp_path / 'out'}/", "existing folder": str(tmp_path / "out"),
              "file": str(tmp_path / "results.json")}[form]
    done = run_cli("grade", str(SOLUTIONS_DIR), "--gradescope", target)
    assert done.returncode == 0, done.stderr
    written = tmp_path / ("results.json" if form == "file" else "out/results.json")
    assert json.loads(written.read_text())["score"] == 100.0


# ------------------------------------------------------------------ class 7: constants earn nothing


@pytest.mark.parametrize("constant", ["np.zeros((2, 2))", "0.0"])
def test_a_constant_result_earns_no_property_case(tmp_path, constant):
    folder = Path(copy_solutions(tmp_path / "constant"))
    for step, code in (("step4_softmax", f"def softmax(S):\n    return {constant}"),
                       ("step6_head", f"def attention(Q, K, V, visible=None):\n    return {constant}, {constant}")):
        path = folder / f"{step}.py"
        path.write_text(path.read_text(encoding="utf-8") + f"\nimport numpy as np\n{code}\n", encoding="utf-8")
    done = run_cli("grade", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    tests = {t["name"]: t for t in json.loads(done.stdout)["tests"]}
    properties = [p.case.name for p in plan().cases if "property" in p.case.expect]
    assert len(properties) >= 6
    for name in properties:
        assert tests[name]["score"] == 0.0 and tests[name]["status"] == "failed", tests[name]
        assert "expected shape" in tests[name]["output"] or "expected a numpy array" in tests[name]["output"]


def test_a_constant_result_earns_no_check_in_the_nbgrader_notebook(course, source, monkeypatch):
    nb = json.loads(json.dumps(source))
    code_cell(nb, "step4_softmax")["source"] += "\n\n\ndef softmax(S):\n    return np.zeros((2, 2))\n"
    printed, error = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)["test_step4_softmax"]
    assert isinstance(error, AssertionError)
    assert re.search(r"^step4_softmax: 0 of \d+ public checks passed, 0 of \d+ hidden checks passed$", str(error), re.M)


# ------------------------------------------------------------------ class 8: messages that say what happened


def test_a_longdouble_result_is_named_as_such_with_the_dtypes_accepted():
    run = run_submission(with_code("step4_softmax", "import numpy as np\n_reference_softmax = softmax\n"
                                   "def softmax(S):\n    return _reference_softmax(S).astype(np.longdouble)"), JOBS)
    got = run.results["softmax#0"]
    assert got.ending == "returned" and got.parts is None and "is not a numeric" not in got.unnamed
    assert "longdouble" in got.unnamed and "not accepted" in got.unnamed and "float64" in got.unnamed, got
    assert_correct(run, others("softmax#0", "softmax#1"))


UNREADABLE_RESULTS = {
    "len raises": "class Result(tuple):\n    def __len__(self):\n        raise RuntimeError('no length')\n"
                  "def attention(Q, K, V, visible=None):\n    return Result((Q, Q))",
    "getattr raises": "class Result:\n    def __getattr__(self, name):\n        raise RuntimeError('no ' + name)\n"
                      "def attention(Q, K, V, visible=None):\n    return Result()",
    "exits while read": "class Result(tuple):\n    def __len__(self):\n        raise SystemExit(3)\n"
                        "def attention(Q, K, V, visible=None):\n    return Result((Q, Q))",
}


@pytest.mark.parametrize("code", UNREADABLE_RESULTS.values(), ids=UNREADABLE_RESULTS.keys())
def test_a_result_that_raises_while_being_read_is_said_in_the_learners_terms(code):
    run = run_submission(with_code("step6_head", code), JOBS)
    got = run.results["attention"]
    assert got.ending == "raised", got
    assert got.error.startswith("attention() returned a value that could not be read: "), got.error
    assert "exit code" not in got.error
    assert_correct(run, others("attention"))


def test_calls_not_run_after_timeouts_say_so_and_are_not_timeouts(tmp_path):
    folder = Path(copy_solutions(tmp_path / "slow"))
    step4 = folder / "step4_softmax.py"
    step4.write_text(step4.read_text(encoding="utf-8") + "\ndef softmax(S):\n    while True:\n        pass\n",
                     encoding="utf-8")
    graded = grade_path(folder, Limits(call_seconds=0.5))
    softmax = [t for t in graded.tests if t.step == "step4_softmax"]
    timed_out = [t for t in softmax if t.status == "timeout"]
    not_run = [t for t in softmax if "not run" in t.output]
    assert 1 <= len(timed_out) <= 2 and not_run and len(timed_out) + len(not_run) == len(softmax)
    assert all(t.status == "error" and "softmax() already ran out of time 2 times" in t.output for t in not_run)
    assert graded.score == 100.0 - _step_points("step4_softmax")


@pytest.mark.parametrize("code", ["x = y" + ".a" * 100_000, "x = " + "not " * 100_000 + "y"],
                         ids=["attribute chain", "not not"])
def test_code_too_deep_to_compile_is_said_so_not_called_a_crash(code):
    run = run_submission(with_code("step4_softmax", code), JOBS)
    got = run.results["softmax#0"]
    assert got.ending == "load_error" and "step4_softmax.py is nested too deeply to compile" in got.error, got
    assert_correct(run, others("softmax#0", "softmax#1"))
