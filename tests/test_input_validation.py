"""Every reference function refuses bad input with a ValueError/TypeError that names the argument
and shows the shape (or dtype/value) it got, before any arithmetic runs."""
import re

import numpy as np
import pytest


def a(*shape, dtype=float):
    return np.ones(shape, dtype=dtype)


def w():
    """Projection-weights kwargs for project_qkv / attention_head with D = 8, D_h = 4."""
    return dict(W_Q=a(8, 4), b_Q=a(4), W_K=a(8, 4), b_K=a(4), W_V=a(8, 4), b_V=a(4))


def with_(base, **changes):
    return {**base, **changes}


TEXT = np.array([["a", "b"], ["c", "d"]])
RAGGED = [[1.0, 2.0], [3.0]]
QKV = dict(Q=a(3, 4), K=a(5, 4), V=a(5, 2))  # T_q = 3, T_k = 5, D_h = 4
LAYER = dict(c_attn_weight=a(8, 24), c_attn_bias=a(24), c_proj_weight=a(8, 8), c_proj_bias=a(8))  # D = 8
DECODE = dict(Z_new=a(2, 8), K_past=a(2, 3, 4), V_past=a(2, 3, 4), **LAYER, n_head=2)  # 2 heads of 4

# (step module, function, kwargs, exception, texts the message must contain: argument name first)
CASES = {
    # step 1
    "project: Z not numeric": ("step1_projection", "project", dict(Z=TEXT, W=a(2, 4), b=a(4)), TypeError, ["Z", "<U1"]),
    "project: Z ragged": ("step1_projection", "project", dict(Z=RAGGED, W=a(2, 4), b=a(4)), TypeError, ["Z", "list"]),
    "project: Z one axis": ("step1_projection", "project", dict(Z=a(8), W=a(8, 4), b=a(4)), ValueError, ["Z", "(8,)"]),
    "project: W one axis": ("step1_projection", "project", dict(Z=a(3, 8), W=a(8), b=a(4)), ValueError, ["W", "(8,)", "[D, D_h]"]),
    "project: W three axes": ("step1_projection", "project", dict(Z=a(3, 8), W=a(1, 8, 4), b=a(4)), ValueError, ["W", "(1, 8, 4)"]),
    "project: W transposed": ("step1_projection", "project", dict(Z=a(3, 8), W=a(4, 8), b=a(4)), ValueError, ["W", "(4, 8)", "(3, 8)"]),
    "project: b wrong length": ("step1_projection", "project", dict(Z=a(3, 8), W=a(8, 4), b=a(3)), ValueError, ["b", "(3,)", "(8, 4)"]),
    "project: b two axes": ("step1_projection", "project", dict(Z=a(3, 8), W=a(8, 4), b=a(1, 4)), ValueError, ["b", "(1, 4)"]),
    "project: W boolean": ("step1_projection", "project", dict(Z=a(3, 8), W=a(8, 4, dtype=bool), b=a(4)), TypeError, ["W", "bool"]),
    "project_qkv: W_K transposed": ("step1_projection", "project_qkv", with_(dict(Z=a(3, 8), **w()), W_K=a(4, 8)), ValueError, ["W_K", "(4, 8)", "(3, 8)"]),
    "project_qkv: b_V wrong length": ("step1_projection", "project_qkv", with_(dict(Z=a(3, 8), **w()), b_V=a(5)), ValueError, ["b_V", "(5,)", "(8, 4)"]),
    "project_qkv: W_Q one axis": ("step1_projection", "project_qkv", with_(dict(Z=a(3, 8), **w()), W_Q=a(8)), ValueError, ["W_Q", "(8,)"]),
    "project_qkv: Q and K widths differ": ("step1_projection", "project_qkv", with_(dict(Z=a(3, 8), **w()), W_K=a(8, 5), b_K=a(5)), ValueError, ["W_Q", "W_K", "(8, 4)", "(8, 5)"]),
    "project_qkv: Z not numeric": ("step1_projection", "project_qkv", dict(Z=TEXT, **w()), TypeError, ["Z", "<U1"]),
    # step 2
    "raw_scores: D_h differs": ("step2_scores", "raw_scores", dict(Q=a(3, 4), K=a(5, 3)), ValueError, ["Q", "K", "(3, 4)", "(5, 3)"]),
    "raw_scores: K one axis": ("step2_scores", "raw_scores", dict(Q=a(3, 4), K=a(4)), ValueError, ["K", "(4,)"]),
    "raw_scores: batch axes differ": ("step2_scores", "raw_scores", dict(Q=a(12, 3, 4), K=a(11, 5, 4)), ValueError, ["Q", "K", "(12, 3, 4)", "(11, 5, 4)"]),
    "raw_scores: Q not numeric": ("step2_scores", "raw_scores", dict(Q=TEXT, K=a(2, 2)), TypeError, ["Q", "<U1"]),
    "raw_scores: K object": ("step2_scores", "raw_scores", dict(Q=a(2, 2), K=np.array([[None, 1], [2, 3]])), TypeError, ["K", "object"]),
    "scale_scores: d_h = 0": ("step2_scores", "scale_scores", dict(kq=a(3, 5), d_h=0), ValueError, ["d_h", "0"]),
    "scale_scores: d_h < 0": ("step2_scores", "scale_scores", dict(kq=a(3, 5), d_h=-64), ValueError, ["d_h", "-64"]),
    "scale_scores: d_h text": ("step2_scores", "scale_scores", dict(kq=a(3, 5), d_h="64"), TypeError, ["d_h", "str"]),
    "scale_scores: d_h array": ("step2_scores", "scale_scores", dict(kq=a(3, 5), d_h=a(3)), TypeError, ["d_h", "ndarray"]),
    "scale_scores: kq one axis": ("step2_scores", "scale_scores", dict(kq=a(5), d_h=64), ValueError, ["kq", "(5,)"]),
    "scale_scores: kq not numeric": ("step2_scores", "scale_scores", dict(kq=TEXT, d_h=64), TypeError, ["kq", "<U1"]),
    # step 3
    "causal_visible: n_key < n_query": ("step3_masks", "causal_visible", dict(n_query=5, n_key=3), ValueError, ["n_key", "n_query", "3", "5"]),
    "causal_visible: negative n_query": ("step3_masks", "causal_visible", dict(n_query=-1), ValueError, ["n_query", "-1"]),
    "causal_visible: negative n_key": ("step3_masks", "causal_visible", dict(n_query=2, n_key=-2), ValueError, ["n_key", "-2"]),
    "causal_visible: float size": ("step3_masks", "causal_visible", dict(n_query=2.0), TypeError, ["n_query", "2.0"]),
    "causal_visible: bool size": ("step3_masks", "causal_visible", dict(n_query=True), TypeError, ["n_query", "True"]),
    "padding_visible: values 0/1/2": ("step3_masks", "padding_visible", dict(attention_mask=np.array([1, 2, 0]), n_query=2), ValueError, ["attention_mask", "2", "(3,)"]),
    "padding_visible: value 0.5": ("step3_masks", "padding_visible", dict(attention_mask=np.array([1, 0.5]), n_query=2), ValueError, ["attention_mask", "0.5"]),
    "padding_visible: scalar": ("step3_masks", "padding_visible", dict(attention_mask=np.array(1), n_query=2), ValueError, ["attention_mask", "()"]),
    "padding_visible: text": ("step3_masks", "padding_visible", dict(attention_mask=np.array(["1", "0"]), n_query=2), TypeError, ["attention_mask", "<U1"]),
    "padding_visible: negative n_query": ("step3_masks", "padding_visible", dict(attention_mask=np.array([1, 0]), n_query=-3), ValueError, ["n_query", "-3"]),
    "additive_mask: 0/1 numbers": ("step3_masks", "additive_mask", dict(visible=a(3, 5, dtype=int)), TypeError, ["visible", "int", "(3, 5)"]),
    "additive_mask: float table": ("step3_masks", "additive_mask", dict(visible=a(3, 5)), TypeError, ["visible", "float64", "(3, 5)"]),
    "to_torch_sdpa_mask: 0/1 numbers": ("step3_masks", "to_torch_sdpa_mask", dict(visible=a(3, 5, dtype=int)), TypeError, ["visible", "int", "(3, 5)"]),
    "to_torch_mha_mask: 0/1 numbers": ("step3_masks", "to_torch_mha_mask", dict(visible=a(3, 5, dtype=np.uint8)), TypeError, ["visible", "uint8", "(3, 5)"]),
    "to_torch_key_padding_mask: value 2": ("step3_masks", "to_torch_key_padding_mask", dict(attention_mask=np.array([1, 1, 2])), ValueError, ["attention_mask", "2", "(3,)"]),
    "to_torch_key_padding_mask: -1": ("step3_masks", "to_torch_key_padding_mask", dict(attention_mask=np.array([1, -1])), ValueError, ["attention_mask", "-1"]),
    # step 4
    "softmax: not numeric": ("step4_softmax", "softmax", dict(S=TEXT), TypeError, ["S", "<U1"]),
    "softmax: boolean table": ("step4_softmax", "softmax", dict(S=a(3, 5, dtype=bool)), TypeError, ["S", "bool", "additive_mask"]),
    "softmax: NaN": ("step4_softmax", "softmax", dict(S=np.array([[0.0, np.nan]])), ValueError, ["S", "(1, 2)", "NaN"]),
    "softmax: +inf": ("step4_softmax", "softmax", dict(S=np.array([[0.0, np.inf]])), ValueError, ["S", "(1, 2)", "+inf"]),
    "softmax: scalar": ("step4_softmax", "softmax", dict(S=np.float64(1.0)), ValueError, ["S", "()"]),
    # step 5
    "weighted_sum: P columns != V rows": ("step5_values", "weighted_sum", dict(P=a(3, 5), V=a(4, 2)), ValueError, ["P", "V", "(3, 5)", "(4, 2)"]),
    "weighted_sum: V one axis": ("step5_values", "weighted_sum", dict(P=a(3, 5), V=a(5)), ValueError, ["V", "(5,)"]),
    "weighted_sum: batch axes differ": ("step5_values", "weighted_sum", dict(P=a(12, 3, 5), V=a(2, 5, 4)), ValueError, ["P", "V", "(12, 3, 5)", "(2, 5, 4)"]),
    "weighted_sum: P not numeric": ("step5_values", "weighted_sum", dict(P=TEXT, V=a(2, 2)), TypeError, ["P", "<U1"]),
    # step 6
    "attention: D_h differs": ("step6_head", "attention", with_(QKV, K=a(5, 3)), ValueError, ["Q", "K", "(3, 4)", "(5, 3)"]),
    "attention: V rows != K rows": ("step6_head", "attention", with_(QKV, V=a(4, 2)), ValueError, ["K", "V", "(5, 4)", "(4, 2)"]),
    "attention: visible transposed": ("step6_head", "attention", with_(QKV, visible=a(5, 3, dtype=bool)), ValueError, ["visible", "(5, 3)", "(3, 5)"]),
    "attention: visible one axis": ("step6_head", "attention", with_(QKV, visible=a(5, dtype=bool)), ValueError, ["visible", "(5,)"]),
    "attention: visible too many axes": ("step6_head", "attention", with_(QKV, visible=a(2, 3, 5, dtype=bool)), ValueError, ["visible", "(2, 3, 5)"]),
    "attention: visible 0/1 numbers": ("step6_head", "attention", with_(QKV, visible=a(3, 5, dtype=int)), TypeError, ["visible", "int", "(3, 5)"]),
    "attention: causal with T_q > T_k": ("step6_head", "attention", dict(Q=a(5, 4), K=a(3, 4), V=a(3, 2)), ValueError, ["Q", "K", "(5, 4)", "(3, 4)"]),
    "attention: Q one axis": ("step6_head", "attention", with_(QKV, Q=a(4)), ValueError, ["Q", "(4,)"]),
    "attention: V not numeric": ("step6_head", "attention", with_(QKV, V=np.full((5, 2), "x")), TypeError, ["V", "<U1"]),
    "attention_head: W_V transposed": ("step6_head", "attention_head", with_(dict(Z=a(3, 8), **w()), W_V=a(4, 8)), ValueError, ["W_V", "(4, 8)", "(3, 8)"]),
    "attention_head: visible wrong shape": ("step6_head", "attention_head", dict(Z=a(3, 8), **w(), visible=a(2, 2, dtype=bool)), ValueError, ["visible", "(2, 2)", "(3, 3)"]),
    "attention_head: visible not boolean": ("step6_head", "attention_head", dict(Z=a(3, 8), **w(), visible=a(3, 3)), TypeError, ["visible", "float64", "(3, 3)"]),
    # step 7
    "split_qkv: weight [D, D]": ("step7_layer", "split_qkv", dict(X=a(3, 8), c_attn_weight=a(8, 8), c_attn_bias=a(24)), ValueError, ["c_attn_weight", "(8, 8)", "(3, 8)"]),
    "split_qkv: weight transposed": ("step7_layer", "split_qkv", dict(X=a(3, 8), c_attn_weight=a(24, 8), c_attn_bias=a(24)), ValueError, ["X", "c_attn_weight", "(24, 8)"]),
    "split_qkv: X one axis": ("step7_layer", "split_qkv", dict(X=a(8), c_attn_weight=a(8, 24), c_attn_bias=a(24)), ValueError, ["X", "(8,)"]),
    "split_heads: 5 heads of 8": ("step7_layer", "split_heads", dict(X=a(3, 8), n_head=5), ValueError, ["n_head", "5", "8"]),
    "split_heads: n_head float": ("step7_layer", "split_heads", dict(X=a(3, 8), n_head=2.0), TypeError, ["n_head", "2.0"]),
    "merge_heads: two axes": ("step7_layer", "merge_heads", dict(O=a(3, 8)), ValueError, ["O", "(3, 8)", "[..., n_head, T, D_h]"]),
    "gpt2_attention: c_proj_bias [3D]": ("step7_layer", "gpt2_attention", dict(Z=a(3, 8), **with_(LAYER, c_proj_bias=a(24)), n_head=2), ValueError, ["c_proj_bias", "(24,)", "(8,)"]),
    "gpt2_attention: c_attn_bias [D]": ("step7_layer", "gpt2_attention", dict(Z=a(3, 8), **with_(LAYER, c_attn_bias=a(8)), n_head=2), ValueError, ["c_attn_bias", "(8,)", "(24,)"]),
    "gpt2_attention: Z batched": ("step7_layer", "gpt2_attention", dict(Z=a(2, 3, 8), **LAYER, n_head=2), ValueError, ["Z", "(2, 3, 8)", "[T, D]"]),
    "gpt2_attention: 3 heads of 8": ("step7_layer", "gpt2_attention", dict(Z=a(3, 8), **LAYER, n_head=3), ValueError, ["n_head", "3", "8"]),
    # step 8
    "append_kv: D_h differs": ("step8_kv_cache", "append_kv", dict(K_past=a(2, 3, 4), V_past=a(2, 3, 4), K_new=a(2, 1, 5), V_new=a(2, 1, 4)), ValueError, ["K_past", "K_new", "(2, 3, 4)", "(2, 1, 5)"]),
    "append_kv: heads differ": ("step8_kv_cache", "append_kv", dict(K_past=a(2, 3, 4), V_past=a(3, 3, 4), K_new=a(2, 1, 4), V_new=a(2, 1, 4)), ValueError, ["V_past", "V_new", "(3, 3, 4)", "(2, 1, 4)"]),
    "append_kv: K_new one axis": ("step8_kv_cache", "append_kv", dict(K_past=a(2, 3, 4), V_past=a(2, 3, 4), K_new=a(4), V_new=a(2, 1, 4)), ValueError, ["K_new", "(4,)"]),
    "chunk_positions: negative past": ("step8_kv_cache", "chunk_positions", dict(n_past=-1, n_new=2), ValueError, ["n_past", "-1"]),
    "chunk_positions: float n_new": ("step8_kv_cache", "chunk_positions", dict(n_past=3, n_new=2.0), TypeError, ["n_new", "2.0"]),
    "chunk_visible: float positions": ("step8_kv_cache", "chunk_visible", dict(positions=np.array([3.0, 4.0]), n_key=5), TypeError, ["positions", "float64", "(2,)"]),
    "chunk_visible: position past the keys": ("step8_kv_cache", "chunk_visible", dict(positions=np.array([3, 5]), n_key=5), ValueError, ["positions", "4", "5"]),
    "decode_step: cache without head axis": ("step8_kv_cache", "decode_step", with_(DECODE, K_past=a(3, 8)), ValueError, ["K_past", "(3, 8)", "[n_head, T_past, D_h]"]),
    "decode_step: cache lengths differ": ("step8_kv_cache", "decode_step", with_(DECODE, V_past=a(2, 2, 4)), ValueError, ["K_past", "V_past", "(2, 3, 4)", "(2, 2, 4)"]),
    "decode_step: Z_new one axis": ("step8_kv_cache", "decode_step", with_(DECODE, Z_new=a(8)), ValueError, ["Z_new", "(8,)"]),
    "decode_in_chunks: chunks do not add up": ("step8_kv_cache", "decode_in_chunks", dict(Z=a(5, 8), **LAYER, n_head=2, chunks=[3, 1]), ValueError, ["chunks", "[3, 1]", "5"]),
    "decode_in_chunks: empty chunk": ("step8_kv_cache", "decode_in_chunks", dict(Z=a(5, 8), **LAYER, n_head=2, chunks=[5, 0]), ValueError, ["chunks", "[5, 0]"]),
    # step 9
    "from_ggml: buffer too short": ("step9_ggml_layout", "from_ggml", dict(buffer=a(5), ne=(3, 2)), ValueError, ["buffer", "5", "{3, 2}", "6"]),
    "from_ggml: buffer not flat": ("step9_ggml_layout", "from_ggml", dict(buffer=a(2, 3), ne=(3, 2)), ValueError, ["buffer", "(2, 3)", "flat"]),
    "from_ggml: ne of floats": ("step9_ggml_layout", "from_ggml", dict(buffer=a(6), ne=a(2)), TypeError, ["ne", "whole sizes"]),
    "from_ggml: ne with a zero": ("step9_ggml_layout", "from_ggml", dict(buffer=a(6), ne=(6, 0)), ValueError, ["ne", "{6, 0}", ">= 1"]),
    "to_ggml: a scalar": ("step9_ggml_layout", "to_ggml", dict(array=np.float64(2.0)), ValueError, ["array", "()"]),
    "read_qkv_dump: three sizes": ("step9_ggml_layout", "read_qkv_dump", dict(buffer=a(12), ne=(2, 3, 2)), ValueError, ["ne", "4 sizes", "{D_h, n_head, T, 1}", "{2, 3, 2}"]),
    "read_qkv_dump: two sequences": ("step9_ggml_layout", "read_qkv_dump", dict(buffer=a(24), ne=(2, 3, 2, 2)), ValueError, ["ne", "end in 1", "{2, 3, 2, 2}"]),
    "read_kq_dump: more keys than slots": ("step9_ggml_layout", "read_kq_dump", dict(buffer=a(16), ne=(4, 2, 2, 1), n_keys=5), ValueError, ["n_keys", "n_kv = ne[0] = 4", "5"]),
    "read_kq_dump: fewer keys than queries": ("step9_ggml_layout", "read_kq_dump", dict(buffer=a(16), ne=(4, 2, 2, 1), n_keys=1), ValueError, ["n_keys", "T_q = ne[1] = 2", "1"]),
    "read_kq_dump: n_keys not whole": ("step9_ggml_layout", "read_kq_dump", dict(buffer=a(16), ne=(4, 2, 2, 1), n_keys=2.0), TypeError, ["n_keys", "float"]),
    # step 10
    "online_softmax_update: acc rows": ("step10_tiled", "online_softmax_update", dict(m=a(3), l=a(3), acc=a(2, 2), S_block=a(3, 4), V_block=a(4, 2)), ValueError, ["acc", "(2, 2)", "(3,)"]),
    "online_softmax_update: empty block": ("step10_tiled", "online_softmax_update", dict(m=a(3), l=a(3), acc=a(3, 2), S_block=a(3, 0), V_block=a(0, 2)), ValueError, ["S_block", "(3, 0)"]),
    "attention_tiled: block zero": ("step10_tiled", "attention_tiled", dict(**QKV, block=0), ValueError, ["block", ">= 1", "0"]),
    "attention_tiled: Q batched": ("step10_tiled", "attention_tiled", with_(QKV, Q=a(2, 3, 4)), ValueError, ["Q", "(2, 3, 4)", "[T_q, D_h]"]),
    "attention_tiled: visible transposed": ("step10_tiled", "attention_tiled", with_(QKV, visible=a(5, 3, dtype=bool)), ValueError, ["visible", "(5, 3)", "(3, 5)"]),
    "attention_tiled: causal with more queries than keys": ("step10_tiled", "attention_tiled", with_(QKV, Q=a(6, 4)), ValueError, ["T_q <= T_k", "(6, 4)", "(5, 4)"]),
    # step 11
    "kv_head_for: groups uneven": ("step11_gqa", "kv_head_for", dict(n_head=6, n_kv_head=4), ValueError, ["n_head = 6", "n_kv_head = 4"]),
    "kv_head_for: n_kv_head not whole": ("step11_gqa", "kv_head_for", dict(n_head=4, n_kv_head=2.0), TypeError, ["n_kv_head", "float"]),
    "attention_gqa: K and V heads differ": ("step11_gqa", "attention_gqa", dict(Q=a(4, 3, 4), K=a(2, 3, 4), V=a(1, 3, 4)), ValueError, ["K (heads, n_kv_head)", "(2, 3, 4)", "(1, 3, 4)"]),
    "kv_cache_bytes: unknown dtype": ("step11_gqa", "kv_cache_bytes", dict(n_layer=1, n_head=1, n_kv_head=1, d_head=1, n_ctx=1, dtype="float8"), ValueError, ["dtype", "float16", "'float8'"]),
    "attention_gqa: K and V lengths differ": ("step11_gqa", "attention_gqa", dict(Q=a(4, 3, 4), K=a(2, 5, 4), V=a(2, 4, 4)), ValueError, ["K (rows, T_k)", "(2, 5, 4)", "(2, 4, 4)"]),
    "attention_gqa: D_h differs": ("step11_gqa", "attention_gqa", dict(Q=a(4, 3, 4), K=a(2, 5, 3), V=a(2, 5, 3)), ValueError, ["Q (D_h)", "(4, 3, 4)", "(2, 5, 3)"]),
    "attention_gqa: groups uneven": ("step11_gqa", "attention_gqa", dict(Q=a(6, 3, 4), K=a(4, 5, 4), V=a(4, 5, 4)), ValueError, ["n_head = 6", "n_kv_head = 4"]),
    "kv_cache_bytes: no layer": ("step11_gqa", "kv_cache_bytes", dict(n_layer=0, n_head=32, n_kv_head=8, d_head=128, n_ctx=8192), ValueError, ["n_layer", ">= 1", "0"]),
    "kv_cache_bytes: context of floats": ("step11_gqa", "kv_cache_bytes", dict(n_layer=32, n_head=32, n_kv_head=8, d_head=128, n_ctx=8192.0), TypeError, ["n_ctx", "float", "8192.0"]),
    "kv_cache_bytes: groups uneven": ("step11_gqa", "kv_cache_bytes", dict(n_layer=32, n_head=32, n_kv_head=5, d_head=128, n_ctx=8192), ValueError, ["n_head = 32", "n_kv_head = 5"]),
    # step 12
    "rope_frequencies: odd width": ("step12_rope", "rope_frequencies", dict(d_head=5), ValueError, ["d_head", "even", "5"]),
    "apply_rope: positions of floats": ("step12_rope", "apply_rope", dict(X=a(3, 4), positions=a(3)), ValueError, ["positions", "T = 3", "float64"]),
    "apply_rope: unknown pairing": ("step12_rope", "apply_rope", dict(X=a(3, 4), positions=np.arange(3), pairing="interleaved"), ValueError, ["pairing", "'half'", "'interleaved'"]),
    "rope_attention: keys not past + new": ("step12_rope", "rope_attention", dict(Q=a(2, 4), K=a(4, 4), V=a(4, 4), past=3), ValueError, ["K", "3 + 2", "T_k = 4"]),
    "rope_frequencies: base zero": ("step12_rope", "rope_frequencies", dict(d_head=4, base=0.0), ValueError, ["base", "> 0", "0.0"]),
    "apply_rope: a position short": ("step12_rope", "apply_rope", dict(X=a(3, 4), positions=np.arange(2)), ValueError, ["positions", "T = 3", "(2,)"]),
    "rope_attention: V rows differ": ("step12_rope", "rope_attention", dict(Q=a(2, 4), K=a(5, 4), V=a(4, 4), past=3), ValueError, ["K (rows, T_k)", "V (rows, T_k)", "(5, 4)", "(4, 4)"]),
    # step 13
    "softmax_backward: shapes differ": ("step13_backward", "softmax_backward", dict(P=a(2, 3), dP=a(3, 2)), ValueError, ["P", "(2, 3)", "(3, 2)"]),
    "attention_backward: dO wrong shape": ("step13_backward", "attention_backward", dict(**QKV, dO=a(3, 4)), ValueError, ["dO", "(3, 2)", "(3, 4)"]),
    "attention_backward: dO one row per key": ("step13_backward", "attention_backward", dict(**QKV, dO=a(5, 2)), ValueError, ["dO", "(3, 2)", "(5, 2)"]),
    "attention_backward: Q one axis": ("step13_backward", "attention_backward", with_(QKV, Q=a(4), dO=a(3, 2)), ValueError, ["Q", "(4,)", "[T_q, D_h]"]),
    "softmax_backward: dP not numeric": ("step13_backward", "softmax_backward", dict(P=a(2, 2), dP=TEXT), TypeError, ["dP", "<U1"]),
}


