"""Step 7 — GPT-2's attention layer: all heads from the fused weights at once, merged and projected.

lessons/en/step7_layer.md#fused-weights (Chinese: lessons/zh/, same names). GPT-2 stores one
layer's attention as two Conv1D layers, applied as `x @ W + b`:

    c_attn: W [D, 3D], b [3D]   ->  [Q | K | V]  (each [T, D], in that order)
    c_proj: W [D, D],  b [D]    ->  the layer's output

and each of Q, K, V is `n_head` heads side by side: columns h*D_h … (h+1)*D_h - 1 are head h.

第 7 步 —— GPT-2 的 Attention 层：用融合的权重一次算出所有 Head，合并后再投影。

lessons/zh/step7_layer.md#fused-weights。GPT-2 把一层的 Attention 存成两个 Conv1D 层，按 `x @ W + b` 使用：

    c_attn: W [D, 3D], b [3D]   ->  [Q | K | V]  （每个 [T, D]，按这个顺序）
    c_proj: W [D, D],  b [D]    ->  这一层的输出

Q、K、V 各自都是 `n_head` 个 Head 并排放在一起：第 h*D_h … (h+1)*D_h - 1 列是第 h 个 Head。
"""
import numbers
from dataclasses import dataclass

import numpy as np

from shape_checks import float_array, same_size, say
from step1_projection import project
from step2_scores import raw_scores
from step6_head import attention


@dataclass(frozen=True)
class LayerTrace:
    """Every intermediate tensor of one attention layer, per head, in llama.cpp's names.

    一个 Attention 层的每个中间张量，按 Head 分开，用 llama.cpp 的名字。
    """

    Q: np.ndarray  # [n_head, T, D_h]  Qcur, split into heads
    K: np.ndarray  # [n_head, T, D_h]  Kcur
    V: np.ndarray  # [n_head, T, D_h]  Vcur
    kq: np.ndarray  # [n_head, T, T]  raw scores Q Kᵀ of every head, unscaled
    kq_soft_max: np.ndarray  # [n_head, T, T]  P of every head
    kqv: np.ndarray  # [n_head, T, D_h]  O of every head
    out: np.ndarray  # [T, D]  heads merged, then c_proj


def head_count(n_head, width):
    """Return `n_head` as an int after checking that it splits `width` (D) into whole heads.

    检查 `n_head` 能把 `width`（D）分成整数个 Head 后，把它作为整数返回。
    """
    if isinstance(n_head, (bool, np.bool_)) or not isinstance(n_head, numbers.Integral):
        raise TypeError(say("head_count_type", got=type(n_head).__name__, value=repr(n_head)))
    if n_head <= 0 or width % n_head:
        raise ValueError(say("head_count_split", width=width, n_head=n_head))
    return int(n_head)


def check_layer_weights(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias):
    """Raise unless the four weights fit Z [..., T, D]: c_attn_weight [D, 3D], c_attn_bias [3D],
    c_proj_weight [D, D], c_proj_bias [D].

    四个权重与 Z [..., T, D] 不匹配时抛出异常：c_attn_weight [D, 3D]，c_attn_bias [3D]，
    c_proj_weight [D, D]，c_proj_bias [D]。
    """
    D = Z.shape[-1]
    shapes = {"c_attn_weight": ((D, 3 * D), "[D, 3D]"), "c_attn_bias": ((3 * D,), "[3D]"),
              "c_proj_weight": ((D, D), "[D, D]"), "c_proj_bias": ((D,), "[D]")}
    for (name, (shape, text)), value in zip(shapes.items(), (c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias)):
        arr = float_array(name, value, ndim=len(shape), shape_text=text)
        if arr.shape != shape:
            raise ValueError(say("layer_weight_shape", name=name, text=text, want=shape, z_shape=Z.shape, width=D,
                                 shape=arr.shape))


def split_qkv(X, c_attn_weight, c_attn_bias):
    """Return (Q, K, V), each [T, D]: X @ c_attn_weight + c_attn_bias cut into three equal parts.

    Shapes: X [T, D] (or [..., T, D]); c_attn_weight [D, 3D]; c_attn_bias [3D] -> Q, K, V [..., T, D].
    The fused output holds Q first, then K, then V. Read: lessons/en/step7_layer.md#fused-weights.

    返回 (Q, K, V)，每个 [T, D]：把 X @ c_attn_weight + c_attn_bias 切成相等的三份。

    形状：X [T, D]（或 [..., T, D]）；c_attn_weight [D, 3D]；c_attn_bias [3D] -> Q、K、V [..., T, D]。融合的输出里
    先是 Q，然后是 K，最后是 V。阅读：lessons/zh/step7_layer.md#fused-weights。
    """
    X = float_array("X", X, min_ndim=2, shape_text="[..., T, D]")
    W = float_array("c_attn_weight", c_attn_weight, ndim=2, shape_text="[D, 3D]")
    same_size("split_qkv(X, c_attn_weight, c_attn_bias)", "X (last axis, D)", X.shape[-1],
              "c_attn_weight (first axis, D)", W.shape[0], X.shape, W.shape)
    same_size("split_qkv(X, c_attn_weight, c_attn_bias)", "c_attn_weight (last axis, 3D)", W.shape[1],
              "3 × X's width (3D)", 3 * X.shape[-1], W.shape, X.shape)
    ### BEGIN SOLUTION
    qkv = project(X, c_attn_weight, c_attn_bias)  # [..., T, 3D]
    D = X.shape[-1]
    return qkv[..., :D], qkv[..., D:2 * D], qkv[..., 2 * D:]  # [..., T, D] each
    ### END SOLUTION


