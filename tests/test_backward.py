"""Step 13, the backward pass of one head: the lesson's two-token example, and the reference against
central finite differences of step 6's attention (the `finite_differences` expectation the grader uses).

Sizes are unequal on purpose (T_q != T_k != D_h != D_v) so that a missing transpose fails loudly.
"""
import math

import numpy as np
import pytest

from attnkit.gradients import check, finite_differences

pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install -e '.[dev]')")
from hypothesis import given, settings, strategies as st  # noqa: E402  (after the skip, as test_properties)
from test_properties import frames, no_warnings  # noqa: E402

ATTENTION = {"of": "step6_head.attention", "output": "O", "cotangent": "dO", "wrt": {"dQ": "Q", "dK": "K", "dV": "V"}}


def relative_error(got, want):
    """The largest cell's error relative to the gradient's largest cell (0 when both are all 0)."""
    scale = max(float(np.abs(want).max(initial=0.0)), 1e-300)
    return float(np.abs(np.asarray(got) - want).max(initial=0.0)) / scale


# --- the lesson's worked example (lessons/en/step13_backward.md#worked-example) ------------------
Q_LESSON = np.array([[1.0, 0.0], [1.0, 1.0]])
K_LESSON = np.array([[1.0, 0.0], [0.0, 1.0]])
V_LESSON = np.array([[2.0, 0.0], [0.0, 2.0]])
DO_LESSON = np.array([[0.0, 1.0], [1.0, 0.0]])
Q3536 = 0.5 / math.sqrt(2)  # 0.3536


def test_lesson_forward_numbers(ref):
    O, P = ref.step6_head.attention(Q_LESSON, K_LESSON, V_LESSON)
    np.testing.assert_array_equal(P, [[1, 0], [0.5, 0.5]])
    np.testing.assert_array_equal(O, [[2, 0], [1, 1]])
    assert np.sum(O * DO_LESSON) == 1.0  # L = O[0, 1] + O[1, 0]


def test_lesson_softmax_backward_with_the_row_sums_written_out(ref):
    P, dP = np.array([[1, 0], [0.5, 0.5]]), DO_LESSON @ V_LESSON.T
    np.testing.assert_array_equal(dP, [[0, 2], [2, 0]])
    np.testing.assert_array_equal(np.sum(dP * P, axis=-1), [0, 1])
    dS = ref.step13_backward.softmax_backward(P, dP)
    np.testing.assert_array_equal(dS, [[0, 0], [0.5, -0.5]])
    np.testing.assert_array_equal(P * dP, [[0, 0], [1, 0]])  # the row-sum term left out


def test_lesson_softmax_example_of_two_equal_weights(ref):
    P, dP = np.array([[0.5, 0.5]]), np.array([[1.0, 0.0]])
    assert np.sum(dP * P) == 0.5
    np.testing.assert_array_equal(ref.step13_backward.softmax_backward(P, dP), [[0.25, -0.25]])
    np.testing.assert_array_equal(P * dP, [[0.5, 0]])  # the row-sum term left out


