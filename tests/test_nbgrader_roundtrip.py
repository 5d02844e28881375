"""The nbgrader round trip with nbgrader's own commands, in a temporary course (issue 4).

`attnkit nbgrader-course` → `nbgrader generate_assignment` → six submissions (correct; the scale
left out of step 6; an endless loop in step 4; deleted provided and test cells; untouched; untouched
with its own attnkit_runtime/notebook.py whose checks always pass) → `nbgrader autograde`
→ `nbgrader generate_feedback` → `nbgrader export`, then the scores of grades.csv and each cell's
grade in the gradebook. Also: the release holds no solution and no hidden case, and the learner
runtime's folder beside the notebook (issue 17); the released
notebook runs in a real kernel and each step stops at its own NotImplementedError; the instructor's
notebook passes every test in a kernel; `attnkit grade` scores a submitted notebook per step as it
scores the same code in a folder. Issue 10: nbgrader runs with the virtualenv's bin/ off PATH (as
when it is not activated); autograde logs no checksum warning; a sixth student calling os._exit is
recovered with `attnkit grade`.
"""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -e '.[nbgrader]')")

from attnkit import manifest, rubric, stubs  # noqa: E402
from attnkit.cases import cases_for  # noqa: E402
from attnkit.nbgrader_course.notebook import step_code  # noqa: E402
from attnkit.nbgrader_course.runtime_folder import FOLDER  # noqa: E402
from attnkit.paths import EXERCISES_DIR, LESSONS_DIR, SOLUTIONS_DIR  # noqa: E402
from attnkit.release import runtime_sources  # noqa: E402

LESSON_FILES = sorted(p.relative_to(LESSONS_DIR.parent).as_posix() for p in LESSONS_DIR.rglob("*.md"))
RUNTIME_FILES = sorted([*(f"{FOLDER}/{p.name}" for p in runtime_sources()), f"{FOLDER}/data/attention.json",
                        "shape_checks.py"])
ALWAYS_PASSES = 'def configure(*args):\n    pass\n\n\ndef check(module):\n    print(module, "passed")\n'
NO_INPUT_CHECKS = "float_array = None  # a shape_checks.py of the student's own\n"
BROUGHT = "own_checks"  # the untouched release handed in with ALWAYS_PASSES as its attnkit_runtime/notebook.py
TIMEOUT = 8  # seconds per cell; the endless loop costs two of them (steps 4 and 6)
POINTS = rubric.step_points()
PARTLY = {("scale_missing", "test_step6_head")}  # the known mistake's public checks earn their share (partial credit)
EXPECTED_SCORES = {
    "correct": 100.0,
    "scale_missing": None,  # between 100 - step 6's points and 100: see PARTLY
    "endless_loop": 100.0 - POINTS["step4_softmax"] - POINTS["step6_head"],  # step 6 calls softmax
    "deleted_cells": 100.0,
    "untouched": 0.0,
    BROUGHT: 0.0,
}
FAILING_CELLS = {
    "correct": set(),
    "scale_missing": {"test_step6_head"},
    "endless_loop": {"test_step4_softmax", "test_step6_head"},
    "deleted_cells": set(),
    "untouched": {f"test_{s.module}" for s in manifest.steps("core")},
    BROUGHT: {f"test_{s.module}" for s in manifest.steps("core")},
}


def without_own_bin_on_path():
    """The environment of a virtualenv that is not activated: its bin/ is not on PATH (issue 10)."""
    own = os.path.dirname(sys.executable)
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and os.path.realpath(p) != os.path.realpath(own)]
    return {**os.environ, "PATH": os.pathsep.join(path or [os.defpath])}


def run(args, cwd):
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=900, env=without_own_bin_on_path())
    assert result.returncode == 0, f"{args} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


def nbgrader(*args, cwd):
    return run([sys.executable, "-m", "nbgrader", *args], cwd)


def finished(source):
    """A solution cell as a learner who did the work would hand it in: no markers, no stub raise."""
    lines, skip_next = [], False
    for line in source.splitlines():
        if skip_next:
            skip_next = False
            assert line.strip().startswith("raise NotImplementedError"), line
            continue
        if line.strip() == stubs.BEGIN:
            continue
        if line.strip() == stubs.END:
            skip_next = True
            continue
        lines.append(line)
    return "\n".join(lines)


def scale_missing(code):
    """Step 6 with S = kq + M: the known mistake `scale_missing`."""
    changed = code.replace("scale_scores(kq, D_h) + M", "kq + M")
    assert changed != code, "solutions/step6_head.py no longer computes S = scale_scores(kq, D_h) + M"
    return changed


