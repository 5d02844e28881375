"""Step 8 — decoding with a KV cache: new tokens attend to the cached past and to themselves.

lessons/en/step8_kv_cache.md#cache (Chinese: lessons/zh/, same names). Generation feeds a few
tokens at a time. The cache holds every earlier token's K and V, per head ([n_head, T_past, D_h]);
a step computes Q, K, V of the new tokens only, appends their K and V to the cache FIRST (a token
reads itself), and lets new token i, at absolute position T_past + i, read keys 0 … T_past + i.
The rows it returns are the rows the full causal pass (step 7) gives for those positions.

第 8 步 —— 带 KV Cache 的解码：新 Token 关注缓存里的过去和它们自己。

lessons/zh/step8_kv_cache.md#cache。生成时每次输入几个 Token。缓存按 Head 保存之前每个 Token 的 K 和 V
（[n_head, T_past, D_h]）；一步只计算新 Token 的 Q、K、V，**先**把它们的 K 和 V 追加到缓存里（Token 要读它
自己），再让位于绝对位置 T_past + i 的第 i 个新 Token 读 Key 0 … T_past + i。它返回的行，就是完整因果计算
（第 7 步）在这些位置给出的行。
"""
from dataclasses import dataclass

import numpy as np

from shape_checks import batch_axes, float_array, same_size, say, size
from step1_projection import project
from step6_head import attention
from step7_layer import check_layer_weights, head_count, merge_heads, split_heads, split_qkv


@dataclass(frozen=True)
class DecodeStep:
    """What one decoding step gives back.

    一步解码返回的结果。
    """

    out: np.ndarray  # [T_new, D]  the layer's output rows of the new tokens
    K: np.ndarray  # [n_head, T_past + T_new, D_h]  the cache after the step
    V: np.ndarray  # [n_head, T_past + T_new, D_h]


def append_kv(K_past, V_past, K_new, V_new):
    """Return (K, V): the cache with the new tokens' keys and values after the past ones.

    Shapes: K_past, V_past [..., T_past, D_h]; K_new, V_new [..., T_new, D_h] -> K, V
    [..., T_past + T_new, D_h]. Inputs are not modified. Read: lessons/en/step8_kv_cache.md#cache.

    返回 (K, V)：把新 Token 的 Key 和 Value 接在过去的后面得到的缓存。

    形状：K_past、V_past [..., T_past, D_h]；K_new、V_new [..., T_new, D_h] -> K、V [..., T_past + T_new, D_h]。
    不修改输入。阅读：lessons/zh/step8_kv_cache.md#cache。
    """
    arrays = {name: float_array(name, x, min_ndim=2, shape_text=f"[..., T_{name.split('_')[1]}, D_h]")
              for name, x in (("K_past", K_past), ("V_past", V_past), ("K_new", K_new), ("V_new", V_new))}
    for past, new in (("K_past", "K_new"), ("V_past", "V_new")):
        same_size("append_kv", f"{past} (D_h)", arrays[past].shape[-1], f"{new} (D_h)", arrays[new].shape[-1],
                  arrays[past].shape, arrays[new].shape)
        batch_axes(past, arrays[past], new, arrays[new])
    # YOUR CODE HERE
    raise NotImplementedError('Step 8 (step8_kv_cache.append_kv) is not written yet: replace this raise with your code. Read lessons/en/step8_kv_cache.md. 第 8 步（step8_kv_cache.append_kv）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step8_kv_cache.md。')


def chunk_positions(n_past, n_new):
    """Return the absolute positions of n_new tokens that follow n_past cached ones: int64 [n_new].

    They are n_past, n_past + 1, …: the same numbers pick the rows of GPT-2's position embedding
    (wpe) before the layer. Read: lessons/en/step8_kv_cache.md#positions.

    返回接在 n_past 个已缓存 Token 之后的 n_new 个 Token 的绝对位置：int64 [n_new]。

    它们是 n_past、n_past + 1、……：同样的数也用来在这一层之前选出 GPT-2 位置嵌入（wpe）的行。
    阅读：lessons/zh/step8_kv_cache.md#positions。
    """
    n_past, n_new = size("n_past", n_past), size("n_new", n_new)
    # YOUR CODE HERE
    raise NotImplementedError('Step 8 (step8_kv_cache.chunk_positions) is not written yet: replace this raise with your code. Read lessons/en/step8_kv_cache.md. 第 8 步（step8_kv_cache.chunk_positions）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step8_kv_cache.md。')


