"""The known mistakes as small wrong implementations, written the way a learner would write them.

A `Slip` stands in for one reference function. It first runs the reference on the same arguments:
the learner's copy keeps the provided input checks, so bad inputs fail there with the same message
before the wrong line is reached. Then it runs the wrong line. `SLIPS` maps each code to its slips;
several slips for one code are alternative ways to make the same mistake (`Z @ W.T`, `W @ Z`, …),
each judged on its own.
"""
import dataclasses
import math
from dataclasses import dataclass
from functools import reduce
from typing import Callable

import numpy as np

from ..reference import reference_function as ref


@dataclass(frozen=True)
class Slip:
    module: str  # the step module whose function it replaces
    function: str
    impl: Callable  # same signature as the reference function


def slip(module, function):
    """Decorator: make `body` a Slip replacing `module.function` (reference checks run first)."""
    def make(body):
        def wrong(*args, **kwargs):
            ref(module, function)(*args, **kwargs)
            with np.errstate(all="ignore"):  # the learner's overflow/NaN warnings are not ours to show
                return body(*args, **kwargs)
        wrong.__name__, wrong.__qualname__, wrong.__doc__ = function, function, body.__doc__
        return Slip(module, function, wrong)
    return make


def _floats(x):
    """`x` as the provided float_array check hands it on: float32/float64 kept, the rest float64."""
    arr = np.asarray(x)
    return arr if arr.dtype in (np.float32, np.float64) else arr.astype(np.float64)


# step 1 — projections ---------------------------------------------------------------------------

def _projection(product):
    @slip("step1_projection", "project")
    def project(Z, W, b):
        """Z Wᵀ (or W Z) in place of Z W."""
        return product(_floats(Z), _floats(W)) + _floats(b)
    return project


@slip("step1_projection", "project_qkv")
def _qkv_transposed_weights(Z, W_Q, b_Q, W_K, b_K, W_V, b_V):
    """project(Z, W.T, b) for each of Q, K, V."""
    project = ref("step1_projection", "project")
    return tuple(project(Z, _floats(W).T, b) for W, b in ((W_Q, b_Q), (W_K, b_K), (W_V, b_V)))


@slip("step1_projection", "project")
def _project_without_bias(Z, W, b):
    """Z W, the bias left out."""
    return ref("step1_projection", "project")(Z, W, np.zeros_like(_floats(b)))


# step 2 — scores ------------------------------------------------------------------------------

def _scores(product):
    @slip("step2_scores", "raw_scores")
    def raw_scores(Q, K):
        """a product other than Q @ swapaxes(K, -1, -2)."""
        return product(_floats(Q), _floats(K))
    return raw_scores


def _scale(width):
    @slip("step2_scores", "scale_scores")
    def scale_scores(kq, d_h):
        return ref("step2_scores", "scale_scores")(kq, width(d_h))  # kq / sqrt(width(d_h))
    return scale_scores


# step 3 — masks -------------------------------------------------------------------------------

def _causal(rule):
    """causal_visible built from `rule(i, j, past)` instead of j <= past + i."""
    @slip("step3_masks", "causal_visible")
    def causal_visible(n_query, n_key=None):
        n_key = n_query if n_key is None else n_key
        return rule(np.arange(n_query)[:, None], np.arange(n_key)[None, :], n_key - n_query)
    return causal_visible


@slip("step3_masks", "combine_visible")
def _combine_with_or(*visibles):
    """visible where any table allows it."""
    return reduce(np.logical_or, [np.asarray(v) for v in visibles])


@slip("step3_masks", "combine_visible")
def _combine_first_two(*visibles):
    """visible where the first two tables allow it; any further table is left out."""
    return ref("step3_masks", "combine_visible")(*visibles[:2])


def _combined_as_one_array(stack):
    @slip("step3_masks", "combine_visible")
    def combine_visible(*visibles):
        """the tables made one array by `stack` (np.stack, np.array), then ANDed along its first axis:
        refused unless every table has the same shape (no broadcasting)."""
        return np.logical_and.reduce(stack([np.asarray(v) for v in visibles]))
    return combine_visible


@slip("step3_masks", "additive_mask")
def _additive_mask_inverted(visible, dtype=np.float64):
    """-inf where visible, 0 where hidden."""
    return ref("step3_masks", "additive_mask")(~np.asarray(visible), dtype)


