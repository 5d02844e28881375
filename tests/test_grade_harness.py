"""The grader judges through the learner harness (attnkit_runtime.harness): a function that changes its
arguments in place loses its case, "not written yet" is a field of a test (kept in the results store),
and the status of a test is a Status whose JSON is the word it always was."""
import json

from attnkit.grader import report_text
from attnkit.grader.bench import copy_solutions
from attnkit.grader.grade import Graded
from attnkit.paths import EXERCISES_DIR
from attnkit_runtime.messages import say
from attnkit_runtime.status import Status
from grading_support import STATUSES, assert_only_functions_lost, grade_path, plan

IN_PLACE = {
    "scale_scores": ("step2_scores.py", "return kq / math.sqrt(d_h)", "kq /= math.sqrt(d_h)\n    return kq"),
    "softmax": ("step4_softmax.py", "E = np.exp(S - row_max)", "S -= row_max\n    E = np.exp(S, out=S)"),
}


def test_a_function_that_changes_its_argument_in_place_loses_its_cases(tmp_path):
    for function, edit in IN_PLACE.items():
        graded = grade_path(copy_solutions(tmp_path / function, edit))
        step = edit[0][:-3]
        assert_only_functions_lost(graded, {(step, function)})  # the later steps keep theirs
        argument = "kq" if function == "scale_scores" else "S"
        lost = [t for t in graded.tests if t.step == step and t.status is not Status.PASSED]
        assert lost and all(t.status is Status.FAILED and not t.not_written for t in lost)
        one_call = next(t for t, p in zip(graded.tests, plan().cases) if t in lost and len(p.calls) == 1)
        assert say("verdict.modified", function=function, argument=argument) in one_call.output


def test_not_written_is_a_field_that_a_rerun_reads_back(tmp_path):
    stubs = grade_path(EXERCISES_DIR)
    assert all(t.not_written and t.status is Status.FAILED for t in stubs.tests)
    public = {t.name for t in stubs.tests if t.public}
    again = Graded.from_record(json.loads(json.dumps(stubs.as_record())), public)
    assert [t.not_written for t in again.tests] == [True] * len(stubs.tests)
    assert all(isinstance(t.status, Status) for t in again.tests)
    assert again.as_spec() == stubs.as_spec()


def test_an_error_that_says_not_written_yet_is_not_a_step_not_written(tmp_path):
    """The words of the learner's error are no state: only a NotImplementedError is "not written"."""
    mark = say("grade.not_written_mark")
    sub = copy_solutions(tmp_path / "s", ("step4_softmax.py", "row_max = S.max(axis=-1, keepdims=True)",
                                          f"raise ValueError({mark!r})"))
    graded = grade_path(sub)
    lost = [t for t in graded.tests if t.step == "step4_softmax"]
    assert lost and all(t.status is Status.ERROR and not t.not_written for t in lost)
    assert f"step4_softmax: {mark}" not in report_text.text(graded)


def test_the_grading_json_spells_the_status_as_it_always_did(tmp_path):
    graded = grade_path(copy_solutions(tmp_path / "s", IN_PLACE["softmax"]))
    spec = json.loads(json.dumps(graded.as_spec()))
    assert {t["status"] for t in spec["tests"]} == {"passed", "failed"} and {s.value for s in Status} == STATUSES
