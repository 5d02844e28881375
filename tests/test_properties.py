"""Properties of the reference solutions on random inputs (hypothesis), and the mask conventions.

Sizes are unequal on purpose (T_q != T_k != D_h != D) so that a transposed operand fails loudly.
"""
import contextlib
import copy
import warnings

import numpy as np
import pytest

pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install -e '.[dev]')")
from hypothesis import given, settings, strategies as st  # noqa: E402  (after the skip: a learner's install has no dev extras)

SETTINGS = settings(deadline=None, max_examples=30)
TOL = dict(rtol=1e-12, atol=1e-12)


@st.composite
def frames(draw, min_q=1, heads=()):
    """Random Q [..., T_q, D_h], K [..., T_k, D_h], V [..., T_k, D_v] with T_q <= T_k, and an rng."""
    T_q = draw(st.integers(min_q, 5))
    T_k = draw(st.integers(T_q, 7))
    D_h, D_v = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    Q = rng.normal(size=(*heads, T_q, D_h)) * 3
    K = rng.normal(size=(*heads, T_k, D_h)) * 3
    V = rng.normal(size=(*heads, T_k, D_v))
    return Q, K, V, rng


@contextlib.contextmanager
def no_warnings():
    """Any Python warning or numpy floating-point error becomes an exception.

    Underflow stays ignored (numpy's default): exp(-2000) rounding to a weight of 0.0 is the right
    answer, not a fault; overflow, 0/0 (invalid) and x/0 (divide) all raise.
    """
    with warnings.catch_warnings(), np.errstate(all="raise", under="ignore"):
        warnings.simplefilter("error")
        yield


# --- P is a set of weights -------------------------------------------------------------------------
@SETTINGS
@given(frames(), st.floats(0.0, 1.0))
def test_rows_of_P_sum_to_1_or_are_all_zero(ref, frame, p_hidden):
    Q, K, V, rng = frame
    visible = rng.random((Q.shape[0], K.shape[0])) >= p_hidden
    O, P = ref.step6_head.attention(Q, K, V, visible)
    assert P.shape == visible.shape and O.shape == (Q.shape[0], V.shape[1])
    assert (P >= 0).all() and (P[~visible] == 0).all()
    seen = visible.any(axis=1)
    np.testing.assert_allclose(P[seen].sum(axis=1), 1.0, atol=1e-12)
    assert (P[~seen] == 0).all() and (O[~seen] == 0).all()  # no visible key: zeros, not NaN


# --- causality ---------------------------------------------------------------------------------------
@SETTINGS
@given(frames(min_q=2), st.data())
def test_changing_future_keys_or_values_never_changes_an_earlier_output(ref, frame, data):
    Q, K, V, rng = frame
    T_q, T_k = Q.shape[0], K.shape[0]
    past = T_k - T_q
    cut = data.draw(st.integers(past + 1, T_k - 1), label="first changed key")
    K2, V2 = K.copy(), V.copy()
    K2[cut:] = rng.normal(size=K2[cut:].shape) * 10
    V2[cut:] = rng.normal(size=V2[cut:].shape) * 10
    O, P = ref.step6_head.attention(Q, K, V)
    O2, P2 = ref.step6_head.attention(Q, K2, V2)
    earlier = cut - past  # queries 0 .. earlier-1 sit at positions before `cut`
    assert (P[:earlier, cut:] == 0).all()
    np.testing.assert_allclose(P2[:earlier], P[:earlier], **TOL)
    np.testing.assert_allclose(O2[:earlier], O[:earlier], **TOL)
    assert (P[earlier:, cut:] > 0).any()  # the later queries do read the changed keys


@SETTINGS
@given(st.integers(2, 6), st.integers(0, 2**32 - 1))
def test_how_are_you_prefix_rows_equal_the_shorter_run(ref, T, seed):
    """Rows 0..T-2 of a T-token run equal the (T-1)-token run ("How are you" vs "How are")."""
    rng = np.random.default_rng(seed)
    D, D_h = 8, 4
    Z = rng.normal(size=(T, D))
    weights = [rng.normal(size=s) for s in [(D, D_h), (D_h,)] * 3]
    long, short = ref.step6_head.attention_head(Z, *weights), ref.step6_head.attention_head(Z[:-1], *weights)
    for name in ("Q", "K", "V", "kqv"):
        np.testing.assert_allclose(getattr(long, name)[:-1], getattr(short, name), **TOL, err_msg=name)
    np.testing.assert_allclose(long.kq[:-1, :-1], short.kq, **TOL)
    np.testing.assert_allclose(long.kq_soft_max[:-1, :-1], short.kq_soft_max, **TOL)
    assert (long.kq_soft_max[:-1, -1] == 0).all()


