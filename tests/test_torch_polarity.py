"""The mask adapters against the real torch APIs (optional: skipped without torch).

Each adapter's output, fed to torch, must reproduce this kit's `attention` with the same visibility
table; the inverted table must not (so the polarity is really being tested).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

T_Q, T_K, D_H = 3, 5, 4


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


@pytest.fixture
def qkv():
    rng = np.random.default_rng(7)
    return rng.normal(size=(T_Q, D_H)), rng.normal(size=(T_K, D_H)), rng.normal(size=(T_K, D_H))


@pytest.fixture
def visible(ref):
    """Causal KV-cache table (past = 2) with key 1 hidden as padding: every row keeps a key."""
    m = ref.step3_masks
    return m.combine_visible(m.causal_visible(T_Q, T_K), m.padding_visible(np.array([1, 0, 1, 1, 1]), T_Q))


def sdpa(Q, K, V, **kwargs):
    return F.scaled_dot_product_attention(t(Q), t(K), t(V), **kwargs).numpy()


def identity_mha(embed_dim):
    """One-head nn.MultiheadAttention whose projections are the identity: it computes plain attention."""
    mha = torch.nn.MultiheadAttention(embed_dim, num_heads=1, batch_first=True, dtype=torch.float64)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([torch.eye(embed_dim, dtype=torch.float64)] * 3))
        mha.in_proj_bias.zero_()
        mha.out_proj.weight.copy_(torch.eye(embed_dim, dtype=torch.float64))
        mha.out_proj.bias.zero_()
    return mha.eval()


def mha(Q, K, V, **masks):
    with torch.no_grad():
        O, P = identity_mha(Q.shape[-1])(t(Q[None]), t(K[None]), t(V[None]), need_weights=True,
                                         average_attn_weights=False, **masks)
    return O[0].numpy(), P[0, 0].numpy()


def test_sdpa_bool_mask_matches_attention(ref, qkv, visible):
    O, _ = ref.step6_head.attention(*qkv, visible)
    mask = ref.step3_masks.to_torch_sdpa_mask(visible)
    np.testing.assert_allclose(sdpa(*qkv, attn_mask=t(mask)), O, rtol=1e-10, atol=1e-12)
    assert not np.allclose(sdpa(*qkv, attn_mask=t(~mask)), O)  # the table inverted (torch_sdpa_polarity)


def test_sdpa_float_mask_is_added(ref, qkv, visible):
    O, _ = ref.step6_head.attention(*qkv, visible)
    M = ref.step3_masks.additive_mask(visible)
    np.testing.assert_allclose(sdpa(*qkv, attn_mask=t(M)), O, rtol=1e-10, atol=1e-12)
    # a 0/1 float mask masks nothing: it adds +1 to the visible scores and every key keeps a weight
    Q, K, V = qkv
    S = ref.step2_scores.scale_scores(ref.step2_scores.raw_scores(Q, K), D_H) + visible.astype(float)
    P = ref.step4_softmax.softmax(S)
    assert (P > 0).all()
    got = sdpa(*qkv, attn_mask=t(visible.astype(float)))
    np.testing.assert_allclose(got, ref.step5_values.weighted_sum(P, V), rtol=1e-10, atol=1e-12)
    assert not np.allclose(got, O)


def test_sdpa_with_12_heads(ref):
    rng = np.random.default_rng(12)
    Q, K, V = rng.normal(size=(12, T_Q, 64)), rng.normal(size=(12, T_K, 64)), rng.normal(size=(12, T_K, 64))
    visible = rng.random((12, T_Q, T_K)) < 0.6
    visible[..., 0] = True
    O, _ = ref.step6_head.attention(Q, K, V, visible)
    mask = ref.step3_masks.to_torch_sdpa_mask(visible)
    np.testing.assert_allclose(sdpa(Q, K, V, attn_mask=t(mask)), O, rtol=1e-10, atol=1e-12)


def test_kv_cache_past3_new2_is_bottom_right_and_is_causal_is_top_left(ref):
    """is_causal=True aligns top-left: wrong for a KV-cache step (the contract's trap: docs/CONTRACT.md)."""
    rng = np.random.default_rng(5)
    Q, K, V = rng.normal(size=(2, D_H)), rng.normal(size=(5, D_H)), rng.normal(size=(5, D_H))
    O, _ = ref.step6_head.attention(Q, K, V)  # visible=None: causal_visible(2, 5), bottom-right
    mask = ref.step3_masks.to_torch_sdpa_mask(ref.step3_masks.causal_visible(2, 5))
    np.testing.assert_allclose(sdpa(Q, K, V, attn_mask=t(mask)), O, rtol=1e-10, atol=1e-12)
    top_left = sdpa(Q, K, V, is_causal=True)
    assert not np.allclose(top_left, O), "is_causal=True should differ from the bottom-right KV-cache table"
    np.testing.assert_allclose(top_left, ref.step6_head.attention(Q, K, V, np.tri(2, 5, dtype=bool))[0],
                               rtol=1e-10, atol=1e-12)  # top-left: query 0 reads only key 0


def test_mha_attn_mask_matches_attention(ref, qkv, visible):
    O, P = ref.step6_head.attention(*qkv, visible)
    got_O, got_P = mha(*qkv, attn_mask=t(ref.step3_masks.to_torch_mha_mask(visible)))
    np.testing.assert_allclose(got_P, P, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_O, O, rtol=1e-10, atol=1e-12)
    wrong_O, _ = mha(*qkv, attn_mask=t(visible))  # the visible table as is (torch_mha_polarity)
    assert not np.allclose(wrong_O, O)


def test_mha_key_padding_mask_matches_attention(ref, qkv):
    m = ref.step3_masks
    attention_mask = np.array([1, 1, 0, 1, 0])  # Hugging Face: 1 = real token, 0 = padding
    visible = m.combine_visible(m.causal_visible(T_Q, T_K), m.padding_visible(attention_mask, T_Q))
    O, P = ref.step6_head.attention(*qkv, visible)
    got_O, got_P = mha(*qkv, attn_mask=t(m.to_torch_mha_mask(m.causal_visible(T_Q, T_K))),
                       key_padding_mask=t(m.to_torch_key_padding_mask(attention_mask)[None]))
    np.testing.assert_allclose(got_P, P, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_O, O, rtol=1e-10, atol=1e-12)
    wrong_O, _ = mha(*qkv, key_padding_mask=t(attention_mask[None] == 1))  # read backwards (hf_padding_polarity)
    assert not np.allclose(wrong_O, mha(*qkv, key_padding_mask=t(m.to_torch_key_padding_mask(attention_mask)[None]))[0])


# --- a query row with no visible key (lessons/*/ref_polarity.md#no-visible-key) --------------------

def test_sdpa_gives_zeros_for_a_row_with_no_visible_key(ref, qkv):
    visible = ref.step3_masks.causal_visible(T_Q, T_K)
    visible[1] = False
    O = sdpa(*qkv, attn_mask=t(visible))
    assert np.all(O[1] == 0.0) and np.isfinite(O).all()
    np.testing.assert_allclose(O, ref.step6_head.attention(*qkv, visible)[0], rtol=1e-10, atol=1e-12)


def test_mha_gives_nan_for_a_row_with_no_visible_key(ref, qkv):
    visible = ref.step3_masks.causal_visible(T_Q, T_K)
    visible[1] = False
    O, P = mha(*qkv, attn_mask=t(ref.step3_masks.to_torch_mha_mask(visible)))
    assert np.isnan(O[1]).all() and np.isnan(P[1]).all()
    assert np.isfinite(O[[0, 2]]).all()


def test_mha_without_weights_gives_zeros_on_its_slow_path(ref, qkv):
    """need_weights=False off the fast path (here: Q, K, V are different tensors): MHA calls SDPA."""
    visible = ref.step3_masks.causal_visible(T_Q, T_K)
    visible[1] = False
    Q, K, V = (t(x[None]) for x in qkv)
    with torch.no_grad():
        O, P = identity_mha(D_H)(Q, K, V, need_weights=False, attn_mask=t(ref.step3_masks.to_torch_mha_mask(visible)))
    assert P is None and np.all(O[0, 1].numpy() == 0.0) and np.isfinite(O.numpy()).all()


def test_mha_gives_nan_on_its_fast_path_even_without_weights(ref):
    """The fast path (eval, no autograd, self-attention, an even number of heads, batch_first) gives NaN
    for the hidden row whatever need_weights says."""
    torch.manual_seed(0)
    mha = torch.nn.MultiheadAttention(D_H, num_heads=2, batch_first=True).eval()
    X = torch.randn(1, T_Q, D_H)
    visible = ref.step3_masks.causal_visible(T_Q, T_Q)
    visible[1] = False
    with torch.no_grad():
        O, _ = mha(X, X, X, need_weights=False, attn_mask=t(ref.step3_masks.to_torch_mha_mask(visible)))
    assert np.isnan(O[0, 1].numpy()).all() and np.isfinite(O[0, [0, 2]].numpy()).all()


def test_gpt2_eager_attention_spreads_a_row_with_no_visible_key_over_every_key():
    """Left padding [0, 1, 1] with causality: query 0 may read only key 0, which is padding. GPT-2's
    eager attention (random weights, nothing downloaded) gives that row 1/3 on every key, future ones too."""
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_layer=1, n_head=2, n_embd=8, vocab_size=10, n_positions=8,
                                     bos_token_id=None, eos_token_id=None)
    model = transformers.GPT2Model._from_config(config, attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(input_ids=torch.tensor([[1, 2, 3]]), attention_mask=torch.tensor([[0, 1, 1]]),
                    output_attentions=True)
    P = out.attentions[0][0].numpy()  # [heads, T_q, T_k]
    np.testing.assert_allclose(P[:, 0], np.full((2, 3), 1 / 3), rtol=1e-6)
    assert np.all(P[:, 1:, 0] == 0) and np.all(P[:, 1, 2] == 0)  # rows with a visible key: masked keys get 0


def test_filling_with_the_dtype_minimum_spreads_a_hidden_row_evenly(qkv):
    """GPT-2's eager attention in transformers fills hidden scores with torch.finfo(dtype).min, not
    -inf: a row with every key hidden then has equal scores, and softmax gives 1/T_k to every key."""
    Q, K, _ = (t(x) for x in qkv)
    scores = Q @ K.T / D_H ** 0.5
    hidden = torch.zeros(T_Q, T_K, dtype=torch.bool)
    hidden[1] = True
    P = torch.softmax(scores.masked_fill(hidden, torch.finfo(scores.dtype).min), dim=-1).numpy()
    np.testing.assert_allclose(P[1], np.full(T_K, 1 / T_K))
    P_inf = torch.softmax(scores.masked_fill(hidden, float("-inf")), dim=-1).numpy()
    assert np.isnan(P_inf[1]).all()  # -inf in a plain softmax instead: NaN (the kit's softmax gives zeros)