@slip("step3_masks", "additive_mask")
def _additive_mask_zero_one(visible, dtype=np.float64):
    """1 where visible, 0 where hidden: a multiplicative mask added to the scores."""
    return np.asarray(visible).astype(dtype)


@slip("step3_masks", "additive_mask")
def _additive_mask_dtype_ignored(visible, dtype=np.float64):
    """M of float64 whatever dtype was asked for."""
    return ref("step3_masks", "additive_mask")(visible)


@slip("step3_masks", "additive_mask")
def _additive_mask_large_negative(visible, dtype=np.float64):
    """-1e9 where hidden instead of -inf."""
    return np.where(np.asarray(visible), 0.0, -1e9).astype(dtype)


def _swapped(function, reference_function):
    """`function` answering what `reference_function` answers (the two torch polarities)."""
    @slip("step3_masks", function)
    def adapter(visible):
        return ref("step3_masks", reference_function)(visible)
    return adapter


@slip("step3_masks", "padding_visible")
def _padding_backwards(attention_mask, n_query):
    """keys with 0 treated as the real tokens."""
    return ref("step3_masks", "padding_visible")(~np.asarray(attention_mask).astype(bool), n_query)


@slip("step3_masks", "to_torch_key_padding_mask")
def _key_padding_as_is(attention_mask):
    """the 1/0 vector passed on as is: True on the real tokens."""
    return ~ref("step3_masks", "to_torch_key_padding_mask")(attention_mask)


# step 4 — softmax -----------------------------------------------------------------------------

def _softmax_along(axis):
    @slip("step4_softmax", "softmax")
    def softmax(S):
        """normalised along `axis` instead of the last one."""
        moved = np.moveaxis(_floats(S), axis, -1)
        return np.moveaxis(ref("step4_softmax", "softmax")(moved), -1, axis)
    return softmax


def _softmax_shifted_by(shift, guarded=False):
    @slip("step4_softmax", "softmax")
    def softmax(S):
        """exp(S - shift) over the row sum; `guarded` keeps rows whose sum is 0 at zeros."""
        E = np.exp(_floats(S) - shift(_floats(S)))
        total = E.sum(axis=-1, keepdims=True)
        if guarded:
            return np.divide(E, total, out=np.zeros_like(E), where=total > 0)
        return E / total
    return softmax


@slip("step4_softmax", "softmax")
def _softmax_large_negative(S):
    """-inf replaced by -1e9 before a stable softmax: a row with no visible key is uniform."""
    S = _floats(S)
    return ref("step4_softmax", "softmax")(np.where(np.isneginf(S), S.dtype.type(-1e9), S))


# step 5 — values ------------------------------------------------------------------------------

@slip("step5_values", "weighted_sum")
def _weights_transposed(P, V):
    """Pᵀ V."""
    return np.swapaxes(_floats(P), -1, -2) @ _floats(V)


@slip("step5_values", "weighted_sum")
def _weights_dot(P, V):
    """np.dot(P, V): on batched arrays it pairs every batch of P with every batch of V."""
    return np.dot(_floats(P), _floats(V))


# step 6 — the head ----------------------------------------------------------------------------

def _unmasked_scores(Q, K, visible, width=None):
    """(kq / sqrt(D_h), the visibility table) as the reference attention builds them; kq / sqrt(`width`) if given."""
    Q, K = _floats(Q), _floats(K)
    table = ref("step3_masks", "causal_visible")(Q.shape[-2], K.shape[-2]) if visible is None else np.asarray(visible)
    kq = ref("step2_scores", "raw_scores")(Q, K)
    return ref("step2_scores", "scale_scores")(kq, Q.shape[-1] if width is None else width), table


def _softmax_of(S):
    """The reference softmax (a slip inside step 6 uses the right earlier steps)."""
    return ref("step4_softmax", "softmax")(S)


def _head(weights):
    """attention with P = weights(unmasked scaled scores, table) and O = P V."""
    @slip("step6_head", "attention")
    def attention(Q, K, V, visible=None):
        P = weights(*_unmasked_scores(Q, K, visible))
        return ref("step5_values", "weighted_sum")(P, V), P
    return attention


@slip("step6_head", "attention")
def _mask_without_dtype(Q, K, V, visible=None):
    """M = additive_mask(visible) without dtype: float64, so S, P and O become float64."""
    S, table = _unmasked_scores(Q, K, visible)
    P = _softmax_of(S + ref("step3_masks", "additive_mask")(table))
    return ref("step5_values", "weighted_sum")(P, V), P


