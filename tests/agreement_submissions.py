"""The submissions every front end must judge alike (tests/test_front_ends_agree.py).

Each is the reference solutions/ with source edits (step module, old text, new text), written the way a
learner would write the slip: one for every known mistake of the catalogue (`CATALOGUE`, by its code),
and realistic slips the catalogue does not name (`OUTSIDE`). `STUBS` is the untouched exercises/.
"""
from attnkit.paths import EXERCISES_DIR, SOLUTIONS_DIR

STUBS = "untouched_stubs"

_COMBINE_LOOP = """    combined = tables[0]
    for table in tables[1:]:
        combined = combined & table  # visible only where both allow it
    return combined.copy()"""
_SCALED_MASKED = """    M = additive_mask(visible, dtype=kq.dtype)  # [..., T_q, T_k]  0 / -inf
    S = scale_scores(kq, D_h) + M  # [..., T_q, T_k]
    P = softmax(S)  # [..., T_q, T_k]"""
_HEAD_BODY = """    Q, K, V = project_qkv(Z, W_Q, b_Q, W_K, b_K, W_V, b_V)  # [T, D_h] each
    O, P = attention(Q, K, V, visible)  # [T, D_h], [T, T]
    return HeadTrace(Q=Q, K=K, V=V, kq=raw_scores(Q, K), kq_soft_max=P, kqv=O)"""
_SOFTMAX_SHIFT = """    row_max = np.where(np.isfinite(row_max), row_max, 0)  # a row of only -inf has nothing to subtract
"""
_SOFTMAX_RETURN = "    return np.divide(E, total, out=np.zeros_like(E), where=total > 0)  # [..., T_q, T_k]"
_SPLIT_HEADS = """    heads = X.reshape(*X.shape[:-2], T, n_head, D // n_head)  # [..., T, n_head, D_h]
    return np.swapaxes(heads, -3, -2)  # [..., n_head, T, D_h]"""
_NUMPY_IN_STEP5 = ("step5_values", "from shape_checks import", "import numpy as np\n\nfrom shape_checks import")
_DECODE_ATTENTION = "    O, _ = attention(Q, K, V, chunk_visible(positions, K.shape[-2]))  # [n_head, T_new, D_h]"

_ROPE_COS_SIN = "    cos, sin = np.cos(angle), np.sin(angle)  # [T, d_head/2] each\n"
_ROPE_TURN = "x_rot, y_rot = x * cos - y * sin, x * sin + y * cos"


# Appended to step 11's file or notebook cell: a kv_cache_bytes that counts the cache of K only (K and V once).
CACHE_OF_K_ONLY = """
_whole_cache_bytes = kv_cache_bytes


def kv_cache_bytes(n_layer, n_head, n_kv_head, d_head, n_ctx, dtype="float16"):
    return _whole_cache_bytes(n_layer, n_head, n_kv_head, d_head, n_ctx, dtype) // 2
"""


def _wrapped(function, parameters, call):
    """What replaces `def <function>(` in a reference: a wrong <function> that calls the right one, renamed."""
    return f"def {function}({parameters}):\n    return _right_{function}{call}\n\n\ndef _right_{function}("


