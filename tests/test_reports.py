"""Reports of `attnkit grade`: terminal text, CSV gradebook, Gradescope results.json, and the batch journal."""
import csv
import dataclasses
import json
import signal
import subprocess
import sys
import time
from decimal import Decimal

import numpy as np
import pytest

from attnkit import manifest, rubric
from attnkit.cli import main
from attnkit.grader import report_csv, report_gradescope, report_text
from attnkit.grader.bench import EDITS, copy_solutions
from attnkit.grader.grade import grade
from attnkit.grader.plan import Plan
from attnkit.grader.runners import InProcessRunner, reference_function
from attnkit.grader.verify import mistake_overrides
from attnkit.paths import EXERCISES_DIR, ROOT, SOLUTIONS_DIR
from grading_support import assert_spec_shape, gradescope_texts, gradescope_visible, plan

STEPS = [s.module for s in manifest.steps("core")]
ALL_FILES = {f"{m}.py": "" for m in STEPS}  # the in-process runner ignores the text


def mistaken(code):
    return grade(plan(), InProcessRunner(mistake_overrides(code)), ALL_FILES, f"with {code}")


def graded_with(overrides):
    return grade(plan(), InProcessRunner(overrides), ALL_FILES, "a submission")


def _upcast_softmax(**kwargs):
    """softmax giving float64 for float32 scores: only a hidden test (float32 stays float32) catches it."""
    return np.asarray(reference_function("step4_softmax", "softmax")(**kwargs), dtype=np.float64)


MARKUP = '<b>bold</b><img src=x onerror="alert(1)">'


def _raise_markup(**kwargs):
    raise ValueError(MARKUP)


def gradescope(graded):
    return report_gradescope.results(graded, plan().case_named)


def test_terminal_report_names_steps_failures_and_the_mistake():
    graded = mistaken("bias_missing")
    text = report_text.text(graded)
    assert 80 < graded.score < 100 and f"with bias_missing: {round(graded.score, 2):g} / 100" in text
    assert all(m in text for m in STEPS)
    assert "— bias_missing" in text and "likely mistake: left out the bias" in text


def test_learner_output_is_shown_capped_and_never_parsed():
    graded = mistaken("bias_missing")
    graded.stdout = '{"score": 100.0}\n' + "x" * 10_000
    text = report_text.text(graded)
    assert '| {"score": 100.0}' in text and len(text) < 12_000 and f"{round(graded.score, 2):g} / 100" in text
    printed = [t["output"] for t in gradescope(graded)["tests"] if '{"score": 100.0}' in t["output"]]
    assert len(printed) == 1 and len(printed[0]) < 9_000


def test_csv_gradebook_has_a_row_per_submission_and_a_column_per_step(tmp_path):
    graded = [mistaken("bias_missing"), mistaken("mask_inverted")]
    path = tmp_path / "grades.csv"
    report_csv.write(path, graded, STEPS)
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    assert [r["submission"] for r in rows] == ["with bias_missing", "with mask_inverted"]
    assert list(rows[0]) == ["student", "status", "submission", "found_in", *STEPS, "score", "max_score", "diagnoses",
                             "isolation"]
    assert rows[0]["isolation"] == "in_process" and rows[0]["status"] == "graded"
    assert float(rows[0]["score"]) == graded[0].score and float(rows[0]["step4_softmax"]) == 20
    assert sum(float(rows[1][m]) for m in STEPS) == pytest.approx(float(rows[1]["score"]))
    assert "mask_inverted" in rows[1]["diagnoses"].split()
    assert [p.name for p in tmp_path.iterdir()] == ["grades.csv"]  # no temporary file left


def test_gradescope_results_follow_the_schema():
    graded = mistaken("softmax_wrong_axis")
    data = report_gradescope.results(graded, plan().case_named)
    assert set(data) >= {"score", "tests", "stdout_visibility", "output"} and data["score"] == graded.score
    public = {p.case.name for p in plan().cases if p.case.public}
    for test in data["tests"]:
        assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
        assert test["visibility"] == ("visible" if test["name"] in public else "after_published")
    assert abs(sum(t["score"] for t in data["tests"]) - data["score"]) < 1e-4
    assert "graded on its own" in data["output"]