def endless_loop(code):
    changed = code.replace(f"    {stubs.BEGIN}", f"    while True:  # the learner's endless loop\n        pass\n    {stubs.BEGIN}", 1)
    assert changed != code
    return changed


def cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def filled_notebook(source, release, track, change=None, module=None):
    """The released notebook with the track's solution cells finished from the instructor's `source`
    (`change` applied to `module`'s), as a learner who did the work hands it in."""
    nb = nbformat.reads(nbformat.writes(release), as_version=4)
    for step in manifest.steps(track):
        code = cell(source, step.module).source
        cell(nb, step.module).source = finished(change(code) if step.module == module else code)
    return nb


def submissions(source, release):
    """{student: notebook}, each made from the released notebook as a learner would hand it in."""
    def filled(change=None, module=None):
        return filled_notebook(source, release, "core", change, module)

    deleted = filled()
    for grade_id in ("shape_checks", "attnkit_checks", "test_step3_masks"):
        deleted.cells.remove(cell(deleted, grade_id))
    return {
        "correct": filled(),
        "scale_missing": filled(scale_missing, "step6_head"),
        "endless_loop": filled(endless_loop, "step4_softmax"),
        "deleted_cells": deleted,
        "untouched": release,
        BROUGHT: release,
    }


def released_course(tmp_path_factory, assignment="attention"):
    """(course root, instructor's notebook, released notebook): a new course, `assignment` released."""
    root = tmp_path_factory.mktemp("course")
    run([sys.executable, "-m", "attnkit.cli", "nbgrader-course", str(root), "--timeout", str(TIMEOUT)], root)
    nbgrader("generate_assignment", assignment, cwd=root)
    return (root, nbformat.read(root / f"source/{assignment}/{assignment}.ipynb", as_version=4),
            nbformat.read(root / f"release/{assignment}/{assignment}.ipynb", as_version=4))


def graded_track(root, assignment, submitted):
    """{student: grades.csv row}: each of `submitted` {student: notebook} handed in as
    submitted/<student>/<assignment>/<assignment>.ipynb, then nbgrader autograde and export."""
    for student, nb in submitted.items():
        path = root / "submitted" / student / assignment / f"{assignment}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    nbgrader("autograde", assignment, cwd=root)
    nbgrader("export", cwd=root)
    with open(root / "grades.csv", newline="") as f:
        return {row["student_id"]: row for row in csv.DictReader(f)}


def assert_scores_out_of_the_tracks_100(course, assignment, track, expected, student, module):
    """The exported scores are `expected` {student: score, or None: partial}, each out of the track's 100;
    `student`'s partial credit, lost in `module` only, is what `attnkit grade --track` gives its notebook."""
    rows = course["rows"]
    scores = {s: float(r["score"]) for s, r in rows.items()}
    assert {s: v for s, v in scores.items() if expected[s] is not None} == {s: v for s, v in expected.items() if v is not None}
    path = course["root"] / "submitted" / student / assignment / f"{assignment}.ipynb"
    graded = run([sys.executable, "-m", "attnkit.cli", "grade", "--track", track, "--json", str(path),
                  "--call-seconds", "30", "--submission-seconds", "300"], course["root"])  # no timeout on a busy machine
    (line,) = [line for line in graded.stdout.splitlines() if line.startswith("{")]
    points = rubric.step_points(track)[module]
    kept = sum(t["score"] for t in json.loads(line)["tests"] if t["step"] == module)
    assert 0 < kept < points  # partial credit, the same in both
    assert round(scores[student], 4) == round(100.0 - points + kept, 4)
    assert {r["assignment"] for r in rows.values()} == {assignment}
    assert {float(r["max_score"]) for r in rows.values()} == {100.0}


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root, source, release = released_course(tmp_path_factory)
    for student, nb in submissions(source, release).items():
        path = root / "submitted" / student / "attention" / "attention.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    (root / "submitted" / BROUGHT / "attention" / FOLDER).mkdir()
    (root / "submitted" / BROUGHT / "attention" / FOLDER / "notebook.py").write_text(ALWAYS_PASSES)
    (root / "submitted" / "correct" / "attention" / "shape_checks.py").write_text(NO_INPUT_CHECKS)
    autograde = nbgrader("autograde", "attention", cwd=root)
    nbgrader("generate_feedback", "attention", cwd=root)
    nbgrader("export", cwd=root)
    return {"root": root, "source": source, "release": release, "autograde_log": autograde.stderr}