@pytest.mark.parametrize("module, function, kwargs, error, texts", CASES.values(), ids=CASES.keys())
def test_bad_input_is_refused_with_a_clear_message(ref, module, function, kwargs, error, texts):
    fn = getattr(getattr(ref, module), function)
    with pytest.raises(error, match=re.escape(texts[0])) as info:
        fn(**kwargs)
    message = str(info.value)
    missing = [text for text in texts if text not in message]
    assert not missing, f"{function}: the message {message!r} should mention {missing}"


@pytest.mark.parametrize("tables, texts", [
    ((), ["visibles", "at least one"]),
    ((a(3, 5, dtype=bool), a(5, 3, dtype=bool)), ["visibles", "(3, 5)", "(5, 3)"]),
    ((a(3, 5, dtype=bool), a(3, 5, dtype=int)), ["visibles[1]", "int", "(3, 5)"]),
], ids=["no tables", "mismatched shapes", "non-boolean table"])
def test_combine_visible_refuses(ref, tables, texts):
    with pytest.raises((TypeError, ValueError), match=re.escape(texts[0])) as info:
        ref.step3_masks.combine_visible(*tables)
    missing = [text for text in texts if text not in str(info.value)]
    assert not missing, f"the message {str(info.value)!r} should mention {missing}"


def test_checks_cover_every_function(ref):
    """Each function of the manifest has at least one bad-input case here."""
    from attnkit import manifest
    covered = {(m, f) for m, f, *_ in CASES.values()} | {("step3_masks", "combine_visible")}
    every = {(s.module, fn.name) for s in manifest.steps() for fn in s.functions}
    assert every <= covered, f"no bad-input case for {sorted(every - covered)}"
