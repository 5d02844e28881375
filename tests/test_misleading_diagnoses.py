"""A newcomer's slip, written as a learner edits the reference, is named by what it did wherever a diagnosis is
given: never by another known mistake alone (which points the learner the wrong way), and on some case by its own.

Each slip here was named wrongly before: past = T_q - T_k by `mask_inverted` (one new query then reads nothing, as
with the polarity flipped), scale_scores(kq, T_k) on float32 by `scale_rounded` (the catalogue's slip scaled Q instead,
rounding otherwise), an attention that never adds M by `mask_zero_fill` and
`mask_off_by_one`, chunk_visible with `<` by `cache_appended_after_attending`, a tiled walk whose loop stops one
block early by `tiled_mask_top_left`."""
import sys

import pytest

from attnkit import checks, mistakes
from attnkit.cases import cases_for
from attnkit.catalogue_diagnosis import CATALOGUE
from attnkit.paths import SOLUTIONS_DIR
from attnkit_runtime import harness


def _edited(module, old, new):
    """The reference step `module` with its line `old` replaced by `new`, as a learner's file (a fresh namespace)."""
    source = (SOLUTIONS_DIR / f"{module}.py").read_text(encoding="utf-8")
    assert old in source
    namespace = {"__name__": f"learner_{module}"}
    sys.path.insert(0, str(SOLUTIONS_DIR))
    try:
        exec(compile(source.replace(old, new), f"{module}.py", "exec"), namespace)
    finally:
        sys.path.remove(str(SOLUTIONS_DIR))
    return namespace


SLIPS = [  # (code, module, function, old line, the learner's line)
    ("mask_past_sign", "step3_masks", "causal_visible", "past = n_key - n_query\n    i = np.arange",
     "past = n_query - n_key\n    i = np.arange"),
    ("scale_by_keys", "step6_head", "attention", "S = scale_scores(kq, D_h) + M", "S = scale_scores(kq, T_k) + M"),
    ("mask_not_applied", "step6_head", "attention", "S = scale_scores(kq, D_h) + M", "S = scale_scores(kq, D_h)"),
    ("mask_diagonal_excluded", "step8_kv_cache", "chunk_visible", "return keys[None, :] <= positions[:, None]",
     "return keys[None, :] < positions[:, None]"),
    ("tiled_last_block_dropped", "step10_tiled", "attention_tiled", "for start in range(0, T_k, block):",
     "for start in range(0, T_k - block, block):"),
]


@pytest.mark.parametrize("code, module, function, old, new", SLIPS, ids=[s[0] for s in SLIPS])
def test_a_newcomers_slip_is_named_by_what_it_did(code, module, function, old, new):
    learner = _edited(module, old, new)[function]
    named, wrong = [], []
    for case in cases_for(function=function):
        calls = case.build_calls()
        result = harness.judge_outcome(case, calls, harness.call_case(learner, case, calls),
                                       checks.expected_outputs(case, calls), checks.expected_forms(case, calls), CATALOGUE)
        if result.diagnosis is None:
            continue
        (named if mistakes.describe(code) in result.diagnosis_text else wrong).append(f"{case.name}: {result.diagnosis}")
    assert named and not wrong, f"named {code} on {named}; other mistakes alone on {wrong}"


def test_a_projection_written_for_two_axes_only_fails_a_case():
    """The docstring allows leading batch axes (step 7 projects [..., T, D]); (Wᵀ Zᵀ + b)ᵀ is Z W + b on [T, D] only,
    and passed every case while no case had a batch axis."""
    learner = _edited("step1_projection", "return Z @ W + b", "return (W.T @ Z.T + b[:, None]).T")["project"]
    failed = []
    for case in cases_for(function="project"):
        calls = case.build_calls()
        result = harness.judge_outcome(case, calls, harness.call_case(learner, case, calls),
                                       checks.expected_outputs(case, calls), checks.expected_forms(case, calls), CATALOGUE)
        failed += [case.name] if not result.passed else []
    assert failed


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_argument_changed_in_place_is_explained_without_another_functions_names(monkeypatch, lang):
    """combine_visible's `combined &= table` changes the caller's first table: the message must not speak of
    step 6 passing kq and S on, which combine_visible has nothing to do with."""
    monkeypatch.setenv("ATTNKIT_LANG", lang)
    learner = _edited("step3_masks", "combined = combined & table  # visible only where both allow it\n    return combined.copy()",
                      "combined &= table\n    return combined")["combine_visible"]
    case = next(c for c in cases_for(function="combine_visible") if c.name == "combine_visible_causal_and_padding")
    calls = case.build_calls()
    result = harness.judge_outcome(case, calls, harness.call_case(learner, case, calls),
                                   checks.expected_outputs(case, calls), checks.expected_forms(case, calls), CATALOGUE)
    assert result.problem == "modified" and "visibles[0]" in result.message
    assert "kq" not in result.message and "softmax" not in result.message, result.message
