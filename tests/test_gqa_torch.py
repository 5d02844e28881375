"""Step 11's grouped-query attention against PyTorch and Hugging Face (optional: skipped without them).

`torch.nn.functional.scaled_dot_product_attention(..., enable_gqa=True)` takes K and V with fewer heads
than Q, as attention_gqa does; Hugging Face's Llama copies them to every query head with `repeat_kv`.
Both must give this kit's grouping, h // (n_head // n_kv_head), and the interleaved one (h % n_kv_head)
must not (so the grouping is really being tested).
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

N_HEAD, N_KV_HEAD, T_Q, T_K, D_H = 6, 2, 3, 5, 4  # unequal sizes, groups of 3


def t(x):
    return torch.from_numpy(np.ascontiguousarray(x))


@pytest.fixture
def qkv():
    rng = np.random.default_rng(21)
    return (rng.normal(size=(N_HEAD, T_Q, D_H)), rng.normal(size=(N_KV_HEAD, T_K, D_H)),
            rng.normal(size=(N_KV_HEAD, T_K, D_H)))


def sdpa_gqa(Q, K, V, visible):
    """torch's SDPA with a boolean mask (True = may attend, as this kit's table) and enable_gqa."""
    return F.scaled_dot_product_attention(t(Q), t(K), t(V), attn_mask=t(visible), enable_gqa=True).numpy()


def test_sdpa_enable_gqa_matches_attention_gqa(ref, qkv):
    visible = ref.step3_masks.causal_visible(T_Q, T_K)
    O, _ = ref.step11_gqa.attention_gqa(*qkv, visible)
    np.testing.assert_allclose(sdpa_gqa(*qkv, visible), O, rtol=1e-10, atol=1e-12)
    Q, K, V = qkv
    interleaved = np.arange(N_HEAD) % N_KV_HEAD  # gqa_heads_interleaved
    O_wrong, _ = ref.step6_head.attention(Q, K[interleaved], V[interleaved], visible)
    assert not np.allclose(sdpa_gqa(*qkv, visible), O_wrong)


def test_sdpa_enable_gqa_with_llama_heads(ref):
    """32 query heads over 8 KV heads of 128, one new token over a cache of 9, batched as torch takes it."""
    rng = np.random.default_rng(22)
    Q, K, V = rng.normal(size=(32, 1, 128)), rng.normal(size=(8, 10, 128)), rng.normal(size=(8, 10, 128))
    O, _ = ref.step11_gqa.attention_gqa(Q, K, V)
    got = F.scaled_dot_product_attention(t(Q[None]), t(K[None]), t(V[None]), enable_gqa=True).numpy()[0]
    np.testing.assert_allclose(got, O, rtol=1e-10, atol=1e-12)  # one query over every key: no mask needed


def test_hf_repeat_kv_is_kv_head_for(ref, qkv):
    modeling_llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    _, K, _ = qkv
    group = N_HEAD // N_KV_HEAD
    repeated = modeling_llama.repeat_kv(t(K[None]), group).numpy()[0]  # [batch, heads, T, D_h] in torch
    np.testing.assert_array_equal(repeated, K[ref.step11_gqa.kv_head_for(N_HEAD, N_KV_HEAD)])
    assert not np.array_equal(repeated, np.tile(K, (group, 1, 1)))  # np.tile is the interleaved grouping


def test_hf_llama_attention_matches_attention_gqa(ref, qkv):
    """Hugging Face's eager attention of Llama: repeat_kv, then softmax(Q Kᵀ · scaling + mask) V."""
    modeling_llama = pytest.importorskip("transformers.models.llama.modeling_llama")
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig(hidden_size=N_HEAD * D_H, num_attention_heads=N_HEAD,
                                      num_key_value_heads=N_KV_HEAD, head_dim=D_H)
    module = modeling_llama.LlamaAttention(config, layer_idx=0).double().eval()
    visible = ref.step3_masks.causal_visible(T_Q, T_K)
    M = ref.step3_masks.additive_mask(visible)
    Q, K, V = qkv
    with torch.no_grad():
        out, weights = modeling_llama.eager_attention_forward(module, t(Q[None]), t(K[None]), t(V[None]),
                                                              attention_mask=t(M[None, None]),
                                                              scaling=D_H ** -0.5, dropout=0.0)
    O, P = ref.step11_gqa.attention_gqa(Q, K, V, visible)
    # HF takes the softmax in float32 whatever the input's dtype: float32's agreement, not float64's
    np.testing.assert_allclose(weights.numpy()[0], P, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out.numpy()[0], np.swapaxes(O, 0, 1), rtol=1e-6, atol=1e-7)  # HF: [B, T, n_head, D_h]
