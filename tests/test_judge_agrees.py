"""`judge.agrees` (a diagnosis's quiet question) and `judge.compare` (the learner's verdict) judge alike.

Each pair is one way an answer can be right or wrong; where `agrees` says no, `compare` must name the
problem (a message, never a failing verdict that says nothing is wrong)."""
import numpy as np
import pytest

from attnkit_runtime.judge import agrees, compare

TOL = {"atol": 1e-9, "rtol": 1e-7}
A = np.arange(12.0).reshape(3, 4)
MASK = np.tril(np.ones((3, 4), dtype=bool))

PAIRS = {  # name: (expected, got, right)
    "equal": (A, A.copy(), True),
    "within tolerance": (A, A * (1 + 1e-9), True),
    "off": (A, A + 1e-3, False),
    "NaN where a number is": (A, np.where(A == 5, np.nan, A), False),
    "NaN where NaN is": (np.where(A == 5, np.nan, A), np.where(A == 5, np.nan, A), True),
    "-inf where -inf is": (np.where(MASK, A, -np.inf), np.where(MASK, A, -np.inf), True),
    "+inf where -inf is": (np.where(MASK, A, -np.inf), np.where(MASK, A, np.inf), False),
    "a number where -inf is": (np.where(MASK, A, -np.inf), np.where(MASK, A, -1e9), False),
    "transposed": (A, A.T, False),
    "float32": (A, A.astype(np.float32), False),
    "ints for floats": (A, A.astype(np.int64), False),
    "a list": (A, A.tolist(), False),
    "None": (A, None, False),
    "bools equal": (MASK, MASK.copy(), True),
    "one bool differs": (MASK, ~MASK, False),
    "ints for bools": (MASK, MASK.astype(int), False),
    "0-d equal": (np.float64(2.5), np.float64(2.5), True),
    "0-d off": (np.float64(2.5), np.float64(2.6), False),
    "0-d zero and a small number": (np.float64(0.0), np.float64(1e-3), False),
}


@pytest.mark.parametrize("name", PAIRS)
def test_agrees_is_compares_verdict_and_a_no_has_a_message(name):
    expected, got, right = PAIRS[name]
    verdict = compare(expected, got, TOL, "O")
    assert agrees(expected, got, TOL) is right and verdict.passed is right
    assert right or (verdict.problem and verdict.message)
