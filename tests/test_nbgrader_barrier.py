"""Under `nbgrader autograde` a notebook cannot change the course, the hidden tests or a classmate (issue 16).

A course is written and released; three students hand in solved notebooks; one of them, `attacker`,
adds a cell that appends a byte to `<course>/hidden_tests/attention.json`, empties the classmate
`carol`'s submitted notebook and writes to the course's config, instructor's notebook and gradebook.
`attacker` is autograded first, then the class, with real nbgrader, a real kernel and real bwrap,
as root and with CAP_SYS_ADMIN dropped. Checked: every honest student keeps full marks, the victim's
submission and the course files are byte for byte as before, and each write was tried (and reached no
real file). Then the test itself (outside any kernel) changes the hidden-test file: autograde refuses
the next student with a message naming the file instead of grading them 0. Without bwrap on PATH, or
where bwrap cannot build the sandbox (no user namespace allowed, no CAP_SYS_ADMIN), the kernel does not
start unconfined: the student is not graded and the message names the fix; nor does a kernel whose
own folder would hold the course. A fourth student, `cheater`, hands in the untouched release with a
copy of the checks (attnkit_runtime/notebook.py) whose every test cell passes, in a course whose config
keeps that file (`Autograde.exclude_overwriting`), and a first cell that writes the same file: the
kernel mounts the course's own attnkit_runtime/ read-only over it, so the write is refused and the
cheater scores 0; a course whose runtime folder is missing grades no one. With the course's opt-out
(the notebook's own kernel) the same attacks do harm, so the test can see it.
"""
import csv
import hashlib
import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")

from test_nbgrader_roundtrip import (ALWAYS_PASSES, filled_notebook, nbgrader, released_course,  # noqa: E402
                                     without_own_bin_on_path)

DROPPED = ("setpriv", "--bounding-set", "-sys_admin", "--inh-caps", "-sys_admin")
HONEST = ("bob", "carol")
VICTIM = "carol"
HIDDEN = "hidden_tests/attention.json"
GUARDED = (HIDDEN, "nbgrader_config.py", "source/attention/attention.ipynb",
           f"submitted/{VICTIM}/attention/attention.ipynb")  # files no kernel may change
TARGETS = (*GUARDED, "gradebook.db")
CHEATER = "cheater"
KEPT = 'c.Autograde.exclude_overwriting = {"attention": ["attnkit_runtime/notebook.py"]}\n'  # students' own copy kept
REWRITE = f'''import pathlib
try:
    pathlib.Path("attnkit_runtime/notebook.py").write_text({ALWAYS_PASSES!r})
    print("REWRITE written")
except OSError as err:
    print("REWRITE refused:", type(err).__name__)
'''

ATTACK = f'''import pathlib
course = next(p for p in pathlib.Path.cwd().parents if (p / "hidden_tests").is_dir())
for name, mode in [("{HIDDEN}", "ab"), ("nbgrader_config.py", "ab"), ("source/attention/attention.ipynb", "wb"),
                   ("submitted/{VICTIM}/attention/attention.ipynb", "wb"), ("gradebook.db", "wb")]:
    try:
        with open(course / name, mode) as f:
            f.write(b" ")
        print("ATTACK", name, "written")
    except OSError as err:
        print("ATTACK", name, "refused:", type(err).__name__)
'''


def hand_in_cheat(root, release):
    """The untouched release, its own always-passing checks beside it and a first cell that writes them."""
    nb = nbformat.reads(nbformat.writes(release), as_version=4)
    nb.cells.insert(1, nbformat.v4.new_code_cell(REWRITE))  # before the provided cells
    folder = root / "submitted" / CHEATER / "attention"
    (folder / "attnkit_runtime").mkdir(parents=True)
    (folder / "attnkit_runtime" / "notebook.py").write_text(ALWAYS_PASSES)
    nbformat.write(nb, folder / "attention.ipynb")
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text() + KEPT)


