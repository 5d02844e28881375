"""Issue 15: submissions graded at the same time cannot signal, trace or read each other, with the
barrier and without it (`--allow-no-barrier`, no bwrap on the PATH), as root and with CAP_SYS_ADMIN
dropped. A hostile submission, graded beside an honest one at `--jobs 2`, spends its first import
killing, stopping, tracing and reading every process it can see (4 s without a pause: its import may use
8 s of CPU, and the budget is not scaled to the reference's); the honest one still scores 100.
"""
import json
import os
import subprocess
import sys

import pytest

from attnkit.grader.bench import copy_solutions
from attnkit.grader.sandbox_types import Isolation
from attnkit.paths import ROOT
from test_sandbox_fail_closed import AS_ROOT, DROPPED, NO_BWRAP, PRIVILEGES

pytestmark = AS_ROOT

HOSTILE = """
import ctypes, os, signal, time
_libc = ctypes.CDLL(None, use_errno=True)
_me, _end, _read, _tried = os.getpid(), time.monotonic() + 4.0, set(), 0
while time.monotonic() < _end:
    for _sig in (signal.SIGKILL, signal.SIGSTOP):
        try:
            os.kill(-1, _sig)
        except OSError:
            pass
    for _entry in os.listdir("/proc"):
        if not _entry.isdigit() or int(_entry) == _me:
            continue
        _pid, _tried = int(_entry), _tried + 1
        for _sig in (signal.SIGSTOP, signal.SIGKILL):
            try:
                os.kill(_pid, _sig)
            except OSError:
                pass
        _libc.ptrace(16, _pid, 0, 0)  # PTRACE_ATTACH
        try:
            with open(f"/proc/{_pid}/environ", "rb") as _f:
                _read.add(_pid) if _f.read(1) else None
        except OSError:
            pass
if _read or not _tried:  # fails its own step: the test reads that from the grade
    raise RuntimeError(f"HOSTILE tried {_tried} processes, read {sorted(_read)}")
"""


def grade_pair(tmp_path, barrier, drop):
    hostile = copy_solutions(tmp_path / "a-hostile")
    with open(os.path.join(hostile, "step1_projection.py"), "a", encoding="utf-8") as f:
        f.write(HOSTILE)
    honest = copy_solutions(tmp_path / "b-honest")
    done = subprocess.run([*(DROPPED if drop else []), sys.executable, "-m", "attnkit.cli", "grade", hostile, honest,
                           "--json", "--jobs", "2", "--call-seconds", "8", "--call-cpu-seconds", "8",
                           "--reference-factor", "0", *([] if barrier else ["--allow-no-barrier"])],
                          cwd=ROOT, env=None if barrier else NO_BWRAP, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return {os.path.basename(row["submission"]): row for row in map(json.loads, done.stdout.splitlines())}


@PRIVILEGES
@pytest.mark.parametrize("barrier", [True, False], ids=["barrier", "no-barrier"])
def test_a_hostile_neighbour_cannot_touch_an_honest_submission(tmp_path, barrier, drop):
    rows = grade_pair(tmp_path, barrier, drop)
    assert rows["b-honest"]["score"] == 100.0, [t for t in rows["b-honest"]["tests"] if t["status"] != "passed"][:3]
    assert rows["a-hostile"]["isolation"] == rows["b-honest"]["isolation"]
    assert barrier == (rows["b-honest"]["isolation"] == Isolation.BARRIER), rows["b-honest"]["isolation"]
    step1 = [t for t in rows["a-hostile"]["tests"] if t["step"] == "step1_projection"]
    failed = [(t["name"], t["status"], t["output"][:400]) for t in step1 if t["status"] != "passed"]
    assert step1 and not failed, failed[:2]  # it saw others and read none
