"""Step 5 — values: each query's output is a weighted sum of the values.

lessons/en/step5_values.md (Chinese: lessons/zh/, same names): o_i = Σ_j P[i, j] v_j, i.e.
O = P V. The weights act on the values, not on the keys. Weights [0.669762, 0.330238] on v0 = [10, 0],
v1 = [0, 20] give [6.697615, 6.604769].

第 5 步 —— Value：每个 Query 的输出是各个 Value 的加权和。

lessons/zh/step5_values.md：o_i = Σ_j P[i, j] v_j，即 O = P V。权重作用在 Value 上，而不是 Key 上。
权重 [0.669762, 0.330238] 作用在 v0 = [10, 0]、v1 = [0, 20] 上得到 [6.697615, 6.604769]。
"""
from shape_checks import batch_axes, float_array, same_size


def weighted_sum(P, V):
    """Return O = P V: row i of O is Σ_j P[i, j] V[j].

    Shapes: P [..., T_q, T_k], V [..., T_k, D_h] -> O [..., T_q, D_h]. 
    Read: lessons/en/step5_values.md#weighted-sum.

    返回 O = P V：O 的第 i 行是 Σ_j P[i, j] V[j]。

    形状：P [..., T_q, T_k]，V [..., T_k, D_h] -> O [..., T_q, D_h]。阅读：lessons/zh/step5_values.md#weighted-sum。
    """
    P = float_array("P", P, min_ndim=2, shape_text="[..., T_q, T_k]")
    V = float_array("V", V, min_ndim=2, shape_text="[..., T_k, D_h]")
    same_size("weighted_sum(P, V)", "P (last axis, T_k)", P.shape[-1], "V (rows, T_k)", V.shape[-2], P.shape, V.shape)
    batch_axes("P", P, "V", V)
    ### BEGIN SOLUTION
    return P @ V  # [..., T_q, D_h]
    ### END SOLUTION
