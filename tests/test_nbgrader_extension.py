"""The extension's nbgrader assignment, `attention_extension`, with nbgrader's own commands.

`attnkit nbgrader-course` → `nbgrader generate_assignment attention_extension` → four submissions
(correct; positions restarted at 0 in step 8; the locked earlier-steps cell deleted; untouched) →
`nbgrader autograde` → `nbgrader export`: scores out of the extension's own 100 points, partial credit
as `attnkit grade --track extension` gives it.
"""
import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")

from attnkit import manifest  # noqa: E402
from attnkit.nbgrader_course.notebook import EARLIER_STEPS_CELL, EXTENSION  # noqa: E402
from test_nbgrader_roundtrip import (assert_scores_out_of_the_tracks_100, cell, filled_notebook, graded_track,  # noqa: E402
                                     released_course)

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
    return {"root": root, "release": release, "source": source, "rows": graded_track(root, EXTENSION, submitted)}


def test_exported_scores_are_out_of_the_extensions_100(course):
    assert_scores_out_of_the_tracks_100(course, EXTENSION, "extension", EXPECTED_SCORES, "positions_restarted",
                                        "step8_kv_cache")


def test_the_release_keeps_the_earlier_steps_and_strips_the_new_ones(course):
    release, source = course["release"], course["source"]
    assert cell(release, EARLIER_STEPS_CELL).source == cell(source, EARLIER_STEPS_CELL).source
    for step in manifest.steps("extension"):
        assert "raise NotImplementedError" in cell(release, step.module).source
        assert "np.concatenate([arrays[\"K_past\"]" not in cell(release, step.module).source