CATALOGUE = {
    "projection_transposed": [("step1_projection", "return Z @ W + b", "return Z @ W.T + b")],
    "bias_missing": [("step1_projection", "return Z @ W + b", "return Z @ W")],
    "keys_not_transposed": [("step2_scores", "return Q @ np.swapaxes(K, -1, -2)", "return Q @ K")],
    "scores_transposed": [("step2_scores", "return Q @ np.swapaxes(K, -1, -2)", "return K @ np.swapaxes(Q, -1, -2)")],
    "batch_transpose": [("step2_scores", "return Q @ np.swapaxes(K, -1, -2)", "return Q @ K.T")],
    "scale_missing": [("step2_scores", "return kq / math.sqrt(d_h)", "return kq")],
    "scale_rounded": [("step2_scores", "return kq / math.sqrt(d_h)", "return kq / int(math.sqrt(d_h))")],
    "scale_by_keys": [("step6_head", "S = scale_scores(kq, D_h) + M", "S = scale_scores(kq, T_k) + M")],
    "scale_by_d": [("step2_scores", "return kq / math.sqrt(d_h)", "return kq / d_h")],
    "scale_by_model_dim": [("step6_head", _HEAD_BODY, """    Q, K, V = project_qkv(Z, W_Q, b_Q, W_K, b_K, W_V, b_V)
    kq = raw_scores(Q, K)
    table = causal_visible(len(Z)) if visible is None else visible
    P = softmax(scale_scores(kq, Z.shape[-1]) + additive_mask(table, dtype=kq.dtype))
    return HeadTrace(Q=Q, K=K, V=V, kq=kq, kq_soft_max=P, kqv=weighted_sum(P, V))""")],
    "kq_scaled": [("step6_head", "kq=raw_scores(Q, K), kq_soft_max", "kq=scale_scores(raw_scores(Q, K), Q.shape[-1]), kq_soft_max")],
    "mask_top_left": [("step3_masks", "return j <= past + i", "return j <= i")],
    "mask_past_sign": [("step3_masks", "    past = n_key - n_query\n", "    past = n_query - n_key\n")],
    "mask_off_by_one": [("step3_masks", "return j <= past + i", "return j <= past + i + 1")],
    "mask_diagonal_excluded": [("step3_masks", "return j <= past + i", "return j < past + i")],
    "mask_inverted": [("step3_masks", "return j <= past + i", "return j > past + i")],
    "mask_combined_with_or": [("step3_masks", "combined = combined & table", "combined = combined | table")],
    "mask_table_dropped": [("step3_masks", "for table in tables[1:]:", "for table in tables[1:2]:")],
    "mask_tables_stacked": [("step3_masks", _COMBINE_LOOP, "    return np.logical_and.reduce(np.stack(tables))")],
    "mask_dtype_missing": [("step3_masks", "return np.where(visible, 0.0, -np.inf).astype(dtype)",
                            "return np.where(visible, 0.0, -np.inf)")],
    "mask_zero_fill": [("step3_masks", "return np.where(visible, 0.0, -np.inf).astype(dtype)",
                        "return visible.astype(dtype)")],
    "mask_large_negative": [("step3_masks", "return np.where(visible, 0.0, -np.inf).astype(dtype)",
                             "return np.where(visible, 0.0, -1e9).astype(dtype)")],
    "mask_after_softmax": [("step6_head", _SCALED_MASKED, "    P = softmax(scale_scores(kq, D_h)) * visible")],
    "mask_not_applied": [("step6_head", "S = scale_scores(kq, D_h) + M", "S = scale_scores(kq, D_h)")],
    "torch_mha_polarity": [("step3_masks", "return ~visible  # True = blocked", "return visible.copy()")],
    "torch_sdpa_polarity": [("step3_masks", "return visible.copy()  # True = may attend", "return ~visible  #")],
    "hf_padding_polarity": [("step3_masks", "return ~real  # True = padding", "return real  #")],
    "fully_masked_nan": [("step4_softmax", _SOFTMAX_SHIFT, ""), ("step4_softmax", _SOFTMAX_RETURN, "    return E / total")],
    "softmax_unstable": [("step4_softmax", "E = np.exp(S - row_max)", "E = np.exp(S)")],
    "softmax_wrong_axis": [("step4_softmax", "row_max = S.max(axis=-1", "row_max = S.max(axis=-2"),
                           ("step4_softmax", "total = E.sum(axis=-1", "total = E.sum(axis=-2")],
    "weights_transposed": [_NUMPY_IN_STEP5, ("step5_values", "return P @ V", "return np.swapaxes(P, -1, -2) @ V")],
    "batch_dot": [_NUMPY_IN_STEP5, ("step5_values", "return P @ V", "return np.dot(P, V)")],
    "weights_on_keys": [("step6_head", "O = weighted_sum(P, V)", "O = weighted_sum(P, K)")],
    "outputs_swapped": [("step6_head", "    return O, P\n", "    return P, O\n")],
    "visible_ignored": [("step6_head", 'else bool_table("visible", visible, min_ndim=2)', "else causal_visible(T_q, T_k)")],
    "qkv_order_swapped": [("step7_layer", "return qkv[..., :D], qkv[..., D:2 * D],", "return qkv[..., D:2 * D], qkv[..., :D],")],
    "heads_split_without_transpose": [("step7_layer", _SPLIT_HEADS, "    return X.reshape(*X.shape[:-2], n_head, T, D // n_head)")],
    "heads_merged_wrong_order": [("step7_layer", "rows = np.swapaxes(O, -3, -2)", "rows = O")],
    "proj_bias_missing": [("step7_layer", "out = project(merge_heads(O), c_proj_weight, c_proj_bias)  # [T, D]",
                           "out = merge_heads(O) @ c_proj_weight")],
    "cache_appended_after_attending": [("step8_kv_cache", _DECODE_ATTENTION, """    n_past = np.shape(K_past)[-2]
    everything = np.ones((Q.shape[-2], n_past), dtype=bool)
    O = attention(Q, np.asarray(K_past), np.asarray(V_past), everything)[0] if n_past else np.zeros_like(Q)""")],
    "positions_restarted": [("step8_kv_cache", "return np.arange(n_past, n_past + n_new, dtype=np.int64)",
                             "return np.arange(n_new, dtype=np.int64)")],
    "ggml_ne_not_reversed": [("step9_ggml_layout", "return buffer.reshape(tuple(reversed(ne)))", "return buffer.reshape(tuple(ne))")],
    "ggml_heads_tokens_swapped": [("step9_ggml_layout", "return np.ascontiguousarray(np.swapaxes(per_token, 0, 1))",
                                   "return per_token")],
    "kq_padding_kept": [("step9_ggml_layout", "return np.ascontiguousarray(scores[..., :n_keys])", "return scores")],
    "kq_padding_wrong_end": [("step9_ggml_layout", "return np.ascontiguousarray(scores[..., :n_keys])",
                              "return np.ascontiguousarray(scores[..., scores.shape[-1] - n_keys:])")],
    "online_not_rescaled": [("step10_tiled", "l_new = l * rescale + E.sum(axis=-1)", "l_new = l + E.sum(axis=-1)"),
                            ("step10_tiled", "acc_new = acc * rescale[:, None] + E @ V_block", "acc_new = acc + E @ V_block")],
    "online_output_not_rescaled": [("step10_tiled", "acc_new = acc * rescale[:, None] + E @ V_block",
                                    "acc_new = acc + E @ V_block")],
    "online_rescale_inverted": [("step10_tiled", "rescale = np.exp(m - shift)", "rescale = np.exp(shift - m)")],
    "online_unseen_row_nan": [("step10_tiled", "shift = np.where(np.isneginf(m_new), 0.0, m_new)", "shift = m_new")],
    "tiled_division_missing": [("step10_tiled", "O = acc / np.where(l > 0, l, 1.0)[:, None]", "O = acc")],
    "tiled_mask_top_left": [("step10_tiled", "position = np.arange(T_q)[:, None] + (T_k - T_q)",
                             "position = np.arange(T_q)[:, None]")],
    "tiled_last_block_dropped": [("step10_tiled", "for start in range(0, T_k, block):",
                                  "for start in range(0, T_k - block + 1, block):")],
    "tiled_holds_every_key": [("step10_tiled", "    for start in range(0, T_k, block):",
                               "    block = max(T_k, 1)  # one block: every score at once\n    for start in range(0, T_k, block):")],
    "gqa_heads_interleaved": [("step11_gqa", "return np.arange(n_head, dtype=np.int64) // group",
                               "return np.arange(n_head, dtype=np.int64) % n_kv_head")],
    "gqa_group_by_kv_count": [("step11_gqa", "return np.arange(n_head, dtype=np.int64) // group",
                               "return np.arange(n_head, dtype=np.int64) // n_kv_head")],
    "kv_repeated_wrong_axis": [("step11_gqa", "return attention(Q, K[kv_of], V[kv_of], visible)",
                                "g = Q.shape[0] // K.shape[0]\n    return attention(Q, np.repeat(K, g, axis=1).reshape(Q.shape[0], "
                                "*K.shape[1:]), np.repeat(V, g, axis=1).reshape(Q.shape[0], *V.shape[1:]), visible)")],
    "kv_not_repeated": [("step11_gqa", "return attention(Q, K[kv_of], V[kv_of], visible)", "return attention(Q, K, V, visible)")],
    "cache_bytes_k_only": [("step11_gqa", "per_position = 2 * n_kv_head", "per_position = n_kv_head")],
    "cache_bytes_with_query_heads": [("step11_gqa", "per_position = 2 * n_kv_head", "per_position = 2 * n_head")],
    "cache_bytes_wrong_dtype": [("step11_gqa", "* BYTES_PER_VALUE[dtype]  # bytes", "* 4  # bytes")],
    "cache_bfloat16_from_numpy": [("step11_gqa", "* BYTES_PER_VALUE[dtype]  # bytes", "* np.dtype(dtype).itemsize  # bytes")],
    "rope_freq_factor_two": [("step12_rope", "return base ** (-2.0 * i / d_head)", "return base ** (-1.0 * i / d_head)")],
    "rope_freq_not_inverted": [("step12_rope", "return base ** (-2.0 * i / d_head)", "return base ** (2.0 * i / d_head)")],
    "rope_base_ignored": [("step12_rope", "return base ** (-2.0 * i / d_head)", "return 10000.0 ** (-2.0 * i / d_head)")],
    "rope_pairing_swapped": [("step12_rope", 'if pairing == "half" else (X[..., 0::2]', 'if pairing == "adjacent" else (X[..., 0::2]'),
                             ("step12_rope", 'np.concatenate(rotated, axis=-1) if pairing == "half"',
                              'np.concatenate(rotated, axis=-1) if pairing == "adjacent"')],
    "rope_angles_laid_out_for_other_pairing": [("step12_rope", _ROPE_COS_SIN, """    full = np.repeat(angle, 2, axis=-1) if pairing == "half" else np.concatenate([angle, angle], axis=-1)
    turned = (np.concatenate([-X[..., half:], X[..., :half]], axis=-1) if pairing == "half"
              else np.stack([-X[..., 1::2], X[..., 0::2]], axis=-1).reshape(X.shape))
    return (X * np.cos(full) + turned * np.sin(full)).astype(X.dtype, copy=False)
""")],
    "rope_sin_sign": [("step12_rope", _ROPE_TURN, "x_rot, y_rot = x * cos + y * sin, -x * sin + y * cos")],
    "rope_positions_restarted": [("step12_rope", "Q_rot = apply_rope(Q, past + np.arange(Q.shape[0]), base, pairing)",
                                  "Q_rot = apply_rope(Q, np.arange(Q.shape[0]), base, pairing)")],
    "rope_added_not_rotated": [("step12_rope", _ROPE_TURN, "x_rot, y_rot = x + sin, y + cos")],
    "rope_on_values": [("step12_rope", "return attention(Q_rot, K_rot, V)",
                        "return attention(Q_rot, K_rot, apply_rope(V, np.arange(V.shape[0]), base, pairing))")],
    "rope_keys_not_rotated": [("step12_rope", "return attention(Q_rot, K_rot, V)", "return attention(Q_rot, K, V)")],
    "softmax_backward_no_rowsum": [("step13_backward", "return P * (dP - row)", "return P * dP")],
    "softmax_backward_rowsum_axis": [("step13_backward", "row = (dP * P).sum(axis=-1, keepdims=True)", "row = (dP * P).sum(axis=-1)")],
    "backward_scale_missing": [("step13_backward", "dQ = dS @ K * scale", "dQ = dS @ K"),
                               ("step13_backward", "dK = dS.T @ Q * scale", "dK = dS.T @ Q")],
    "backward_dv_not_transposed": [("step13_backward", "dV = P.T @ dO", "dV = P @ dO")],
    "backward_dk_not_transposed": [("step13_backward", "dK = dS.T @ Q * scale", "dK = dS @ Q * scale")],
    "backward_mask_dropped": [("step13_backward", "_, P = attention(Q, K, V, visible)",
                               "_, P = attention(Q, K, V, np.ones((Q.shape[0], K.shape[0]), dtype=bool))")],
    "backward_fully_masked_nan": [("step13_backward", "    _, P = attention(Q, K, V, visible)", """    table = (np.tril(np.ones((Q.shape[0], K.shape[0]), dtype=bool), K.shape[0] - Q.shape[0]) if visible is None
             else np.asarray(visible, dtype=bool))
    S = Q @ K.T / np.sqrt(Q.shape[1]) + np.where(table, 0.0, -np.inf)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    P = E / E.sum(axis=-1, keepdims=True)""")],
}