def test_exported_scores(course):
    with open(course["root"] / "grades.csv", newline="") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    scores = {s: float(r["score"]) for s, r in rows.items()}
    assert {s: v for s, v in scores.items() if EXPECTED_SCORES[s] is not None} == {
        s: v for s, v in EXPECTED_SCORES.items() if v is not None}
    assert 100.0 - POINTS["step6_head"] < scores["scale_missing"] < 100.0
    assert {float(r["max_score"]) for r in rows.values()} == {100.0}


def test_each_test_cell_grade(course):
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course['root'] / 'gradebook.db'}") as gb:
        for student, failing in FAILING_CELLS.items():
            for step in manifest.steps("core"):
                grade = gb.find_grade(f"test_{step.module}", "attention", "attention", student)
                if (student, grade.cell.name) in PARTLY:
                    assert 0.0 < grade.score < POINTS[step.module], (student, grade.cell.name, grade.score)
                    continue
                want = 0.0 if grade.cell.name in failing else POINTS[step.module]
                assert (student, grade.cell.name, grade.score) == (student, grade.cell.name, want)


def test_feedback_names_the_mistake_of_public_and_hidden_checks(course):
    html = (course["root"] / "feedback/scale_missing/attention/attention.html").read_text()
    assert "FAILED (public check)" in html and "FAILED (hidden check)" in html
    assert "likely mistake: no 1/sqrt(D_h)" in html


def test_no_checksum_warnings_on_returned_test_cells(course):
    """Each untouched locked cell keeps the checksum nbgrader recorded (issue 10: six warnings a notebook)."""
    log = course["autograde_log"]
    assert "Autograding" in log and "untouched" in log and "correct" in log
    assert not re.findall(r".*'checksum'.*has changed.*", log)


def test_endless_loop_was_cut_by_the_cell_timeout(course):
    nb = nbformat.read(course["root"] / "autograded/endless_loop/attention/attention.ipynb", as_version=4)
    for grade_id in ("test_step4_softmax", "test_step6_head"):
        errors = [o for o in cell(nb, grade_id).outputs if o.output_type == "error"]
        assert errors and errors[-1].ename in ("CellTimeoutError", "KeyboardInterrupt"), grade_id
    assert not [o for o in cell(nb, "test_step5_values").outputs if o.output_type == "error"]


def test_deleted_cells_were_put_back_and_graded(course):
    nb = nbformat.read(course["root"] / "autograded/deleted_cells/attention/attention.ipynb", as_version=4)
    ids = [c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells if c.cell_type == "code"]
    assert ids[:3] == ["shape_checks", "attnkit_checks", "step1_projection"]
    for grade_id in ("shape_checks", "attnkit_checks", "test_step3_masks"):
        restored = cell(nb, grade_id)
        assert "was missing from the submission" in restored.source, grade_id
        assert not [o for o in restored.outputs if o.output_type == "error"], grade_id
    restored = cell(nb, "test_step3_masks")
    n = len(cases_for("step3_masks", "public"))
    assert f"step3_masks: {n} of {n} public checks passed" in "".join(o.get("text", "") for o in restored.outputs)


def test_release_holds_no_solution_and_no_hidden_case(course):
    release = course["release"]
    folder = course["root"] / "release/attention"
    text = nbformat.writes(release) + (folder / FOLDER / "data" / "attention.json").read_text(encoding="utf-8")
    for step in manifest.steps("core"):
        solution = cell(course["source"], step.module).source
        region = re.findall(rf"{stubs.BEGIN}\n(.*?)\n\s*{stubs.END}", solution, flags=re.S)
        for line in "\n".join(region).splitlines():
            assert line.strip() not in {l.strip() for l in cell(release, step.module).source.splitlines()}, line
        assert cell(release, step.module).source == stubs.strip_solutions(step_code(step), step).rstrip("\n")
    public_seeds = {json.dumps(s) for c in cases_for(visibility="public") for s in _seeds(c.calls)}
    for case in cases_for(visibility="hidden"):
        assert case.name not in text
        for seed in {json.dumps(s) for s in _seeds(case.calls)} - public_seeds:
            assert f"'seed': {seed}" not in text and f'"seed": {seed}' not in text, (case.name, seed)
    assert "BEGIN HIDDEN TESTS" not in text
    for step in manifest.steps("core"):  # the test cells as the instructor's: no block stripped, same checksum
        assert cell(release, f"test_{step.module}").source == cell(course["source"], f"test_{step.module}").source
    hidden = json.loads((course["root"] / "hidden_tests/attention.json").read_text())
    for specs in hidden["steps"].values():
        for spec in specs:
            for value in _stored_values(spec["expected"]):
                assert value not in text, (spec["name"], value)
    released = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    assert released == sorted(["attention.ipynb", *LESSON_FILES, *RUNTIME_FILES])  # what it links and imports, beside it
    for path in runtime_sources():
        assert (folder / FOLDER / path.name).read_bytes() == path.read_bytes()


