"""Step 3 — masks: the visibility table and what other libraries call a mask.

lessons/en/step3_masks.md#visibility-table (Chinese: lessons/zh/, same names): a mask is a
table of who may read whom. Rows are receivers (queries),
columns are providers (keys). In this kit `visible[i, j]` is True where query i may read key j.

Query i of T_q new queries sits at absolute position past + i, with past = T_k - T_q (keys already
in the KV cache), and may read keys 0 … past + i: the table is aligned bottom-right. With T_q == T_k
it is the lower triangle with its diagonal (the "How are" table).

The additive mask M (lessons/en/step3_masks.md#additive-mask) is 0 where visible and -inf where not.

第 3 步 —— 掩码：可见性表，以及其他库所说的 mask。

lessons/zh/step3_masks.md#visibility-table：mask 是一张“谁可以读谁”的表。行是接收方（Query），列是提供方
（Key）。在本套练习里，Query i 可以读 Key j 的地方 `visible[i, j]` 为 True。

T_q 个新 Query 中的第 i 个位于绝对位置 past + i，其中 past = T_k - T_q（已经在 KV Cache 里的 Key），它可以读
Key 0 … past + i：这张表是右下角对齐的。T_q == T_k 时，它就是含对角线的下三角（"How are" 那张表）。

加性掩码 M（lessons/zh/step3_masks.md#additive-mask）在可见处为 0，不可见处为 -inf。
"""
import numpy as np

from shape_checks import bool_table, padding_vector, say, size


def causal_visible(n_query, n_key=None):
    """Return the causal visibility table, bool [n_query, n_key], aligned bottom-right.

    visible[i, j] is True when key j is at or before query i's absolute position past + i, where
    past = n_key - n_query (n_key defaults to n_query). Example, past = 3, new = 2: row 0 sees keys
    0…3, row 1 sees keys 0…4. Raises ValueError when n_key < n_query or a size is negative.
    Read: lessons/en/step3_masks.md#causal and lessons/en/ref_kv_cache.md#frame-past3-new2.

    返回因果可见性表，bool [n_query, n_key]，右下角对齐。

    当 Key j 位于 Query i 的绝对位置 past + i 或之前时，visible[i, j] 为 True，其中 past = n_key - n_query
    （n_key 默认等于 n_query）。例：past = 3，new = 2：第 0 行看到 Key 0…3，第 1 行看到 Key 0…4。n_key < n_query
    或某个大小为负时抛出 ValueError。
    阅读：lessons/zh/step3_masks.md#causal 和 lessons/zh/ref_kv_cache.md#frame-past3-new2。
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

    返回 bool [n_query, T_k]：Key j 是真实 Token 的那一列为 True。

    attention_mask 是 Hugging Face 风格的向量 [T_k]（批量时为 [..., T_k]）：1 = 真实 Token，0 = padding。每个
    Query 行都得到表里同样的一行（[..., n_query, T_k]）。padding 遮住的是 Key，不是 Query。
    阅读：lessons/zh/ref_padding.md#pad-hides-keys。
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

    返回只在所有给定的表都为 True 的地方才为 True 的表。

    每张表都是 bool [..., T_q, T_k]（它们可以一起广播）。因果和 padding 两种限制同时生效：只有时间顺序允许、
    而且是真实 Token 的 Key 才可以读。阅读：lessons/zh/step3_masks.md#combine。
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

    返回 M，dtype 为 `dtype` 的 float [..., T_q, T_k]：可见处为 0.0，不可见处为 -inf。

    M 加到缩放后的分数上，所以被遮住的 Key 在 softmax 之后权重为 exp(-inf) = 0。传入 dtype=np.float32 可以让
    float32 分数保持 float32。阅读：lessons/zh/step3_masks.md#additive-mask。
    """
    visible = bool_table("visible", visible)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.additive_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.additive_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def to_torch_sdpa_mask(visible):
    """Return the bool mask for torch.nn.functional.scaled_dot_product_attention(attn_mask=...).

    For SDPA's boolean attn_mask, True means "takes part (attend)". Shape as `visible`.
    Read: lessons/en/ref_polarity.md#api-table.

    返回 torch.nn.functional.scaled_dot_product_attention(attn_mask=...) 用的布尔掩码。

    对 SDPA 的布尔 attn_mask，True 表示“参与（attend）”。形状与 `visible` 相同。
    阅读：lessons/zh/ref_polarity.md#api-table。
    """
    visible = bool_table("visible", visible)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.to_torch_sdpa_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.to_torch_sdpa_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def to_torch_mha_mask(visible):
    """Return the bool mask for torch.nn.MultiheadAttention(attn_mask=...).

    For nn.MultiheadAttention's boolean attn_mask, True means "**not allowed** to attend".
    Shape as `visible`. Read: lessons/en/ref_polarity.md#api-table.

    返回 torch.nn.MultiheadAttention(attn_mask=...) 用的布尔掩码。

    对 nn.MultiheadAttention 的布尔 attn_mask，True 表示“**不允许** attend”。形状与 `visible` 相同。
    阅读：lessons/zh/ref_polarity.md#api-table。
    """
    visible = bool_table("visible", visible)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.to_torch_mha_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.to_torch_mha_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')


def to_torch_key_padding_mask(attention_mask):
    """Return bool [T_k] for torch.nn.MultiheadAttention(key_padding_mask=...).

    attention_mask is Hugging Face style: 1 = real token, 0 = padding. For key_padding_mask, True
    means "**ignore** this key (padding)". Read: lessons/en/ref_padding.md#hf-polarity.

    返回 torch.nn.MultiheadAttention(key_padding_mask=...) 用的 bool [T_k]。

    attention_mask 是 Hugging Face 风格：1 = 真实 Token，0 = padding。对 key_padding_mask，True 表示
    “**忽略**这个 Key（padding）”。阅读：lessons/zh/ref_padding.md#hf-polarity。
    """
    real = padding_vector("attention_mask", attention_mask)
    # YOUR CODE HERE
    raise NotImplementedError('Step 3 (step3_masks.to_torch_key_padding_mask) is not written yet: replace this raise with your code. Read lessons/en/step3_masks.md. 第 3 步（step3_masks.to_torch_key_padding_mask）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。')