@slip("step6_head", "attention")
def _weights_on_keys(Q, K, V, visible=None):
    """O = P K."""
    return ref("step6_head", "attention")(Q, K, K, visible)


@slip("step6_head", "attention")
def _outputs_swapped(Q, K, V, visible=None):
    """return P, O."""
    return ref("step6_head", "attention")(Q, K, V, visible)[::-1]


@slip("step6_head", "attention")
def _visible_ignored(Q, K, V, visible=None):
    """the causal table whatever `visible` says."""
    return ref("step6_head", "attention")(Q, K, V)


@slip("step6_head", "attention")
def _scaled_by_key_count(Q, K, V, visible=None):
    """S = scale_scores(kq, T_k), the number of keys, not D_h (as a learner writes it: the same rounding)."""
    S, table = _unmasked_scores(Q, K, visible, width=np.shape(K)[-2])
    P = _softmax_of(S + ref("step3_masks", "additive_mask")(table, dtype=S.dtype))
    return ref("step5_values", "weighted_sum")(P, V), P


@slip("step6_head", "attention_head")
def _scaled_by_model_width(Z, W_Q, b_Q, W_K, b_K, W_V, b_V, visible=None):
    """S = kq / sqrt(D) with D = Z's width (768), not D_h (64)."""
    trace = ref("step6_head", "attention_head")(Z, W_Q, b_Q, W_K, b_K, W_V, b_V, visible)
    ratio = math.sqrt(trace.Q.shape[-1] / _floats(Z).shape[-1])  # (Q ratio) Kᵀ / sqrt(D_h) = kq / sqrt(D)
    O, P = ref("step6_head", "attention")(trace.Q * ratio, trace.K, trace.V, visible)
    return dataclasses.replace(trace, kq_soft_max=P, kqv=O)


@slip("step6_head", "attention_head")
def _kq_scaled(Z, W_Q, b_Q, W_K, b_K, W_V, b_V, visible=None):
    """the trace's kq holds kq / sqrt(D_h) instead of the raw Q Kᵀ."""
    trace = ref("step6_head", "attention_head")(Z, W_Q, b_Q, W_K, b_K, W_V, b_V, visible)
    return dataclasses.replace(trace, kq=ref("step2_scores", "scale_scores")(trace.kq, trace.Q.shape[-1]))


# step 7 — the layer ---------------------------------------------------------------------------