OUTSIDE = {
    "scale_in_place": [("step2_scores", "    return kq / math.sqrt(d_h)", "    kq /= math.sqrt(d_h)\n    return kq")],
    "softmax_exp_in_place": [("step4_softmax", "    E = np.exp(S - row_max)", "    S -= row_max\n    E = np.exp(S, out=S)")],
    "combine_and_in_place": [("step3_masks", _COMBINE_LOOP, "    out = tables[0]\n    for t in tables[1:]:\n        out &= t\n    return out")],
    "combine_np_all": [("step3_masks", _COMBINE_LOOP, "    return np.all(tables, axis=0)")],
    "softmax_float32_cast": [("step4_softmax", _SOFTMAX_RETURN, _SOFTMAX_RETURN.replace(")  #", ").astype(np.float32)  #"))],
    # the modern track: a right function wrapped by a wrong one, so that the slip survives edits of the reference
    "rope_frequencies_reversed": [("step12_rope", "def rope_frequencies(", _wrapped(
        "rope_frequencies", "d_head, base=10000.0", "(d_head, base)[::-1]"))],
    "cache_bytes_as_float": [("step11_gqa", "    return n_layer * n_ctx * per_position",
                              "    return n_layer * n_ctx * per_position / 1")],  # the right number, not an int
}

SUBMISSIONS = [*CATALOGUE, *OUTSIDE, STUBS]


def write_submission(name, folder):
    """Write submission `name` into `folder` (created): every step file and shape_checks.py."""
    folder.mkdir(parents=True)
    if name == STUBS:
        sources = {p.name: p.read_text(encoding="utf-8") for p in EXERCISES_DIR.glob("*.py") if not p.name.startswith(("test_", "conftest"))}
    else:
        sources = {p.name: p.read_text(encoding="utf-8") for p in SOLUTIONS_DIR.glob("*.py")}
        for module, old, new in {**CATALOGUE, **OUTSIDE}[name]:
            source = sources[f"{module}.py"]
            assert source.count(old) == 1, f"{name}: {old!r} is not once in solutions/{module}.py"
            sources[f"{module}.py"] = source.replace(old, new)
    for filename, source in sources.items():
        (folder / filename).write_text(source, encoding="utf-8")
    return folder