def digests(root):
    return {name: hashlib.sha256((root / name).read_bytes()).hexdigest() for name in GUARDED}


def hand_in(root, source, release, student, attack=False):
    nb = filled_notebook(source, release, "core")
    if attack:
        nb.cells.insert(2, nbformat.v4.new_code_cell(ATTACK))  # after the provided cells
    path = root / "submitted" / student / "attention" / "attention.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)


def autograde(root, *args, prefix=(), env=None):
    """`nbgrader autograde attention …` (rc not checked): the CompletedProcess."""
    return subprocess.run([*prefix, sys.executable, "-m", "nbgrader", "autograde", "attention", *args], cwd=root,
                          capture_output=True, text=True, timeout=900, env=env or without_own_bin_on_path())


@pytest.fixture(scope="module", params=["root", "no_cap_sys_admin"])
def graded(request, tmp_path_factory):
    prefix = DROPPED if request.param == "no_cap_sys_admin" else ()
    if prefix and (os.geteuid() != 0 or not shutil.which("setpriv")):
        pytest.skip("dropping CAP_SYS_ADMIN needs root and setpriv")
    root, source, release = released_course(tmp_path_factory)
    for student in ("attacker", *HONEST):
        hand_in(root, source, release, student, attack=student == "attacker")
    hand_in_cheat(root, release)
    before = digests(root)
    first = autograde(root, "--student", "attacker", prefix=prefix)
    rest = autograde(root, prefix=prefix)
    nbgrader("export", cwd=root)
    return {"root": root, "source": source, "release": release, "prefix": prefix, "before": before,
            "logs": first.stdout + first.stderr + rest.stdout + rest.stderr}


def scores(root):
    with open(root / "grades.csv", newline="") as f:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}


def test_honest_students_keep_full_marks(graded):
    assert scores(graded["root"]) == {"attacker": 100.0, "bob": 100.0, "carol": 100.0, CHEATER: 0.0}, graded["logs"][-3000:]


def test_a_copy_of_the_checks_that_always_passes_does_not_grade(graded):
    """Kept by the config and written by a cell: the kernel reads the course's own runtime folder."""
    folder = graded["root"] / "autograded" / CHEATER / "attention"
    assert (folder / "attnkit_runtime" / "notebook.py").read_text() == ALWAYS_PASSES  # nbgrader kept it
    nb = nbformat.read(folder / "attention.ipynb", as_version=4)
    assert "".join(o.get("text", "") for o in nb.cells[1].outputs) == "REWRITE refused: OSError\n"


def test_no_kernel_changed_the_course_or_a_classmate(graded):
    assert digests(graded["root"]) == graded["before"]


def test_the_attack_ran_and_the_hidden_tests_were_read_only(graded):
    """Every write was tried (a course folder under /tmp: the private /tmp takes what reaches no real file)."""
    nb = nbformat.read(graded["root"] / "autograded/attacker/attention/attention.ipynb", as_version=4)
    said = "".join(o.get("text", "") for o in nb.cells[2].outputs)
    assert all(f"ATTACK {name} " in said for name in TARGETS), said
    assert f"ATTACK {HIDDEN} refused: OSError" in said  # shown to the checks, read-only


@pytest.fixture(scope="module")
def clean_course(tmp_path_factory):
    """A released course that no notebook attacked: (root, instructor's notebook, released notebook)."""
    return released_course(tmp_path_factory)


def test_a_course_without_its_runtime_folder_grades_no_one(clean_course):
    """Missing, the submission's own copy would grade: refused by name, and graded once it is back."""
    root, source, release = clean_course
    hand_in(root, source, release, "grace")
    runtime, aside = root / "source/attention/attnkit_runtime", root / "runtime_aside"
    runtime.rename(aside)
    try:
        result = autograde(root, "--student", "grace")
    finally:
        aside.rename(runtime)
    log = result.stdout + result.stderr
    assert f"the checks' folder {runtime} is missing" in log, log[-3000:]
    assert not (root / "autograded" / "grace" / "attention").exists()


