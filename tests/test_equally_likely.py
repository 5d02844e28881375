"""Two known mistakes that give the same result on a case are both named: on that case the learner's result
cannot tell them apart, so naming only the first in catalogue order points half of those learners the wrong way
(kq / int(sqrt(2)) is kq / 1, named "no 1/sqrt(D_h)"; Q @ K on twelve heads raises the error K.T raises there)."""
import numpy as np
import pytest

from attnkit import cases, checks, mistakes, portable_cases
from attnkit.catalogue_diagnosis import CATALOGUE
from attnkit_runtime import harness, stored
from attnkit_runtime.judge import portable_case


def _judged(fn, case, kind):
    """The CaseResult of `fn` on `case`, judged with the kit's catalogue or the stored mistakes of the release."""
    if kind == "catalogue":
        calls = case.build_calls()
        return harness.judge_outcome(case, calls, harness.call_case(fn, case, calls), checks.expected_outputs(case, calls),
                                     checks.expected_forms(case, calls), CATALOGUE)
    spec = portable_cases.case_spec(case)
    portable, calls = portable_case(case.step.module, spec), [stored.call(c) for c in spec["calls"]]
    return harness.judge_outcome(portable, calls, harness.call_case(fn, portable, calls), stored.outputs(spec["expected"]),
                                 portable.forms, stored.StoredMistakes({case.name: spec["mistakes"]}))


def _rounded_scale(kq, d_h):
    return np.asarray(kq) / int(np.sqrt(d_h))


def _keys_not_transposed(Q, K):
    return np.asarray(Q) @ np.asarray(K)


@pytest.mark.parametrize("kind", ["catalogue", "stored"])
@pytest.mark.parametrize("name, fn, alike", [
    ("scale_scores_width2", _rounded_scale, ("scale_missing", "scale_rounded")),  # int(sqrt(2)) = 1
    ("raw_scores_twelve_heads", _keys_not_transposed, ("batch_transpose", "keys_not_transposed")),  # one error
])
def test_mistakes_alike_on_a_case_are_all_named(kind, name, fn, alike):
    result = _judged(fn, cases.case(name), kind)
    assert result.diagnosis == alike[0], result.message
    for code in alike:
        assert mistakes.describe(code) in result.diagnosis_text, result.diagnosis_text


@pytest.mark.parametrize("kind", ["catalogue", "stored"])
def test_a_mistake_that_a_case_tells_apart_is_named_alone(kind):
    result = _judged(_rounded_scale, cases.case("scale_scores_width8_not_rounded"), kind)
    assert result.diagnosis == "scale_rounded" and result.diagnosis_text == mistakes.describe("scale_rounded")
