"""Where a submission's step files are (issue 19): a whole repository, a zip unpacked a folder or two
deep, a notebook in a folder. Found and graded with a line saying where; none or two candidates is an
error row that says what the folder holds. Never a silent 0 for files packed one folder deeper."""
import json
import shutil
from pathlib import Path

from attnkit.grader import feedback, feedback_html, gradescope_run, report_text, submission
from attnkit.grader.bench import copy_solutions
from attnkit.grader.grade import grade_submission
from attnkit.grader.runners import InProcessRunner
from attnkit.grader.step_folder import survey
from attnkit.paths import SOLUTIONS_DIR
from attnkit.grader.students import Student
from attnkit_runtime import i18n
from grading_support import grade_path, notebook, plan, run_cli

import pytest


def _solutions_in(folder):
    """The solutions' step files copied into `folder` (made with its parents); returns it."""
    Path(folder).parent.mkdir(parents=True, exist_ok=True)
    return Path(copy_solutions(folder))


def _graded(path):
    """Grade the submission at `path` with the reference standing in for its code (the layout is what is tested)."""
    return grade_submission(plan(), InProcessRunner(), submission.read(str(path)))


def test_a_whole_repository_is_graded_from_its_exercises_folder(tmp_path):
    repo = tmp_path / "alice"
    _solutions_in(repo / "exercises")
    (repo / "README.md").write_text("# my attention exercises\n")
    (repo / "lessons").mkdir()
    proc = run_cli("grade", str(repo), "--json", "--jobs", "1")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    assert row["score"] == 100.0 and row["found_in"] == "exercises"
    assert row["student"] == "alice"  # the folder given, not the one the files were found in
    text = run_cli("grade", str(repo), "--jobs", "1")
    assert "step files found in exercises/" in text.stdout and "100 / 100" in text.stdout


def test_an_upload_nested_two_levels_deep_is_found_and_says_where(tmp_path):
    _solutions_in(tmp_path / "bob" / "attention-exercises" / "mine")
    sub = submission.read(str(tmp_path / "bob"))
    assert sub.found_in == "attention-exercises/mine" and not sub.problem and len(sub.sources) >= 6
    graded = _graded(tmp_path / "bob")
    assert graded.score == 100.0 and graded.found_in == "attention-exercises/mine"
    assert "step files found in attention-exercises/mine/" in report_text.text(graded)
    page = feedback.markdown(graded, Student("bob", "", False), plan().case_named)
    assert "step files found in attention\\-exercises\\/mine\\/" in page


def test_files_at_the_top_are_graded_there_whatever_lies_below(tmp_path):
    top = _solutions_in(tmp_path / "carol")
    _solutions_in(top / "backup")
    sub = submission.read(str(top))
    assert sub.found_in == "" and not sub.problem


def test_two_candidate_folders_are_an_error_row_naming_both(tmp_path):
    _solutions_in(tmp_path / "dave" / "v1")
    _solutions_in(tmp_path / "dave" / "v2")
    graded = _graded(tmp_path / "dave")
    assert graded.score == 0.0 and all(t.status == "error" for t in graded.tests)
    assert all("2 folders (v1/, v2/)" in t.output for t in graded.tests)


def test_a_folder_without_step_files_is_an_error_row_saying_what_it_holds(tmp_path):
    empty = tmp_path / "erin"
    (empty / "notes").mkdir(parents=True)
    (empty / "README.md").write_text("hello")
    graded = _graded(empty)
    assert graded.score == 0.0 and all(t.status == "error" and not t.not_written for t in graded.tests)
    assert all("its top holds: README.md, notes/" in t.output for t in graded.tests)
    (tmp_path / "frank").mkdir()
    assert "its top holds: nothing" in submission.read(str(tmp_path / "frank")).problem


def test_a_linked_folder_is_never_a_candidate(tmp_path):
    """A link to solutions/ (or another student's folder) inside a submission is not followed."""
    sneaky = tmp_path / "gina"
    sneaky.mkdir()
    (sneaky / "exercises").symlink_to(SOLUTIONS_DIR, target_is_directory=True)
    assert survey(sneaky).step_folders == ()
    sub = submission.read(str(sneaky))
    assert not sub.sources and "its top holds: exercises" in sub.problem


def test_a_lone_notebook_in_a_folder_is_graded(tmp_path):
    folder = tmp_path / "hana" / "upload"
    folder.mkdir(parents=True)
    notebook(SOLUTIONS_DIR, folder / "attention.ipynb")
    graded = _graded(tmp_path / "hana")
    assert graded.score == 100.0 and graded.found_in == "upload/attention.ipynb"


def test_gradescope_finds_an_upload_two_levels_down_and_keeps_its_place(tmp_path):
    upload = tmp_path / "submission"
    _solutions_in(upload / "zipped" / "exercises")
    found = gradescope_run.submission_path(upload)
    assert found == upload / "zipped" / "exercises"
    copy = tmp_path / "copy"
    copy.mkdir()
    gradescope_run.staged(found, upload, copy)
    assert submission.read(str(copy)).found_in == "zipped/exercises"
    _solutions_in(upload / "zipped" / "old")
    with pytest.raises(gradescope_run.LayoutError, match="2 folders"):
        gradescope_run.submission_path(upload)
    shutil.rmtree(upload)
    upload.mkdir()
    with pytest.raises(gradescope_run.LayoutError, match="holds: nothing"):
        gradescope_run.submission_path(upload)


def test_chinese_feedback_words_the_status_in_chinese(tmp_path, monkeypatch):
    folder = copy_solutions(tmp_path / "ivy", ("step2_scores.py", "kq / math.sqrt(d_h)", "kq / d_h"))
    graded = grade_path(folder)
    monkeypatch.setenv(i18n.ENVIRONMENT, "zh")
    page = feedback.markdown(graded, Student("ivy", "", False), plan().case_named)
    html = feedback_html.page(graded, Student("ivy", "", False), plan().case_named)
    assert "未通过" in page and "未通过" in html
    assert ": failed" not in page and ": failed" not in html and "隐藏测试：failed" not in page


def test_the_terminal_report_of_a_submission_not_graded_says_why_once(tmp_path):
    (tmp_path / "kim" / "notes").mkdir(parents=True)
    text = report_text.text(_graded(tmp_path / "kim"))
    assert text.count("not graded") == 1 and "its top holds: notes/" in text and len(text.splitlines()) == 2
