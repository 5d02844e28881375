"""The gradebook of a class (issue 19): a plain LMS export as the roster, one row per roster student
(`missing` without a submission) and one per submission the roster lacks (flagged, no id), the roster's
id, name and email kept, the isolation as a word, files written with the user's umask (the results
store excepted)."""
import csv
import io
import os
import stat

import pytest

from attnkit.grader import report_csv, students
from attnkit.grader.atomic import write_text
from attnkit.grader.bench import copy_solutions
from attnkit.grader.grade import grade
from attnkit.grader.journal import Journal
from attnkit.grader.runners import InProcessRunner
from grading_support import plan, run_cli

LMS_EXPORT = ("student_id,name,email\n"
              "s1,Alice Liddell,alice@uni.example\n"
              "s2,Bob Stone,bstone@uni.example\n"
              "s3,Chen Wei,chen.wei@uni.example\n"
              "s4,Dora Zed,dora@uni.example\n"
              "s5,Eve Adams,eve@uni.example\n")


def _export(tmp_path, text=LMS_EXPORT):
    path = tmp_path / "export.csv"
    path.write_text(text, encoding="utf-8")
    return path


def _matched(roster, *folders):
    return {f: (who.id, str(who.match)) for f, who in students.assign(list(folders), roster).items()}


def test_an_lms_export_matches_folders_by_id_email_local_part_or_name(tmp_path):
    roster = students.read_roster(_export(tmp_path))
    assert _matched(roster, "subs/s1", "subs/bstone", "subs/chen_wei", "subs/dora@uni.example", "subs/Eve-ADAMS",
                    "subs/mallory") == {
        "subs/s1": ("s1", "id"), "subs/bstone": ("s2", "email_local"), "subs/chen_wei": ("s3", "name"),
        "subs/dora@uni.example": ("s4", "email"), "subs/Eve-ADAMS": ("s5", "name"),
        "subs/mallory": ("mallory", "unrostered")}


def test_a_folder_column_wins_and_ambiguities_are_not_guessed(tmp_path):
    roster = students.read_roster(_export(tmp_path, "Student_ID , Email,folder\n"
                                                    "s1,alice@a.example,\n"
                                                    "s2,alice@b.example,\n"
                                                    "s3,c3@c.example,s1\n"
                                                    "s4,carol@c.example,\n"))
    got = students.assign(["x/alice", "x/s1", "y/carol", "z/carol"], roster)
    assert (got["x/alice"].match, [r.student_id for r in got["x/alice"].candidates]) == ("ambiguous", ["s1", "s2"])
    assert not got["x/alice"].in_roster
    assert (got["x/s1"].id, got["x/s1"].match) == ("s3", "folder")  # the folder column, before s1's id
    assert [(got[p].id, got[p].match) for p in ("y/carol", "z/carol")] == [("s4", "duplicate")] * 2


@pytest.mark.parametrize("text, complaint", [
    ("name,email\nAnn,a@x\n", "needs the column student_id"),
    ("student_id,name\ns1,Ann\n,Bo\n", "line 3: student_id must be filled in"),
    ("student_id\ns1\ns1\n", "line 3: student_id 's1' is also on line 2"),
])
def test_a_roster_the_gradebook_cannot_use_is_refused(tmp_path, text, complaint):
    with pytest.raises(ValueError, match=complaint):
        students.read_roster(_export(tmp_path, text))


def test_the_gradebook_has_every_roster_student_and_every_submission(tmp_path):
    roster = students.read_roster(_export(tmp_path))
    graded = [grade(plan(), InProcessRunner(), {}, name) for name in ("subs/mallory", "subs/bstone", "subs/s1")]
    graded.append(grade(plan(), InProcessRunner(), {}, "subs/chen_wei", "it holds no step file"))
    rows = list(csv.DictReader(io.StringIO(report_csv.text(graded, plan().steps, roster))))
    assert [(r["student"], r["name"], r["email"], r["status"], r["roster"], r["submission"]) for r in rows] == [
        ("s1", "Alice Liddell", "alice@uni.example", "graded", "id", "subs/s1"),
        ("s2", "Bob Stone", "bstone@uni.example", "graded", "email_local", "subs/bstone"),
        ("s3", "Chen Wei", "chen.wei@uni.example", "not_graded", "name", "subs/chen_wei"),
        ("s4", "Dora Zed", "dora@uni.example", "missing", "", ""),
        ("s5", "Eve Adams", "eve@uni.example", "missing", "", ""),
        ("", "", "", "graded", "unrostered", "subs/mallory")]
    assert rows[3]["score"] == "" and rows[3]["step1_projection"] == "" and rows[0]["isolation"] == "in_process"