def test_lesson_gradients(ref):
    dQ, dK, dV = ref.step13_backward.attention_backward(Q_LESSON, K_LESSON, V_LESSON, DO_LESSON)
    np.testing.assert_array_equal(dV, [[0.5, 1], [0.5, 0]])
    np.testing.assert_allclose(dQ, [[0, 0], [Q3536, -Q3536]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(dK, [[Q3536, Q3536], [-Q3536, -Q3536]], rtol=0, atol=1e-15)
    assert round(Q3536, 4) == 0.3536 and round(2 * Q3536, 4) == 0.7071  # as printed; the no-row-sum dQ[1, 0]


def test_lesson_nudge_of_q1(ref):
    """L grows by 0.3536 ε when Q[1, 0] grows by ε (the lesson's check by hand)."""
    def loss(eps):
        Q = Q_LESSON + np.array([[0.0, 0.0], [eps, 0.0]])
        return np.sum(ref.step6_head.attention(Q, K_LESSON, V_LESSON)[0] * DO_LESSON)
    assert abs((loss(1e-6) - loss(-1e-6)) / 2e-6 - Q3536) < 1e-9


# --- softmax_backward --------------------------------------------------------------------------
@settings(deadline=None, max_examples=30)
@given(st.integers(1, 4), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_softmax_backward_is_the_jacobian_times_dP(ref, T_q, T_k, seed):
    """Row by row, dS = (diag(p) - p pᵀ) dp; rows of dS sum to 0; dS is 0 where P is."""
    rng = np.random.default_rng(seed)
    S = np.where(rng.random((T_q, T_k)) < 0.3, -np.inf, rng.normal(size=(T_q, T_k)) * 3)
    P, dP = ref.step4_softmax.softmax(S), rng.normal(size=(T_q, T_k))
    dS = ref.step13_backward.softmax_backward(P, dP)
    for p, dp, ds in zip(P, dP, dS):
        np.testing.assert_allclose(ds, (np.diag(p) - np.outer(p, p)) @ dp, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(dS.sum(axis=-1), 0.0, atol=1e-12)
    assert (dS[P == 0] == 0).all()


# --- attention_backward against central finite differences ------------------------------------
@st.composite
def masked_frames(draw):
    """A frame of test_properties (T_q <= T_k) with dO, and a mask: causal (None), random, or random
    with one row hidden entirely."""
    Q, K, V, rng = draw(frames())
    dO = rng.normal(size=(Q.shape[0], V.shape[1]))
    kind = draw(st.sampled_from(["causal", "random", "empty row"]))
    visible = None if kind == "causal" else rng.random((Q.shape[0], K.shape[0])) < 0.6
    if kind == "empty row":
        visible[draw(st.integers(0, Q.shape[0] - 1))] = False
    return dict(Q=Q / 3, K=K / 3, V=V, dO=dO, visible=visible)


@settings(deadline=None, max_examples=40)
@given(masked_frames())
def test_attention_backward_equals_finite_differences(ref, call):
    """backward = central differences of step 6's attention, to 1e-7 relative in float64."""
    with no_warnings():
        got = dict(zip(("dQ", "dK", "dV"), ref.step13_backward.attention_backward(**call)))
    want = finite_differences(ATTENTION, call)
    for part in ("dQ", "dK", "dV"):
        assert got[part].shape == want[part].shape
        assert relative_error(got[part], want[part]) <= 1e-7, part


def test_hidden_keys_get_no_gradient_and_an_empty_row_gives_zeros(ref):
    rng = np.random.default_rng(13)
    Q, K, V, dO = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 2)), rng.normal(size=(3, 2))
    visible = np.ones((3, 5), dtype=bool)
    visible[:, 4] = False  # key 4 is padding for every query
    visible[1] = False  # query 1 reads nothing
    with no_warnings():
        dQ, dK, dV = ref.step13_backward.attention_backward(Q, K, V, dO, visible)
    assert (dK[4] == 0).all() and (dV[4] == 0).all()
    assert (dQ[1] == 0).all()
    # query 1's dO reaches nothing: changing it changes no gradient
    dO_moved = dO.copy()
    dO_moved[1] += 100.0
    for before, after in zip((dQ, dK, dV), ref.step13_backward.attention_backward(Q, K, V, dO_moved, visible)):
        np.testing.assert_array_equal(before, after)


def test_the_expectation_needs_float64(ref):
    call = dict(Q=np.ones((2, 2), np.float32), K=np.ones((2, 2)), V=np.ones((2, 1)), dO=np.ones((2, 1)))
    with pytest.raises(ValueError, match="float64"):
        finite_differences(ATTENTION, call)


def test_the_expectation_catches_the_missing_row_sum_term(ref):
    """What the graded cases rely on: the finite differences tell a right backward from a wrong one."""
    call = dict(Q=Q_LESSON, K=K_LESSON, V=V_LESSON, dO=DO_LESSON, visible=None)
    want = finite_differences(ATTENTION, call)
    P = ref.step6_head.attention(Q_LESSON, K_LESSON, V_LESSON)[1]
    wrong_dQ = (P * (DO_LESSON @ V_LESSON.T)) @ K_LESSON / math.sqrt(2)
    assert relative_error(wrong_dQ, want["dQ"]) > 0.5
    assert relative_error(ref.step13_backward.attention_backward(**call)[0], want["dQ"]) < 1e-9


@pytest.mark.parametrize("change, words", [({"wrt": {"dQ": "Q", "dK": "K"}}, "wrt names"),
                                           ({"output": "kq"}, "has no part 'kq'"),
                                           ({"step": 1e-3}, "exactly the keys")])
def test_a_malformed_finite_differences_expectation_is_refused(change, words):
    with pytest.raises(ValueError, match=words):
        check({**ATTENTION, **change}, ("dQ", "dK", "dV"), "case 'x'")
