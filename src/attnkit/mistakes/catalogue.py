"""The catalogue: each known mistake's stable code (SPEC "Diagnosis codes"), what it is, what to do.

`_TEXT` is in diagnosis order: when several mistakes explain the same output, the more specific
one — the one that changes fewer results, or names the symptom most exactly — comes first.
`K.T` on a batch, `Q @ K` and `W @ Z` can raise the very same matmul error in attention_head, so
the first two, the common slips there, come before projection_transposed.
"""
from dataclasses import dataclass
from functools import lru_cache

from .slips import SLIPS


@dataclass(frozen=True)
class Mistake:
    code: str  # SPEC code, e.g. "scale_by_d"
    step: str  # the step module where the slip is made, e.g. "step2_scores"
    summary: str  # one line
    advice: str  # what to change, and where in the lesson to look


_TEXT = (
    ("batch_transpose", "used .T on a batched array (reverses every axis)",
     "Transpose only the last two axes: np.swapaxes(K, -1, -2) (or K.swapaxes(-1, -2)); K.T on "
     "[12, T, 64] gives [64, T, 12]. Read lesson 000, \"整个 Head 的矩阵形式\"."),
    ("keys_not_transposed", "multiplied Q K instead of Q Kᵀ",
     "Each score is a dot product of a query row with a key row: Q @ np.swapaxes(K, -1, -2). "
     "Read lesson 000, \"原始匹配分数\"."),
    ("projection_transposed", "used Wᵀ (or W Z) instead of Z W",
     "Rows of Z are tokens: multiply Z on the left, Z @ W, with W of shape [D, D_h]. "
     "Read lesson 000, \"Q、K、V\"."),
    ("bias_missing", "left out the bias",
     "Add the head's bias to every row: Z @ W + b. Read lesson 000, \"Q、K、V\" (Q_h = Z_l W_Q + b_Q)."),
    ("scores_transposed", "computed K Qᵀ (rows are keys) instead of Q Kᵀ",
     "Rows of kq are queries (receivers), columns keys (providers): kq = Q @ Kᵀ. "
     "Read lesson 000, \"原始匹配分数\"; lesson 002, \"Mask是可见性表\"."),
    ("scale_missing", "no 1/sqrt(D_h)",
     "Divide the raw scores by sqrt(D_h) before the mask and softmax (1/8 in GPT-2 Small). "
     "Read lesson 000, \"从分数到 Attention 权重\", 第一步：缩放."),
    ("scale_by_d", "divided by D_h instead of sqrt(D_h)",
     "The scale is 1/sqrt(D_h): 1/8 for D_h = 64, not 1/64. "
     "Read lesson 000, \"从分数到 Attention 权重\", 第一步：缩放."),
    ("scale_by_model_dim", "divided by sqrt(D) (model width) instead of sqrt(D_h)",
     "Use the head width D_h (Q's last axis, 64), not the width of Z (D = 768). "
     "Read lesson 000, \"Self-Attention 与单个 Head\" and \"第一步：缩放\"."),
    ("kq_scaled", "returned the scaled scores as kq",
     "In the trace kq is the raw Q Kᵀ, as llama.cpp's `kq`; the 1/sqrt(D_h) comes after it. "
     "Read lesson 000, \"llama.cpp 实战\"."),
    ("mask_top_left", "KV-cache misaligned: top-left instead of bottom-right when T_k > T_q",
     "Query i sits at absolute position past + i with past = T_k - T_q: it may read keys 0 … past + i. "
     "Read lesson 002, \"Mask是可见性表\" (frame 5: past = 3, new = 2)."),
    ("mask_off_by_one", "each position may also read the next one (causal table shifted by one)",
     "Query i may read keys 0 … past + i, itself included and nothing after it. "
     "Read lesson 002, \"Mask是可见性表\" and lesson 000, \"第二步：加入 Causal Mask\"."),
    ("mask_diagonal_excluded", "a position may not read itself",
     "The causal table includes its diagonal: key j is visible when j <= past + i. "
     "Read lesson 000, \"第二步：加入 Causal Mask\" (\"How\" reads itself)."),
    ("mask_inverted", "visibility polarity flipped: past hidden, future visible",
     "In this kit True means \"may read\", and M is 0 where visible, -inf where hidden. "
     "Read lesson 002, \"Mask是可见性表\"; lesson 000, \"第二步：加入 Causal Mask\"."),
    ("mask_combined_with_or", "combined tables with OR (De Morgan slip)",
     "A key is readable only if every table allows it: combine visibility tables with & (AND). "
     "Read lesson 002, \"因果限制、PAD限制可以同时存在\"."),
    ("mask_zero_fill", "masked scores set to 0 (or a masked weight multiplied) instead of -inf",
     "A hidden key's score must be -inf so that exp gives weight 0; a score of 0 still gets weight. "
     "Read lesson 000, \"第二步：加入 Causal Mask\"."),
    ("mask_after_softmax", "weights zeroed after softmax without renormalising",
     "Add M to the scores before softmax, so that the visible weights sum to 1. "
     "Read lesson 002, \"加上因果掩码会怎样\" ([0.269, 0.731])."),
    ("torch_mha_polarity", "gave nn.MultiheadAttention the visible table as is",
     "nn.MultiheadAttention's bool attn_mask is True where attending is NOT allowed: pass ~visible. "
     "Read lesson 002, \"不同API的True可能表示允许或禁止\"."),
    ("torch_sdpa_polarity", "inverted the table for SDPA, which wants True = attend",
     "scaled_dot_product_attention's bool attn_mask is True where attending is allowed: pass visible "
     "as is. Read lesson 002, \"不同API的True可能表示允许或禁止\"."),
    ("hf_padding_polarity", "read a Hugging Face 1/0 mask backwards",
     "In a Hugging Face attention_mask 1 is a real token and 0 is padding; key_padding_mask wants "
     "True on the padding. Read lesson 002, \"Mask是可见性表\" (PAD限制)."),
    ("fully_masked_nan", "a row with no visible key gives NaN instead of zeros",
     "When a whole row is -inf, its max is -inf and -inf - (-inf) is NaN: give that row all zeros. "
     "Read lesson 002, \"全行无可见Key还需明确策略\"."),
    ("softmax_unstable", "no max subtraction: overflow or NaN for large scores",
     "Subtract each row's largest finite score before exp; softmax is unchanged by the shift. "
     "Read lesson 000, \"第三步：Softmax\"."),
    ("softmax_wrong_axis", "normalised over queries instead of keys",
     "Each query's row of keys must sum to 1: sum over axis=-1 with keepdims=True. "
     "Read lesson 000, \"第三步：Softmax\" (\"沿每个 Query 对应的那一行\")."),
    ("weights_transposed", "used Pᵀ V",
     "O = P V: row i of O mixes the values with query i's row of weights. "
     "Read lesson 000, \"用 Attention 权重读取 Value\"."),
    ("weights_on_keys", "summed keys (P K) instead of values",
     "Keys only decide the weights; the output mixes the values: O = P V. "
     "Read lesson 000, \"用 Attention 权重读取 Value\"; lesson 002, \"从两段内容到一个混合向量\"."),
)


@lru_cache(maxsize=None)
def _catalogue():
    if {code for code, *_ in _TEXT} != set(SLIPS):
        raise ValueError("every catalogued mistake needs slips and text: "
                         f"{sorted({code for code, *_ in _TEXT} ^ set(SLIPS))}")
    return {code: Mistake(code, SLIPS[code][0].module, summary, advice) for code, summary, advice in _TEXT}


def catalogue():
    """{code: Mistake} for every known mistake, in diagnosis order (most specific first)."""
    return dict(_catalogue())


def describe(code):
    """"<summary>. <advice>", the text shown next to a failing test."""
    mistake = _catalogue()[code]
    return f"{mistake.summary}. {mistake.advice}"