# --- softmax ------------------------------------------------------------------------------------------
@SETTINGS
@given(st.integers(1, 4), st.integers(1, 6), st.integers(0, 2**32 - 1), st.floats(-1000, 1000))
def test_softmax_is_shift_invariant(ref, rows, cols, seed, shift):
    rng = np.random.default_rng(seed)
    S = rng.normal(size=(rows, cols)) * 5
    S[rng.random(S.shape) < 0.3] = -np.inf
    per_row = rng.uniform(-1000, 1000, size=(rows, 1))
    P = ref.step4_softmax.softmax(S)
    np.testing.assert_allclose(ref.step4_softmax.softmax(S + shift), P, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ref.step4_softmax.softmax(S + per_row), P, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_large_and_fully_masked_rows_emit_no_warning(ref, dtype):
    S = np.array([[1000.0, 999.0, -np.inf],
                  [-np.inf, -np.inf, -np.inf],
                  [-1000.0, 1000.0, 0.0]], dtype=dtype)
    with no_warnings():
        P = ref.step4_softmax.softmax(S)
    assert P.dtype == dtype
    e = np.exp(-1.0)
    np.testing.assert_allclose(P, [[1 / (1 + e), e / (1 + e), 0], [0, 0, 0], [0, 1, 0]], rtol=1e-6)


def test_attention_with_huge_scores_and_a_hidden_row_emits_no_warning(ref):
    Q, K, V = np.full((3, 4), 60.0), np.full((5, 4), 60.0), np.arange(10.0).reshape(5, 2)
    visible = ref.step3_masks.causal_visible(3, 5)
    visible[1] = False  # a query with no visible key (e.g. a padding query)
    with no_warnings():
        O, P = ref.step6_head.attention(Q, K, V, visible)
    assert np.isfinite(O).all() and (O[1] == 0).all() and (P[1] == 0).all()
    np.testing.assert_allclose(P.sum(axis=1), [1, 0, 1])


# --- 12 heads at once ---------------------------------------------------------------------------------
@SETTINGS
@given(frames(heads=(12,)))
def test_batched_12_heads_equal_12_single_calls(ref, frame):
    Q, K, V, rng = frame
    T_q, T_k = Q.shape[-2], K.shape[-2]
    kq = ref.step2_scores.raw_scores(Q, K)
    S = kq / 2 + np.where(rng.random((12, T_q, T_k)) < 0.3, -np.inf, 0)
    P = ref.step4_softmax.softmax(S)
    O = ref.step5_values.weighted_sum(P, V)
    per_head_visible = rng.random((12, T_q, T_k)) < 0.7
    runs = {"causal": ref.step6_head.attention(Q, K, V),
            "per-head table": ref.step6_head.attention(Q, K, V, per_head_visible)}
    assert kq.shape == (12, T_q, T_k) and O.shape == (12, T_q, V.shape[-1])
    for h in range(12):
        np.testing.assert_allclose(kq[h], ref.step2_scores.raw_scores(Q[h], K[h]), **TOL)
        np.testing.assert_allclose(P[h], ref.step4_softmax.softmax(S[h]), **TOL)
        np.testing.assert_allclose(O[h], ref.step5_values.weighted_sum(P[h], V[h]), **TOL)
        for name, table in (("causal", None), ("per-head table", per_head_visible[h])):
            single = ref.step6_head.attention(Q[h], K[h], V[h], table)
            for got, want in zip(runs[name], single):
                np.testing.assert_allclose(got[h], want, **TOL, err_msg=f"head {h}, {name}")


def test_batched_gpt2_shape_with_one_shared_table(ref):
    rng = np.random.default_rng(12)
    Q, K, V = rng.normal(size=(12, 3, 64)), rng.normal(size=(12, 5, 64)), rng.normal(size=(12, 5, 64))
    visible = ref.step3_masks.causal_visible(3, 5)
    O, P = ref.step6_head.attention(Q, K, V, visible)
    assert O.shape == (12, 3, 64) and P.shape == (12, 3, 5)
    for h in (0, 5, 11):
        np.testing.assert_allclose(O[h], ref.step6_head.attention(Q[h], K[h], V[h])[0], **TOL)


# --- dtype and inputs ---------------------------------------------------------------------------------
T_Q, T_K, D, D_H = 3, 5, 8, 4


def all_calls(ref, dtype):
    """One valid call of every function of steps 1-6, inputs of `dtype`, unequal sizes."""
    rng = np.random.default_rng(0)
    f = lambda *shape: rng.normal(size=shape).astype(dtype)  # noqa: E731
    Z, W, b = f(T_K, D), f(D, D_H), f(D_H)
    S = f(T_Q, T_K)
    S[0, 3:] = -np.inf
    visible = rng.random((T_Q, T_K)) < 0.6
    mask01 = np.array([1, 1, 0, 1, 0])
    s1, s2, s3, s4, s5, s6 = (getattr(ref, m) for m in ("step1_projection", "step2_scores", "step3_masks",
                                                          "step4_softmax", "step5_values", "step6_head"))
    return [
        (s1.project, dict(Z=Z, W=W, b=b)),
        (s1.project_qkv, dict(Z=Z, W_Q=W, b_Q=b, W_K=f(D, D_H), b_K=b, W_V=f(D, D_H), b_V=b)),
        (s2.raw_scores, dict(Q=f(T_Q, D_H), K=f(T_K, D_H))),
        (s2.scale_scores, dict(kq=f(T_Q, T_K), d_h=D_H)),
        (s2.scale_scores, dict(kq=f(T_Q, T_K), d_h=np.int64(D_H))),
        (s3.causal_visible, dict(n_query=T_Q, n_key=T_K)),
        (s3.padding_visible, dict(attention_mask=mask01, n_query=T_Q)),
        (s3.combine_visible, dict()),  # positional, filled in below
        (s3.additive_mask, dict(visible=visible, dtype=dtype)),
        (s3.to_torch_sdpa_mask, dict(visible=visible)),
        (s3.to_torch_mha_mask, dict(visible=visible)),
        (s3.to_torch_key_padding_mask, dict(attention_mask=mask01)),
        (s4.softmax, dict(S=S)),
        (s5.weighted_sum, dict(P=f(T_Q, T_K), V=f(T_K, D_H))),
        (s6.attention, dict(Q=f(T_Q, D_H), K=f(T_K, D_H), V=f(T_K, 2), visible=visible)),
        (s6.attention, dict(Q=f(T_Q, D_H), K=f(T_K, D_H), V=f(T_K, 2))),
        (s6.attention_head, dict(Z=Z, W_Q=W, b_Q=b, W_K=f(D, D_H), b_K=b, W_V=f(D, D_H), b_V=b)),
    ], (visible, ref.step3_masks.causal_visible(T_Q, T_K))


def outputs(result):
    """The arrays a function returned (a tuple, a HeadTrace or one array)."""
    if isinstance(result, tuple):
        return list(result)
    if hasattr(result, "__dataclass_fields__"):
        return [getattr(result, name) for name in result.__dataclass_fields__]
    return [result]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float32_stays_float32_and_float64_stays_float64(ref, dtype):
    calls, tables = all_calls(ref, dtype)
    for fn, kwargs in calls:
        result = fn(*tables) if fn.__name__ == "combine_visible" else fn(**kwargs)
        for k, out in enumerate(outputs(result)):
            want = bool if fn.__module__ == "step3_masks" and fn.__name__ != "additive_mask" else dtype
            assert isinstance(out, np.ndarray) and out.dtype == want, \
                f"{fn.__name__} output {k}: dtype {getattr(out, 'dtype', type(out))}, expected {np.dtype(want)}"
    assert ref.step3_masks.additive_mask(tables[0]).dtype == np.float64  # the default


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inputs_are_never_modified_or_aliased(ref, dtype):
    calls, tables = all_calls(ref, dtype)
    for fn, kwargs in calls:
        args = list(tables) if fn.__name__ == "combine_visible" else []
        before = copy.deepcopy((args, kwargs))
        inputs = [x for x in [*args, *kwargs.values()] if isinstance(x, np.ndarray)]
        for x in inputs:
            x.flags.writeable = False  # an in-place write would raise here
        result = fn(*args, **kwargs)
        for x in inputs:
            x.flags.writeable = True
        for got, want in zip([*args, *kwargs.values()], [*before[0], *before[1].values()]):
            np.testing.assert_array_equal(got, want, err_msg=f"{fn.__name__} changed an input")
        for out in outputs(result):
            assert not any(np.shares_memory(out, x) for x in inputs), \
                f"{fn.__name__} returned a view of its input: changing the result would change the input"


# --- masks --------------------------------------------------------------------------------------------
def test_causal_visible_is_bottom_right_for_every_size_up_to_8(ref):
    for n_key in range(9):
        for n_query in range(n_key + 1):
            got = ref.step3_masks.causal_visible(n_query, n_key)
            i, j = np.arange(n_query)[:, None], np.arange(n_key)[None, :]
            rule = j <= (n_key - n_query) + i  # key j visible iff j <= past + i
            assert got.dtype == bool and got.shape == (n_query, n_key), (n_query, n_key)
            np.testing.assert_array_equal(got, rule, err_msg=f"n_query={n_query}, n_key={n_key}")
        np.testing.assert_array_equal(ref.step3_masks.causal_visible(n_key), np.tril(np.ones((n_key, n_key), bool)))


SHAPE_SETS = [[(3, 5)], [(3, 5), (3, 5)], [(3, 5), (5,)], [(2, 3, 5), (3, 5), (1, 5)], [(3, 5)] * 4]


@SETTINGS
@given(st.sampled_from(SHAPE_SETS), st.integers(0, 2**32 - 1))
def test_combine_visible_is_and(ref, shapes, seed):
    rng = np.random.default_rng(seed)
    tables = [rng.random(s) < 0.6 for s in shapes]
    got = ref.step3_masks.combine_visible(*tables)
    want = np.ones(np.broadcast_shapes(*shapes), bool)
    for t in tables:
        want = want & t
    assert got.dtype == bool
    np.testing.assert_array_equal(got, want)


@SETTINGS
@given(st.sampled_from([(3, 5), (12, 3, 5), (1, 1), (4, 4)]), st.integers(0, 2**32 - 1))
def test_additive_mask_and_torch_adapters_polarity(ref, shape, seed):
    visible = np.random.default_rng(seed).random(shape) < 0.5
    M = ref.step3_masks.additive_mask(visible)
    assert M.shape == shape and M.dtype == np.float64
    assert (M[visible] == 0).all() and (M[~visible] == -np.inf).all()
    M32 = ref.step3_masks.additive_mask(visible, dtype=np.float32)
    assert M32.dtype == np.float32 and (np.isneginf(M32) == ~visible).all()
    sdpa, mha = ref.step3_masks.to_torch_sdpa_mask(visible), ref.step3_masks.to_torch_mha_mask(visible)
    assert sdpa.dtype == mha.dtype == bool and sdpa.shape == mha.shape == shape
    np.testing.assert_array_equal(sdpa, visible)  # SDPA: True = takes part
    np.testing.assert_array_equal(mha, ~visible)  # nn.MultiheadAttention: True = not allowed


@SETTINGS
@given(st.sampled_from([(5,), (2, 5), (1,), (3, 7)]), st.sampled_from([np.int64, np.int32, np.float32, bool]),
       st.integers(0, 4), st.integers(0, 2**32 - 1))
def test_padding_adapters_polarity(ref, shape, dtype, n_query, seed):
    attention_mask = (np.random.default_rng(seed).random(shape) < 0.6).astype(dtype)  # HF: 1 = real token
    kpm = ref.step3_masks.to_torch_key_padding_mask(attention_mask)
    assert kpm.dtype == bool
    np.testing.assert_array_equal(kpm, attention_mask == 0)  # key_padding_mask: True = ignore
    table = ref.step3_masks.padding_visible(attention_mask, n_query)
    assert table.dtype == bool and table.shape == shape[:-1] + (n_query, shape[-1])
    for i in range(n_query):
        np.testing.assert_array_equal(table[..., i, :], attention_mask == 1)  # padding hides keys, not queries
