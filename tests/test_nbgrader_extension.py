"""The extension's nbgrader assignment, `attention_extension`, with nbgrader's own commands.

`attnkit nbgrader-course` → `nbgrader generate_assignment attention_extension` → four submissions
(correct; positions restarted at 0 in step 8; the locked earlier-steps cell deleted; untouched) →
`nbgrader autograde` → `nbgrader export`: scores out of the extension's own 100 points, partial credit
as `attnkit grade --track extension` gives it.
"""
import csv
import json
import sys

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")

from attnkit import manifest, rubric  # noqa: E402
from attnkit.nbgrader_course.notebook import EARLIER_STEPS_CELL, EXTENSION  # noqa: E402
from test_nbgrader_roundtrip import cell, filled_notebook, nbgrader, released_course, run  # noqa: E402

POINTS = rubric.step_points("extension")
EXPECTED_SCORES = {"correct": 100.0, "positions_restarted": None,  # what `attnkit grade --track extension` gives
                   "deleted_earlier_steps": 100.0, "untouched": 0.0}


def restarted_positions(code):
    changed = code.replace("chunk_positions(np.shape(K_past)[1], Z_new.shape[0])", "chunk_positions(0, Z_new.shape[0])")
    assert changed != code, "solutions/step8_kv_cache.py no longer calls chunk_positions(np.shape(K_past)[1], …)"
    return changed


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root, source, release = released_course(tmp_path_factory, EXTENSION)

    deleted = filled_notebook(source, release, "extension")
    deleted.cells.remove(cell(deleted, EARLIER_STEPS_CELL))
    submitted = {"correct": filled_notebook(source, release, "extension"),
                 "positions_restarted": filled_notebook(source, release, "extension", restarted_positions, "step8_kv_cache"),
                 "deleted_earlier_steps": deleted, "untouched": release}
    for student, nb in submitted.items():
        path = root / "submitted" / student / EXTENSION / f"{EXTENSION}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    nbgrader("autograde", EXTENSION, cwd=root)
    nbgrader("export", cwd=root)
    return {"root": root, "release": release, "source": source}


def test_exported_scores_are_out_of_the_extensions_100(course):
    with open(course["root"] / "grades.csv", newline="") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    scores = {s: float(r["score"]) for s, r in rows.items()}
    assert {s: v for s, v in scores.items() if EXPECTED_SCORES[s] is not None} == {
        s: v for s, v in EXPECTED_SCORES.items() if v is not None}
    path = course["root"] / "submitted/positions_restarted" / EXTENSION / f"{EXTENSION}.ipynb"
    graded = run([sys.executable, "-m", "attnkit.cli", "grade", "--track", "extension", "--json", str(path)], course["root"])
    (line,) = [line for line in graded.stdout.splitlines() if line.startswith("{")]
    step8 = sum(t["score"] for t in json.loads(line)["tests"] if t["step"] == "step8_kv_cache")
    assert 0 < step8 < POINTS["step8_kv_cache"]  # partial credit, the same in both
    assert round(scores["positions_restarted"], 4) == round(100.0 - POINTS["step8_kv_cache"] + step8, 4)
    assert {r["assignment"] for r in rows.values()} == {EXTENSION}
    assert {float(r["max_score"]) for r in rows.values()} == {100.0}


def test_the_release_keeps_the_earlier_steps_and_strips_the_new_ones(course):
    release, source = course["release"], course["source"]
    assert cell(release, EARLIER_STEPS_CELL).source == cell(source, EARLIER_STEPS_CELL).source
    for step in manifest.steps("extension"):
        assert "raise NotImplementedError" in cell(release, step.module).source
        assert "np.concatenate([arrays[\"K_past\"]" not in cell(release, step.module).source