def split_heads(X, n_head):
    """Return X cut into n_head heads: [..., T, D] -> [..., n_head, T, D_h] with D_h = D / n_head.

    Head h is columns h*D_h … (h+1)*D_h - 1 of X. Read: lessons/en/step7_layer.md#split-heads.

    返回切成 n_head 个 Head 的 X：[..., T, D] -> [..., n_head, T, D_h]，其中 D_h = D / n_head。

    第 h 个 Head 是 X 的第 h*D_h … (h+1)*D_h - 1 列。阅读：lessons/zh/step7_layer.md#split-heads。
    """
    X = float_array("X", X, min_ndim=2, shape_text="[..., T, D]")
    n_head = head_count(n_head, X.shape[-1])
    ### BEGIN SOLUTION
    T, D = X.shape[-2:]
    heads = X.reshape(*X.shape[:-2], T, n_head, D // n_head)  # [..., T, n_head, D_h]
    return np.swapaxes(heads, -3, -2)  # [..., n_head, T, D_h]
    ### END SOLUTION


def merge_heads(O):
    """Return the heads side by side again: [..., n_head, T, D_h] -> [..., T, n_head * D_h].

    The inverse of split_heads. Read: lessons/en/step7_layer.md#merge-heads.

    把各个 Head 重新并排放回去返回：[..., n_head, T, D_h] -> [..., T, n_head * D_h]。

    split_heads 的逆操作。阅读：lessons/zh/step7_layer.md#merge-heads。
    """
    O = float_array("O", O, min_ndim=3, shape_text="[..., n_head, T, D_h]")
    ### BEGIN SOLUTION
    n_head, T, D_h = O.shape[-3:]
    rows = np.swapaxes(O, -3, -2)  # [..., T, n_head, D_h]
    return rows.reshape(*O.shape[:-3], T, n_head * D_h)  # [..., T, D]
    ### END SOLUTION


def gpt2_attention(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, visible=None):
    """Return a LayerTrace of GPT-2's attention layer run on Z: every head at once, merged, projected.

    Shapes: Z [T, D]; c_attn_weight [D, 3D]; c_attn_bias [3D]; c_proj_weight [D, D]; c_proj_bias [D];
    visible bool [T, T] or None (causal) -> Q, K, V, kqv [n_head, T, D_h]; kq, kq_soft_max
    [n_head, T, T]; out [T, D]. Use split_qkv, split_heads, step 6's attention (it takes the heads
    as a batch axis), merge_heads and c_proj. Read: lessons/en/step7_layer.md#whole-layer.

    返回在 Z 上运行 GPT-2 Attention 层得到的 LayerTrace：一次算出所有 Head，合并，再投影。

    形状：Z [T, D]；c_attn_weight [D, 3D]；c_attn_bias [3D]；c_proj_weight [D, D]；c_proj_bias [D]；visible
    bool [T, T] 或 None（因果）-> Q、K、V、kqv [n_head, T, D_h]；kq、kq_soft_max [n_head, T, T]；out [T, D]。
    用 split_qkv、split_heads、第 6 步的 attention（它把 Head 当作批量轴）、merge_heads 和 c_proj。
    阅读：lessons/zh/step7_layer.md#whole-layer。
    """
    Z = float_array("Z", Z, ndim=2, shape_text="[T, D]")
    head_count(n_head, Z.shape[-1])
    check_layer_weights(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias)
    ### BEGIN SOLUTION
    Q, K, V = (split_heads(X, n_head) for X in split_qkv(Z, c_attn_weight, c_attn_bias))  # [n_head, T, D_h]
    O, P = attention(Q, K, V, visible)  # [n_head, T, D_h], [n_head, T, T]
    out = project(merge_heads(O), c_proj_weight, c_proj_bias)  # [T, D]
    return LayerTrace(Q=Q, K=K, V=V, kq=raw_scores(Q, K), kq_soft_max=P, kqv=O, out=out)
    ### END SOLUTION