def chunk_visible(positions, n_key):
    """Return the visibility table of new tokens at absolute `positions` over n_key cached keys.

    Shapes: positions int [T_new]; n_key an int -> bool [T_new, n_key], True where key j <= the
    query's position. Read: lessons/en/step8_kv_cache.md#chunk-mask.

    返回位于绝对位置 `positions` 的新 Token 对 n_key 个已缓存 Key 的可见性表。

    形状：positions int [T_new]；n_key 是整数 -> bool [T_new, n_key]，Key j <= 这个 Query 的位置时为 True。
    阅读：lessons/zh/step8_kv_cache.md#chunk-mask。
    """
    positions = np.asarray(positions)
    if positions.ndim != 1 or not np.issubdtype(positions.dtype, np.integer):
        raise TypeError(say("positions_type", dtype=positions.dtype, shape=positions.shape))
    n_key = size("n_key", n_key)
    if positions.size and (positions.min() < 0 or positions.max() >= n_key):
        raise ValueError(say("positions_range", last=n_key - 1, low=positions.min(), high=positions.max()))
    # YOUR CODE HERE
    raise NotImplementedError('Step 8 (step8_kv_cache.chunk_visible) is not written yet: replace this raise with your code. Read lessons/en/step8_kv_cache.md. 第 8 步（step8_kv_cache.chunk_visible）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step8_kv_cache.md。')


def decode_step(Z_new, K_past, V_past, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    """Run the layer on new tokens with a cache: return a DecodeStep (out, and the cache K, V after it).

    Shapes: Z_new [T_new, D]; K_past, V_past [n_head, T_past, D_h]; weights as in step 7 ->
    out [T_new, D]; K, V [n_head, T_past + T_new, D_h]. Use step 7's split_qkv, split_heads and
    merge_heads, append_kv, chunk_positions, chunk_visible and step 6's attention.
    Read: lessons/en/step8_kv_cache.md#decode-step.

    用缓存在新 Token 上运行这一层：返回 DecodeStep（out，以及运行之后的缓存 K、V）。

    形状：Z_new [T_new, D]；K_past、V_past [n_head, T_past, D_h]；权重与第 7 步相同 -> out [T_new, D]；K、V
    [n_head, T_past + T_new, D_h]。用第 7 步的 split_qkv、split_heads 和 merge_heads，append_kv、chunk_positions、
    chunk_visible，以及第 6 步的 attention。阅读：lessons/zh/step8_kv_cache.md#decode-step。
    """
    Z_new = float_array("Z_new", Z_new, ndim=2, shape_text="[T_new, D]")
    n_head = head_count(n_head, Z_new.shape[-1])
    check_layer_weights(Z_new, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias)
    need = f"[n_head, T_past, D_h] = [{n_head}, T_past, {Z_new.shape[-1] // n_head}]"
    for name, cache in (("K_past", K_past), ("V_past", V_past)):
        cache = np.asarray(cache)
        if cache.ndim != 3 or cache.shape[0] != n_head or cache.shape[2] != Z_new.shape[-1] // n_head:
            raise ValueError(say("cache_shape", name=name, need=need, shape=cache.shape))
    same_size("decode_step", "K_past (T_past)", np.shape(K_past)[1], "V_past (T_past)", np.shape(V_past)[1],
              np.shape(K_past), np.shape(V_past))
    # YOUR CODE HERE
    raise NotImplementedError('Step 8 (step8_kv_cache.decode_step) is not written yet: replace this raise with your code. Read lessons/en/step8_kv_cache.md. 第 8 步（step8_kv_cache.decode_step）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step8_kv_cache.md。')


def decode_in_chunks(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, chunks):
    """Provided: feed Z [T, D] through decode_step in chunks of the given sizes, starting from an
    empty cache, and return the output rows stacked: [T, D]. chunks = [1] * T is token by token;
    [T] is the full causal pass; [3, 2] is the frame of lessons/en/ref_kv_cache.md#frame-past3-new2.

    提供的函数：从空缓存开始，按给定的大小把 Z [T, D] 分块送进 decode_step，返回堆叠起来的输出行：
    [T, D]。chunks = [1] * T 是逐个 Token；[T] 是完整的因果计算；[3, 2] 是 lessons/zh/ref_kv_cache.md#frame-past3-new2
    里的场景。
    """
    Z = float_array("Z", Z, ndim=2, shape_text="[T, D]")
    n_head = head_count(n_head, Z.shape[-1])
    sizes = np.asarray(chunks)
    if sizes.ndim != 1 or sizes.size == 0 or not np.all(sizes == np.round(sizes)) or np.any(sizes < 1):
        raise ValueError(say("chunks_sizes", chunks=repr(chunks)))
    if int(sizes.sum()) != Z.shape[0]:
        raise ValueError(say("chunks_total", rows=Z.shape[0], sizes=sizes.tolist(), total=int(sizes.sum())))
    K = V = np.zeros((n_head, 0, Z.shape[1] // n_head), dtype=Z.dtype)  # the empty cache
    rows, start = [], 0
    for n in sizes.astype(int):
        step = decode_step(Z[start:start + n], K, V, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head)
        rows.append(step.out)
        K, V, start = step.K, step.V, start + n
    return np.concatenate(rows, axis=0)
