"""The catalogue of known mistakes and the diagnosis of failing tests (issue 3, point 4)."""
import warnings
from functools import lru_cache

import numpy as np
import pytest

from attnkit import lessons, manifest
from attnkit.cases import all_cases, cases_for
from attnkit.checks import expected_forms, expected_outputs
from attnkit_runtime import harness
from attnkit_runtime.judge import call_named, evaluate, measures_peak
from attnkit.mistakes import catalogue, describe, diagnose, diagnose_exception, mistaken_function, variants
from attnkit.mistakes import diagnosis
from attnkit.reference import reference_function, reference_outputs

SPEC_CODES = (
    "projection_transposed", "bias_missing", "scale_missing", "scale_by_d", "scale_by_model_dim",
    "mask_inverted", "mask_diagonal_excluded", "mask_top_left", "mask_combined_with_or", "mask_zero_fill",
    "mask_after_softmax", "softmax_wrong_axis", "softmax_unstable", "fully_masked_nan", "weights_on_keys",
    "weights_transposed", "batch_transpose", "torch_mha_polarity", "torch_sdpa_polarity", "hf_padding_polarity",
)


def _run(function, case, calls):
    """(results, None), or (None, the exception) when a call raised."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return [call_named(function, case.returns, kw) for kw in calls], None
        except Exception as err:  # noqa: BLE001
            return None, err


@lru_cache(maxsize=None)
def _failures():
    """[(code, case name, "value" | "error", diagnosis)] for every mistake variant that fails a case."""
    found = []
    for case in all_cases():
        calls = case.build_calls()
        for code in catalogue():
            for function in variants(code, case.step.module, case.function):
                results, err = _run(function, case, calls)
                if err is not None:
                    found.append((code, case.name, "error", diagnose_exception(case, type(err), str(err))))
                    continue
                with np.errstate(all="ignore"):  # judging NaN outputs
                    verdict = evaluate(case, calls, results, expected_outputs(case, calls), expected_forms(case, calls))
                if not verdict.passed:
                    found.append((code, case.name, "value", diagnose(case, calls, results)))
    return tuple(found)


def test_catalogue_holds_every_spec_code_with_its_text():
    known = catalogue()
    assert set(SPEC_CODES) <= set(known)
    modules = {s.module for s in manifest.steps()}
    for code, mistake in known.items():
        assert mistake.code == code and mistake.step in modules
        assert mistake.summary and mistake.advice and mistake.lesson
        assert describe(code, "en") == (f"{mistake.summary['en']}. {mistake.advice['en']} "
                                        f"Read: {lessons.link(mistake.lesson, 'en')}.")
        assert describe(code, "zh") == (f"{mistake.summary['zh']}。{mistake.advice['zh']}"
                                        f"阅读：{lessons.link(mistake.lesson, 'zh')}。")


@pytest.mark.parametrize("code", list(catalogue()))
def test_each_mistake_fails_some_case_and_is_named(code):
    named = [(name, kind) for c, name, kind, got in _failures() if c == code and got == code]
    assert named, f"no case both fails {code} and diagnoses it: add a case that tells it apart"


def test_mistakes_reach_the_functions_that_compose_them():
    assert mistaken_function("scale_missing", "step2_scores", "scale_scores") is not None
    assert mistaken_function("scale_missing", "step6_head", "attention") is not None
    assert mistaken_function("scale_missing", "step6_head", "attention_head") is not None
    assert mistaken_function("scale_missing", "step2_scores", "raw_scores") is None
    assert mistaken_function("scale_by_model_dim", "step2_scores", "scale_scores") is None
    assert mistaken_function("mask_after_softmax", "step6_head", "attention_head") is not None
    assert mistaken_function("bias_missing", "step6_head", "attention") is None
    with pytest.raises(KeyError):
        mistaken_function("no_such_mistake", "step6_head", "attention")


def test_a_composed_mistake_behaves_like_the_slip_inline():
    # lesson 000 minimal example without the 1/sqrt(D_h): P = softmax(kq + M) = [[1, 0], [e/(e+1), ...]]
    Q = np.array([[1.0, 0, 1, 1], [1, 1, 0, 1]])
    V = np.array([[1.0, 0, 1, 0], [0, 1, 0, 1]])
    O, P = mistaken_function("scale_missing", "step6_head", "attention")(Q, Q, V)
    np.testing.assert_allclose(P, [[1, 0], [1 / (1 + np.e), np.e / (1 + np.e)]])
    np.testing.assert_allclose(O, P @ V)


@pytest.mark.parametrize("case", all_cases(), ids=str)
def test_the_reference_is_never_diagnosed(case):
    calls = case.build_calls()
    results = reference_outputs(case, calls)
    peaks = harness.call_case(reference_function(case.step.module, case.function), case, calls).peaks
    assert evaluate(case, calls, results, expected_outputs(case, calls), expected_forms(case, calls), peaks).passed
    if not measures_peak(case):  # a memory case names a mistake by its outputs once its peak has failed it
        assert diagnose(case, calls, results) is None


def test_diagnosis_is_deterministic(monkeypatch):
    first = _failures()
    monkeypatch.setattr(diagnosis, "_TABLES", {})  # recompute every table from scratch
    _failures.cache_clear()
    try:
        assert _failures() == first
    finally:
        _failures.cache_clear()


# The learner's own wrong line (not the catalogue's), and the code its numpy error must get.
LEARNER_LINES = [
    ("projection_transposed", "project", lambda Z, W, b: Z @ W.T + b, lambda kw: True),
    ("projection_transposed", "project", lambda Z, W, b: W @ Z + b, lambda kw: True),
    ("keys_not_transposed", "raw_scores", lambda Q, K: Q @ K, lambda kw: np.ndim(kw["Q"]) == 2),
    ("batch_transpose", "raw_scores", lambda Q, K: Q @ K.T, lambda kw: np.ndim(kw["Q"]) > 2),
    ("weights_transposed", "weighted_sum", lambda P, V: P.T @ V, lambda kw: np.ndim(kw["P"]) == 2),
]


@pytest.mark.parametrize("code, function, line, applies", LEARNER_LINES, ids=lambda x: getattr(x, "__name__", x))
def test_a_real_numpy_error_is_explained(code, function, line, applies):
    explained = 0
    for case in cases_for(function=function):
        for kwargs in case.build_calls():
            if not applies(kwargs):
                continue
            try:
                line(**{k: np.asarray(v) for k, v in kwargs.items()})
            except ValueError as err:
                assert diagnose_exception(case, ValueError, str(err)) == code, case.name
                assert diagnose_exception(case, "ValueError", f"ValueError: {err}") == code, case.name
                assert diagnose_exception(case, TypeError, str(err)) is None
                explained += 1
                break
    assert explained, f"no {function} case makes this line raise"


def test_an_unrelated_error_is_not_explained():
    case = cases_for(function="project")[0]
    assert diagnose_exception(case, ValueError, "operands could not be broadcast together") is None
    assert diagnose_exception(case, NotImplementedError, "Step 1 (step1_projection.project) is not written yet") is None


def _noisy(results, rng):
    return [{part: value ^ (rng.random(np.shape(value)) < 0.3) if np.asarray(value).dtype == bool
             else value + rng.standard_normal(np.shape(value)).astype(np.asarray(value).dtype)
             for part, value in result.items()} for result in results]


@pytest.mark.parametrize("case", all_cases(), ids=str)
def test_random_wrong_outputs_get_no_diagnosis(case):
    calls = case.build_calls()
    rng = np.random.default_rng(3)
    assert diagnose(case, calls, _noisy(reference_outputs(case, calls), rng)) is None


def test_results_that_are_not_arrays_get_no_diagnosis():
    case = cases_for(function="softmax")[0]
    calls = case.build_calls()
    as_lists = [{part: np.asarray(v).tolist() for part, v in r.items()} for r in reference_outputs(case, calls)]
    assert diagnose(case, calls, as_lists) is None
    assert diagnose(case, calls, []) is None