def test_a_copy_of_the_checks_brought_with_the_submission_is_replaced_by_the_courses(course):
    """nbgrader's autograde copies the source's files over the submission's (none is kept by the config): the
    checks, and the input checks the notebook's first cell imports (the student with its own scored 100)."""
    for student, name in ((BROUGHT, f"{FOLDER}/notebook.py"), ("correct", "shape_checks.py")):
        graded = course["root"] / "autograded" / student / "attention" / name
        assert graded.read_bytes() == (course["root"] / "source/attention" / name).read_bytes()
    assert (course["root"] / "source/attention/shape_checks.py").read_bytes() == (
        SOLUTIONS_DIR / "shape_checks.py").read_bytes()


def _from_source(inside):
    """Whether a graded file (its path below the student's folder) is one autograde copies from the source: the
    runtime folder's, shape_checks.py, or Python's bytecode cache of shape_checks.py."""
    inside = list(inside)
    return FOLDER in inside or inside[1:] == ["shape_checks.py"] or (
        inside[1:2] == ["__pycache__"] and inside[-1].startswith("shape_checks."))


def test_no_hidden_case_reaches_autograded_or_feedback_files(course):
    root = course["root"]
    for folder in ("autograded", "feedback"):
        files = [p for p in (root / folder).rglob("*") if p.is_file() and "lessons" not in p.parts]
        assert {p.name for p in files if not _from_source(p.relative_to(root / folder).parts[1:])} <= {
            "attention.ipynb", "attention.html", "timestamp.txt"}
        for path in files:
            student, *inside = path.relative_to(root / folder).parts
            if _from_source(inside) and "__pycache__" not in inside:  # the source's copies, nothing else
                assert path.read_bytes() == (root / "source" / Path(*inside)).read_bytes(), path
            # (beside them, Python's bytecode cache of those same files, written when the notebook imported
            # them, unless PYTHONDONTWRITEBYTECODE is set: a bare environment writes it)
    for html in (root / "feedback").rglob("*.html"):
        text = html.read_text()
        assert not [c.name for c in cases_for(visibility="hidden") if c.name in text]


def test_released_notebook_stops_at_each_steps_not_implemented_error(course, tmp_path):
    """Run as a student runs it: in a copy of the release folder, outside the course."""
    folder = shutil.copytree(course["root"] / "release/attention", tmp_path / "attention")
    nb = nbformat.reads(nbformat.writes(course["release"]), as_version=4)
    nbclient.NotebookClient(nb, timeout=60, allow_errors=True, resources={"metadata": {"path": str(folder)}}).execute()
    for step in manifest.steps("core"):
        assert not [o for o in cell(nb, step.module).outputs if o.output_type == "error"], step.module
        errors = [o for o in cell(nb, f"test_{step.module}").outputs if o.output_type == "error"]
        assert errors and errors[-1].ename == "StepNotWritten", step.module  # a NotImplementedError, shown as its text
        assert errors[-1].evalue.startswith(f"Step {step.number} ({step.module}.")  # its own step first
        assert "还没有写" not in errors[-1].evalue, "the stub's text in the learner's language only"


