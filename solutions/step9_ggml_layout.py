"""Step 9 — reading llama.cpp's tensors: GGML's `ne` shapes and flat buffers as NumPy arrays.

lessons/en/step9_ggml_layout.md (Chinese: lessons/zh/, same names): GGML lists a tensor's sizes
fastest-first, `ne = {ne0, ne1, ne2, ne3}`, and element (i0, i1, i2, i3) sits at flat offset
i0 + ne0·(i1 + ne1·(i2 + ne2·i3)). NumPy (C order) lists them slowest-first, so the NumPy shape is
`ne` reversed: `Qcur-0 {64, 12, 2, 1}` is `[1, 2, 12, 64]`, `kq-0 {256, 2, 12, 1}` is
`[1, 12, 2, 256]`. Head 0's kq row of " are" is [-1.3936, -25.5417] → P [0.9534, 0.0466].

第 9 步 —— 读 llama.cpp 的张量：把 GGML 的 `ne` 形状和扁平缓冲区读成 NumPy 数组。

lessons/zh/step9_ggml_layout.md：GGML 从最快的维度写起列出张量的大小，`ne = {ne0, ne1, ne2, ne3}`，元素
(i0, i1, i2, i3) 位于扁平偏移 i0 + ne0·(i1 + ne1·(i2 + ne2·i3))。NumPy（C 顺序）从最慢的维度写起，所以 NumPy
形状是反过来的 `ne`：`Qcur-0 {64, 12, 2, 1}` 是 `[1, 2, 12, 64]`，`kq-0 {256, 2, 12, 1}` 是 `[1, 12, 2, 256]`。
Head 0 里 " are" 的 kq 行是 [-1.3936, -25.5417] → P [0.9534, 0.0466]。
"""
import numpy as np

from shape_checks import ggml_buffer, ggml_ne, ggml_sizes, say, size


def from_ggml(buffer, ne):
    """Return the NumPy array that GGML describes by a flat `buffer` and its sizes `ne`.

    Shapes: buffer [ne0·ne1·…] (flat, in memory order), ne = (ne0, ne1, …) fastest first ->
    array [… , ne1, ne0] (ne reversed; every axis kept, size-1 ones included).
    Read: lessons/en/step9_ggml_layout.md#ne-order.

    返回 GGML 用扁平 `buffer` 和大小 `ne` 描述的 NumPy 数组。

    形状：buffer [ne0·ne1·…]（扁平，按内存顺序），ne = (ne0, ne1, …) 从最快的写起 -> array [… , ne1, ne0]
    （ne 反过来；每个轴都保留，包括大小为 1 的轴）。阅读：lessons/zh/step9_ggml_layout.md#ne-order。
    """
    ne = ggml_ne("ne", ne)
    buffer = ggml_buffer("buffer", buffer, ne)
    ### BEGIN SOLUTION
    return buffer.reshape(tuple(reversed(ne)))  # C order: the last NumPy axis is GGML's ne0
    ### END SOLUTION


def to_ggml(array):
    """Return (buffer, ne): the flat buffer GGML would hold for `array` and its sizes fastest first.

    Shapes: array [s0, s1, …, s_last] -> buffer [s0·s1·…] (C order), ne int64 [ndim] =
    (s_last, …, s1, s0). from_ggml(*to_ggml(a)) gives back a.
    Read: lessons/en/step9_ggml_layout.md#ne-order.

    返回 (buffer, ne)：GGML 为 `array` 保存的扁平缓冲区，以及从最快的维度写起的大小。

    形状：array [s0, s1, …, s_last] -> buffer [s0·s1·…]（C 顺序），ne int64 [ndim] = (s_last, …, s1, s0)。
    from_ggml(*to_ggml(a)) 还原出 a。阅读：lessons/zh/step9_ggml_layout.md#ne-order。
    """
    array = np.asarray(array)
    if array.ndim < 1:
        raise ValueError(say("ggml_axes", shape=array.shape))
    ### BEGIN SOLUTION
    buffer = np.ascontiguousarray(array).reshape(-1)
    ne = np.array(array.shape[::-1], dtype=np.int64)
    return buffer, ne
    ### END SOLUTION


def read_qkv_dump(buffer, ne):
    """Return the per-head array [n_head, T, D_h] of a `Qcur`/`Kcur`/`Vcur` dump.

    Shapes: ne = {D_h, n_head, T, 1} (GGML order; `Qcur-0 {64, 12, 2, 1}`), buffer [D_h·n_head·T]
    -> [n_head, T, D_h]: row t of head h is token t's D_h features in that head.
    Read: lessons/en/step9_ggml_layout.md#qkv.

    返回 `Qcur`/`Kcur`/`Vcur` 转储对应的按 Head 分开的数组 [n_head, T, D_h]。

    形状：ne = {D_h, n_head, T, 1}（GGML 顺序；`Qcur-0 {64, 12, 2, 1}`），buffer [D_h·n_head·T] -> [n_head, T, D_h]：
    第 h 个 Head 的第 t 行是 Token t 在这个 Head 里的 D_h 个特征。阅读：lessons/zh/step9_ggml_layout.md#qkv。
    """
    ne = ggml_ne("ne", ne, count=4, last_one=True, layout="{D_h, n_head, T, 1}")
    buffer = ggml_buffer("buffer", buffer, ne)
    ### BEGIN SOLUTION
    per_token = from_ggml(buffer, ne)[0]  # [T, n_head, D_h]
    return np.ascontiguousarray(np.swapaxes(per_token, 0, 1))  # [n_head, T, D_h]
    ### END SOLUTION


def read_kq_dump(buffer, ne, n_keys):
    """Return the scores [n_head, T_q, T_k] of a `kq`/`kq_soft_max` dump, the padding dropped.

    Shapes: ne = {n_kv, T_q, n_head, 1} (GGML order; `kq-0 {256, 2, 12, 1}`), buffer
    [n_kv·T_q·n_head]; n_keys = T_k, the key slots in use (T_q <= T_k <= n_kv). The cache view has
    n_kv slots (padded, 256 in the lesson); slots 0 … T_k - 1 hold the keys, the rest are padding.
    Read: lessons/en/step9_ggml_layout.md#kq-padding.

    返回 `kq`/`kq_soft_max` 转储里的分数 [n_head, T_q, T_k]，去掉 padding。

    形状：ne = {n_kv, T_q, n_head, 1}（GGML 顺序；`kq-0 {256, 2, 12, 1}`），buffer [n_kv·T_q·n_head]；n_keys = T_k，
    正在使用的 Key 槽位数（T_q <= T_k <= n_kv）。缓存视图有 n_kv 个槽位（取整对齐，课程里是 256）；槽位 0 … T_k - 1
    存放 Key，其余是 padding。阅读：lessons/zh/step9_ggml_layout.md#kq-padding。
    """
    ne = ggml_ne("ne", ne, count=4, last_one=True, layout="{n_kv, T_q, n_head, 1}")
    buffer = ggml_buffer("buffer", buffer, ne)
    n_keys = size("n_keys", n_keys)
    if not ne[1] <= n_keys <= ne[0]:
        raise ValueError(say("kq_keys", t_q=ne[1], n_kv=ne[0], sizes=ggml_sizes(ne), n_keys=n_keys))
    ### BEGIN SOLUTION
    scores = from_ggml(buffer, ne)[0]  # [n_head, T_q, n_kv]
    return np.ascontiguousarray(scores[..., :n_keys])  # keys first, padding after
    ### END SOLUTION