@slip("step7_layer", "split_heads")
def _heads_by_reshape(X, n_head):
    """X.reshape(n_head, T, D_h) without the transpose: heads filled in memory order, tokens mixed."""
    X = _floats(X)
    T, D = X.shape[-2:]
    return X.reshape(*X.shape[:-2], n_head, T, D // n_head)


def _qkv_order(order):
    @slip("step7_layer", "split_qkv")
    def split_qkv(X, c_attn_weight, c_attn_bias):
        """Q, K, V cut from the fused output in another order."""
        parts = ref("step7_layer", "split_qkv")(X, c_attn_weight, c_attn_bias)
        return tuple(parts[k] for k in order)
    return split_qkv


@slip("step7_layer", "merge_heads")
def _merged_by_reshape(O):
    """O.reshape(T, D) straight from [n_head, T, D_h]: rows of different tokens glued together."""
    O = _floats(O)
    n_head, T, D_h = O.shape[-3:]
    return O.reshape(*O.shape[:-3], T, n_head * D_h)


@slip("step7_layer", "gpt2_attention")
def _without_proj_bias(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, visible=None):
    """out = merged @ c_proj_weight, without c_proj_bias."""
    trace = ref("step7_layer", "gpt2_attention")(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                                 n_head, visible)
    return dataclasses.replace(trace, out=trace.out - _floats(c_proj_bias).astype(trace.out.dtype))


# step 8 — the KV cache ------------------------------------------------------------------------

@slip("step8_kv_cache", "decode_step")
def _appended_after_attending(Z_new, K_past, V_past, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    """attends to the old cache, then appends: no new token reads itself (the first one reads nothing)."""
    split = ref("step7_layer", "split_heads")
    Q, K_new, V_new = (split(X, n_head) for X in ref("step7_layer", "split_qkv")(Z_new, c_attn_weight, c_attn_bias))
    K_past, V_past = _floats(K_past), _floats(V_past)
    n_past = K_past.shape[-2]
    O = (ref("step6_head", "attention")(Q, K_past, V_past, np.ones((Q.shape[-2], n_past), dtype=bool))[0]
         if n_past else np.zeros_like(Q))
    out = ref("step1_projection", "project")(ref("step7_layer", "merge_heads")(O), c_proj_weight, c_proj_bias)
    K, V = ref("step8_kv_cache", "append_kv")(K_past, V_past, K_new, V_new)
    return ref("step8_kv_cache", "DecodeStep")(out=out, K=K, V=V)


@slip("step8_kv_cache", "chunk_positions")
def _positions_from_zero(n_past, n_new):
    """positions 0 … n_new - 1 for every chunk, as if it began the text."""
    return np.arange(n_new, dtype=np.int64)


@slip("step8_kv_cache", "chunk_visible")
def _chunk_top_left(positions, n_key):
    """j <= i with i the chunk's row number: the triangle in the top-left corner, positions ignored."""
    rows = np.arange(len(positions))
    return np.arange(n_key)[None, :] <= rows[:, None]


@slip("step8_kv_cache", "chunk_visible")
def _chunk_diagonal_excluded(positions, n_key):
    """key j visible when j < the query's position: no new token reads itself."""
    return np.arange(n_key)[None, :] < np.asarray(positions)[:, None]


# step 9 — llama.cpp's GGML layout ---------------------------------------------------------------

def _reshaped_by_ne(order):
    @slip("step9_ggml_layout", "from_ggml")
    def from_ggml(buffer, ne):
        """buffer.reshape(ne, order): ne taken as a NumPy shape (C order), or as axes in GGML order (F)."""
        return _floats(buffer).reshape(tuple(int(n) for n in np.asarray(ne)), order=order)
    return from_ggml


@slip("step9_ggml_layout", "to_ggml")
def _ne_as_numpy_shape(array):
    """ne = array.shape, not reversed."""
    buffer, ne = ref("step9_ggml_layout", "to_ggml")(array)
    return buffer, ne[::-1].copy()


@slip("step9_ggml_layout", "read_qkv_dump")
def _qkv_tokens_first(buffer, ne):
    """[T, n_head, D_h]: the dump reversed, heads not moved in front of tokens."""
    return ref("step9_ggml_layout", "from_ggml")(buffer, ne)[0]


@slip("step9_ggml_layout", "read_kq_dump")
def _kq_queries_first(buffer, ne, n_keys):
    """[T_q, n_head, T_k]: heads and queries swapped as if kq were laid out like Qcur."""
    return np.swapaxes(ref("step9_ggml_layout", "read_kq_dump")(buffer, ne, n_keys), 0, 1)


def _kq_slots(keep):
    @slip("step9_ggml_layout", "read_kq_dump")
    def read_kq_dump(buffer, ne, n_keys):
        """the key slots `keep(scores, n_keys)` picks instead of the first n_keys."""
        return keep(ref("step9_ggml_layout", "from_ggml")(buffer, ne)[0], n_keys)
    return read_kq_dump


# step 13 — the backward pass ----------------------------------------------------------------------

def _softmax_backward_with(row_sum):
    @slip("step13_backward", "softmax_backward")
    def softmax_backward(P, dP):
        """P ⊙ (dP - row_sum(dP ⊙ P)) with another row sum than over the keys, kept as a column."""
        P, dP = _floats(P), _floats(dP)
        return P * (dP - row_sum(dP * P))
    return softmax_backward


def _masked_weights(Q, K, visible):
    """P from step 6's attention (the reference's way)."""
    return ref("step6_head", "attention")(Q, K, np.zeros_like(K), visible)[1]


def _unmasked_weights(Q, K, visible):
    """softmax(Q Kᵀ / sqrt(D_h)) over every key: the mask left out of the backward pass."""
    return _softmax_of(_unmasked_scores(Q, K, visible)[0])


def _weights_nan_on_empty_rows(Q, K, visible):
    """exp(S - max) / sum of the masked scores: -inf - (-inf) = NaN on a row with no visible key."""
    S, table = _unmasked_scores(Q, K, visible)
    S = np.where(table, S, -np.inf)
    E = np.exp(S - S.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)


def _head_backward(weights=_masked_weights, dV=lambda P, dO: P.T @ dO, dK=lambda dS, Q: dS.T @ Q, scaled=("dQ", "dK")):
    """attention_backward with P = weights(Q, K, visible), dV = dV(P, dO) and dK = dK(dS, Q) (times
    1/sqrt(D_h) for each gradient named in `scaled`)."""
    @slip("step13_backward", "attention_backward")
    def attention_backward(Q, K, V, dO, visible=None):
        Q, K, V, dO = (_floats(x) for x in (Q, K, V, dO))
        P = weights(Q, K, visible)
        dS = ref("step13_backward", "softmax_backward")(P, dO @ V.T)
        scale = {name: 1 / math.sqrt(Q.shape[-1]) if name in scaled else 1.0 for name in ("dQ", "dK")}
        return dS @ K * scale["dQ"], dK(dS, Q) * scale["dK"], dV(P, dO)
    return attention_backward
# step 12 — rotary position embeddings ------------------------------------------------------------

def _inverse_frequencies(exponent):
    @slip("step12_rope", "rope_frequencies")
    def rope_frequencies(d_head, base=10000.0):
        """base ** exponent(i, d_head), a wrong exponent in place of -2 i / d_head."""
        i = np.arange(int(d_head) // 2)
        return float(base) ** exponent(i, int(d_head))
    return rope_frequencies


@slip("step12_rope", "rope_frequencies")
def _base_fixed(d_head, base=10000.0):
    """10000 ** (-2 i / d_head) whatever the base."""
    return ref("step12_rope", "rope_frequencies")(d_head)


def _angles(X, positions, base):
    """angle [T, d_head/2] = positions[t] · inv_freq[i], the reference's."""
    return np.asarray(positions)[:, None] * ref("step12_rope", "rope_frequencies")(X.shape[-1], base)


_OTHER_PAIRING = {"half": "adjacent", "adjacent": "half"}


def _rope_called_with(change):
    @slip("step12_rope", "apply_rope")
    def apply_rope(X, positions, base=10000.0, pairing="half"):
        """the right rotation of changed arguments: `change(X, positions, base, pairing)`."""
        return ref("step12_rope", "apply_rope")(*change(_floats(X), np.asarray(positions).astype(np.int64), base,
                                                        pairing))
    return apply_rope


@slip("step12_rope", "apply_rope")
def _position_added(X, positions, base=10000.0, pairing="half"):
    """X + the sinusoidal position vector (sin, cos of the angles), as the first Transformer added it."""
    X = _floats(X)
    angle = _angles(X, positions, base)
    return (X + np.stack([np.sin(angle), np.cos(angle)], axis=-1).reshape(X.shape[-2:])).astype(X.dtype)


@slip("step12_rope", "apply_rope")
def _angles_for_other_pairing(X, positions, base=10000.0, pairing="half"):
    """X cos + rotate(X) sin with the angles repeated as the other pairing lays them out."""
    X = _floats(X)
    angle = _angles(X, positions, base)
    half = X.shape[-1] // 2
    if pairing == "half":  # rotate_half, with the angles side by side as adjacent pairs need them
        full, rotated = np.repeat(angle, 2, axis=-1), np.concatenate([-X[..., half:], X[..., :half]], axis=-1)
    else:  # (-y, x) of each adjacent pair, with the angles in halves as rotate_half needs them
        full = np.concatenate([angle, angle], axis=-1)
        rotated = np.stack([-X[..., 1::2], X[..., 0::2]], axis=-1).reshape(X.shape)
    return (X * np.cos(full) + rotated * np.sin(full)).astype(X.dtype)


def _rope_attention(q_positions=lambda past, T_q: past + np.arange(T_q), turn_keys=True, turn_values=False):
    @slip("step12_rope", "rope_attention")
    def rope_attention(Q, K, V, past=0, base=10000.0, pairing="half"):
        """Q turned at q_positions(past, T_q), K turned or not, V turned or not, then causal attention."""
        rope = ref("step12_rope", "apply_rope")
        Q, K, V = _floats(Q), _floats(K), _floats(V)
        keys = np.arange(K.shape[0])
        Q = rope(Q, q_positions(past, Q.shape[0]), base, pairing)
        K = rope(K, keys, base, pairing) if turn_keys else K
        V = rope(V, keys, base, pairing) if turn_values else V
        return ref("step6_head", "attention")(Q, K, V)
    return rope_attention
# step 10 — tiled attention with an online softmax -----------------------------------------------

def _online(rescale_l, rescale_acc, guarded=True):
    @slip("step10_tiled", "online_softmax_update")
    def online_softmax_update(m, l, acc, S_block, V_block):
        """l and acc multiplied by `rescale_l(m, shift)` and `rescale_acc(m, shift)` (1 where not rescaled),
        shift = m_new, or 0 for a row still at -inf when `guarded`."""
        m, l, acc, S, V = (_floats(x) for x in (m, l, acc, S_block, V_block))
        m_new = np.maximum(m, S.max(axis=-1, initial=-np.inf))
        shift = np.where(np.isneginf(m_new), 0.0, m_new) if guarded else m_new
        E = np.exp(S - shift[:, None])
        return m_new, rescale_l(m, shift) * l + E.sum(axis=-1), rescale_acc(m, shift)[:, None] * acc + E @ V
    return online_softmax_update


def _not_rescaled(m, shift):
    return np.ones_like(m)


def _rescaled(m, shift):
    return np.exp(m - shift)


def _tiled(causal_offset=lambda T_q, T_k, start: T_k - T_q, end=lambda T_k, block: T_k, divided=True):
    @slip("step10_tiled", "attention_tiled")
    def attention_tiled(Q, K, V, visible=None, block=64):
        """the reference's walk with query i at `causal_offset` + i, blocks started below `end`, O = acc / l
        only when `divided`."""
        Q, K, V = _floats(Q), _floats(K), _floats(V)
        T_q, T_k = Q.shape[0], K.shape[0]
        update = ref("step10_tiled", "online_softmax_update")
        m, l, acc = np.full(T_q, -np.inf), np.zeros(T_q), np.zeros((T_q, V.shape[1]))
        for start in range(0, end(T_k, block), block):
            keys = slice(start, min(start + block, T_k))
            S = Q @ K[keys].T / math.sqrt(Q.shape[1])
            position = np.arange(T_q)[:, None] + causal_offset(T_q, T_k, start)
            seen = np.arange(start, keys.stop)[None, :] <= position if visible is None else np.asarray(visible)[:, keys]
            m, l, acc = update(m, l, acc, np.where(seen, S, -np.inf), V[keys])
        return np.divide(acc, l[:, None], out=np.zeros_like(acc), where=l[:, None] > 0) if divided else acc
    return attention_tiled


@slip("step10_tiled", "attention_tiled")
def _tiled_all_scores(Q, K, V, visible=None, block=64):
    """step 6's attention: every score [T_q, T_k] at once."""
    return ref("step6_head", "attention")(Q, K, V, visible)[0]


@slip("step10_tiled", "attention_tiled")
def _tiled_whole_causal_table(Q, K, V, visible=None, block=64):
    """the reference's walk over the columns of causal_visible(T_q, T_k), built whole for visible=None."""
    table = ref("step3_masks", "causal_visible")(np.shape(Q)[0], np.shape(K)[0]) if visible is None else visible
    return ref("step10_tiled", "attention_tiled")(Q, K, V, table, block)
# step 11 — grouped-query attention ------------------------------------------------------------

def _kv_heads(rule):
    @slip("step11_gqa", "kv_head_for")
    def kv_head_for(n_head, n_kv_head):
        """KV head `rule(h, n_head, n_kv_head)` for query head h instead of h // (n_head // n_kv_head)."""
        return rule(np.arange(n_head, dtype=np.int64), n_head, n_kv_head)
    return kv_head_for


def _gqa_keys(shared):
    """attention_gqa with K and V given to the query heads by `shared(X, group, n_head)` instead of X[kv_of]."""
    @slip("step11_gqa", "attention_gqa")
    def attention_gqa(Q, K, V, visible=None):
        Q, K, V = _floats(Q), _floats(K), _floats(V)
        group = Q.shape[0] // K.shape[0]
        return ref("step6_head", "attention")(Q, shared(K, group, Q.shape[0]), shared(V, group, Q.shape[0]), visible)
    return attention_gqa


def _cache_bytes(bytes_per_value, factor=2, heads=lambda n_head, n_kv_head: n_kv_head):
    @slip("step11_gqa", "kv_cache_bytes")
    def kv_cache_bytes(n_layer, n_head, n_kv_head, d_head, n_ctx, dtype="float16"):
        """factor · n_layer · heads(n_head, n_kv_head) · d_head · n_ctx · bytes_per_value(dtype, the reference's
        table)."""
        per_value = bytes_per_value(dtype, ref("step11_gqa", "BYTES_PER_VALUE"))
        return factor * n_layer * heads(n_head, n_kv_head) * d_head * n_ctx * per_value
    return kv_cache_bytes


SLIPS = {
    "projection_transposed": (_projection(lambda Z, W: Z @ W.T), _projection(lambda Z, W: W @ Z),
                              _projection(lambda Z, W: np.dot(Z, W.T)), _qkv_transposed_weights),
    "bias_missing": (_project_without_bias,),
    "keys_not_transposed": (_scores(lambda Q, K: Q @ K),),
    "scores_transposed": (_scores(lambda Q, K: K @ np.swapaxes(Q, -1, -2)),),
    "batch_transpose": (_scores(lambda Q, K: Q @ K.T),),
    "scale_missing": (_scale(lambda d_h: 1),),
    "scale_rounded": (_scale(lambda d_h: int(math.sqrt(d_h)) ** 2),),
    "scale_by_keys": (_scaled_by_key_count,),
    "scale_by_d": (_scale(lambda d_h: d_h * d_h),),
    "scale_by_model_dim": (_scaled_by_model_width,),
    "kq_scaled": (_kq_scaled,),
    "mask_top_left": (_causal(lambda i, j, past: j <= i), _chunk_top_left),
    "mask_past_sign": (_causal(lambda i, j, past: j <= i - past),),
    "mask_off_by_one": (_causal(lambda i, j, past: j <= past + i + 1),),
    "mask_diagonal_excluded": (_causal(lambda i, j, past: j < past + i), _chunk_diagonal_excluded),
    "mask_inverted": (_causal(lambda i, j, past: j > past + i), _causal(lambda i, j, past: j >= past + i),
                      _additive_mask_inverted),
    "mask_combined_with_or": (_combine_with_or,),
    "mask_table_dropped": (_combine_first_two,),
    "mask_tables_stacked": (_combined_as_one_array(np.stack), _combined_as_one_array(np.array)),
    "mask_dtype_missing": (_additive_mask_dtype_ignored, _mask_without_dtype),
    "mask_zero_fill": (_additive_mask_zero_one, _head(lambda S, table: _softmax_of(np.where(table, S, 0)))),
    "mask_large_negative": (_additive_mask_large_negative, _softmax_large_negative,
                            _head(lambda S, table: _softmax_of(np.where(table, S, S.dtype.type(-1e9))))),
    "mask_after_softmax": (_head(lambda S, table: _softmax_of(S) * table),),
    "mask_not_applied": (_head(lambda S, table: _softmax_of(S)),),
    "torch_mha_polarity": (_swapped("to_torch_mha_mask", "to_torch_sdpa_mask"),),
    "torch_sdpa_polarity": (_swapped("to_torch_sdpa_mask", "to_torch_mha_mask"),),
    "hf_padding_polarity": (_padding_backwards, _key_padding_as_is),
    "fully_masked_nan": (_softmax_shifted_by(lambda S: S.max(axis=-1, keepdims=True)),),
    "softmax_unstable": (_softmax_shifted_by(lambda S: 0), _softmax_shifted_by(lambda S: 0, guarded=True)),
    "softmax_wrong_axis": (_softmax_along(-2), _softmax_along(0)),
    "weights_transposed": (_weights_transposed,),
    "weights_on_keys": (_weights_on_keys,),
    "batch_dot": (_weights_dot,),
    "outputs_swapped": (_outputs_swapped,),
    "visible_ignored": (_visible_ignored,),
    "qkv_order_swapped": (_qkv_order((1, 0, 2)), _qkv_order((2, 1, 0))),
    "heads_split_without_transpose": (_heads_by_reshape,),
    "heads_merged_wrong_order": (_merged_by_reshape,),
    "proj_bias_missing": (_without_proj_bias,),
    "cache_appended_after_attending": (_appended_after_attending,),
    "positions_restarted": (_positions_from_zero,),
    "ggml_ne_not_reversed": (_reshaped_by_ne("C"), _reshaped_by_ne("F"), _ne_as_numpy_shape),
    "ggml_heads_tokens_swapped": (_qkv_tokens_first, _kq_queries_first),
    "kq_padding_kept": (_kq_slots(lambda scores, n_keys: scores),),
    "kq_padding_wrong_end": (_kq_slots(lambda scores, n_keys: scores[..., scores.shape[-1] - n_keys:]),),
    "softmax_backward_no_rowsum": (_softmax_backward_with(lambda X: 0),),
    "softmax_backward_rowsum_axis": (_softmax_backward_with(lambda X: X.sum(axis=-2, keepdims=True)),
                                     _softmax_backward_with(lambda X: X.sum(axis=-1))),
    "backward_scale_missing": (_head_backward(scaled=()), _head_backward(scaled=("dQ",))),
    "backward_dv_not_transposed": (_head_backward(dV=lambda P, dO: P @ dO),),
    "backward_dk_not_transposed": (_head_backward(dK=lambda dS, Q: dS @ Q),),
    "backward_mask_dropped": (_head_backward(weights=_unmasked_weights),),
    "backward_fully_masked_nan": (_head_backward(weights=_weights_nan_on_empty_rows),),
    "rope_freq_factor_two": (_inverse_frequencies(lambda i, d: -i / d),
                             _inverse_frequencies(lambda i, d: -2 * i / (d / 2))),
    "rope_freq_not_inverted": (_inverse_frequencies(lambda i, d: 2 * i / d),),
    "rope_base_ignored": (_base_fixed,),
    "rope_pairing_swapped": (_rope_called_with(lambda X, p, base, pairing: (X, p, base, _OTHER_PAIRING[pairing])),),
    "rope_angles_laid_out_for_other_pairing": (_angles_for_other_pairing,),
    "rope_sin_sign": (_rope_called_with(lambda X, p, base, pairing: (X, -p, base, pairing)),),  # turned by -angle
    "rope_positions_restarted": (_rope_called_with(lambda X, p, base, pairing: (X, np.arange(X.shape[-2]), base,
                                                                                pairing)),
                                 _rope_attention(q_positions=lambda past, T_q: np.arange(T_q))),
    "rope_added_not_rotated": (_position_added,),
    "rope_on_values": (_rope_attention(turn_values=True),),
    "rope_keys_not_rotated": (_rope_attention(turn_keys=False),),
    "online_not_rescaled": (_online(_not_rescaled, _not_rescaled),),
    "online_output_not_rescaled": (_online(_rescaled, _not_rescaled),),
    "online_rescale_inverted": (_online(lambda m, shift: np.exp(shift - m), lambda m, shift: np.exp(shift - m)),),
    "online_unseen_row_nan": (_online(_rescaled, _rescaled, guarded=False),),
    "tiled_division_missing": (_tiled(divided=False),),
    "tiled_mask_top_left": (_tiled(causal_offset=lambda T_q, T_k, start: 0),
                            _tiled(causal_offset=lambda T_q, T_k, start: start)),
    "tiled_last_block_dropped": (_tiled(end=lambda T_k, block: T_k - block + 1), _tiled(end=lambda T_k, block: T_k - block)),
    "tiled_holds_every_key": (_tiled_all_scores, _tiled_whole_causal_table),
    "gqa_heads_interleaved": (_kv_heads(lambda h, n_head, n_kv: h % n_kv),
                              _gqa_keys(lambda X, group, n_head: np.tile(X, (group, 1, 1)))),
    "gqa_group_by_kv_count": (_kv_heads(lambda h, n_head, n_kv: h // n_kv),),
    "kv_repeated_wrong_axis": (
        _gqa_keys(lambda X, group, n_head: np.repeat(X, group, axis=1).reshape(n_head, *X.shape[1:])),
        _gqa_keys(lambda X, group, n_head: np.repeat(X, group, axis=1)),
        _gqa_keys(lambda X, group, n_head: np.repeat(X, group).reshape(n_head, *X.shape[1:]))),
    "kv_not_repeated": (_gqa_keys(lambda X, group, n_head: X),),
    "cache_bytes_k_only": (_cache_bytes(lambda dtype, table: table[dtype], factor=1),),
    "cache_bytes_with_query_heads": (_cache_bytes(lambda dtype, table: table[dtype],
                                                  heads=lambda n_head, n_kv_head: n_head),),
    "cache_bytes_wrong_dtype": (_cache_bytes(lambda dtype, table: 4), _cache_bytes(lambda dtype, table: 8 * table[dtype])),
    "cache_bfloat16_from_numpy": (_cache_bytes(lambda dtype, table: np.dtype(dtype).itemsize),),
}