def test_instructor_notebook_passes_every_test_in_a_kernel(course):
    nb = nbformat.reads(nbformat.writes(course["source"]), as_version=4)
    path = course["root"] / "source/attention"
    nbclient.NotebookClient(nb, timeout=60, allow_errors=True, resources={"metadata": {"path": str(path)}}).execute()
    errors = {c.id: o.evalue for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"}
    assert errors == {}
    for step in manifest.steps("core"):
        out = "".join(o.get("text", "") for o in cell(nb, f"test_{step.module}").outputs)
        n_public, n_hidden = len(cases_for(step.module, "public")), len(cases_for(step.module, "hidden"))
        assert f"{n_public} of {n_public} public checks passed, {n_hidden} of {n_hidden} hidden" in out


def exits_the_process(code):
    """Step 5 calling os._exit: the kernel dies under nbgrader (issue 10)."""
    changed = code.replace(f"    {stubs.BEGIN}", f"    __import__('os')._exit(1)  # the learner's exit\n    {stubs.BEGIN}", 1)
    assert changed != code
    return changed


@pytest.fixture(scope="module")
def killed_kernel(course):
    """A sixth student whose step 5 calls os._exit, autograded on its own after the others."""
    root, student = course["root"], "exits"
    nb = nbformat.reads(nbformat.writes(course["release"]), as_version=4)
    for step in manifest.steps("core"):
        code = cell(course["source"], step.module).source
        cell(nb, step.module).source = finished(exits_the_process(code) if step.module == "step5_values" else code)
    path = root / "submitted" / student / "attention" / "attention.ipynb"
    path.parent.mkdir(parents=True)
    nbformat.write(nb, path)
    nbgrader_args = [sys.executable, "-m", "nbgrader"]
    env = without_own_bin_on_path()
    autograde = subprocess.run([*nbgrader_args, "autograde", "attention", "--student", student], cwd=root,
                               capture_output=True, text=True, timeout=900, env=env)
    subprocess.run([*nbgrader_args, "generate_feedback", "attention", "--student", student], cwd=root,
                   capture_output=True, text=True, timeout=900, env=env)
    return {"root": root, "student": student, "path": path, "autograde": autograde}


def test_a_kernel_killed_by_os_exit_leaves_no_nbgrader_feedback(killed_kernel):
    log = killed_kernel["autograde"].stdout + killed_kernel["autograde"].stderr
    assert "ERROR" in log and "exits" in log, log[-3000:]
    assert not (killed_kernel["root"] / "feedback" / "exits" / "attention" / "attention.html").exists()


def test_attnkit_grade_recovers_the_student_nbgrader_could_not_grade(killed_kernel, tmp_path):
    """docs/NBGRADER.md's recovery: grade the returned notebook with `attnkit grade`."""
    (graded,) = _grade_json([killed_kernel["path"]], tmp_path)
    lost = {t["step"] for t in graded["tests"] if t["status"] != "passed"}
    assert lost == {"step5_values"} and graded["score"] == 100.0 - POINTS["step5_values"]
    outputs = [t["output"] for t in graded["tests"] if t["step"] == "step5_values"]
    ended, not_run = outputs[:2], outputs[2:]  # after two calls ended its process, the function is not called again
    assert all("os._exit" in text for text in ended), ended
    assert all("already ended its process 2 times" in text for text in not_run), not_run


def _grade_json(paths, cwd):
    result = run([sys.executable, "-m", "attnkit.cli", "grade", "--json", *map(str, paths)], cwd)
    return [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]


def _per_step(graded):
    steps = {}
    for test in graded["tests"]:
        steps[test["step"]] = round(steps.get(test["step"], 0.0) + test["score"], 6)
    return steps


def test_attnkit_grade_scores_a_notebook_like_the_same_folder(course, tmp_path):
    pytest.importorskip("attnkit.cmd_grade", reason="`attnkit grade` has not landed")
    folders = {"correct": SOLUTIONS_DIR, "untouched": EXERCISES_DIR}
    mistake = tmp_path / "scale_missing"
    shutil.copytree(SOLUTIONS_DIR, mistake, ignore=shutil.ignore_patterns("__pycache__"))
    (mistake / "step6_head.py").write_text(scale_missing((mistake / "step6_head.py").read_text()))
    folders["scale_missing"] = mistake
    notebooks = [course["root"] / "submitted" / s / "attention/attention.ipynb" for s in folders]
    graded = _grade_json([*notebooks, *folders.values()], tmp_path)
    assert len(graded) == 2 * len(folders)
    by_path = {g["submission"]: g for g in graded}
    for student, folder in folders.items():
        from_notebook = by_path[str(course["root"] / "submitted" / student / "attention/attention.ipynb")]
        from_folder = by_path[str(folder)]
        assert _per_step(from_notebook) == _per_step(from_folder), student
    assert by_path[str(folders["correct"])]["score"] == 100.0
    assert by_path[str(folders["untouched"])]["score"] == 0.0
    assert "scale_missing" in by_path[str(mistake)]["diagnoses"]


def _seeds(value):
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "seed":
                yield item
            else:
                yield from _seeds(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _seeds(item)


def _stored_values(value):
    """The texts of stored expected values: floats with many digits, base64 blobs."""
    if isinstance(value, dict):
        for item in value.values():
            yield from _stored_values(item)
    elif isinstance(value, list):
        for item in value:
            yield from _stored_values(item)
    elif isinstance(value, float) and len(repr(value)) > 8:
        yield repr(value)
    elif isinstance(value, str) and len(value) > 16:
        yield value
