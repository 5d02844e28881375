"""Step 1 — projections: one head turns Z into its queries, keys and values.

lessons/en/step1_projection.md#q-k-v (Chinese: lessons/zh/, same names):

    Q_h = Z_l W_Q^(h) + b_Q^(h)        K_h = Z_l W_K^(h) + b_K^(h)        V_h = Z_l W_V^(h) + b_V^(h)

Each row of Z is one token position; the same W and b are used for every row.

第 1 步 —— 投影：一个 Head 把 Z 变成它的 Query、Key 和 Value。

lessons/zh/step1_projection.md#q-k-v：

    Q_h = Z_l W_Q^(h) + b_Q^(h)        K_h = Z_l W_K^(h) + b_K^(h)        V_h = Z_l W_V^(h) + b_V^(h)

Z 的每一行是一个 Token 位置；每一行都用同一组 W 和 b。
"""
from shape_checks import float_array, projection_weights, same_size


def project(Z, W, b):
    """Return Z W + b, one of the head's three projections.

    Shapes: Z [T, D] (leading batch axes allowed: [..., T, D]), W [D, D_h], b [D_h] -> [T, D_h].
    GPT-2 Small: D = 768, D_h = 64. Multiply Z on the left (rows are tokens), then add the bias to
    every row. Read: lessons/en/step1_projection.md#orientation-and-bias.

    返回 Z W + b，即这个 Head 的三个投影之一。

    形状：Z [T, D]（允许前面有批量轴：[..., T, D]），W [D, D_h]，b [D_h] -> [T, D_h]。GPT-2 Small：D = 768，
    D_h = 64。Z 放在左边相乘（行是 Token），再把偏置加到每一行上。阅读：lessons/zh/step1_projection.md#orientation-and-bias。
    """
    Z = float_array("Z", Z, min_ndim=2, shape_text="[T, D]")
    W, b = projection_weights("project(Z, W, b)", Z, "W", W, "b", b)
    ### BEGIN SOLUTION
    return Z @ W + b  # [T, D_h]
    ### END SOLUTION


def project_qkv(Z, W_Q, b_Q, W_K, b_K, W_V, b_V):
    """Return the tuple (Q, K, V) = (Z W_Q + b_Q, Z W_K + b_K, Z W_V + b_V).

    Shapes: Z [T, D]; W_Q, W_K, W_V [D, D_h]; b_Q, b_K, b_V [D_h] -> Q, K, V each [T, D_h].
    All three read the same Z with their own weights. Read: lessons/en/step1_projection.md#q-k-v.

    返回元组 (Q, K, V) = (Z W_Q + b_Q, Z W_K + b_K, Z W_V + b_V)。

    形状：Z [T, D]；W_Q, W_K, W_V [D, D_h]；b_Q, b_K, b_V [D_h] -> Q, K, V 都是 [T, D_h]。三者读的是同一个 Z，
    各用自己的权重。阅读：lessons/zh/step1_projection.md#q-k-v。
    """
    Z = float_array("Z", Z, min_ndim=2, shape_text="[T, D]")
    caller = "project_qkv(Z, W_Q, b_Q, W_K, b_K, W_V, b_V)"
    W_Q, b_Q = projection_weights(caller, Z, "W_Q", W_Q, "b_Q", b_Q)
    W_K, b_K = projection_weights(caller, Z, "W_K", W_K, "b_K", b_K)
    W_V, b_V = projection_weights(caller, Z, "W_V", W_V, "b_V", b_V)
    same_size(caller, "W_Q (D_h)", W_Q.shape[1], "W_K (D_h)", W_K.shape[1], W_Q.shape, W_K.shape)
    ### BEGIN SOLUTION
    Q = project(Z, W_Q, b_Q)  # [T, D_h]
    K = project(Z, W_K, b_K)  # [T, D_h]
    V = project(Z, W_V, b_V)  # [T, D_h]
    return Q, K, V
    ### END SOLUTION
