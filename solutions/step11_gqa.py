"""Step 11 — grouped-query attention: several query heads share one key/value head.

lessons/en/step11_gqa.md#groups (Chinese: lessons/zh/, same names). With n_head query heads and
n_kv_head key/value heads (n_head a multiple of n_kv_head), query head h reads key/value head
h // (n_head // n_kv_head): consecutive query heads form a group. The KV cache then holds n_kv_head
heads per layer instead of n_head.

第 11 步 —— 分组查询 Attention（GQA）：几个 Query Head 共用一个 Key/Value Head。

lessons/zh/step11_gqa.md#groups。有 n_head 个 Query Head 和 n_kv_head 个 Key/Value Head（n_head 是 n_kv_head 的倍数）时，
Query Head h 读 Key/Value Head h // (n_head // n_kv_head)：相邻的 Query Head 组成一组。于是 KV Cache 每层只存
n_kv_head 个 Head，而不是 n_head 个。
"""
import numbers

import numpy as np

from shape_checks import float_array, same_size, say
from step6_head import attention

BYTES_PER_VALUE = {"float32": 4, "float16": 2, "bfloat16": 2, "int8": 1}  # the cache's number formats


def _count(name, n):
    """Return `n` as an int >= 1 (a number of heads, layers, positions or features).

    把 `n` 作为 >= 1 的整数返回（Head、层、位置或特征的个数）。
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, numbers.Integral):
        raise TypeError(say("count_type", name=name, got=type(n).__name__, value=repr(n)))
    if n < 1:
        raise ValueError(say("count_positive", name=name, value=n))
    return int(n)


def kv_head_for(n_head, n_kv_head):
    """Return kv_of, int64 [n_head]: kv_of[h] is the key/value head that query head h reads.

    kv_of[h] = h // (n_head // n_kv_head); n_head must be a multiple of n_kv_head (else ValueError).
    Example: n_head = 4, n_kv_head = 2 -> [0, 0, 1, 1]. Read: lessons/en/step11_gqa.md#groups.

    返回 kv_of，int64 [n_head]：kv_of[h] 是 Query Head h 读的 Key/Value Head。

    kv_of[h] = h // (n_head // n_kv_head)；n_head 必须是 n_kv_head 的倍数（否则 ValueError）。
    例子：n_head = 4，n_kv_head = 2 -> [0, 0, 1, 1]。阅读：lessons/zh/step11_gqa.md#groups。
    """
    n_head = _count("n_head", n_head)
    n_kv_head = _count("n_kv_head", n_kv_head)
    if n_head % n_kv_head:
        raise ValueError(say("kv_groups", n_head=n_head, n_kv_head=n_kv_head))
    ### BEGIN SOLUTION
    group = n_head // n_kv_head  # query heads per key/value head
    return np.arange(n_head, dtype=np.int64) // group  # [n_head]
    ### END SOLUTION


def attention_gqa(Q, K, V, visible=None):
    """Return (O, P): step 6's attention of every query head with the key/value head of its group.

    Shapes: Q [n_head, T_q, D_h], K and V [n_kv_head, T_k, D_h], visible bool [T_q, T_k] (True = may
    read) or None (causal, aligned bottom-right) -> O [n_head, T_q, D_h], P [n_head, T_q, T_k].
    Query head h uses K[kv_of[h]] and V[kv_of[h]] with kv_of = kv_head_for(n_head, n_kv_head).
    Read: lessons/en/step11_gqa.md#gqa-attention.

    返回 (O, P)：每个 Query Head 和它那一组的 Key/Value Head 做第 6 步的 attention。

    形状：Q [n_head, T_q, D_h]，K 和 V [n_kv_head, T_k, D_h]，visible bool [T_q, T_k]（True = 可以读）或 None（因果，
    右下角对齐）-> O [n_head, T_q, D_h]，P [n_head, T_q, T_k]。Query Head h 用 K[kv_of[h]] 和 V[kv_of[h]]，
    其中 kv_of = kv_head_for(n_head, n_kv_head)。阅读：lessons/zh/step11_gqa.md#gqa-attention。
    """
    Q = float_array("Q", Q, ndim=3, shape_text="[n_head, T_q, D_h]")
    K = float_array("K", K, ndim=3, shape_text="[n_kv_head, T_k, D_h]")
    V = float_array("V", V, ndim=3, shape_text="[n_kv_head, T_k, D_h]")
    what = "attention_gqa(Q, K, V)"
    same_size(what, "K (heads, n_kv_head)", K.shape[0], "V (heads, n_kv_head)", V.shape[0], K.shape, V.shape)
    same_size(what, "K (rows, T_k)", K.shape[1], "V (rows, T_k)", V.shape[1], K.shape, V.shape)
    same_size(what, "Q (D_h)", Q.shape[-1], "K (D_h)", K.shape[-1], Q.shape, K.shape)
    if Q.shape[0] % K.shape[0]:
        raise ValueError(say("kv_groups", n_head=Q.shape[0], n_kv_head=K.shape[0]))
    ### BEGIN SOLUTION
    kv_of = kv_head_for(Q.shape[0], K.shape[0])  # [n_head]
    return attention(Q, K[kv_of], V[kv_of], visible)  # [n_head, T_q, D_h], [n_head, T_q, T_k]
    ### END SOLUTION


def kv_cache_bytes(n_layer, n_head, n_kv_head, d_head, n_ctx, dtype="float16"):
    """Return n_bytes, an int: the size of the K and V cache of every layer for n_ctx positions.

    The model has n_head query heads and n_kv_head key/value heads (n_head a multiple of n_kv_head); the
    cache holds only the key/value heads.

    n_bytes = 2 (K and V) · n_layer · n_kv_head · d_head · n_ctx · bytes per value, with dtype one of
    "float32" (4 bytes), "float16" (2), "bfloat16" (2), "int8" (1) (BYTES_PER_VALUE). GQA shrinks it
    by n_head / n_kv_head. Read: lessons/en/step11_gqa.md#cache-size.

    返回 n_bytes（整数）：每一层的 K 和 V 缓存在 n_ctx 个位置上的大小。

    模型有 n_head 个 Query Head 和 n_kv_head 个 Key/Value Head（n_head 是 n_kv_head 的倍数）；缓存里只有 Key/Value Head。

    n_bytes = 2（K 和 V）· n_layer · n_kv_head · d_head · n_ctx · 每个值的字节数，dtype 是 "float32"（4 字节）、
    "float16"（2）、"bfloat16"（2）、"int8"（1）之一（BYTES_PER_VALUE）。GQA 让它缩小 n_head / n_kv_head 倍。
    阅读：lessons/zh/step11_gqa.md#cache-size。
    """
    n_layer, n_head, n_kv_head, d_head, n_ctx = (_count(name, n) for name, n in
                                                 (("n_layer", n_layer), ("n_head", n_head), ("n_kv_head", n_kv_head),
                                                  ("d_head", d_head), ("n_ctx", n_ctx)))
    if n_head % n_kv_head:
        raise ValueError(say("kv_groups", n_head=n_head, n_kv_head=n_kv_head))
    if not isinstance(dtype, str) or dtype not in BYTES_PER_VALUE:
        raise ValueError(say("cache_dtype", got=repr(dtype), known=", ".join(BYTES_PER_VALUE)))
    ### BEGIN SOLUTION
    per_position = 2 * n_kv_head * d_head * BYTES_PER_VALUE[dtype]  # bytes of K and V for one layer, one position
    return n_layer * n_ctx * per_position
    ### END SOLUTION
