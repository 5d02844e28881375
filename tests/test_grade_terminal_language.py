"""`attnkit grade --lang zh` words its terminal lines (the progress, each submission's summary, the errors) in
Chinese, as it words the feedback and the class report; the JSON and CSV fields stay as they are."""
import csv
import json

import pytest

from attnkit.grader.bench import copy_solutions
from attnkit.paths import EXERCISES_DIR
from grading_support import run_cli

ENGLISH = ("isolation:", "not written yet", "tests not passed", "not graded", "submissions/s", " ok")


@pytest.fixture(scope="module")
def graded_in_chinese(tmp_path_factory):
    root = tmp_path_factory.mktemp("zh")
    paths = [str(copy_solutions(root / "alice")), str(EXERCISES_DIR)]
    return run_cli("grade", "--lang", "zh", "--progress", "--csv", str(root / "book.csv"), *paths), root


def test_the_terminal_lines_follow_lang(graded_in_chinese, tmp_path):
    run, _ = graded_in_chinese
    assert run.stdout.startswith("隔离："), run.stdout
    assert "  step1_projection   " in run.stdout and "通过" in run.stdout
    assert "  step1_projection：还没有写（" in run.stdout, run.stdout
    assert "[2/2] 每秒" in run.stderr, run.stderr  # the last line is drawn whatever the time
    missing = run_cli("grade", "--lang", "zh", str(tmp_path / "nobody"))
    assert "attnkit grade: 未评分：" in missing.stderr, missing.stderr
    said = run.stdout + run.stderr + missing.stdout + missing.stderr
    assert not [words for words in ENGLISH if words in said], said


def test_the_machine_fields_stay_as_they_are(graded_in_chinese):
    run, root = graded_in_chinese
    with open(root / "book.csv", encoding="utf-8") as f:
        header = next(csv.reader(f))
    assert header[:4] == ["student", "status", "submission", "found_in"], header


def test_json_lines_keep_their_words(tmp_path):
    run = run_cli("grade", "--lang", "zh", "--json", str(EXERCISES_DIR))
    row = json.loads(run.stdout)
    assert {t["status"] for t in row["tests"]} == {"failed"}