def test_a_changed_hidden_test_file_is_refused_by_name(clean_course):
    """Refused, not graded 0: no autograded notebook, and once the file is back the student is graded."""
    from nbgrader.api import Gradebook

    root, source, release = clean_course
    hand_in(root, source, release, "dave")
    hidden = (root / HIDDEN).read_bytes()
    (root / HIDDEN).write_bytes(hidden + b" ")  # changed outside any kernel
    try:
        result = autograde(root, "--student", "dave")
    finally:
        (root / HIDDEN).write_bytes(hidden)
    log = result.stdout + result.stderr
    assert f"the hidden tests {root / HIDDEN} were changed after the course was built" in log, log[-3000:]
    assert not (root / "autograded" / "dave" / "attention").exists()
    autograde(root, "--student", "dave")
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        assert gb.find_submission("attention", "dave").score == 100.0


def test_without_bwrap_the_kernel_does_not_start_unconfined(clean_course, tmp_path):
    root, source, release = clean_course
    hand_in(root, source, release, "erin")
    env = {**without_own_bin_on_path(), "PATH": str(tmp_path)}  # the course config adds nbgrader's own bin/
    result = autograde(root, "--student", "erin", env=env)
    log = result.stdout + result.stderr
    assert "bwrap is not on PATH" in log and "apt-get install bubblewrap" in log, log[-3000:]
    assert not (root / "autograded" / "erin" / "attention").exists()


def test_a_kernel_whose_folder_holds_the_course_does_not_start(clean_course, monkeypatch, capfd):
    """Its writable folder would be the whole course: refused, whoever starts it (here jupyter_client itself)."""
    from jupyter_client.manager import start_new_kernel

    root = clean_course[0]
    monkeypatch.setenv("JUPYTER_PATH", str(root / "jupyter"))
    with pytest.raises(RuntimeError, match="Kernel died"):
        start_new_kernel(kernel_name="attnkit-barrier", cwd=str(root), startup_timeout=60)
    assert f"its folder {root} holds the course itself" in capfd.readouterr().err


# nbgrader in a user namespace that may not create another one, CAP_SYS_ADMIN dropped: bwrap cannot build
NO_NAMESPACES = ("unshare", "--user", "--map-root-user", "sh", "-c",
                 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"', "sh", *DROPPED)


def test_when_bwrap_cannot_build_the_sandbox_no_notebook_runs(clean_course):
    if not (shutil.which("unshare") and shutil.which("setpriv")):
        pytest.skip("util-linux unshare and setpriv are needed to forbid user namespaces")
    root, source, release = clean_course
    hand_in(root, source, release, "frank")
    result = autograde(root, "--student", "frank", prefix=NO_NAMESPACES)
    log = result.stdout + result.stderr
    assert "bwrap cannot build its sandbox (bwrap: Creating new namespace failed" in log, log[-3000:]
    assert not (root / "autograded" / "frank" / "attention").exists()


def test_the_attack_is_real_without_the_barrier(tmp_path_factory):
    """The same cell in the notebook's own kernel (the course's opt-out) does write: the test can see harm."""
    root, source, release = released_course(tmp_path_factory)
    for student in ("attacker", VICTIM):
        hand_in(root, source, release, student, attack=student == "attacker")
    hand_in_cheat(root, release)
    before = digests(root)
    config = root / "nbgrader_config.py"
    config.write_text(config.read_text() + '\nc.Execute.kernel_name = "python3"\n')
    autograde(root, "--student", CHEATER)  # first: the attacker empties the gradebook
    nbgrader("export", cwd=root)
    assert scores(root)[CHEATER] == 100.0
    autograde(root, "--student", "attacker")
    after = digests(root)
    assert after[HIDDEN] != before[HIDDEN] and after[GUARDED[3]] != before[GUARDED[3]]
