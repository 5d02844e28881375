"""Step 12 — rotary position embeddings (RoPE): Q and K rotated by angles that grow with position.

lessons/en/step12_rope.md#rotation (Chinese: lessons/zh/, same names). The features of a row are taken
in pairs (x, y) and pair i of the row at position t is turned by the angle t · inv_freq[i]:

    (x, y) -> (x cos - y sin, x sin + y cos)        inv_freq[i] = base ** (-2 i / d_head)

so that the score of a rotated query at position i and a rotated key at position j depends on i - j
only. V is not rotated.

第 12 步 —— 旋转位置编码（RoPE）：Q 和 K 按随位置增长的角度旋转。

lessons/zh/step12_rope.md#rotation。一行的特征两两配对成 (x, y)，位置 t 那一行的第 i 对转过角度 t · inv_freq[i]：

    (x, y) -> (x cos - y sin, x sin + y cos)        inv_freq[i] = base ** (-2 i / d_head)

这样，位置 i 上旋转后的 Query 和位置 j 上旋转后的 Key 的分数只取决于 i - j。V 不旋转。
"""
import numbers

import numpy as np

from shape_checks import float_array, same_size, say, size
from step6_head import attention

PAIRINGS = ("half", "adjacent")  # (i, i + d_head/2): HF Llama, llama.cpp NEOX; (2i, 2i+1): llama.cpp, GPT-J


def _rope_width(d_head):
    """Return `d_head` as an even int >= 2 (RoPE rotates features in pairs).

    把 `d_head` 作为 >= 2 的偶数整数返回（RoPE 按对旋转特征）。
    """
    if isinstance(d_head, (bool, np.bool_)) or not isinstance(d_head, numbers.Integral):
        raise TypeError(say("rope_width_type", got=type(d_head).__name__, value=repr(d_head)))
    if d_head < 2 or d_head % 2:
        raise ValueError(say("rope_width_even", value=d_head))
    return int(d_head)


def _rope_options(base, pairing):
    """Raise unless base is a number > 0 and pairing one of PAIRINGS.

    base 不是 > 0 的数，或 pairing 不是 PAIRINGS 之一时抛出异常。
    """
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real) or not base > 0:
        raise ValueError(say("rope_base", value=repr(base)))
    if not isinstance(pairing, str) or pairing not in PAIRINGS:
        raise ValueError(say("rope_pairing", got=repr(pairing), known=", ".join(map(repr, PAIRINGS))))


