"""Step 11's reference: grouped-query attention and the KV cache's size, and the lesson's numbers.

The properties: query head h reads KV head h // (n_head // n_kv_head), so each KV head has a run of
n_head // n_kv_head consecutive readers; attention_gqa is step 6's attention head by head on the KV
head each reads (MHA when n_kv_head = n_head); the cache's bytes are a Python int, proportional to
n_kv_head, so GQA divides MHA's cache by n_head / n_kv_head.
"""
import math

import numpy as np
import pytest

pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install -e '.[dev]')")
from hypothesis import given, settings, strategies as st  # noqa: E402  (after the skip: a learner's install has no dev extras)

LN3 = math.log(3)


@st.composite
def head_layout(draw):
    """(n_head, n_kv_head) with n_kv_head dividing n_head."""
    n_kv_head, group = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    return n_kv_head * group, n_kv_head


@settings(max_examples=60, deadline=None)
@given(head_layout())
def test_each_kv_head_is_read_by_a_run_of_consecutive_query_heads(ref, layout):
    n_head, n_kv_head = layout
    kv_of = ref.step11_gqa.kv_head_for(n_head, n_kv_head)
    assert kv_of.dtype == np.int64 and kv_of.shape == (n_head,)
    np.testing.assert_array_equal(kv_of, np.repeat(np.arange(n_kv_head), n_head // n_kv_head))


@pytest.mark.parametrize("n_head, n_kv_head", [(6, 4), (4, 8), (5, 2)])
def test_kv_heads_must_divide_the_query_heads(ref, n_head, n_kv_head):
    with pytest.raises(ValueError, match=f"n_head = {n_head}.*n_kv_head = {n_kv_head}"):
        ref.step11_gqa.kv_head_for(n_head, n_kv_head)


@settings(max_examples=40, deadline=None)
@given(head_layout(), st.integers(1, 4), st.integers(0, 3), st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_each_query_head_is_step6_attention_on_its_kv_head(ref, layout, T_q, past, D_h, seed):
    """Head by head, with unequal sizes: T_k = T_q + past keys, causal (bottom-right)."""
    n_head, n_kv_head = layout
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(n_head, T_q, D_h))
    K, V = rng.normal(size=(2, n_kv_head, T_q + past, D_h))
    O, P = ref.step11_gqa.attention_gqa(Q, K, V)
    group = n_head // n_kv_head
    for h in range(n_head):
        O_h, P_h = ref.step6_head.attention(Q[h], K[h // group], V[h // group])
        np.testing.assert_allclose(O[h], O_h, rtol=0, atol=1e-12)
        np.testing.assert_allclose(P[h], P_h, rtol=0, atol=1e-12)


def test_as_many_kv_heads_as_query_heads_is_multi_head_attention(ref):
    rng = np.random.default_rng(11)
    Q, (K, V) = rng.normal(size=(5, 2, 4)), rng.normal(size=(2, 5, 7, 4))
    visible = rng.random((2, 7)) < 0.6
    for got, want in zip(ref.step11_gqa.attention_gqa(Q, K, V, visible), ref.step6_head.attention(Q, K, V, visible)):
        np.testing.assert_array_equal(got, want)


def test_kv_heads_are_never_mixed(ref):
    """Changing one KV head changes the outputs of its group of query heads only."""
    rng = np.random.default_rng(12)
    Q, K, V = rng.normal(size=(6, 3, 4)), rng.normal(size=(3, 5, 4)), rng.normal(size=(3, 5, 4))
    O, _ = ref.step11_gqa.attention_gqa(Q, K, V)
    K2, V2 = K.copy(), V.copy()
    K2[1], V2[1] = 2.0, -1.0
    O2, _ = ref.step11_gqa.attention_gqa(Q, K2, V2)
    changed = ~np.isclose(O, O2).all(axis=(1, 2))
    np.testing.assert_array_equal(changed, [False, False, True, True, False, False])


def test_float32_stays_float32(ref):
    rng = np.random.default_rng(13)
    Q, K, V = (rng.normal(size=s).astype(np.float32) for s in ((4, 2, 3), (2, 2, 3), (2, 2, 3)))
    O, P = ref.step11_gqa.attention_gqa(Q, K, V)
    assert O.dtype == P.dtype == np.float32


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 96), head_layout(), st.sampled_from([64, 80, 128]), st.integers(1, 2**17),
       st.sampled_from([("float32", 4), ("float16", 2), ("bfloat16", 2), ("int8", 1)]))
def test_cache_bytes_are_a_whole_count_proportional_to_the_kv_heads(ref, n_layer, layout, d_head, n_ctx, dtype):
    n_head, n_kv_head = layout
    name, size = dtype
    gqa = ref.step11_gqa.kv_cache_bytes(n_layer, n_head, n_kv_head, d_head, n_ctx, name)
    mha = ref.step11_gqa.kv_cache_bytes(n_layer, n_head, n_head, d_head, n_ctx, name)
    assert type(gqa) is int and gqa == 2 * n_layer * n_kv_head * d_head * n_ctx * size
    assert mha == gqa * (n_head // n_kv_head)


def test_cache_bytes_from_numpy_integers_are_python_ints(ref):
    assert type(ref.step11_gqa.kv_cache_bytes(np.int64(2), np.int64(6), np.int32(3), np.int64(4), np.int64(5))) is int


# --- the lesson's numbers (lessons/en/step11_gqa.md) ------------------------------------------------------
WORKED_Q = np.array([0.0, LN3, 0.0, LN3]).reshape(4, 1, 1)
WORKED_K = np.array([[0.0, 1.0], [0.0, -1.0]]).reshape(2, 2, 1)
WORKED_V = np.array([[1.0, 3.0], [10.0, 30.0]]).reshape(2, 2, 1)


def test_lesson_groups(ref):
    kv_head_for = ref.step11_gqa.kv_head_for
    np.testing.assert_array_equal(kv_head_for(4, 2), [0, 0, 1, 1])
    np.testing.assert_array_equal(np.arange(4) % 2, [0, 1, 0, 1])  # the interleaved table
    np.testing.assert_array_equal(kv_head_for(6, 2), [0, 0, 0, 1, 1, 1])
    np.testing.assert_array_equal(np.arange(6) // 2, [0, 0, 1, 1, 2, 2])  # dividing by n_kv_head
    np.testing.assert_array_equal(np.arange(4) // 2, kv_head_for(4, 2))  # ... right by luck at 4 over 2
    llama = kv_head_for(32, 8)
    assert set(llama[:4]) == {0} and set(llama[28:]) == {7}


def test_lesson_worked_example(ref):
    O, P = ref.step11_gqa.attention_gqa(WORKED_Q, WORKED_K, WORKED_V)
    np.testing.assert_allclose(P[:, 0], [[1 / 2, 1 / 2], [1 / 4, 3 / 4], [1 / 2, 1 / 2], [3 / 4, 1 / 4]], atol=1e-15)
    np.testing.assert_allclose(O.ravel(), [2, 2.5, 20, 15], atol=1e-14)


def test_lesson_wrong_repeats(ref):
    """The lesson's table of repeats: which give the right shape, and what the worked example gives with them."""
    attention = ref.step6_head.attention
    K, V, g = WORKED_K, WORKED_V, 2
    np.testing.assert_array_equal(np.repeat(K, g, axis=0), K[ref.step11_gqa.kv_head_for(4, 2)])
    tiled, _ = attention(WORKED_Q, np.tile(K, (g, 1, 1)), np.tile(V, (g, 1, 1)))
    np.testing.assert_allclose(tiled.ravel(), [2, 15, 2, 15], atol=1e-14)
    assert np.repeat(K, g, axis=1).shape == (2, 4, 1)
    by_tokens, _ = attention(WORKED_Q, np.repeat(K, g, axis=1).reshape(4, 2, 1), np.repeat(V, g, axis=1).reshape(4, 2, 1))
    np.testing.assert_allclose(by_tokens.ravel(), [1, 3, 10, 30], atol=1e-14)


@pytest.mark.parametrize("n_kv_head, printed", [(32, 4_294_967_296), (8, 1_073_741_824), (1, 134_217_728)])
def test_lesson_llama3_8b_cache(ref, n_kv_head, printed):
    n_bytes = ref.step11_gqa.kv_cache_bytes(32, 32, n_kv_head, 128, 8192, "float16")
    assert n_bytes == printed
    assert n_bytes == {32: 4 * 2**30, 8: 2**30, 1: 128 * 2**20}[n_kv_head]  # 4 GiB, 1 GiB, 128 MiB


def test_lesson_gpt2_small_cache(ref):
    assert ref.step11_gqa.kv_cache_bytes(12, 12, 12, 64, 1024, "float32") == 75_497_472 == 72 * 2**20


def test_numpy_has_no_bfloat16():
    """The lesson says np.dtype("bfloat16") is an error (the cache_bfloat16_from_numpy mistake)."""
    with pytest.raises(TypeError):
        np.dtype("bfloat16")
