"""Issue 7 class 3: when the barrier cannot be built (here: no bubblewrap on the PATH), `attnkit
grade` refuses to run learner code (and says why and what to do) unless told `--allow-no-barrier`;
even then, as root it runs learner code under a uid of its own, never as uid 0. The isolation used
is in every output: --json rows, CSV, Gradescope.

Each case runs the real command in a subprocess, as root and with CAP_SYS_ADMIN dropped from its
bounding set (what a default Docker container gives): bubblewrap builds the barrier in both.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from attnkit.grader.bench import copy_solutions
from attnkit.grader.sandbox_zygote import LEARNER_UIDS
from attnkit.paths import ROOT

AS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root: the case is root with or without CAP_SYS_ADMIN")
SETPRIV = shutil.which("setpriv")
DROPPED = [SETPRIV, "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin"]  # by its path: PATH may change
NO_BWRAP = {**os.environ, "PATH": "/nonexistent"}  # the grader finds bubblewrap on its PATH
PRIVILEGES = pytest.mark.parametrize("drop", [
    pytest.param(False, id="root"),
    pytest.param(True, id="no-CAP_SYS_ADMIN", marks=pytest.mark.skipif(
        SETPRIV is None, reason="util-linux setpriv is not installed: cannot drop CAP_SYS_ADMIN")),
])

INTRUDER = """
import ctypes, os
_reference_softmax = softmax
def _intrude():
    seen = {"uid": os.getuid(), "userns": ctypes.CDLL(None).unshare(0x10000000)}  # CLONE_NEWUSER
    for path in ("/etc/shadow", %(solution)r):
        try:
            seen[path] = open(path).read(40)
        except OSError as err:
            seen[path] = err.strerror
    try:
        open(%(marker)r, "w").write("written by learner code")
        seen["wrote"] = True
    except OSError as err:
        seen["wrote"] = err.strerror
    print("INTRUDER", seen)
_intrude()
def softmax(S):
    return _reference_softmax(S)
"""


def intruder(tmp_path):
    """A correct submission that, when imported, tries to read secrets and write a host file."""
    folder = copy_solutions(tmp_path / "intruder")
    marker = tmp_path / "written-by-learner"
    with open(os.path.join(folder, "step4_softmax.py"), "a", encoding="utf-8") as f:
        f.write(INTRUDER % {"solution": str(ROOT / "solutions/step4_softmax.py"), "marker": str(marker)})
    return folder, marker


def grade_cli(*args, drop, env=None):
    prefix = DROPPED if drop else []
    return subprocess.run([*prefix, sys.executable, "-m", "attnkit.cli", "grade", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@AS_ROOT
@PRIVILEGES
def test_without_bubblewrap_the_grader_refuses_and_runs_no_learner_code(tmp_path, drop):
    folder, marker = intruder(tmp_path)
    done = grade_cli(folder, "--json", "--csv", str(tmp_path / "grades.csv"), drop=drop, env=NO_BWRAP)
    assert done.returncode == 3, (done.returncode, done.stderr)
    assert "--allow-no-barrier" in done.stderr and "bubblewrap" in done.stderr, done.stderr
    assert done.stdout == "" and not marker.exists()
    assert not (tmp_path / "grades.csv").exists()


@AS_ROOT
@PRIVILEGES
@pytest.mark.parametrize("barrier", [True, False], ids=["barrier", "no-barrier"])
def test_the_isolation_used_is_in_every_output_and_learner_code_never_runs_as_root(tmp_path, drop, barrier):
    folder, marker = intruder(tmp_path)
    out = tmp_path / "out"
    args = [folder, "--json", "--csv", str(out / "grades.csv"), "--gradescope", str(out / "results.json")]
    done = grade_cli(*args, *([] if barrier else ["--allow-no-barrier"]), drop=drop,
                     env=None if barrier else NO_BWRAP)
    assert done.returncode == 0, done.stderr
    row = json.loads(done.stdout)
    isolation = row["isolation"]
    assert isolation == ("barrier" if barrier else "own_uid"), isolation  # the word; the text report says it in full
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        assert [r["isolation"] for r in csv.DictReader(f)] == [isolation]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert results["extra_data"]["isolation"] == isolation and isolation not in results["output"]  # instructor's only
    assert row["score"] == 100.0
    learner = next(t for t in row["tests"] if t["step"] == "step4_softmax")
    assert learner["status"] == "passed"
    stdout = done.stdout + (out / "results.json").read_text(encoding="utf-8")
    printed = next(t["output"] for t in results["tests"] if "score" not in t)  # what the learner's code printed
    uid = int(re.search(r"'uid': (\d+)", printed).group(1))
    assert (uid == 65534 if barrier else uid in LEARNER_UIDS) and "'uid': 0" not in stdout  # another grading may hold 64000
    assert "'userns': -1" in printed  # seccomp holds in both tiers
    assert "root:" not in stdout and "BEGIN SOLUTION" not in stdout
    assert not marker.exists()


@pytest.mark.skipif(SETPRIV is None, reason="util-linux setpriv is not installed: cannot change user")
@AS_ROOT
def test_a_grader_that_is_not_root_builds_the_barrier_too_and_refuses_without_it(tmp_path):
    python = os.path.realpath(sys.executable)
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    probe = subprocess.run([*as_nobody, python, "-c", "import attnkit"], cwd="/", capture_output=True,
                           env={"PATH": os.environ["PATH"]})
    if probe.returncode != 0:
        pytest.skip("user nobody cannot run this python or read the kit here (e.g. under /root)")
    folder, marker = intruder(tmp_path)
    os.chmod(tmp_path, 0o755)
    command = [*as_nobody, sys.executable, "-m", "attnkit.cli", "grade", folder, "--json"]
    built = subprocess.run(command, cwd="/", capture_output=True, text=True, timeout=300)
    assert built.returncode == 0 and json.loads(built.stdout)["isolation"].startswith("bubblewrap:"), built.stderr
    refused = subprocess.run([SETPRIV, *command[1:]], cwd="/", capture_output=True, text=True, timeout=300,
                             env=NO_BWRAP)
    assert refused.returncode == 3 and "bubblewrap" in refused.stderr and "--allow-no-barrier" in refused.stderr
    assert not marker.exists()
