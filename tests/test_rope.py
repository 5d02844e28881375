"""Step 12 (RoPE): the reference's properties on random inputs, the judge's relative-position
property, and the lesson's worked numbers.

The property that matters: after rotation, q_i · k_j depends on i - j only, so shifting every
position by the same amount leaves every dot product as it was (judge property
`same_dot_products_across_calls`), while adding a position vector instead of rotating does not.
"""
from pathlib import Path

import numpy as np
import pytest

from attnkit.cases import case
from attnkit.checks import expected_forms
from attnkit.mistakes import mistaken_function
from attnkit_runtime.judge import call_named, check_property

pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install -e '.[dev]')")
from hypothesis import given, settings, strategies as st  # noqa: E402  (after the skip, as test_properties.py)

SETTINGS = settings(deadline=None, max_examples=40)
PAIRINGS = ("half", "adjacent")


@st.composite
def rows(draw, n_sets=2):
    """(X [n_sets, T, d_head], positions int64 [T], base, pairing) with T != d_head / 2 in general."""
    d_head = 2 * draw(st.integers(1, 5))
    T = draw(st.integers(1, 6))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    positions = rng.integers(0, 2000, size=T)
    base = draw(st.sampled_from([100.0, 10000.0, 500000.0]))
    return rng.normal(size=(n_sets, T, d_head)), positions, base, draw(st.sampled_from(PAIRINGS))


def dots(ref, X, positions, base, pairing):
    """[T, T]: the rotated rows of X[0] (queries) against the rotated rows of X[1] (keys)."""
    X_rot = ref.step12_rope.apply_rope(X, positions, base, pairing)
    return X_rot[0] @ X_rot[1].T


# --- the relative property --------------------------------------------------------------------------
@SETTINGS
@given(rows(), st.integers(-500, 5000))
def test_dot_products_depend_on_position_differences_only(ref, frame, shift):
    X, positions, base, pairing = frame
    np.testing.assert_allclose(dots(ref, X, positions + shift, base, pairing), dots(ref, X, positions, base, pairing),
                               rtol=1e-9, atol=1e-9)


@SETTINGS
@given(rows(n_sets=1))
def test_each_pair_keeps_its_length(ref, frame):
    X, positions, base, pairing = frame
    X_rot = ref.step12_rope.apply_rope(X, positions, base, pairing)
    pairs = (lambda A: A.reshape(*A.shape[:-1], 2, -1).swapaxes(-1, -2)) if pairing == "half" else \
        (lambda A: A.reshape(*A.shape[:-1], -1, 2))  # [..., d_head/2, 2]: the two features of each pair
    np.testing.assert_allclose(np.linalg.norm(pairs(X_rot), axis=-1), np.linalg.norm(pairs(X), axis=-1), rtol=1e-12)