def rope_frequencies(d_head, base=10000.0):
    """Return inv_freq [d_head // 2]: inv_freq[i] = base ** (-2 i / d_head), i = 0 … d_head/2 - 1.

    d_head must be even. Pair 0 turns fastest (1 radian per position), the last pair slowest.
    Example: d_head = 4, base = 100 -> [1, 0.1]. Read: lessons/en/step12_rope.md#frequencies.

    返回 inv_freq [d_head // 2]：inv_freq[i] = base ** (-2 i / d_head)，i = 0 … d_head/2 - 1。

    d_head 必须是偶数。第 0 对转得最快（每个位置 1 弧度），最后一对最慢。例子：d_head = 4，base = 100 -> [1, 0.1]。
    阅读：lessons/zh/step12_rope.md#frequencies。
    """
    d_head = _rope_width(d_head)
    _rope_options(base, PAIRINGS[0])
    ### BEGIN SOLUTION
    i = np.arange(d_head // 2)  # [d_head/2]
    return float(base) ** (-2.0 * i / d_head)  # [d_head/2]
    ### END SOLUTION


def apply_rope(X, positions, base=10000.0, pairing="half"):
    """Return X_rot [..., T, d_head]: every row of X turned pair by pair by the angles of its position.

    Shapes: X [..., T, d_head] (d_head even), positions int [T] -> X_rot, same shape and dtype as X.
    angle[t, i] = positions[t] · inv_freq[i]; pair i is (i, i + d_head/2) for pairing="half" (Hugging
    Face Llama's rotate_half, llama.cpp's NEOX mode) and (2i, 2i+1) for pairing="adjacent" (llama.cpp's
    normal mode, GPT-J); each pair (x, y) -> (x cos - y sin, x sin + y cos).
    Read: lessons/en/step12_rope.md#rotation and lessons/en/step12_rope.md#pairing.

    返回 X_rot [..., T, d_head]：X 的每一行按它所在位置的角度一对一对地旋转。

    形状：X [..., T, d_head]（d_head 为偶数），positions int [T] -> X_rot，形状和 dtype 都与 X 相同。
    angle[t, i] = positions[t] · inv_freq[i]；pairing="half" 时第 i 对是 (i, i + d_head/2)（Hugging Face Llama 的
    rotate_half，llama.cpp 的 NEOX 模式），pairing="adjacent" 时是 (2i, 2i+1)（llama.cpp 的普通模式，GPT-J）；
    每一对 (x, y) -> (x cos - y sin, x sin + y cos)。
    阅读：lessons/zh/step12_rope.md#rotation 和 lessons/zh/step12_rope.md#pairing。
    """
    X = float_array("X", X, min_ndim=2, shape_text="[..., T, d_head]")
    _rope_width(X.shape[-1])
    _rope_options(base, pairing)
    positions = np.asarray(positions)
    if positions.dtype == bool or not np.issubdtype(positions.dtype, np.integer) or positions.shape != X.shape[-2:-1]:
        raise ValueError(say("rope_positions", rows=X.shape[-2], dtype=positions.dtype, shape=positions.shape))
    ### BEGIN SOLUTION
    half = X.shape[-1] // 2
    angle = positions[:, None] * rope_frequencies(X.shape[-1], base)  # [T, d_head/2]
    cos, sin = np.cos(angle), np.sin(angle)  # [T, d_head/2] each
    x, y = (X[..., :half], X[..., half:]) if pairing == "half" else (X[..., 0::2], X[..., 1::2])  # [..., T, d_head/2]
    x_rot, y_rot = x * cos - y * sin, x * sin + y * cos  # [..., T, d_head/2] each
    rotated = (x_rot, y_rot)
    X_rot = (np.concatenate(rotated, axis=-1) if pairing == "half"  # [..., T, d_head]  halves side by side
             else np.stack(rotated, axis=-1).reshape(X.shape))  # [..., T, d_head]  pairs interleaved again
    return X_rot.astype(X.dtype, copy=False)
    ### END SOLUTION


def rope_attention(Q, K, V, past=0, base=10000.0, pairing="half"):
    """Return (O, P): step 6's causal attention of the rotated Q and K with V (never rotated).

    Shapes: Q [T_q, D_h] the new tokens, at positions past … past + T_q - 1; K, V [T_k, D_h] every
    key (cached and new), K at positions 0 … T_k - 1 and not yet rotated; T_k must be past + T_q
    -> O [T_q, D_h], P [T_q, T_k]. Read: lessons/en/step12_rope.md#rope-attention.

    返回 (O, P)：旋转后的 Q、K 与 V（V 从不旋转）做第 6 步的因果 attention。

    形状：Q [T_q, D_h] 是新 Token，位置 past … past + T_q - 1；K、V [T_k, D_h] 是所有 Key（缓存的和新的），K 的位置是
    0 … T_k - 1，还没有旋转；T_k 必须等于 past + T_q -> O [T_q, D_h]，P [T_q, T_k]。
    阅读：lessons/zh/step12_rope.md#rope-attention。
    """
    Q = float_array("Q", Q, ndim=2, shape_text="[T_q, D_h]")
    K = float_array("K", K, ndim=2, shape_text="[T_k, D_h]")
    V = float_array("V", V, ndim=2, shape_text="[T_k, D_h]")
    same_size("rope_attention(Q, K, V)", "Q (D_h)", Q.shape[1], "K (D_h)", K.shape[1], Q.shape, K.shape)
    same_size("rope_attention(Q, K, V)", "K (rows, T_k)", K.shape[0], "V (rows, T_k)", V.shape[0], K.shape, V.shape)
    past = size("past", past)
    if K.shape[0] != past + Q.shape[0]:
        raise ValueError(say("rope_past", past=past, t_q=Q.shape[0], t_k=K.shape[0]))
    ### BEGIN SOLUTION
    Q_rot = apply_rope(Q, past + np.arange(Q.shape[0]), base, pairing)  # [T_q, D_h]  positions past … past+T_q-1
    K_rot = apply_rope(K, np.arange(K.shape[0]), base, pairing)  # [T_k, D_h]  positions 0 … T_k-1
    return attention(Q_rot, K_rot, V)  # [T_q, D_h], [T_q, T_k]  causal, bottom-right
    ### END SOLUTION
