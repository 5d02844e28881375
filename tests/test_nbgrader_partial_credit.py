"""Route B (nbgrader autograde) gives a notebook the total route A (`attnkit grade`) gives it (issue 19.5).

nbgrader reads a test cell's numeric result as its partial credit (nbgrader/utils.py, determine_grade ->
get_partial_grade), so each test cell returns the points its step's cases earn by the rule `attnkit grade`
uses (attnkit_runtime.credit), a case failed only on a failing earlier step it called counted as passed
(`attnkit grade` runs that step's reference there). Five notebooks, each made from the release as a learner
hands it in: every step correct; the causal mask anchored top left in step 3 (a known mistake, which
step 6 calls); softmax giving NaN on a fully masked row in step 4 (step 6 calls it too); a NameError in
step 5 (a crash from the learner's own line); the untouched stubs. Each goes through nbgrader's real
commands (generate_assignment, autograde, export) and through `attnkit grade`; the totals agree per student.
"""
import csv
import json
import sys

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")

from attnkit import manifest  # noqa: E402
from agreement_submissions import CATALOGUE  # noqa: E402
from test_nbgrader_roundtrip import filled_notebook, nbgrader, released_course, run  # noqa: E402


def edited(name):
    """The change a CATALOGUE entry makes to one step's code, as filled_notebook takes it."""
    (module,) = {module for module, _, _ in CATALOGUE[name]}

    def change(code):
        for _, old, new in CATALOGUE[name]:
            assert code.count(old) == 1, (name, old)
            code = code.replace(old, new)
        return code
    return change, module


def name_error(code):
    changed = code.replace("return P @ V", "return P @ v")
    assert changed != code
    return changed


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """{student: (nbgrader's total, attnkit grade's total, nbgrader's {test cell: score})}."""
    root, source, release = released_course(tmp_path_factory)
    notebooks = {"correct": filled_notebook(source, release, "core"),
                 "mask_top_left": filled_notebook(source, release, "core", *edited("mask_top_left")),
                 "softmax_nan": filled_notebook(source, release, "core", *edited("fully_masked_nan")),
                 "crash_in_step5": filled_notebook(source, release, "core", name_error, "step5_values"),
                 "stubs": release}
    paths = {}
    for student, nb in notebooks.items():
        paths[student] = root / "submitted" / student / "attention" / "attention.ipynb"
        paths[student].parent.mkdir(parents=True)
        nbformat.write(nb, paths[student])
    nbgrader("autograde", "attention", cwd=root)
    nbgrader("export", cwd=root)
    with open(root / "grades.csv", newline="") as f:
        route_b = {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}
    result = run([sys.executable, "-m", "attnkit.cli", "grade", "--json", *map(str, paths.values())], root)
    route_a = {json.loads(line)["submission"]: json.loads(line)["score"]
               for line in result.stdout.splitlines() if line.startswith("{")}
    cells = {}
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        for student in notebooks:
            cells[student] = {s.module: gb.find_grade(f"test_{s.module}", "attention", "attention", student).score
                              for s in manifest.steps("core")}
    return {student: (route_b[student], route_a[str(path)], cells[student]) for student, path in paths.items()}


def test_nbgrader_and_attnkit_grade_give_the_same_totals(graded):
    totals = {student: (round(b, 4), round(a, 4)) for student, (b, a, _) in graded.items()}
    assert {s: b for s, (b, _) in totals.items()} == {s: a for s, (_, a) in totals.items()}, totals
    assert totals["correct"] == (100.0, 100.0) and totals["stubs"] == (0.0, 0.0)


def test_a_step_with_one_wrong_case_keeps_part_of_its_points(graded):
    _, _, cells = graded["mask_top_left"]
    assert 0 < cells["step3_masks"] < manifest.step("step3_masks").points
    assert cells["step6_head"] == manifest.step("step6_head").points  # blamed on step 3: no double penalty