@SETTINGS
@given(rows(n_sets=3))
def test_the_pairings_differ_by_llama_cpps_reordering_of_features(ref, frame):
    """llama.cpp's converter moves feature i to 2i and i + d_head/2 to 2i + 1 (LlamaModel.permute on the
    rows of W_Q and W_K): on reordered features, "adjacent" is "half" reordered."""
    X, positions, base, _ = frame
    d_head = X.shape[-1]
    order = np.stack([np.arange(d_head // 2), np.arange(d_head // 2) + d_head // 2], axis=-1).reshape(-1)
    rope = ref.step12_rope.apply_rope
    np.testing.assert_allclose(rope(X[..., order], positions, base, "adjacent"), rope(X, positions, base, "half")[..., order],
                               rtol=1e-12, atol=1e-12)


@SETTINGS
@given(st.integers(0, 5), st.integers(1, 4), st.integers(1, 4), st.sampled_from(PAIRINGS), st.integers(0, 2**32 - 1))
def test_a_decoding_step_gives_the_full_pass_rows(ref, past, new, half_width, pairing, seed):
    rng = np.random.default_rng(seed)
    Q, K, V = (rng.normal(size=(past + new, 2 * half_width + 2)) for _ in range(3))
    full_O, full_P = ref.step12_rope.rope_attention(Q, K, V, 0, 10000.0, pairing)
    O, P = ref.step12_rope.rope_attention(Q[past:], K, V, past, 10000.0, pairing)
    np.testing.assert_allclose(O, full_O[past:], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(P, full_P[past:], rtol=1e-12, atol=1e-12)


def test_values_are_never_rotated(ref):
    rng = np.random.default_rng(1250)
    Q, K, V = rng.normal(size=(2, 6)), rng.normal(size=(5, 6)), rng.normal(size=(5, 6))
    O, P = ref.step12_rope.rope_attention(Q, K, V, past=3)
    np.testing.assert_allclose(O, P @ V, rtol=1e-12, atol=1e-12)


# --- the judge's property, on the hidden cases --------------------------------------------------------
RELATIVE_CASES = ["apply_rope_relative_half", "apply_rope_relative_adjacent"]


def judged(c, function):
    calls = c.build_calls()
    return check_property(c, [call_named(function, c.returns, kwargs) for kwargs in calls], expected_forms(c, calls))


@pytest.mark.parametrize("name", RELATIVE_CASES)
def test_the_relative_property_holds_for_the_reference(ref, name):
    assert judged(case(name), ref.step12_rope.apply_rope).passed


@pytest.mark.parametrize("name", RELATIVE_CASES)
def test_positions_added_instead_of_rotated_fail_the_relative_property(name):
    verdict = judged(case(name), mistaken_function("rope_added_not_rotated", "step12_rope", "apply_rope"))
    assert not verdict.passed and verdict.problem == "property"
    assert "X_rot[0] · X_rot[1]" in verdict.message and "i - j" in verdict.message


def test_a_learner_that_ignores_the_shift_only_passes_the_property(ref):
    """Row numbers in place of positions keep the dot products across shifts too: the property alone
    cannot tell, and that is why the function's points wait for a hidden value case (credit.py)."""
    wrong = mistaken_function("rope_positions_restarted", "step12_rope", "apply_rope")
    assert judged(case("apply_rope_relative_half"), wrong).passed
    assert not np.allclose(*(f(np.ones((2, 4)), np.array([3, 4])) for f in (wrong, ref.step12_rope.apply_rope)))


# --- the lesson's worked numbers (lessons/en/step12_rope.md, lessons/zh/ the same) ---------------------
LESSONS = [(Path(__file__).parents[1] / "lessons" / lang / "step12_rope.md").read_text(encoding="utf-8")
           for lang in ("en", "zh")]


def assert_as_printed(got, printed):
    """`got` rounds to the lesson's four-decimal numbers `printed`, and both lessons print each of them."""
    for lesson in LESSONS:
        assert all(f"{v:.4f}" in lesson for v in printed), [f"{v:.4f}" for v in printed if f"{v:.4f}" not in lesson]
    np.testing.assert_allclose(np.ravel(got), printed, rtol=0, atol=0.5e-4 + 1e-12)


def test_lesson_one_pair_turned_by_one_radian(ref):
    rope = ref.step12_rope.apply_rope
    turned = rope(np.array([[1.0, 2.0]]), np.array([1]))
    assert_as_printed(turned, [-1.1426, 1.9221])
    assert np.isclose((turned ** 2).sum(), 5.0)
    assert_as_printed(rope(np.array([[1.0, 2.0]]), np.array([-1])), [2.2232, 0.2391])  # sin's sign flipped


def test_lesson_frequencies_and_the_wrong_exponents(ref):
    np.testing.assert_allclose(ref.step12_rope.rope_frequencies(8), [1, 0.1, 0.01, 0.001], rtol=1e-12)
    np.testing.assert_allclose(ref.step12_rope.rope_frequencies(4, 4.0), [1, 0.5], rtol=1e-12)
    factor_two = mistaken_function("rope_freq_factor_two", "step12_rope", "rope_frequencies")(8)  # -i / d_head
    assert_as_printed(factor_two[[1, 3]], [0.3162, 0.0316])
    assert "[1, 0.01, 0.0001, 0.000001]" in LESSONS[0] and "[1, 10, 100, 1000]" in LESSONS[0]
    np.testing.assert_allclose(mistaken_function("rope_freq_not_inverted", "step12_rope", "rope_frequencies")(8),
                               [1, 10, 100, 1000], rtol=1e-12)


@pytest.mark.parametrize("pairing, printed", [("half", [-1.9841, -0.1625, 2.4624, 4.4692]),
                                              ("adjacent", [-1.1426, 1.9221, 0.7150, 4.9486])])
def test_lesson_pairing_example(ref, pairing, printed):
    assert_as_printed(ref.step12_rope.apply_rope(np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([1]), 4.0, pairing), printed)


def test_lesson_relative_example(ref):
    rope = ref.step12_rope.apply_rope
    unit = np.array([[1.0, 0.0]])
    turned = {t: rope(unit, np.array([t]))[0] for t in (1, 3, 5, 101, 103)}
    assert_as_printed([turned[3], turned[1]], [-0.9900, 0.1411, 0.5403, 0.8415])
    assert_as_printed([turned[5], turned[3]], [0.2837, -0.9589, -0.9900, 0.1411])
    for i, j in ((3, 1), (5, 3), (103, 101)):
        assert np.isclose(turned[i] @ turned[j], np.cos(2.0), rtol=0, atol=1e-12)
    assert_as_printed([np.cos(2.0)], [-0.4161])
    added = lambda t: np.array([1.0 + np.sin(t), np.cos(t)])  # noqa: E731  q = k = (1, 0) plus (sin t, cos t)
    assert_as_printed([added(3) @ added(1), added(5) @ added(3)], [1.5664, -0.2340])