def test_gradescope_shows_before_publication_nothing_of_hidden_results():
    correct, upcast = graded_with({}), graded_with({("step4_softmax", "softmax"): _upcast_softmax})
    assert all(t.status == "passed" for t in upcast.tests if t.public)
    assert any(t.status != "passed" for t in upcast.tests if not t.public) and upcast.score < 100
    seen = gradescope_visible(gradescope(upcast))
    assert seen == gradescope_visible(gradescope(correct))  # a student cannot tell the two apart
    assert "graded on its own" in seen["output"]
    hidden = next(i for i, t in enumerate(correct.tests) if not t.public)
    correct.tests[hidden] = dataclasses.replace(correct.tests[hidden], status="failed", score=0.0, diagnosis="scale_by_d")
    assert gradescope_visible(gradescope(correct)) == seen  # nor a hidden test's likely mistake


def _public_softmax_only():
    """softmax as a lookup table of its public calls' results, zeros elsewhere: its public tests pass, unpaid."""
    known = [call for p in plan().cases if p.case.public and p.case.function == "softmax" for call in p.calls]
    right = reference_function("step4_softmax", "softmax")

    def looked_up(S):
        seen = any(np.array_equal(S, call["S"]) and S.dtype == call["S"].dtype for call in known)
        return right(S=S) if seen else np.zeros_like(S)
    return {("step4_softmax", "softmax"): looked_up}


def test_gradescope_withholds_unpaid_public_points_only_after_publication():
    correct, looked_up = graded_with({}), graded_with(_public_softmax_only())
    unpaid = [t for t in looked_up.tests if t.public and t.status == "passed" and t.score == 0]
    assert unpaid and all(t.status == "passed" for t in looked_up.tests if t.public)
    data = gradescope(looked_up)
    assert gradescope_visible(data) == gradescope_visible(gradescope(correct))  # why they are unpaid is hidden
    withheld = [t for t in data["tests"] if t["name"] not in plan().case_named and t.get("max_score") == 0]
    assert len(withheld) == 1 and withheld[0]["visibility"] == "after_published"
    assert withheld[0]["score"] == -round(sum(t.max_score for t in unpaid), 6)
    assert abs(sum(t.get("score", 0) for t in data["tests"]) - looked_up.score) < 1e-6


def test_gradescope_numbers_the_visible_tests_of_a_step_without_gaps_for_hidden_ones():
    tests = gradescope(graded_with({}))["tests"]
    for step in manifest.steps("core"):
        mine = [t for t in tests if t["name"] in plan().case_named and plan().case_named[t["name"]].step == step]
        visible = [t["number"] for t in mine if t["visibility"] == "visible"]
        assert visible and visible == [f"{step.number}.{k}" for k in range(1, len(visible) + 1)]
        assert len({t["number"] for t in mine}) == len(mine)


def test_gradescope_keeps_the_isolation_note_for_the_instructor():
    graded = graded_with({})
    graded.isolation = "no barrier: it can still read every world-readable file (/autograder/source/solutions)"
    data = gradescope(graded)
    assert data["extra_data"]["isolation"] == graded.isolation
    assert not any("world-readable" in text or "/autograder" in text for text, _ in gradescope_texts(data))


def test_gradescope_shows_learner_text_as_text_not_html():
    graded = graded_with({("step2_scores", "raw_scores"): _raise_markup})
    graded.stdout, graded.stderr = MARKUP, MARKUP
    shown = [fmt for text, fmt in gradescope_texts(gradescope(graded)) if "<img" in text]
    assert len(shown) > 3 and set(shown) == {"text"}


def test_gradescope_shows_what_the_code_printed_with_the_hidden_tests():
    graded = graded_with({})
    graded.stdout, graded.stderr = "softmax got (4, 6)\n" * 9, "a warning\n"  # one line per call: a count
    data = gradescope(graded)
    assert "softmax got" not in json.dumps(gradescope_visible(data)) and "a warning" not in json.dumps(gradescope_visible(data))
    printed = [t for t in data["tests"] if "softmax got" in t["output"] or "a warning" in t["output"]]
    assert len(printed) == 2 and {t["visibility"] for t in printed} == {"after_published"}
    assert all("score" not in t and "max_score" not in t for t in printed)  # information, no points
    graded.tests = [t for t in graded.tests if t.public]  # nothing hidden: shown at once
    assert "softmax got" in json.dumps(gradescope_visible(gradescope(graded)))


@pytest.mark.parametrize("track", manifest.tracks())
def test_gradescope_points_add_up_to_exactly_100_per_track(track):
    track_plan = Plan(track)
    graded = grade(track_plan, InProcessRunner(), {f"{m}.py": "" for m in track_plan.steps}, "x")
    data = json.loads(json.dumps(report_gradescope.results(graded, track_plan.case_named)), parse_float=Decimal)
    assert sum(t["max_score"] for t in data["tests"]) == 100 and data["score"] == 100
    for module, points in rubric.step_points(track).items():
        mine = [t for t in data["tests"] if track_plan.case_named[t["name"]].step.module == module]
        assert sum(t["max_score"] for t in mine) == points, module


