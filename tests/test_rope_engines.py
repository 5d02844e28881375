"""Step 12's RoPE against the engines it names: llama.cpp's ggml and Hugging Face's Llama.

llama.cpp: tests/data/llama_cpp/rope.json holds ggml_rope_ext's own output (made by
tools/llama_cpp_rope_golden.py from a llama.cpp build) in its normal mode (pairs 2i, 2i+1: our
"adjacent") and its NEOX mode (pairs i, i + d_head/2: our "half"); no build is needed to read it.
Hugging Face (optional: skipped without torch and transformers): `apply_rotary_pos_emb` with the
cos/sin of `LlamaRotaryEmbedding`, which is our "half". Both engines compute the angles in float32,
so rows agree to about 1e-6 here; each test also checks that the other pairing does not agree.
"""
import json
from pathlib import Path

import numpy as np
import pytest

GOLDEN = json.loads((Path(__file__).parent / "data" / "llama_cpp" / "rope.json").read_text(encoding="utf-8"))
OTHER = {"half": "adjacent", "adjacent": "half"}
FLOAT32_ANGLES = dict(rtol=0, atol=2e-5)  # float32 angles up to position 100, against float64 ones


@pytest.mark.parametrize("run", GOLDEN["runs"], ids=lambda run: f"{run['pairing']}-{run['base']:g}")
def test_apply_rope_is_ggml_rope_ext(ref, run):
    x = np.asarray(GOLDEN["x"])  # [T, n_head, d_head]: llama.cpp's Qcur layout, ne = {d_head, n_head, T}
    positions = np.asarray(GOLDEN["positions"], dtype=np.int64)
    ggml = np.asarray(run["x_rot"]).transpose(1, 0, 2)  # [n_head, T, d_head]
    rope = ref.step12_rope.apply_rope
    ours = rope(x.transpose(1, 0, 2), positions, base=run["base"], pairing=run["pairing"])
    np.testing.assert_allclose(ours, ggml, **FLOAT32_ANGLES)
    other = rope(x.transpose(1, 0, 2), positions, base=run["base"], pairing=OTHER[run["pairing"]])
    assert not np.allclose(other, ggml, **FLOAT32_ANGLES)


def test_golden_covers_both_ggml_modes():
    assert {(run["pairing"], run["mode"]) for run in GOLDEN["runs"]} == {("adjacent", 0), ("half", 2)}


# --- Hugging Face's Llama ----------------------------------------------------------------------------

def llama_rope(d_head, n_head, base):
    """(torch, LlamaRotaryEmbedding, apply_rotary_pos_emb) of a Llama with heads of d_head and RoPE base `base`."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

    config = transformers.LlamaConfig(hidden_size=n_head * d_head, num_attention_heads=n_head,
                                      num_key_value_heads=n_head, head_dim=d_head,
                                      rope_parameters={"rope_type": "default", "rope_theta": base})
    return torch, LlamaRotaryEmbedding(config), apply_rotary_pos_emb


@pytest.mark.parametrize("d_head, base", [(8, 10000.0), (64, 10000.0), (6, 500000.0)])
def test_rope_frequencies_are_llamas_inv_freq(ref, d_head, base):
    _, rotary, _ = llama_rope(d_head, 1, base)
    np.testing.assert_allclose(ref.step12_rope.rope_frequencies(d_head, base), rotary.inv_freq.numpy(), rtol=1e-6)


@pytest.mark.parametrize("d_head, n_head, base", [(8, 3, 10000.0), (6, 2, 500000.0)])
def test_apply_rope_half_is_apply_rotary_pos_emb(ref, d_head, n_head, base):
    torch, rotary, apply_rotary_pos_emb = llama_rope(d_head, n_head, base)
    rng = np.random.default_rng(1240)
    positions = np.array([0, 5, 1, 77, 30])
    q, k = rng.normal(size=(2, n_head, len(positions), d_head))  # [n_head, T, d_head] each
    q_t, k_t = torch.from_numpy(q)[None], torch.from_numpy(k)[None]  # [batch 1, n_head, T, d_head]
    cos, sin = rotary(q_t, torch.from_numpy(positions)[None])
    q_hf, k_hf = (t[0].numpy() for t in apply_rotary_pos_emb(q_t, k_t, cos, sin))
    rope = ref.step12_rope.apply_rope
    for ours, hf, X in ((rope(q, positions, base, "half"), q_hf, q), (rope(k, positions, base, "half"), k_hf, k)):
        np.testing.assert_allclose(ours, hf, **FLOAT32_ANGLES)
        assert not np.allclose(rope(X, positions, base, "adjacent"), hf, **FLOAT32_ANGLES)


def test_rope_attention_is_hugging_faces_rotation_then_sdpa(ref):
    """A decoding step (past = 3, new = 2): HF turns the queries at 3, 4 and the keys at 0 … 4, torch's
    scaled_dot_product_attention reads them with the bottom-right causal table; V is not turned."""
    torch, rotary, apply_rotary_pos_emb = llama_rope(6, 1, 10000.0)
    rng = np.random.default_rng(1241)
    past, Q, K, V = 3, rng.normal(size=(2, 6)), rng.normal(size=(5, 6)), rng.normal(size=(5, 6))
    as_batch = lambda X: torch.from_numpy(X)[None, None]  # noqa: E731  [1, 1, T, D_h]
    cos_q, sin_q = rotary(as_batch(Q), torch.arange(past, past + 2)[None])
    cos_k, sin_k = rotary(as_batch(K), torch.arange(5)[None])
    q_rot, _ = apply_rotary_pos_emb(as_batch(Q), as_batch(Q), cos_q, sin_q)
    k_rot, _ = apply_rotary_pos_emb(as_batch(K), as_batch(K), cos_k, sin_k)
    visible = torch.from_numpy(ref.step3_masks.causal_visible(2, 5))
    O_torch = torch.nn.functional.scaled_dot_product_attention(q_rot, k_rot, as_batch(V), attn_mask=visible)[0, 0]
    O, _ = ref.step12_rope.rope_attention(Q, K, V, past=past)
    np.testing.assert_allclose(O, O_torch.numpy(), **FLOAT32_ANGLES)
