"""The grading plan's memo of verdicts: results already judged are not judged again, and a result judged
beside its bytes (an argument changed in place) never takes a verdict from it."""
import math

from attnkit.grader import grade as grading
from attnkit.grader.runners import InProcessRunner
from attnkit_runtime import harness
from attnkit_runtime.status import Status
from grading_support import plan


def _files():
    """A submission's files (the in-process runner calls the functions it is given, not these)."""
    return {f"{module}.py": "" for module in plan().steps}


def _scale_in_place(kq, d_h):
    kq /= math.sqrt(d_h)  # the right numbers, in the caller's array
    return kq


def _counting(monkeypatch, module, name, note=lambda *_: None):
    """The list that gets note(*args) of each call of module.name from now on."""
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *args, **kwargs: calls.append(note(*args)) or real(*args, **kwargs))
    return calls


def test_results_judged_before_are_taken_from_the_memo_without_judging(monkeypatch):
    grading.grade(plan(), InProcessRunner(), _files(), "first")
    judged = _counting(monkeypatch, harness, "judge_outcome")
    combined = _counting(monkeypatch, harness, "of_calls")
    again = grading.grade(plan(), InProcessRunner(), _files(), "again")
    assert again.score == again.max_score
    assert judged == [] and combined == []


def test_a_result_judged_beside_its_bytes_never_takes_the_memos_verdict(monkeypatch):
    grading.grade(plan(), InProcessRunner(), _files(), "first")  # the right bytes, remembered as passed
    scaling = {p.case.name for p in plan().cases if p.case.function == "scale_scores"}
    judged = _counting(monkeypatch, harness, "judge_outcome", lambda case, *_: case.name)
    graded = grading.grade(plan(), InProcessRunner({("step2_scores", "scale_scores"): _scale_in_place}), _files(), "")
    assert scaling <= set(judged)
    assert all(t.status is Status.FAILED for t in graded.tests if t.name in scaling)