def test_gradescope_file_of_one_submission(tmp_path, capsys):
    out = tmp_path / "results" / "results.json"
    assert main(["grade", str(SOLUTIONS_DIR), "--gradescope", str(out)]) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["score"] == 100.0 and len(data["tests"]) == len(plan().cases)
    assert {t["visibility"] for t in data["tests"]} == {"visible", "after_published"}
    assert "100 / 100" in capsys.readouterr().out


def test_batch_writes_reports_skips_on_rerun_and_regrades_on_force_or_edit(tmp_path, capsys):
    buggy = copy_solutions(tmp_path / "buggy", EDITS[2])
    paths = [str(SOLUTIONS_DIR), str(EXERCISES_DIR), buggy]
    csv_file, gs = tmp_path / "out" / "grades.csv", tmp_path / "gs"
    journal = tmp_path / "out" / "grades.csv.journal.jsonl"
    args = ["grade", *paths, "--json", "--csv", str(csv_file), "--gradescope", str(gs), "--jobs", "2"]

    assert main(args) == 0
    first = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(g["submission"] for g in first) == sorted(paths)
    for g in first:
        assert_spec_shape(g)
    assert len(journal.read_text().splitlines()) == 3
    assert [r["submission"] for r in csv.DictReader(csv_file.open())] == paths  # input order
    assert len(list(gs.glob("*.json"))) == 3

    assert main(args) == 0  # rerun: nothing regraded, the same results reported
    again = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert sorted(again, key=lambda g: g["submission"]) == sorted(first, key=lambda g: g["submission"])
    assert len(journal.read_text().splitlines()) == 3

    (tmp_path / "buggy" / "step1_projection.py").write_text(
        (SOLUTIONS_DIR / "step1_projection.py").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(args) == 0  # the edited submission alone is regraded
    capsys.readouterr()
    assert len(journal.read_text().splitlines()) == 4
    assert [float(r["score"]) for r in csv.DictReader(csv_file.open())] == [100.0, 0.0, 100.0]

    assert main([*args, "--force"]) == 0
    capsys.readouterr()
    assert len(journal.read_text().splitlines()) == 7


def test_a_torn_journal_line_is_dropped_and_regraded(tmp_path, capsys):
    out = tmp_path / "store"
    args = ["grade", str(SOLUTIONS_DIR), "--json", "--out", str(out)]
    assert main(args) == 0
    journal = out / "attnkit-results.jsonl"
    line = journal.read_text()
    journal.write_text(line[: len(line) // 2])  # as if killed while writing
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["score"] == 100.0
    assert [json.loads(x)["record"]["score"] for x in journal.read_text().splitlines()] == [100.0]


def test_progress_goes_to_stderr_only(tmp_path, capsys):
    assert main(["grade", str(SOLUTIONS_DIR), str(EXERCISES_DIR), "--json", "--progress", "--jobs", "2"]) == 0
    out, err = capsys.readouterr()
    assert "[2/2]" in err and all(line.startswith("{") for line in out.splitlines())


def test_progress_ends_on_its_last_line_when_a_path_cannot_be_read(tmp_path, capsys):
    missing = tmp_path / "no-such-folder"
    assert main(["grade", str(SOLUTIONS_DIR), str(missing), "--json", "--progress"]) == 2
    err = capsys.readouterr().err
    assert "[2/2]" in err, err


def test_killing_the_grader_mid_batch_loses_nothing_graded(tmp_path):
    hang = ("step4_softmax.py", "row_max = S.max(axis=-1, keepdims=True)", "while True:\n        pass")
    paths = [str(SOLUTIONS_DIR)] + [copy_solutions(tmp_path / f"hang{k}", hang) for k in range(3)]
    csv_file = tmp_path / "grades.csv"
    journal = tmp_path / "grades.csv.journal.jsonl"
    args = [sys.executable, "-m", "attnkit.cli", "grade", *paths, "--csv", str(csv_file), "--jobs", "1",
            "--call-seconds", "1"]
    proc = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (journal.exists() and journal.read_text().count("\n") >= 1) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    graded = [json.loads(line)["record"]["submission"] for line in journal.read_text().splitlines()]
    assert str(SOLUTIONS_DIR) in graded and len(graded) < len(paths)
    if csv_file.exists():  # never half-written: the old whole file or the new whole file
        assert list(csv.DictReader(csv_file.open()))[0]["score"] == "100"
    # a temporary file exists only if the kill hit a write; the next run clears it
    subprocess.run(args[:5] + args[-6:], cwd=ROOT, check=True, capture_output=True)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
