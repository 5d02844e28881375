"""The optional tracks' nbgrader assignments (`attention_extension`, `attention_modern`), with nbgrader's
own commands.

For each track: `attnkit nbgrader-course` → `nbgrader generate_assignment` → four submissions (correct;
one known mistake of the track; the locked earlier-steps cell deleted; untouched) → `nbgrader autograde`
→ `nbgrader export`: scores out of the track's own 100 points, partial credit as `attnkit grade --track`
gives it.
"""
from dataclasses import dataclass
from typing import Callable

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")

from agreement_submissions import CACHE_OF_K_ONLY  # noqa: E402
from attnkit import manifest, stubs  # noqa: E402
from attnkit.nbgrader_course.notebook import EARLIER_STEPS_CELL, EXTENSION, MODERN, earlier_steps  # noqa: E402
from test_nbgrader_roundtrip import (assert_scores_out_of_the_tracks_100, cell, filled_notebook, graded_track,  # noqa: E402
                                     released_course)


def restarted_positions(code):
    changed = code.replace("chunk_positions(np.shape(K_past)[1], Z_new.shape[0])", "chunk_positions(0, Z_new.shape[0])")
    assert changed != code, "solutions/step8_kv_cache.py no longer calls chunk_positions(np.shape(K_past)[1], …)"
    return changed


@dataclass(frozen=True)
class TrackMistake:
    """A track's assignment and the one known mistake handed in: `change` applied to `module`'s cell."""
    track: str
    assignment: str
    mistake: str
    module: str
    change: Callable[[str], str]


TRACKS = [TrackMistake("extension", EXTENSION, "positions_restarted", "step8_kv_cache", restarted_positions),
          TrackMistake("modern", MODERN, "k_and_v_once", "step11_gqa", lambda code: code + CACHE_OF_K_ONLY)]


@pytest.fixture(scope="module", params=TRACKS, ids=[t.track for t in TRACKS])
def course(request, tmp_path_factory):
    t = request.param
    root, source, release = released_course(tmp_path_factory, t.assignment)
    deleted = filled_notebook(source, release, t.track)
    deleted.cells.remove(cell(deleted, EARLIER_STEPS_CELL))
    submitted = {"correct": filled_notebook(source, release, t.track),
                 t.mistake: filled_notebook(source, release, t.track, t.change, t.module),
                 "deleted_earlier_steps": deleted, "untouched": release}
    return {"track": t, "root": root, "release": release, "source": source,
            "rows": graded_track(root, t.assignment, submitted)}


def test_exported_scores_are_out_of_the_tracks_own_100(course):
    t = course["track"]
    expected = {"correct": 100.0, t.mistake: None,  # None: what `attnkit grade --track` gives
                "deleted_earlier_steps": 100.0, "untouched": 0.0}
    assert_scores_out_of_the_tracks_100(course, t.assignment, t.track, expected, t.mistake, t.module)


def test_the_notebook_holds_the_core_it_imports_and_no_other_tracks_code(course):
    """The locked cell gives steps 1–6 (what the track's steps call) as the instructor's notebook has them;
    no other optional track's answers are in it, and the track's own cells are stubs."""
    t, release, source = course["track"], course["release"], course["source"]
    assert [s.track for s in earlier_steps(t.track)] == ["core"] * 6
    held = cell(release, EARLIER_STEPS_CELL).source
    assert held == cell(source, EARLIER_STEPS_CELL).source and "def attention(" in held
    for step in manifest.steps():
        if step.track not in ("core", t.track):
            assert all(f"def {fn.name}(" not in held for fn in step.functions), step.module
    for step in manifest.steps(t.track):
        handed_out = cell(release, step.module).source
        assert "raise NotImplementedError" in handed_out
        solved = set(stubs.solution_lines(cell(source, step.module).source))
        assert solved and not solved & {line.strip() for line in handed_out.splitlines()}, step.module
