"""The modern track's nbgrader assignment, `attention_modern`, with nbgrader's own commands.

`attnkit nbgrader-course` → `nbgrader generate_assignment attention_modern` → four submissions
(correct; step 11's cache size counting K and V once; the locked earlier-steps cell deleted; untouched) →
`nbgrader autograde` → `nbgrader export`: scores out of the modern track's own 100 points, partial credit
as `attnkit grade --track modern` gives it.
"""
import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")

from agreement_submissions import CACHE_OF_K_ONLY  # noqa: E402
from attnkit import manifest  # noqa: E402
from attnkit.nbgrader_course.notebook import EARLIER_STEPS_CELL, MODERN, earlier_steps  # noqa: E402
from test_nbgrader_roundtrip import (assert_scores_out_of_the_tracks_100, cell, filled_notebook, graded_track,  # noqa: E402
                                     released_course)

EXPECTED_SCORES = {"correct": 100.0, "k_and_v_once": None,  # what `attnkit grade --track modern` gives
                   "deleted_earlier_steps": 100.0, "untouched": 0.0}
@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root, source, release = released_course(tmp_path_factory, MODERN)

    deleted = filled_notebook(source, release, "modern")
    deleted.cells.remove(cell(deleted, EARLIER_STEPS_CELL))
    submitted = {"correct": filled_notebook(source, release, "modern"),
                 "k_and_v_once": filled_notebook(source, release, "modern"),
                 "deleted_earlier_steps": deleted, "untouched": release}
    cell(submitted["k_and_v_once"], "step11_gqa").source += CACHE_OF_K_ONLY
    return {"root": root, "release": release, "source": source, "rows": graded_track(root, MODERN, submitted)}


def test_exported_scores_are_out_of_the_modern_tracks_100(course):
    assert_scores_out_of_the_tracks_100(course, MODERN, "modern", EXPECTED_SCORES, "k_and_v_once", "step11_gqa")


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
