"""Step 4 — softmax: scores become weights, row by row.

lessons/en/step4_softmax.md (Chinese: lessons/zh/, same names): each query's row of S becomes
non-negative weights that sum to 1; a key whose score is -inf (masked) gets weight exactly 0.
Scores [0, 1, 2] give [0.0900, 0.2447, 0.6652]; with the third key masked, [0.269, 0.731].

第 4 步 —— softmax：分数逐行变成权重。

lessons/zh/step4_softmax.md：S 里每个 Query 的那一行变成非负、加起来等于 1 的权重；分数为 -inf（被遮住）的
Key 权重恰好为 0。分数 [0, 1, 2] 得到 [0.0900, 0.2447, 0.6652]；遮住第三个 Key 后是 [0.269, 0.731]。
"""
import numpy as np

from shape_checks import float_array, say


def softmax(S):
    """Return P = softmax(S) over the last axis (each query's row of keys).

    Shapes: S [..., T_q, T_k] -> P [..., T_q, T_k], same dtype. Subtract each row's largest finite
    score before exp so that scores like +1000 do not overflow (softmax is unchanged by a shift).
    A -inf entry gets weight 0. A row that is entirely -inf (no visible key, e.g. a padding query)
    gives all zeros, with no NaN and no warning. Read: lessons/en/step4_softmax.md#stability and
    lessons/en/ref_fully_masked.md#kit-policy.

    在最后一个轴上（每个 Query 对各个 Key 的那一行）返回 P = softmax(S)。

    形状：S [..., T_q, T_k] -> P [..., T_q, T_k]，dtype 不变。exp 之前先减去每一行最大的有限分数，这样 +1000 这样
    的分数也不会溢出（整体平移不改变 softmax）。-inf 的位置权重为 0。整行都是 -inf 的行（没有可见的 Key，例如
    padding 的 Query）得到全 0，不出现 NaN，也没有警告。
    阅读：lessons/zh/step4_softmax.md#stability 和 lessons/zh/ref_fully_masked.md#kit-policy。
    """
    S = float_array("S", S, min_ndim=1, shape_text="[..., T_q, T_k]")
    if np.isnan(S).any() or np.isposinf(S).any():
        raise ValueError(say("scores_not_finite", shape=S.shape))
    ### BEGIN SOLUTION
    row_max = S.max(axis=-1, keepdims=True)  # [..., T_q, 1]
    row_max = np.where(np.isfinite(row_max), row_max, 0)  # a row of only -inf has nothing to subtract
    E = np.exp(S - row_max)  # [..., T_q, T_k], 0 where S is -inf
    total = E.sum(axis=-1, keepdims=True)  # [..., T_q, 1], 0 for a row with no visible key
    return np.divide(E, total, out=np.zeros_like(E), where=total > 0)  # [..., T_q, T_k]
    ### END SOLUTION
