"""Tracks: the core (steps 1–6), the extension (7–9) and the modern track (10–13) are separate 100-point
assignments.

`attnkit grade` grades the core unless told `--track extension` or `--track modern`; `attnkit verify`
checks every track; the ladder shows the optional tracks, each under its title (the manifest's `tracks:`),
once the core is done; a track whose steps' points do not total 100 is refused.
"""
import json
from decimal import Decimal

import pytest

from attnkit import manifest, rubric
from attnkit_runtime import ladder
from attnkit.cases import cases_for
from attnkit.grader.bench import copy_solutions
from attnkit.grader.grade import grade_submission
from attnkit.grader import submission
from attnkit.grader.plan import Plan
from attnkit.grader.runners import SandboxRunner
from attnkit.grader.sandbox_types import Limits
from attnkit.paths import DATA_DIR, EXERCISES_DIR, SOLUTIONS_DIR
from grading_support import assert_spec_shape, run_cli

CORE = [s.module for s in manifest.steps("core")]
EXTENSION = [s.module for s in manifest.steps("extension")]
MODERN = [s.module for s in manifest.steps("modern")]


def test_the_manifest_splits_the_steps_into_core_then_extension_then_modern():
    assert manifest.tracks() == ("core", "extension", "modern")
    assert CORE == [f"step{k}_{name}" for k, name in
                    enumerate(("projection", "scores", "masks", "softmax", "values", "head"), start=1)]
    assert EXTENSION[:2] == ["step7_layer", "step8_kv_cache"]
    assert MODERN == ["step10_tiled", "step11_gqa", "step12_rope", "step13_backward"]
    assert [s.module for s in manifest.steps()] == CORE + EXTENSION + MODERN


@pytest.mark.parametrize("track", manifest.tracks())
def test_each_track_totals_100_over_its_own_steps(track):
    points = rubric.step_points(track)
    assert sorted(points) == sorted(s.module for s in manifest.steps(track)) and sum(points.values()) == 100
    shares = {name: Decimal(repr(p)) for name, p in rubric.case_points(track).items()}  # as a report writes them
    for module, total in points.items():
        assert sum(shares[c.name] for c in cases_for(module)) == total, module  # exactly: no 99.99999


def test_a_track_that_does_not_total_100_is_refused(tmp_path, monkeypatch):
    text = (DATA_DIR / "manifest.yaml").read_text(encoding="utf-8")
    assert text.count("points: 40") == 2
    (tmp_path / "manifest.yaml").write_text(text.replace("points: 40", "points: 35", 1), encoding="utf-8")
    monkeypatch.setattr(manifest, "DATA_DIR", tmp_path)
    caches = (manifest._load, manifest._all_steps, rubric.step_points)
    for cache in caches:
        cache.cache_clear()
    try:
        with pytest.raises(ValueError, match=r"extension track's points must total 100, got 95 "
                                             r"\(step7_layer 35, step8_kv_cache 40, step9_ggml_layout 20\)"):
            rubric.step_points("extension")
    finally:
        for cache in caches:
            cache.cache_clear()


def test_an_unknown_track_is_named():
    with pytest.raises(ValueError, match="no track 'bonus'; tracks are \\['core', 'extension', 'modern'\\]"):
        manifest.steps("bonus")


GENEROUS = ("--call-seconds", "30", "--submission-seconds", "300")  # no honest call times out on a busy machine
GENEROUS_LIMITS = Limits(call_seconds=30.0, submission_seconds=300.0)  # the same, for a SandboxRunner


def _graded_track(track, *options):
    """(solutions' grade, stubs' grade) in `track`, each checked for its shape and its track's steps."""
    done = run_cli("grade", str(SOLUTIONS_DIR), str(EXERCISES_DIR), "--json", "--track", track, "--jobs", "2", *options)
    assert done.returncode == 0, done.stderr
    grades = {g["submission"]: g for g in map(json.loads, done.stdout.splitlines())}
    for g in grades.values():
        assert_spec_shape(g)
        assert {t["step"] for t in g["tests"]} == {s.module for s in manifest.steps(track)} and g["max_score"] == 100.0
    return grades[str(SOLUTIONS_DIR)], grades[str(EXERCISES_DIR)]


def test_grade_defaults_to_the_core_and_grades_the_extension_on_request():
    core = run_cli("grade", str(SOLUTIONS_DIR), "--json")
    assert core.returncode == 0, core.stderr
    core_grade = json.loads(core.stdout)
    assert {t["step"] for t in core_grade["tests"]} == set(CORE) and core_grade["score"] == 100.0
    solutions, stubs = _graded_track("extension", *GENEROUS)
    assert solutions["score"] == 100.0 and stubs["score"] == 0.0
    assert all("not written yet" in t["output"] for t in stubs["tests"])


def test_every_track_has_a_title_in_both_languages_and_the_modern_one_is_the_courses():
    assert all(set(manifest.track_title(track)) == {"en", "zh"} for track in manifest.tracks())
    assert manifest.track_title("modern") == {"en": "After GPT-2: how today's engines compute attention",
                                              "zh": "GPT-2 之后：今天的引擎怎样算注意力"}
    assert manifest.step("step12_rope").track_title == manifest.track_title("modern")


def test_grade_grades_the_modern_track_on_request():
    solutions, stubs = _graded_track("modern", *GENEROUS)
    assert solutions["score"] == 100.0 and stubs["score"] == 0.0
    assert sum(t["max_score"] for t in solutions["tests"] if t["step"] == "step13_backward") == pytest.approx(25.0)


