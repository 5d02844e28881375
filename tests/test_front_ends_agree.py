"""Acceptance test of the one harness (issue 17): every front end judges the same code alike.

Each submission (tests/agreement_submissions.py: every known mistake of the catalogue, written as a
learner would, realistic slips outside it, the untouched stubs) goes through the checkout's public
tests, the release's (in its own virtualenv), the nbgrader notebook's checks and `attnkit grade`, each
front end run once on all of them. Every public case must get the same status and the same diagnosis
(the known mistake named) everywhere; a failure prints the disagreements as a table, one row per case,
one column per front end ("failed scale_by_d": failed, naming scale_by_d; "—": the case did not run).
A later step's case that the release or the notebook blames on the learner's own failing earlier step
("blamed") is not compared: the checkout and the grader run each step on the kit's earlier steps.
"""
import pytest

import front_ends_support as front_ends
from agreement_submissions import CATALOGUE, SUBMISSIONS, write_submission
from attnkit.mistakes import catalogue
from test_release import student_venv  # noqa: F401  (the release installed in a virtualenv: a fixture)


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory, student_venv):  # noqa: F811
    """{front end: {(submission, case name): Verdict}}, each front end run once on every submission."""
    work = tmp_path_factory.mktemp("agree")
    folders = [write_submission(name, work / "submissions" / name) for name in SUBMISSIONS]
    return {"checkout": front_ends.checkout(folders, work), "release": front_ends.release(folders, work, student_venv),
            "notebook": front_ends.notebook(folders, work), "grade": front_ends.grade(folders, work)}


def test_every_known_mistake_has_a_submission():
    assert set(CATALOGUE) == set(catalogue())


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_each_mistake_submission_is_named_by_the_grader(verdicts, code):
    """The source edits make the catalogue's mistake: the grader names it on some case, public or hidden."""
    named = {case for (submission, case), v in verdicts["grade"].items() if submission == code and v.diagnosis == code}
    if not named:
        pytest.fail(f"attnkit grade names {code} nowhere: its edit in agreement_submissions.py is not that mistake",
                    pytrace=False)


@pytest.mark.parametrize("submission", SUBMISSIONS)
def test_every_front_end_judges_each_public_case_alike(verdicts, submission):
    rows = front_ends.disagreements(verdicts, submission)
    if rows:
        pytest.fail(f"{len(rows)} public cases judged differently:\n" + front_ends.table(submission, rows), pytrace=False)
