"""The catalogue: each known mistake's stable code (SPEC "Diagnosis codes"), what it is, what to do.

`_TEXT` is in diagnosis order: when several mistakes explain the same output, the more specific
one — the one that changes fewer results, or names the symptom most exactly — comes first.
`K.T` on a batch, `Q @ K` and `W @ Z` can raise the very same matmul error in attention_head, so
the first two, the common slips there, come before projection_transposed.
"""
from dataclasses import dataclass
from functools import lru_cache

from .. import lessons
from .slips import SLIPS


@dataclass(frozen=True)
class Mistake:
    code: str  # SPEC code, e.g. "scale_by_d"
    step: str  # the step module where the slip is made, e.g. "step2_scores"
    summary: str  # one line
    advice: str  # what to change
    lesson: str  # where to read: a lesson reference, e.g. "step2_scores#scale" (attnkit.lessons)


_TEXT = (
    ("batch_transpose", "used .T on a batched array (reverses every axis)",
     "Transpose only the last two axes: np.swapaxes(K, -1, -2) (or K.swapaxes(-1, -2)); K.T on "
     "[12, T, 64] gives [64, T, 12].",
     "step2_scores#batched-heads"),
    ("keys_not_transposed", "multiplied Q K instead of Q Kᵀ",
     "Each score is a dot product of a query row with a key row: Q @ np.swapaxes(K, -1, -2).",
     "step2_scores#raw-scores"),
    ("projection_transposed", "used Wᵀ (or W Z) instead of Z W",
     "Rows of Z are tokens: multiply Z on the left, Z @ W, with W of shape [D, D_h].",
     "step1_projection#orientation-and-bias"),
    ("bias_missing", "left out the bias",
     "Add the head's bias to every row: Z @ W + b.",
     "step1_projection#orientation-and-bias"),
    ("scores_transposed", "computed K Qᵀ (rows are keys) instead of Q Kᵀ",
     "Rows of kq are queries (receivers), columns keys (providers): kq = Q @ Kᵀ.",
     "step2_scores#raw-scores"),
    ("scale_missing", "no 1/sqrt(D_h)",
     "Divide the raw scores by sqrt(D_h) before the mask and softmax (1/8 in GPT-2 Small).",
     "step2_scores#scale"),
    ("scale_by_d", "divided by D_h instead of sqrt(D_h)",
     "The scale is 1/sqrt(D_h): 1/8 for D_h = 64, not 1/64.",
     "step2_scores#scale"),
    ("scale_by_model_dim", "divided by sqrt(D) (model width) instead of sqrt(D_h)",
     "Use the head width D_h (Q's last axis, 64), not the width of Z (D = 768).",
     "step2_scores#scale"),
    ("kq_scaled", "returned the scaled scores as kq",
     "In the trace kq is the raw Q Kᵀ, as llama.cpp's `kq`; the 1/sqrt(D_h) comes after it.",
     "step6_head#trace"),
    ("mask_top_left", "KV-cache misaligned: top-left instead of bottom-right when T_k > T_q",
     "Query i sits at absolute position past + i with past = T_k - T_q: it may read keys 0 … past + i.",
     "ref_kv_cache#top-left-trap"),
    ("mask_off_by_one", "each position may also read the next one (causal table shifted by one)",
     "Query i may read keys 0 … past + i, itself included and nothing after it.",
     "step3_masks#causal"),
    ("mask_diagonal_excluded", "a position may not read itself",
     "The causal table includes its diagonal: key j is visible when j <= past + i.",
     "step3_masks#causal"),
    ("mask_inverted", "visibility polarity flipped: past hidden, future visible",
     "In this kit True means \"may read\", and M is 0 where visible, -inf where hidden.",
     "step3_masks#visibility-table"),
    ("mask_combined_with_or", "combined tables with OR (De Morgan slip)",
     "A key is readable only if every table allows it: combine visibility tables with & (AND).",
     "step3_masks#combine"),
    ("mask_table_dropped", "combined only the first two tables; a further table was left out",
     "combine_visible takes any number of tables: AND every one of them (loop over visibles, or "
     "np.logical_and.reduce).",
     "step3_masks#combine"),
    ("mask_dtype_missing", "the mask array M is float64: built without the scores' dtype",
     "A float64 M added to float32 scores makes S, P and O float64. additive_mask must return the dtype "
     "it is given (.astype(dtype)), and attention must ask for the scores' one: "
     "additive_mask(visible, dtype=kq.dtype).",
     "step3_masks#additive-mask"),
    ("mask_zero_fill", "masked scores set to 0 (or a masked weight multiplied) instead of -inf",
     "A hidden key's score must be -inf so that exp gives weight 0; a score of 0 still gets weight.",
     "step3_masks#additive-mask"),
    ("mask_after_softmax", "weights zeroed after softmax without renormalising",
     "Add M to the scores before softmax, so that the visible weights sum to 1.",
     "step4_softmax#masked-keys"),
    ("torch_mha_polarity", "gave nn.MultiheadAttention the visible table as is",
     "nn.MultiheadAttention's bool attn_mask is True where attending is NOT allowed: pass ~visible.",
     "ref_polarity#api-table"),
    ("torch_sdpa_polarity", "inverted the table for SDPA, which wants True = attend",
     "scaled_dot_product_attention's bool attn_mask is True where attending is allowed: pass visible "
     "as is.",
     "ref_polarity#api-table"),
    ("hf_padding_polarity", "read a Hugging Face 1/0 mask backwards",
     "In a Hugging Face attention_mask 1 is a real token and 0 is padding; key_padding_mask wants "
     "True on the padding.",
     "ref_padding#hf-polarity"),
    ("fully_masked_nan", "a row with no visible key gives NaN instead of zeros",
     "When a whole row is -inf, its max is -inf and -inf - (-inf) is NaN: give that row all zeros.",
     "ref_fully_masked#kit-policy"),
    ("softmax_unstable", "no max subtraction: overflow or NaN for large scores",
     "Subtract each row's largest finite score before exp; softmax is unchanged by the shift.",
     "step4_softmax#stability"),
    ("softmax_wrong_axis", "normalised over queries instead of keys",
     "Each query's row of keys must sum to 1: sum over axis=-1 with keepdims=True.",
     "step4_softmax#row-softmax"),
    ("weights_transposed", "used Pᵀ V",
     "O = P V: row i of O mixes the values with query i's row of weights.",
     "step5_values#values-not-keys"),
    ("weights_on_keys", "summed keys (P K) instead of values",
     "Keys only decide the weights; the output mixes the values: O = P V.",
     "step5_values#values-not-keys"),
    ("qkv_order_swapped", "took Q, K, V from the fused c_attn output in the wrong order",
     "The fused output [T, 3D] is [Q | K | V]: Q = columns 0 … D-1, K = D … 2D-1, V = 2D … 3D-1.",
     "step7_layer#fused-weights"),
    ("heads_split_without_transpose", "split the heads with reshape(n_head, T, D_h), without the transpose",
     "Reshape to [T, n_head, D_h] first, then swap the first two axes: head h is columns h*D_h … "
     "(h+1)*D_h - 1 of every token.",
     "step7_layer#split-heads"),
    ("heads_merged_wrong_order", "merged the heads with a plain reshape, gluing rows of different tokens",
     "Swap the head and token axes back to [T, n_head, D_h] before reshaping to [T, D].",
     "step7_layer#merge-heads"),
    ("proj_bias_missing", "left out the output projection's bias c_proj_bias",
     "The layer's output is merged @ c_proj_weight + c_proj_bias.",
     "step7_layer#merge-heads"),
    ("cache_appended_after_attending", "attended to the cache before appending the new keys and values",
     "Append K_new and V_new to the cache first, then attend: each new token must read itself.",
     "step8_kv_cache#cache"),
    ("positions_restarted", "numbered the new tokens from 0 instead of from the cache's length",
     "New token i sits at absolute position n_past + i.",
     "step8_kv_cache#positions"),
    ("ggml_ne_not_reversed", "read GGML's ne slowest-first, as if it were a NumPy shape",
     "ne lists sizes fastest first: the NumPy shape is ne reversed, buffer.reshape(ne[::-1]) "
     "(and a NumPy shape becomes ne by reversing it).",
     "step9_ggml_layout#ne-order"),
    ("ggml_heads_tokens_swapped", "heads and tokens (queries) axes swapped when reading a dump",
     "Qcur is {D_h, n_head, T, 1}: heads inside tokens, so swap them to get [n_head, T, D_h]; kq is "
     "{n_kv, T_q, n_head, 1}: already heads outside queries, nothing to swap.",
     "step9_ggml_layout#qkv"),
    ("kq_padding_kept", "kept the padded key slots of a kq dump",
     "The cache view has n_kv slots (256 in the lesson) but only the first T_k hold keys: keep "
     "scores[..., :n_keys].",
     "step9_ggml_layout#kq-padding"),
    ("kq_padding_wrong_end", "dropped the padding from the wrong end (kept the last T_k slots)",
     "The keys fill slots 0 … T_k - 1 and the padding comes after them: keep scores[..., :n_keys], "
     "not scores[..., -n_keys:].",
     "step9_ggml_layout#kq-padding"),
)


@lru_cache(maxsize=None)
def _catalogue():
    if {code for code, *_ in _TEXT} != set(SLIPS):
        raise ValueError("every catalogued mistake needs slips and text: "
                         f"{sorted({code for code, *_ in _TEXT} ^ set(SLIPS))}")
    return {code: Mistake(code, SLIPS[code][0].module, summary, advice, lesson)
            for code, summary, advice, lesson in _TEXT}


def catalogue():
    """{code: Mistake} for every known mistake, in diagnosis order (most specific first)."""
    return dict(_catalogue())


def describe(code, lang=None):
    """"<summary>. <advice> Read: <lesson path>.", the text shown next to a failing test (`lang` as
    in `lessons.link`)."""
    mistake = _catalogue()[code]
    return f"{mistake.summary}. {mistake.advice} Read: {lessons.link(mistake.lesson, lang)}."