def test_a_core_only_submission_gets_full_core_marks(tmp_path):
    folder = copy_solutions(tmp_path / "core_only")
    for module in EXTENSION:
        (tmp_path / "core_only" / f"{module}.py").unlink()
    graded = grade_submission(Plan(), SandboxRunner(), submission.read(folder))
    assert graded.score == 100.0


def test_a_step7_mistake_costs_extension_points_only_and_is_named(tmp_path):
    folder = copy_solutions(tmp_path / "s", ("step7_layer.py", "return np.swapaxes(heads, -3, -2)",
                                             "return X.reshape(*X.shape[:-2], n_head, T, D // n_head)"))
    sub = submission.read(folder)
    assert grade_submission(Plan(), SandboxRunner(), sub).score == 100.0
    graded = grade_submission(Plan("extension"), SandboxRunner(GENEROUS_LIMITS), sub)
    failed = [t for t in graded.tests if t.status != "passed"]
    assert failed and {t.step for t in failed} == {"step7_layer"}
    assert graded.diagnoses == ["heads_split_without_transpose"]
    assert graded.steps["step8_kv_cache"] == (40.0, 40.0)  # step 8 runs with the reference step 7


def test_the_ladder_shows_the_extension_once_the_core_is_done():
    def tallies(core_done):
        found = {m: ladder.StepTally(passed=3) for m in CORE}
        if not core_done:
            found["step4_softmax"] = ladder.StepTally(passed=1, failed=2, first_failure="x")
        return found | {m: ladder.StepTally(not_done=2, failed=2, first_failure="y") for m in EXTENSION}

    steps, hidden = manifest.steps(), {}
    waiting = ladder.render(tallies(core_done=False), steps, hidden)
    assert "step7_layer" not in waiting and "(shown once the core is done):" in waiting and "step4_softmax.py" in waiting
    ready = ladder.render(tallies(core_done=True), steps, hidden)
    assert "step7_layer" in ready and "Next: exercises/step7_layer.py" in ready


def test_the_ladder_waits_with_each_optional_track_named_then_shows_the_modern_steps_under_its_title():
    tallies = {m: ladder.StepTally(passed=3) for m in CORE} | {m: ladder.StepTally(skipped=2) for m in EXTENSION + MODERN}
    tallies["step2_scores"] = ladder.StepTally(passed=1, failed=1, first_failure="x")
    waiting = ladder.render(tallies, manifest.steps(), {})
    assert "    steps 7–9: Beyond one head" in waiting and \
        "    steps 10–13: After GPT-2: how today's engines compute attention" in waiting and "step10_tiled" not in waiting
    tallies["step2_scores"] = ladder.StepTally(passed=2)
    tallies["step11_gqa"] = ladder.StepTally(passed=1, failed=2, first_failure="y")
    ready = ladder.render(tallies, manifest.steps(), {}).splitlines()
    heading = ready.index("  After GPT-2: how today's engines compute attention (optional, graded on its own 100 points)")
    assert ready[heading + 1].startswith("  step 10 step10_tiled ") and "Next: exercises/step11_gqa.py" in "\n".join(ready)


def test_the_hidden_concepts_wrap_to_the_terminals_columns_in_either_language(monkeypatch):
    """A Chinese character takes two columns: the list of what the hidden tests check stays within 100."""
    import unicodedata

    from attnkit.cases import hidden_concepts

    steps = manifest.steps("core")
    everything_passes = {s.module: ladder.StepTally(passed=3) for s in steps}
    hidden = {s.module: hidden_concepts(s.module) for s in steps}
    for lang in ("en", "zh"):
        monkeypatch.setenv("ATTNKIT_LANG", lang)
        listed = ladder.render(everything_passes, steps, hidden).split("\n")
        listed = listed[next(k for k, line in enumerate(listed) if line.startswith("  ")) + 1:]
        listed = [line for line in listed if line.startswith("  ")]
        columns = [sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line) for line in listed]
        assert len(listed) > 6 and max(columns) <= 100, (lang, max(columns))


def test_the_extension_notebook_of_the_course_scores_100_in_its_track(tmp_path):
    """`attnkit grade --track extension` reads the extension's nbgrader notebook by the same cell convention."""
    from attnkit.nbgrader_course import notebook

    path = tmp_path / "attention_extension.ipynb"
    path.write_text(json.dumps(notebook.source_notebook("digest", assignment=notebook.EXTENSION)), encoding="utf-8")
    graded = grade_submission(Plan("extension"), SandboxRunner(GENEROUS_LIMITS), submission.read(str(path)))
    assert graded.score == 100.0 and {t.step for t in graded.tests} == set(EXTENSION)


def test_the_modern_notebook_of_the_course_scores_100_in_its_track(tmp_path):
    """`attnkit grade --track modern` reads the modern track's nbgrader notebook by the same cell convention."""
    from attnkit.nbgrader_course import notebook

    path = tmp_path / "attention_modern.ipynb"
    path.write_text(json.dumps(notebook.source_notebook("digest", assignment=notebook.MODERN)), encoding="utf-8")
    graded = grade_submission(Plan("modern"), SandboxRunner(GENEROUS_LIMITS), submission.read(str(path)))
    assert graded.score == 100.0 and {t.step for t in graded.tests} == set(MODERN)
