"""The grader's feedback names every known mistake a failed hidden test cannot tell apart, as the learner front ends
do ("Or, alike on this test"), and still shows nothing of the hidden test but its concept: on the hidden
causal_visible_one_new_query (one new query), j <= i - past (mask_past_sign) gives what j > past + i
(mask_inverted) gives."""
import pytest

from attnkit import mistakes
from attnkit.grader import feedback, report_gradescope
from attnkit.grader.bench import copy_solutions
from attnkit.grader.students import Student
from attnkit_runtime.i18n import speaking
from attnkit_runtime.messages import say
from grading_support import grade_path, plan

PAST_SIGN = ("step3_masks.py", "return j <= past + i", "return j <= i - past")
ALIKE_CASE = "causal_visible_one_new_query"


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    return grade_path(copy_solutions(tmp_path_factory.mktemp("alike") / "s", PAST_SIGN))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_hidden_tests_alike_mistakes_are_all_named_in_the_feedback_and_gradescope(graded, lang):
    test = next(t for t in graded.tests if t.name == ALIKE_CASE)
    assert not test.public and test.diagnosis == "mask_past_sign"
    with speaking(lang):
        both = say("teach.likely_mistake", text=say("teach.alike_mistake", first=mistakes.describe("mask_past_sign"),
                                                     other=mistakes.describe("mask_inverted")))
        md = feedback.markdown(graded, Student("s", "", False), plan().case_named)
        shown = feedback.shown_output(test, plan().case_named[ALIKE_CASE], reveal_hidden=False)
        gradescope = report_gradescope.results(graded, plan().case_named, reveal_hidden=False)
    assert both in md  # a step's notes are in a code block
    assert both in shown and ALIKE_CASE not in shown and ALIKE_CASE not in md
    assert next(t["output"] for t in gradescope["tests"] if t["name"] == ALIKE_CASE) == shown
