"""The modern track's nbgrader assignment, `attention_modern`, with nbgrader's own commands.

`attnkit nbgrader-course` → `nbgrader generate_assignment attention_modern` → four submissions
(correct; step 11's cache size counting K and V once; the locked earlier-steps cell deleted; untouched) →
`nbgrader autograde` → `nbgrader export`: scores out of the modern track's own 100 points, partial credit
as `attnkit grade --track modern` gives it.
"""
import csv
import json
import sys

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")

from attnkit import manifest, rubric  # noqa: E402
from attnkit.nbgrader_course.notebook import EARLIER_STEPS_CELL, MODERN, earlier_steps  # noqa: E402
from test_nbgrader_roundtrip import cell, filled_notebook, nbgrader, released_course, run  # noqa: E402

POINTS = rubric.step_points("modern")
EXPECTED_SCORES = {"correct": 100.0, "k_and_v_once": None,  # what `attnkit grade --track modern` gives
                   "deleted_earlier_steps": 100.0, "untouched": 0.0}
# Appended to step 11's finished cell: kv_cache_bytes counts the cache of K only (a likely slip).
K_AND_V_ONCE = '''

_whole_cache_bytes = kv_cache_bytes


def kv_cache_bytes(n_layer, n_kv_head, d_head, n_ctx, dtype="float16"):
    return _whole_cache_bytes(n_layer, n_kv_head, d_head, n_ctx, dtype) // 2
'''


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root, source, release = released_course(tmp_path_factory, MODERN)

    deleted = filled_notebook(source, release, "modern")
    deleted.cells.remove(cell(deleted, EARLIER_STEPS_CELL))
    submitted = {"correct": filled_notebook(source, release, "modern"),
                 "k_and_v_once": filled_notebook(source, release, "modern"),
                 "deleted_earlier_steps": deleted, "untouched": release}
    cell(submitted["k_and_v_once"], "step11_gqa").source += K_AND_V_ONCE
    for student, nb in submitted.items():
        path = root / "submitted" / student / MODERN / f"{MODERN}.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    nbgrader("autograde", MODERN, cwd=root)
    nbgrader("export", cwd=root)
    return {"root": root, "release": release, "source": source}


def test_exported_scores_are_out_of_the_modern_tracks_100(course):
    with open(course["root"] / "grades.csv", newline="") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    scores = {s: float(r["score"]) for s, r in rows.items()}
    assert {s: v for s, v in scores.items() if EXPECTED_SCORES[s] is not None} == {
        s: v for s, v in EXPECTED_SCORES.items() if v is not None}
    path = course["root"] / "submitted/k_and_v_once" / MODERN / f"{MODERN}.ipynb"
    graded = run([sys.executable, "-m", "attnkit.cli", "grade", "--track", "modern", "--json", str(path),
                  "--call-seconds", "30", "--submission-seconds", "300"], course["root"])  # no timeout on a busy machine
    (line,) = [line for line in graded.stdout.splitlines() if line.startswith("{")]
    step11 = sum(t["score"] for t in json.loads(line)["tests"] if t["step"] == "step11_gqa")
    assert 0 < step11 < POINTS["step11_gqa"]  # partial credit, the same in both
    assert round(scores["k_and_v_once"], 4) == round(100.0 - POINTS["step11_gqa"] + step11, 4)
    assert {r["assignment"] for r in rows.values()} == {MODERN}
    assert {float(r["max_score"]) for r in rows.values()} == {100.0}


def test_the_notebook_holds_the_core_it_imports_and_no_other_tracks_code(course):
    """The locked cell gives steps 1–6 (what steps 10–13 call); the extension's answers are not in it."""
    release, source = course["release"], course["source"]
    assert [s.track for s in earlier_steps("modern")] == ["core"] * 6
    held = cell(release, EARLIER_STEPS_CELL).source
    assert held == cell(source, EARLIER_STEPS_CELL).source and "def attention(" in held
    for step in manifest.steps("extension"):
        assert all(f"def {fn.name}(" not in held for fn in step.functions), step.module
    for step in manifest.steps("modern"):
        assert "raise NotImplementedError" in cell(release, step.module).source
    assert "25 points" in "".join(c.source for c in release.cells if c.cell_type == "markdown")
