"""Step 2 — scores: how well each query matches each key.

lessons/en/step2_scores.md#raw-scores and lessons/en/step2_scores.md#scale
(Chinese: lessons/zh/, same names):

    kq[i, j] = q_i · k_j          (kq = Q Kᵀ, llama.cpp's `kq`, not yet scaled)
    kq / sqrt(D_h)                (GPT-2 Small: D_h = 64, so the scale is 1/8)

第 2 步 —— 分数：每个 Query 和每个 Key 有多匹配。

lessons/zh/step2_scores.md#raw-scores 和 lessons/zh/step2_scores.md#scale：

    kq[i, j] = q_i · k_j          （kq = Q Kᵀ，即 llama.cpp 的 `kq`，还没有缩放）
    kq / sqrt(D_h)                （GPT-2 Small：D_h = 64，所以缩放因子是 1/8）
"""
import math

import numpy as np

from shape_checks import batch_axes, float_array, head_width, same_size


def raw_scores(Q, K):
    """Return kq = Q Kᵀ over the last two axes: kq[..., i, j] = q_i · k_j.

    Shapes: Q [..., T_q, D_h], K [..., T_k, D_h] -> kq [..., T_q, T_k] (e.g. 12 heads: [12, T, 64]).
    Transpose only the last two axes of K: `K.T` on a batched array reverses every axis.
    Read: lessons/en/step2_scores.md#raw-scores and lessons/en/step2_scores.md#batched-heads.

    在最后两个轴上返回 kq = Q Kᵀ：kq[..., i, j] = q_i · k_j。

    形状：Q [..., T_q, D_h]，K [..., T_k, D_h] -> kq [..., T_q, T_k]（例如 12 个 Head：[12, T, 64]）。
    只转置 K 的最后两个轴：对带批量轴的数组，`K.T` 会把所有轴都反过来。
    阅读：lessons/zh/step2_scores.md#raw-scores 和 lessons/zh/step2_scores.md#batched-heads。
    """
    Q = float_array("Q", Q, min_ndim=2, shape_text="[..., T_q, D_h]")
    K = float_array("K", K, min_ndim=2, shape_text="[..., T_k, D_h]")
    same_size("raw_scores(Q, K)", "Q (D_h)", Q.shape[-1], "K (D_h)", K.shape[-1], Q.shape, K.shape)
    batch_axes("Q", Q, "K", K)
    ### BEGIN SOLUTION
    return Q @ np.swapaxes(K, -1, -2)  # [..., T_q, T_k]
    ### END SOLUTION


def scale_scores(kq, d_h):
    """Return kq / sqrt(d_h), the scaled scores.

    Shapes: kq [..., T_q, T_k], d_h a positive number (the head width D_h, not the model width D)
    -> [..., T_q, T_k], same dtype as kq (divide by a Python float: a numpy float64 scalar would turn
    float32 scores into float64). GPT-2 Small: 1 / sqrt(64) = 1/8; width 2: /sqrt(2).
    Read: lessons/en/step2_scores.md#scale.

    返回缩放后的分数 kq / sqrt(d_h)。

    形状：kq [..., T_q, T_k]，d_h 是一个正数（Head 宽度 D_h，不是模型宽度 D）-> [..., T_q, T_k]，dtype 与 kq
    相同（除以 Python float：numpy 的 float64 标量会把 float32 分数变成 float64）。GPT-2 Small：1 / sqrt(64) = 1/8；
    宽度 2：除以 sqrt(2)。阅读：lessons/zh/step2_scores.md#scale。
    """
    kq = float_array("kq", kq, min_ndim=2, shape_text="[..., T_q, T_k]")
    d_h = head_width("d_h", d_h)
    ### BEGIN SOLUTION
    return kq / math.sqrt(d_h)  # [..., T_q, T_k]
    ### END SOLUTION
