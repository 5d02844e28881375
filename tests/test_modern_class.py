"""A class graded on the modern track (`attnkit grade --track modern`): the class report, `attnkit report`
and the feedback pages hold steps 10–13 only, out of the track's own 100 points (25 a step).

The class: the reference, two slips written as wrappers around the reference (so they survive its edits:
tests/agreement_submissions.py), a submission that did only the core, and the untouched stubs.
"""
import json
import shutil

import pytest

from agreement_submissions import write_submission
from attnkit import manifest
from attnkit.grader.bench import copy_solutions
from attnkit.paths import EXERCISES_DIR
from grading_support import feedback_row, run_cli

MODERN = [s.module for s in manifest.steps("modern")]
# No honest call times out on a busy machine: step 10's blocks of one call steps 2 and 3 once a block, each a
# round trip to the grader's reference worker.
GENEROUS = ("--call-seconds", "30", "--submission-seconds", "300")
SLIPS = {"cache_bytes_k_only": "step11_gqa", "rope_frequencies_reversed": "step12_rope"}


@pytest.fixture(scope="module")
def modern_class(tmp_path_factory):
    root = tmp_path_factory.mktemp("modern_class")
    subs = [copy_solutions(root / "right")] + [str(write_submission(name, root / name)) for name in SLIPS]
    core_only = copy_solutions(root / "core_only")
    for module in MODERN:
        (root / "core_only" / f"{module}.py").unlink()
    subs += [core_only, str(shutil.copytree(EXERCISES_DIR, root / "stub", ignore=shutil.ignore_patterns("__pycache__")))]
    options = ("--track", "modern", "--jobs", "2", *GENEROUS, "--out", str(root / "store"))
    lines = run_cli("grade", *subs, "--json", "--feedback", str(root / "feedback"), *options)
    assert lines.returncode == 0, lines.stderr
    results = root / "results.jsonl"
    results.write_text(lines.stdout, encoding="utf-8")
    grades = {json.loads(x)["submission"].rsplit("/", 1)[-1]: json.loads(x) for x in lines.stdout.splitlines()}
    return {"root": root, "results": results, "grades": grades}


def test_each_grade_is_out_of_the_modern_tracks_100_over_its_four_steps(modern_class):
    grades = modern_class["grades"]
    assert sorted(grades) == sorted(["right", *SLIPS, "core_only", "stub"])
    for name, g in grades.items():
        assert g["max_score"] == 100.0 and {t["step"] for t in g["tests"]} == set(MODERN), name
    assert grades["right"]["score"] == 100.0 and grades["core_only"]["score"] == grades["stub"]["score"] == 0.0
    for name, module in SLIPS.items():
        lost = {t["step"] for t in grades[name]["tests"] if t["status"] != "passed"}
        assert lost == {module} and 75.0 <= grades[name]["score"] < 100.0, (name, lost)


def test_the_class_report_lists_the_modern_steps_at_25_points_each(modern_class):
    page = modern_class["root"] / "report.html"
    proc = run_cli("report", str(modern_class["results"]), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("class report: 5 submissions")
    steps = proc.stdout[proc.stdout.index("points per step"):].splitlines()[1:1 + len(MODERN)]
    assert [line.split()[0] for line in steps] == MODERN and all("/ 25" in line for line in steps), steps
    assert "step1_projection" not in proc.stdout and "step7_layer" not in proc.stdout
    html = page.read_text(encoding="utf-8")
    assert all(module in html for module in MODERN) and "step6_head" not in html


def test_each_student_has_a_feedback_page_of_the_modern_steps(modern_class):
    pages = {p.stem.rsplit("-", 1)[0]: p.read_text(encoding="utf-8") for p in (modern_class["root"] / "feedback").glob("*.md")}
    assert sorted(pages) == sorted(modern_class["grades"])  # <student>-<digest>.md
    for name, text in pages.items():
        assert "/ 100\n" in text and all(f"{feedback_row(module)} " in text and "/ 25 |" in text for module in MODERN), name
        assert "step6_head" not in text and "step7_layer" not in text, name
