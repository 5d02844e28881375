"""Step 13 — the backward pass of one head: dQ, dK, dV from dO.

lessons/en/step13_backward.md#attention-backward (Chinese: lessons/zh/, same names). With
S = Q Kᵀ / sqrt(D_h) + M, P = softmax(S), O = P V and the gradient dO of a loss with respect to O:

    dV = Pᵀ dO     dP = dO Vᵀ     dS = P ⊙ (dP - rowsum(dP ⊙ P))
    dQ = dS K / sqrt(D_h)         dK = dSᵀ Q / sqrt(D_h)

A hidden key has P = 0, so it gets no gradient.

第 13 步 —— 一个 Head 的反向传播：由 dO 求 dQ、dK、dV。

lessons/zh/step13_backward.md#attention-backward。设 S = Q Kᵀ / sqrt(D_h) + M，P = softmax(S)，O = P V，
dO 是损失对 O 的梯度：

    dV = Pᵀ dO     dP = dO Vᵀ     dS = P ⊙ (dP - rowsum(dP ⊙ P))
    dQ = dS K / sqrt(D_h)         dK = dSᵀ Q / sqrt(D_h)

被隐藏的 Key 的 P = 0，所以它得不到梯度。
"""
import numpy as np

from shape_checks import float_array, say
from step6_head import attention


def softmax_backward(P, dP):
    """Return dS [..., T_q, T_k]: the gradient through P = softmax(S) of each row.

    Shapes: P, dP [..., T_q, T_k] (P the softmax's output, dP the gradient with respect to P) ->
    dS = P ⊙ (dP - rowsum(dP ⊙ P)), same shape. Example: P = [0.5, 0.5], dP = [1, 0] -> [0.25, -0.25].
    Read: lessons/en/step13_backward.md#softmax-backward.

    返回 dS [..., T_q, T_k]：经过每一行 P = softmax(S) 的梯度。

    形状：P、dP [..., T_q, T_k]（P 是 softmax 的输出，dP 是对 P 的梯度）-> dS = P ⊙ (dP - rowsum(dP ⊙ P))，形状相同。
    例子：P = [0.5, 0.5]，dP = [1, 0] -> [0.25, -0.25]。阅读：lessons/zh/step13_backward.md#softmax-backward。
    """
    P = float_array("P", P, min_ndim=2, shape_text="[..., T_q, T_k]")
    dP = float_array("dP", dP, min_ndim=2, shape_text="[..., T_q, T_k]")
    if P.shape != dP.shape:
        raise ValueError(say("same_shape", what="softmax_backward(P, dP)", name_a="P", shape_a=P.shape, name_b="dP",
                             shape_b=dP.shape))
    ### BEGIN SOLUTION
    row = (dP * P).sum(axis=-1, keepdims=True)  # [..., T_q, 1]
    return P * (dP - row)  # [..., T_q, T_k]
    ### END SOLUTION


def attention_backward(Q, K, V, dO, visible=None):
    """Return (dQ, dK, dV): the gradients of a loss through step 6's O = attention(Q, K, V, visible).

    Shapes: Q [T_q, D_h], K [T_k, D_h], V [T_k, D_v], dO [T_q, D_v], visible bool [T_q, T_k] (True = may
    read) or None (causal, aligned bottom-right) -> dQ [T_q, D_h], dK [T_k, D_h], dV [T_k, D_v].
    Recompute P with step 6's attention, then dV = Pᵀ dO, dP = dO Vᵀ, dS = softmax_backward(P, dP),
    dQ = dS K / sqrt(D_h), dK = dSᵀ Q / sqrt(D_h); a fully masked row gives zero gradients.
    Read: lessons/en/step13_backward.md#attention-backward.

    返回 (dQ, dK, dV)：损失经过第 6 步的 O = attention(Q, K, V, visible) 得到的梯度。

    形状：Q [T_q, D_h]，K [T_k, D_h]，V [T_k, D_v]，dO [T_q, D_v]，visible bool [T_q, T_k]（True = 可以读）或 None
    （因果，右下角对齐）-> dQ [T_q, D_h]，dK [T_k, D_h]，dV [T_k, D_v]。用第 6 步的 attention 重新算出 P，然后
    dV = Pᵀ dO，dP = dO Vᵀ，dS = softmax_backward(P, dP)，dQ = dS K / sqrt(D_h)，dK = dSᵀ Q / sqrt(D_h)；
    整行都被屏蔽的行梯度为 0。阅读：lessons/zh/step13_backward.md#attention-backward。
    """
    Q = float_array("Q", Q, ndim=2, shape_text="[T_q, D_h]")
    K = float_array("K", K, ndim=2, shape_text="[T_k, D_h]")
    V = float_array("V", V, ndim=2, shape_text="[T_k, D_v]")
    dO = float_array("dO", dO, ndim=2, shape_text="[T_q, D_v]")
    if dO.shape != (Q.shape[0], V.shape[1]):
        raise ValueError(say("grad_shape", q_shape=Q.shape, v_shape=V.shape, want=(Q.shape[0], V.shape[1]),
                             shape=dO.shape))
    ### BEGIN SOLUTION
    O, P = attention(Q, K, V, visible)  # [T_q, D_v], [T_q, T_k]
    scale = 1.0 / np.sqrt(Q.shape[1])
    dV = P.T @ dO  # [T_k, D_v]
    dP = dO @ V.T  # [T_q, T_k]
    dS = softmax_backward(P, dP)  # [T_q, T_k]  0 where hidden (P = 0 there)
    dQ = dS @ K * scale  # [T_q, D_h]
    dK = dS.T @ Q * scale  # [T_k, D_h]
    return dQ, dK, dV
    ### END SOLUTION
