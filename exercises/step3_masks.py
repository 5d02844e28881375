"""Step 3 — masks: the visibility table and what other libraries call a mask.

lessons/en/step3_masks.md#visibility-table (Chinese: lessons/zh/, same names): a mask is a
table of who may read whom. Rows are receivers (queries),
columns are providers (keys). In this kit `visible[i, j]` is True where query i may read key j.

Query i of T_q new queries sits at absolute position past + i, with past = T_k - T_q (keys already
in the KV cache), and may read keys 0 … past + i: the table is aligned bottom-right. With T_q == T_k
it is the lower triangle with its diagonal (the "How are" table).

The additive mask M (lessons/en/step3_masks.md#additive-mask) is 0 where visible and -inf where not.
"""
import numpy as np

from shape_checks import bool_table, padding_vector, say, size


def causal_visible(n_query, n_key=None):
    """Return the causal visibility table, bool [n_query, n_key], aligned bottom-right.

    visible[i, j] is True when key j is at or before query i's absolute position past + i, where
    past = n_key - n_query (n_key defaults to n_query). Example, past = 3, new = 2: row 0 sees keys
    0…3, row 1 sees keys 0…4. Raises ValueError when n_key < n_query or a size is negative.
    Read: lessons/en/step3_masks.md#causal and lessons/en/ref_kv_cache.md#frame-past3-new2.
    """
    n_query = size("n_query", n_query)
    n_key = n_query if n_key is None else size("n_key", n_key)
    if n_key < n_query:
        raise ValueError(say("n_key_below_n_query", n_key=n_key, n_query=n_query))
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.causal_visible) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.causal_visible）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def padding_visible(attention_mask, n_query):
    """Return bool [n_query, T_k]: True in column j where key j is a real token.

    attention_mask is a Hugging Face style vector [T_k] (or [..., T_k] for a batch): 1 = real token,
    0 = padding. Every query row gets the same row of the table ([..., n_query, T_k]). Padding hides
    keys, not queries. Read: lessons/en/ref_padding.md#pad-hides-keys.
    """
    real = padding_vector("attention_mask", attention_mask)
    n_query = size("n_query", n_query)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.padding_visible) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.padding_visible）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def combine_visible(*visibles):
    """Return the table that is True only where every given table is True.

    Each table is bool [..., T_q, T_k] (they broadcast together). Causal and padding limits both
    apply: a key is readable only if time order allows it AND it is a real token.
    Read: lessons/en/step3_masks.md#combine.
    """
    if not visibles:
        raise TypeError(say("no_table"))
    tables = [bool_table(f"visibles[{k}]", v) for k, v in enumerate(visibles)]
    try:
        np.broadcast_shapes(*(t.shape for t in tables))
    except ValueError:
        shapes = ", ".join(f"visibles[{k}] {t.shape}" for k, t in enumerate(tables))
        raise ValueError(say("tables_broadcast", shapes=shapes)) from None
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.combine_visible) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.combine_visible）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def additive_mask(visible, dtype=np.float64):
    """Return M, float [..., T_q, T_k] of `dtype`: 0.0 where visible, -inf where not.

    M is added to the scaled scores, so a hidden key gets weight exp(-inf) = 0 after softmax.
    Pass dtype=np.float32 to keep float32 scores float32. Read: lessons/en/step3_masks.md#additive-mask.
    """
    visible = bool_table("visible", visible)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.additive_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.additive_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def to_torch_sdpa_mask(visible):
    """Return the bool mask for torch.nn.functional.scaled_dot_product_attention(attn_mask=...).

    For SDPA's boolean attn_mask, True means "takes part (attend)". Shape as `visible`.
    Read: lessons/en/ref_polarity.md#api-table.
    """
    visible = bool_table("visible", visible)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.to_torch_sdpa_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.to_torch_sdpa_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def to_torch_mha_mask(visible):
    """Return the bool mask for torch.nn.MultiheadAttention(attn_mask=...).

    For nn.MultiheadAttention's boolean attn_mask, True means "**not allowed** to attend".
    Shape as `visible`. Read: lessons/en/ref_polarity.md#api-table.
    """
    visible = bool_table("visible", visible)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.to_torch_mha_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.to_torch_mha_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def to_torch_key_padding_mask(attention_mask):
    """Return bool [T_k] for torch.nn.MultiheadAttention(key_padding_mask=...).

    attention_mask is Hugging Face style: 1 = real token, 0 = padding. For key_padding_mask, True
    means "**ignore** this key (padding)". Read: lessons/en/ref_padding.md#hf-polarity.
    """
    real = padding_vector("attention_mask", attention_mask)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.to_torch_key_padding_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.to_torch_key_padding_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')
