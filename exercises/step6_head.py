"""Step 6 — one head: the whole causal self-attention of a single GPT-2 head.

lessons/en/step6_head.md#matrix-form (Chinese: lessons/zh/, same names):

    S = Q Kᵀ / sqrt(D_h) + M        P = softmax(S)        O = P V

and llama.cpp's names for the same tensors (Block 0 / Head 0): kq = Q Kᵀ, kq_soft_max = P, kqv = O.

第 6 步 —— 一个 Head：单个 GPT-2 Head 完整的因果自注意力。

lessons/zh/step6_head.md#matrix-form：

    S = Q Kᵀ / sqrt(D_h) + M        P = softmax(S)        O = P V

以及 llama.cpp 对同一些张量的叫法（Block 0 / Head 0）：kq = Q Kᵀ，kq_soft_max = P，kqv = O。
"""
from dataclasses import dataclass

import numpy as np

from shape_checks import batch_axes, bool_table, float_array, same_size, say, table_shape
from step1_projection import project_qkv
from step2_scores import raw_scores, scale_scores
from step3_masks import additive_mask, causal_visible
from step4_softmax import softmax
from step5_values import weighted_sum


@dataclass(frozen=True)
class HeadTrace:
    """Every intermediate tensor of one head, named as llama.cpp's eval-callback prints them.

    一个 Head 的每个中间张量，名字与 llama.cpp 的 eval-callback 打印的一致。
    """

    Q: np.ndarray  # [T, D_h]  Qcur
    K: np.ndarray  # [T, D_h]  Kcur
    V: np.ndarray  # [T, D_h]  Vcur
    kq: np.ndarray  # [T, T]  raw scores Q Kᵀ, unscaled
    kq_soft_max: np.ndarray  # [T, T]  P
    kqv: np.ndarray  # [T, D_h]  O


def attention(Q, K, V, visible=None):
    """Return (O, P): O = softmax(Q Kᵀ / sqrt(D_h) + M) V and the weights P.

    Shapes: Q [..., T_q, D_h], K [..., T_k, D_h], V [..., T_k, D_h], visible bool [T_q, T_k] (or
    [..., T_q, T_k]; True = may read) -> O [..., T_q, D_h], P [..., T_q, T_k]. visible=None means
    causal_visible(T_q, T_k), aligned bottom-right for a KV-cache step. D_h is Q's last axis.
    Build it from steps 2–5. Read: lessons/en/step6_head.md#matrix-form
    and lessons/en/step6_head.md#minimal-example.

    返回 (O, P)：O = softmax(Q Kᵀ / sqrt(D_h) + M) V，以及权重 P。

    形状：Q [..., T_q, D_h]，K [..., T_k, D_h]，V [..., T_k, D_h]，visible bool [T_q, T_k]（或 [..., T_q, T_k]；
    True = 可以读）-> O [..., T_q, D_h]，P [..., T_q, T_k]。visible=None 表示 causal_visible(T_q, T_k)，对 KV Cache
    的一步是右下角对齐的。D_h 是 Q 的最后一个轴。用第 2–5 步搭出来。
    阅读：lessons/zh/step6_head.md#matrix-form 和 lessons/zh/step6_head.md#minimal-example。
    """
    Q = float_array("Q", Q, min_ndim=2, shape_text="[..., T_q, D_h]")
    K = float_array("K", K, min_ndim=2, shape_text="[..., T_k, D_h]")
    V = float_array("V", V, min_ndim=2, shape_text="[..., T_k, D_h]")
    same_size("attention(Q, K, V)", "Q (D_h)", Q.shape[-1], "K (D_h)", K.shape[-1], Q.shape, K.shape)
    same_size("attention(Q, K, V)", "K (rows, T_k)", K.shape[-2], "V (rows, T_k)", V.shape[-2], K.shape, V.shape)
    batch_axes("Q", Q, "K", K)
    batch_axes("K", K, "V", V)
    T_q, T_k, D_h = Q.shape[-2], K.shape[-2], Q.shape[-1]
    if visible is None and T_q > T_k:
        raise ValueError(say("causal_needs_keys", q_shape=Q.shape, k_shape=K.shape))
    visible = causal_visible(T_q, T_k) if visible is None else bool_table("visible", visible, min_ndim=2)
    table_shape("visible", visible, "the scores Q Kᵀ", Q.shape[:-2] + (T_q, T_k))
    # YOUR CODE HERE
    raise NotImplementedError('Step 6 (step6_head.attention) is not written yet: replace this raise with your code. Read lessons/en/step6_head.md. 第 6 步（step6_head.attention）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step6_head.md。')


def attention_head(Z, W_Q, b_Q, W_K, b_K, W_V, b_V, visible=None):
    """Return a HeadTrace of one head run on Z: Q, K, V, kq, kq_soft_max (= P) and kqv (= O).

    Shapes: Z [T, D]; W_* [D, D_h]; b_* [D_h]; visible bool [T, T] or None (causal) ->
    Q, K, V, kqv [T, D_h]; kq, kq_soft_max [T, T]. kq is the unscaled Q Kᵀ, as llama.cpp's `kq`.
    Read: lessons/en/step6_head.md#trace and lessons/en/ref_gpt2_head0.md#scores.

    返回在 Z 上运行一个 Head 得到的 HeadTrace：Q、K、V、kq、kq_soft_max（= P）和 kqv（= O）。

    形状：Z [T, D]；W_* [D, D_h]；b_* [D_h]；visible bool [T, T] 或 None（因果）-> Q、K、V、kqv [T, D_h]；
    kq、kq_soft_max [T, T]。kq 是未缩放的 Q Kᵀ，与 llama.cpp 的 `kq` 相同。
    阅读：lessons/zh/step6_head.md#trace 和 lessons/zh/ref_gpt2_head0.md#scores。
    """
    # YOUR CODE HERE
    raise NotImplementedError('Step 6 (step6_head.attention_head) is not written yet: replace this raise with your code. Read lessons/en/step6_head.md. 第 6 步（step6_head.attention_head）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step6_head.md。')
