"""An answer that is a count or an index (kv_cache_bytes' bytes, kv_head_for's heads, chunk_positions, to_ggml's ne)
must be an int: a float that happens to hold the right number is refused, saying so, in the judge every front end
uses and through the grader's sandbox."""
import numpy as np
import pytest

from attnkit.cases import all_cases
from attnkit.checks import expected_outputs
from attnkit.grader.bench import copy_solutions
from attnkit_runtime import judge
from grading_support import assert_only_functions_lost, grade_path


INT_FUNCTIONS = {"kv_cache_bytes", "kv_head_for", "chunk_positions", "to_ggml"}
CASES = [case for case in all_cases() if case.function in INT_FUNCTIONS]  # the answers run at test time: a
# learner's install has no solutions to run at collection


def _int_parts(case):
    """{part: expected array} of the case's first call, for its integer parts."""
    (first, *_) = expected_outputs(case, case.build_calls()) or [{}]
    return {part: np.asarray(want) for part, want in first.items() if np.issubdtype(np.asarray(want).dtype, np.integer)}


def test_the_int_answers_are_the_counts_and_indices():
    assert {case.function for case in all_cases() if _int_parts(case)} == INT_FUNCTIONS


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_right_number_as_a_float_is_refused(case):
    parts = _int_parts(case)
    assert parts, case.name
    for part, want in parts.items():
        for got in (want.astype(np.float64), float(want) if want.ndim == 0 else want.astype(np.float32)):
            verdict = judge.compare(want, got, case.tolerance, part)
            assert not verdict.passed and verdict.problem == "dtype"
            assert "expected an int" in verdict.message and "float" in verdict.message


def test_any_int_dtype_is_an_int():
    want = np.asarray(3 * 2**30, dtype=np.int64)
    for got in (3 * 2**30, np.int64(3 * 2**30), np.asarray(3, dtype=np.int32)):
        verdict = judge.compare(np.asarray(got).astype(np.int64), got, {"atol": 0, "rtol": 0}, "n_bytes")
        assert verdict.passed, verdict.message
    assert not judge.compare(want, True, {"atol": 0, "rtol": 0}, "n_bytes").passed


def test_the_grader_refuses_cache_bytes_as_a_float(tmp_path):
    folder = copy_solutions(tmp_path / "s", ("step11_gqa.py", "    return n_layer * n_ctx * per_position",
                                             "    return float(n_layer * n_ctx * per_position)"))
    graded = grade_path(folder)
    assert_only_functions_lost(graded, {("step11_gqa", "kv_cache_bytes")})
    lost = [t for t in graded.tests if t.name.startswith("kv_cache_bytes")]
    assert all("expected an int" in t.output for t in lost), lost[0].output
