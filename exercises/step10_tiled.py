"""Step 10 — tiled attention: the keys in blocks, with an online softmax, as a fused kernel does it.

lessons/en/step10_tiled.md#online-update (Chinese: lessons/zh/, same names). Each query row keeps a
running maximum m, a running sum l of exp(S - m) and an unnormalised output acc; a block of keys
updates them, rescaling l and acc by exp(m_old - m_new) when the maximum grows. At the end O = acc / l,
equal to step 6's O without ever holding the [T_q, T_k] scores.

第 10 步 —— 分块 Attention：像融合内核那样把 Key 分块处理，用在线 softmax。

lessons/zh/step10_tiled.md#online-update。每个 Query 行保存一个运行最大值 m、exp(S - m) 的运行和 l，以及未归一化的
输出 acc；每一块 Key 更新它们，最大值变大时把 l 和 acc 乘以 exp(m_old - m_new)。最后 O = acc / l，和第 6 步的 O
相同，却从不保存 [T_q, T_k] 的分数。
"""
import math

import numpy as np

from shape_checks import bool_table, float_array, same_size, say, size, table_shape


def online_softmax_update(m, l, acc, S_block, V_block):
    """Return (m, l, acc) after one block of keys: the running maximum, sum and unnormalised output.

    Shapes: m [T_q] (starts at -inf), l [T_q] (starts at 0), acc [T_q, D_v] (starts at 0), S_block
    [T_q, B] scaled scores with hidden entries -inf, V_block [B, D_v] -> m, l [T_q], acc [T_q, D_v].
    m_new = max(m, rowmax(S_block)); l and acc are rescaled by exp(m - m_new) before the block's
    exp(S_block - m_new) is added; a row that has seen only -inf stays m = -inf, l = 0, acc = 0 (no NaN).
    Read: lessons/en/step10_tiled.md#online-update.

    返回处理完一块 Key 之后的 (m, l, acc)：运行最大值、运行和与未归一化的输出。

    形状：m [T_q]（初始为 -inf），l [T_q]（初始为 0），acc [T_q, D_v]（初始为 0），S_block [T_q, B] 是已缩放的分数，
    被隐藏的位置为 -inf，V_block [B, D_v] -> m、l [T_q]，acc [T_q, D_v]。m_new = max(m, rowmax(S_block))；先把 l 和 acc
    乘以 exp(m - m_new)，再加上这一块的 exp(S_block - m_new)；只见过 -inf 的行保持 m = -inf、l = 0、acc = 0（没有 NaN）。
    阅读：lessons/zh/step10_tiled.md#online-update。
    """
    m = float_array("m", m, ndim=1, shape_text="[T_q]")
    l = float_array("l", l, ndim=1, shape_text="[T_q]")
    acc = float_array("acc", acc, ndim=2, shape_text="[T_q, D_v]")
    S_block = float_array("S_block", S_block, ndim=2, shape_text="[T_q, B]")
    V_block = float_array("V_block", V_block, ndim=2, shape_text="[B, D_v]")
    what = "online_softmax_update(m, l, acc, S_block, V_block)"
    for name, value in (("l (T_q)", l), ("acc (rows, T_q)", acc), ("S_block (rows, T_q)", S_block)):
        same_size(what, "m (T_q)", m.shape[0], name, value.shape[0], m.shape, value.shape)
    same_size(what, "S_block (columns, B)", S_block.shape[1], "V_block (rows, B)", V_block.shape[0], S_block.shape,
              V_block.shape)
    same_size(what, "acc (columns, D_v)", acc.shape[1], "V_block (columns, D_v)", V_block.shape[1], acc.shape,
              V_block.shape)
    if S_block.shape[1] == 0:
        raise ValueError(say("empty_block", shape=S_block.shape))
    # YOUR CODE HERE
    raise NotImplementedError('Step 10 (step10_tiled.online_softmax_update) is not written yet: replace this raise with your code. Read lessons/en/step10_tiled.md. 第 10 步（step10_tiled.online_softmax_update）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step10_tiled.md。')


def attention_tiled(Q, K, V, visible=None, block=64):
    """Return O: step 6's O computed over the keys in blocks of `block`, never the [T_q, T_k] scores.

    Shapes: Q [T_q, D_h], K [T_k, D_h], V [T_k, D_v], visible bool [T_q, T_k] (True = may read) or None
    (causal, aligned bottom-right: query i at position T_k - T_q + i), block an int >= 1 (the last block
    may be shorter; block > T_k is one block) -> O [T_q, D_v]. Start from m = -inf, l = 0, acc = 0, apply
    online_softmax_update per block, then O = acc / l; a fully masked row (l = 0) gives zeros. The mask of
    a block is made for that block only: the largest array is [T_q, block].
    Read: lessons/en/step10_tiled.md#tiles and lessons/en/step10_tiled.md#memory.

    返回 O：按每块 `block` 个 Key 算出的第 6 步的 O，从不保存 [T_q, T_k] 的分数。

    形状：Q [T_q, D_h]，K [T_k, D_h]，V [T_k, D_v]，visible bool [T_q, T_k]（True = 可以读）或 None（因果，右下角对齐：
    第 i 个 Query 在位置 T_k - T_q + i），block 是 >= 1 的整数（最后一块可以更短；block > T_k 就是一块）-> O [T_q, D_v]。
    从 m = -inf、l = 0、acc = 0 开始，每一块调用 online_softmax_update，最后 O = acc / l；整行都被屏蔽的行（l = 0）
    得到全 0。一块的掩码只为这一块建：最大的数组是 [T_q, block]。
    阅读：lessons/zh/step10_tiled.md#tiles 和 lessons/zh/step10_tiled.md#memory。
    """
    Q = float_array("Q", Q, ndim=2, shape_text="[T_q, D_h]")
    K = float_array("K", K, ndim=2, shape_text="[T_k, D_h]")
    V = float_array("V", V, ndim=2, shape_text="[T_k, D_v]")
    what = "attention_tiled(Q, K, V)"
    same_size(what, "Q (D_h)", Q.shape[-1], "K (D_h)", K.shape[-1], Q.shape, K.shape)
    same_size(what, "K (rows, T_k)", K.shape[0], "V (rows, T_k)", V.shape[0], K.shape, V.shape)
    block = size("block", block)
    if block < 1:
        raise ValueError(say("block_positive", value=block))
    T_q, T_k, D_h = Q.shape[0], K.shape[0], Q.shape[1]
    if visible is None and T_q > T_k:
        raise ValueError(say("causal_keys", what=what, q_shape=Q.shape, k_shape=K.shape))
    if visible is not None:  # None: each block's causal columns are made in the loop, never the whole table
        visible = bool_table("visible", visible, min_ndim=2)
        table_shape("visible", visible, "the scores Q Kᵀ", (T_q, T_k))
    dtype = np.result_type(Q, K, V)
    # YOUR CODE HERE
    raise NotImplementedError('Step 10 (step10_tiled.attention_tiled) is not written yet: replace this raise with your code. Read lessons/en/step10_tiled.md. 第 10 步（step10_tiled.attention_tiled）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step10_tiled.md。')
