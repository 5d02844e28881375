"""A small GPT-2 GGUF written with llama.cpp's own `gguf` writer, and the numbers it should give.

GPT-2's architecture metadata and tensor names, small sizes (D = 32, 4 heads, 2 blocks), seeded
weights; the QKV weight is stored Q8_0 as in the lesson's gpt2.Q8_0.gguf. The vocabulary is the 256
byte pieces plus the merges that build "How", " are", " you".
"""
import math
from dataclasses import dataclass

import numpy as np

D, N_HEAD, N_LAYER, N_CTX, N_FF, EPS = 32, 4, 2, 16, 128, 1e-5
MERGES = ["H o", "Ho w", "Ġ a", "Ġa r", "Ġar e", "Ġ y", "Ġy o", "Ġyo u"]


def vocabulary():
    from attnkit.gpt2_bpe import byte_alphabet

    return [*byte_alphabet().values(), *(a + b for a, b in (m.split(" ") for m in MERGES))]


HOW_ARE_YOU = [vocabulary().index(piece) for piece in ("How", "Ġare", "Ġyou")]


@dataclass
class Weights:
    """Every tensor as written (NumPy order, i.e. GGML's ne reversed), float32; qkv as it reads back."""
    tensors: dict


def write_gpt2_gguf(path, arch="gpt2", seed=0):
    """Write the model to `path`; return its Weights (the Q8_0 tensor dequantized, as a reader sees it)."""
    import gguf
    from gguf.quants import dequantize, quantize

    rng = np.random.default_rng(seed)
    normal = lambda *shape, scale=0.2: (rng.standard_normal(shape) * scale).astype(np.float32)  # noqa: E731
    tensors = {"token_embd.weight": normal(len(vocabulary()), D, scale=1.0),
               "position_embd.weight": normal(N_CTX, D, scale=0.5)}
    for k in range(N_LAYER):
        tensors |= {f"blk.{k}.attn_norm.weight": 1 + normal(D), f"blk.{k}.attn_norm.bias": normal(D),
                    f"blk.{k}.attn_qkv.weight": normal(3 * D, D), f"blk.{k}.attn_qkv.bias": normal(3 * D),
                    f"blk.{k}.attn_output.weight": normal(D, D), f"blk.{k}.attn_output.bias": normal(D),
                    f"blk.{k}.ffn_norm.weight": 1 + normal(D), f"blk.{k}.ffn_norm.bias": normal(D),
                    f"blk.{k}.ffn_up.weight": normal(N_FF, D), f"blk.{k}.ffn_up.bias": normal(N_FF),
                    f"blk.{k}.ffn_down.weight": normal(D, N_FF), f"blk.{k}.ffn_down.bias": normal(D)}
    writer = gguf.GGUFWriter(str(path), arch)
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(D)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_layer_norm_eps(EPS)
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(vocabulary())
    writer.add_token_merges(MERGES)
    q8 = gguf.GGMLQuantizationType.Q8_0
    for name, value in tensors.items():
        if name.endswith("attn_qkv.weight"):
            packed = quantize(value, q8)
            writer.add_tensor(name, packed, raw_shape=packed.shape, raw_dtype=q8)
            tensors[name] = dequantize(packed, q8)
        else:
            writer.add_tensor(name, value)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Weights({name: value.astype(np.float64) for name, value in tensors.items()})


def _norm(x, w, b):
    centred = x - x.mean(-1, keepdims=True)
    return centred / np.sqrt((centred ** 2).mean(-1, keepdims=True) + EPS) * w + b


def expected_trace(weights, ids, layer, gpt2_attention):
    """Block `layer`'s trace by the formulas of GPT-2 straight from the arrays written (HF layout:
    x W with W = the GGUF tensor transposed), with `gpt2_attention` as the layer."""
    t = weights.tensors
    x = t["token_embd.weight"][ids] + t["position_embd.weight"][: len(ids)]

    def attend(k, h):
        return gpt2_attention(_norm(h, t[f"blk.{k}.attn_norm.weight"], t[f"blk.{k}.attn_norm.bias"]),
                              t[f"blk.{k}.attn_qkv.weight"].T, t[f"blk.{k}.attn_qkv.bias"],
                              t[f"blk.{k}.attn_output.weight"].T, t[f"blk.{k}.attn_output.bias"], N_HEAD)

    for k in range(layer):
        x = x + attend(k, x).out
        up = _norm(x, t[f"blk.{k}.ffn_norm.weight"], t[f"blk.{k}.ffn_norm.bias"]) @ t[f"blk.{k}.ffn_up.weight"].T
        up = up + t[f"blk.{k}.ffn_up.bias"]
        gelu = 0.5 * up * (1 + np.tanh(math.sqrt(2 / math.pi) * (up + 0.044715 * up ** 3)))
        x = x + gelu @ t[f"blk.{k}.ffn_down.weight"].T + t[f"blk.{k}.ffn_down.bias"]
    return attend(layer, x)
