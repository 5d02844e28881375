"""After grading (issue 10): the gradebook's student column and roster, and feedback a student may read.

The rule tested here: a hidden test's inputs and expected values reach no student-facing file
(feedback, Gradescope's results.json) unless the instructor passes --reveal-hidden.
"""
import csv
import json
import re
from pathlib import Path

import pytest

from attnkit.grader import file_names, students
from attnkit.grader.bench import EDITS, copy_solutions
from grading_support import feedback_row, plan, rendered_markdown, run_cli

SCALE_MISSING = EDITS[0]  # step2: `return kq`; fails public and hidden tests of step 2
NUMBER = re.compile(r"-?\d+\.\d{3,}")


@pytest.mark.parametrize("path, folder", [
    ("subs/alice", "alice"), ("subs/alice/", "alice"),
    ("course/submitted/bob/attention/attention.ipynb", "bob"),
    ("downloads/carol.ipynb", "carol"),
])
def test_folder_name_of_a_submission(path, folder):
    assert students.folder_name(path) == folder


def _roster(path, rows):
    path.write_text("folder,student_id,name\n" + "".join(f"{f},{i},{n}\n" for f, i, n in rows), encoding="utf-8")
    return str(path)


def test_roster_maps_folders_and_reports_both_kinds_of_gap(tmp_path):
    alice = copy_solutions(tmp_path / "alice")
    bob = copy_solutions(tmp_path / "bob", SCALE_MISSING)
    roster = _roster(tmp_path / "roster.csv", [("alice", "s1001", "Alice Liddell"), ("zed", "s1999", "Zed")])
    gradebook = tmp_path / "grades.csv"
    proc = run_cli("grade", str(alice), str(bob), "--json", "--csv", str(gradebook), "--roster", roster, "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(gradebook.open(encoding="utf-8")))
    assert list(rows[0])[:6] == ["student", "name", "email", "status", "roster", "submission"]
    assert [(r["student"], r["name"], r["status"], r["roster"], r["submission"]) for r in rows] == [
        ("s1001", "Alice Liddell", "graded", "folder", str(alice)), ("s1999", "Zed", "missing", "", ""),
        ("", "", "graded", "unrostered", str(bob))]
    graded = [json.loads(line) for line in proc.stdout.splitlines()]
    assert {g["submission"]: (g["student"], g["roster"]) for g in graded} == {
        str(alice): ("s1001", "folder"), str(bob): ("bob", "unrostered")}
    assert "1 submission(s) no roster row matches (in the gradebook without an id, roster 'unrostered'): bob" \
        in proc.stderr
    assert "1 roster student(s) without a submission (status 'missing'): s1999" in proc.stderr


def test_without_roster_the_student_is_the_folder_name(tmp_path):
    alice = copy_solutions(tmp_path / "alice")
    gradebook = tmp_path / "grades.csv"
    proc = run_cli("grade", str(alice), "--json", "--csv", str(gradebook))
    assert proc.returncode == 0, proc.stderr
    row = next(csv.DictReader(gradebook.open(encoding="utf-8")))
    assert list(row)[:3] == ["student", "status", "submission"] and row["student"] == "alice"
    assert json.loads(proc.stdout)["student"] == "alice"


@pytest.mark.parametrize("text, complaint", [
    ("id,name\na,b\n", "needs the column student_id"),
    ("folder,student_id\nalice,1\nalice,2\n", "line 3: folder 'alice' is also on line 2"),
    ("student_id,name\ns1,Ann\ns1,Bo\n", "line 3: student_id 's1' is also on line 2"),
    ("folder,student_id\nalice,\n", "line 2: student_id must be filled in"),
])
def test_a_bad_roster_is_refused_before_grading(tmp_path, text, complaint):
    roster = tmp_path / "roster.csv"
    roster.write_text(text, encoding="utf-8")
    proc = run_cli("grade", str(copy_solutions(tmp_path / "alice")), "--roster", str(roster))
    assert proc.returncode == 2 and complaint in proc.stderr and "alice:" not in proc.stdout


@pytest.fixture(scope="module")
def graded_with_a_mistake(tmp_path_factory):
    """A submission with scale_missing graded to --json, --feedback and --gradescope, with and without --reveal-hidden."""
    root = tmp_path_factory.mktemp("feedback")
    sub = copy_solutions(root / "bob", SCALE_MISSING)
    out = {}
    for mode, extra in (("kept", []), ("revealed", ["--reveal-hidden"])):
        proc = run_cli("grade", str(sub), "--json", "--feedback", str(root / mode), "--gradescope",
                       str(root / f"{mode}.json"), *extra)
        assert proc.returncode == 0, proc.stderr
        stem = file_names.stems([sub])[sub]
        files = {suffix: (root / mode / f"{stem}{suffix}").read_text(encoding="utf-8") for suffix in (".md", ".html")}
        files[".json"] = (root / f"{mode}.json").read_text(encoding="utf-8")
        out[mode] = files
    out["graded"] = json.loads(proc.stdout)
    return out


def _hidden_numbers(graded):
    """Numbers (3+ decimals) in the full output of the failed hidden tests that no public test output shows."""
    public = {p.case.name for p in plan().cases if p.case.public}
    hidden_text = " ".join(t["output"] for t in graded["tests"] if t["name"] not in public)
    public_text = " ".join(t["output"] for t in graded["tests"] if t["name"] in public)
    return set(NUMBER.findall(hidden_text)) - set(NUMBER.findall(public_text))


def test_hidden_inputs_and_expected_values_stay_out_of_feedback_and_gradescope(graded_with_a_mistake):
    numbers = _hidden_numbers(graded_with_a_mistake["graded"])
    assert len(numbers) > 10  # the failed hidden tests do show inputs and expected values in full
    for suffix, text in graded_with_a_mistake["kept"].items():
        assert not [n for n in numbers if n in text], suffix


def test_reveal_hidden_shows_them(graded_with_a_mistake):
    numbers = _hidden_numbers(graded_with_a_mistake["graded"])
    for suffix, text in graded_with_a_mistake["revealed"].items():
        assert [n for n in numbers if n in text], suffix


def test_feedback_gives_points_per_step_public_failures_in_full_hidden_by_concept(graded_with_a_mistake):
    md = graded_with_a_mistake["kept"][".md"]
    graded = graded_with_a_mistake["graded"]
    assert md.startswith(f"# Feedback for bob: {graded['score']:.4g} / 100")
    assert feedback_row("step2_scores") in md and f"{feedback_row('step6_head')} 24 / 24 | 0 |" in md
    assert "expected" in md and "got" in md and "hint" in md and "read: lesson" in md  # a public failure
    failed = next(t["name"] for t in graded["tests"] if t["status"] == "failed" and not plan().case_named[t["name"]].public)
    hidden = plan().case_named[failed]
    assert f"{hidden.concept['en']} (a hidden test: failed)" in md
    assert "likely mistake: no 1/sqrt(D_h)" in md
    assert "hidden test" in graded_with_a_mistake["kept"][".html"]


def test_learner_text_is_escaped_in_the_html_and_markdown_feedback(tmp_path):
    sub = copy_solutions(tmp_path / "<b>eve", ("step5_values.py", "return P @ V",
                                                "raise ValueError('\\n```\\n<script>alert(1)</script>')", None))
    proc = run_cli("grade", str(sub), "--feedback", str(tmp_path / "fb"))
    assert proc.returncode == 0, proc.stderr
    assert "class report:" not in proc.stdout  # one submission: no class summary
    stem = tmp_path / "fb" / file_names.stems([sub])[sub]
    page = Path(f"{stem}.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>" not in page
    assert "&lt;b&gt;eve" in page and "<b>" not in page
    rendered = rendered_markdown(Path(f"{stem}.md").read_text(encoding="utf-8"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered and "<script>" not in rendered
    assert "&lt;b&gt;eve" in rendered and "<b>" not in rendered


def test_two_submissions_of_one_student_get_two_feedback_files(tmp_path):
    first, second = copy_solutions(tmp_path / "a" / "alice"), copy_solutions(tmp_path / "b" / "alice", SCALE_MISSING)
    proc = run_cli("grade", str(first), str(second), "--feedback", str(tmp_path / "fb"), "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    stems = file_names.stems([first, second])
    assert stems == file_names.stems([second, first]) and len(set(stems.values())) == 2
    assert all(stem.startswith("alice-") for stem in stems.values())
    assert sorted(p.name for p in (tmp_path / "fb").iterdir()) == sorted(
        f"{stem}{suffix}" for stem in stems.values() for suffix in (".md", ".html"))