def test_a_class_with_gaps_both_ways_through_attnkit_grade(tmp_path):
    """Real sandbox: submissions no row matches and rows no submission matches, reported and in the gradebook."""
    subs = tmp_path / "subs"
    paths = [copy_solutions(subs / "bstone"), copy_solutions(subs / "s1"), copy_solutions(subs / "mallory")]
    roster = _export(tmp_path, LMS_EXPORT + "s6,Alice Liddell,aliddell@other.example\n")  # a second Alice Liddell
    paths.append(copy_solutions(subs / "alice_liddell"))
    gradebook = tmp_path / "out" / "grades.csv"
    proc = run_cli("grade", *map(str, paths), "--csv", str(gradebook), "--roster", str(roster), "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(gradebook.open(encoding="utf-8")))
    assert [(r["student"], r["status"], r["roster"], r["score"]) for r in rows] == [
        ("s1", "graded", "id", "100"), ("s2", "graded", "email_local", "100"), ("s3", "missing", "", ""),
        ("s4", "missing", "", ""), ("s5", "missing", "", ""), ("s6", "missing", "", ""),
        ("", "graded", "unrostered", "100"), ("", "graded", "ambiguous", "100")]
    assert {r["isolation"] for r in rows if r["status"] == "graded"} == {"barrier"}  # a word, not a sentence
    assert "alice_liddell matches several roster rows, so none: s1 (line 2), s6 (line 7)" in proc.stderr
    assert "submission(s) no roster row matches" in proc.stderr and ": mallory" in proc.stderr
    assert "4 roster student(s) without a submission (status 'missing'): s3, s4, s5, s6" in proc.stderr
    assert stat.S_IMODE(gradebook.stat().st_mode) == 0o666 & ~_umask()
    assert stat.S_IMODE((tmp_path / "out" / "grades.csv.journal.jsonl").stat().st_mode) == 0o600


def _umask():
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@pytest.mark.parametrize("mask", [0o022, 0o027, 0o077])
def test_reports_follow_the_umask_and_the_results_store_stays_private(tmp_path, mask):
    before = os.umask(mask)
    try:
        write_text(tmp_path / "grades.csv", "x\n")
        journal = Journal(tmp_path / "store.jsonl")
        journal.add("k", {"score": 1})
        (tmp_path / "old.jsonl").write_text('{"key": "a", "record": {}}\n{"torn', encoding="utf-8")
        Journal(tmp_path / "old.jsonl")  # rewritten without its torn line
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "grades.csv").stat().st_mode) == 0o666 & ~mask
    assert stat.S_IMODE((tmp_path / "store.jsonl").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "old.jsonl").stat().st_mode) == 0o600


def test_the_new_cells_from_learner_text_cannot_run_as_formulas(tmp_path):
    """found_in (folder names inside a submission) and the roster's email are learner text too (OWASP's rule)."""
    roster = students.read_roster(_export(tmp_path, "student_id,name,email\n=1+1,@SUM(1),-2+3@evil.example\n"))
    graded = grade(plan(), InProcessRunner(), {}, "subs/-2+3")
    graded.found_in = "=HYPERLINK(\"http://evil.example\")/exercises"
    rows = list(csv.reader(io.StringIO(report_csv.text([graded], plan().steps, roster))))
    assert rows[1][:7] == ["'=1+1", "'@SUM(1)", "'-2+3@evil.example", "graded", "email_local", "subs/-2+3",
                           "'" + graded.found_in]
