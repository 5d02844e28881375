"""The catalogue: each known mistake's stable code (docs/CONTRACT.md, "Diagnosis codes"), what it is, what to do.

`_TEXT` is in diagnosis order: when several mistakes explain the same output, the more specific
one — the one that changes fewer results, or names the symptom most exactly — comes first.
`K.T` on a batch, `Q @ K` and `W @ Z` can raise the very same matmul error in attention_head, so
the first two, the common slips there, come before projection_transposed. Each entry is (code, summary,
advice, lesson); summary and advice are two-language texts (attnkit_runtime.i18n), checked when it loads.
"""
from dataclasses import dataclass
from functools import lru_cache

from .. import lessons
from ..data_texts import gaps, two_languages
from attnkit_runtime.i18n import LANGUAGES, check_language, language
from .slips import SLIPS


@dataclass(frozen=True)
class Mistake:
    code: str  # its stable code (docs/CONTRACT.md), e.g. "scale_by_d"
    step: str  # the step module where the slip is made, e.g. "step2_scores"
    summary: dict  # one line, {lang: text} (shown via i18n.pick, or `describe`)
    advice: dict  # what to change, {lang: text}
    lesson: str  # where to read: a lesson reference, e.g. "step2_scores#scale" (attnkit.lessons)


_TEXT = (
    ("batch_transpose",
     {"en": "used .T on a batched array (reverses every axis)",
      "zh": "对批量数组用了 .T（会把所有轴都倒过来）"},
     {"en": "Transpose only the last two axes: np.swapaxes(K, -1, -2) (or K.swapaxes(-1, -2)); K.T on [12, "
            "T, 64] gives [64, T, 12].",
      "zh": "只转置最后两个轴：np.swapaxes(K, -1, -2)（或 K.swapaxes(-1, -2)）；对 [12, T, 64] 用 K.T "
            "得到的是 [64, T, 12]。"},
     "step2_scores#batched-heads"),
    ("keys_not_transposed",
     {"en": "multiplied Q K instead of Q Kᵀ",
      "zh": "算的是 Q K 而不是 Q Kᵀ"},
     {"en": "Each score is a dot product of a query row with a key row: Q @ np.swapaxes(K, -1, -2).",
      "zh": "每个分数是一个 Query 行和一个 Key 行的点积：Q @ np.swapaxes(K, -1, -2)。"},
     "step2_scores#raw-scores"),
    ("projection_transposed",
     {"en": "used Wᵀ (or W Z) instead of Z W",
      "zh": "用了 Wᵀ（或 W Z），而不是 Z W"},
     {"en": "Rows of Z are tokens: multiply Z on the left, Z @ W, with W of shape [D, D_h].",
      "zh": "Z 的每一行是一个 Token：Z 放在左边相乘，Z @ W，W 的形状是 [D, D_h]。"},
     "step1_projection#orientation-and-bias"),
    ("bias_missing",
     {"en": "left out the bias",
      "zh": "漏掉了偏置"},
     {"en": "Add the head's bias to every row: Z @ W + b.",
      "zh": "给每一行加上这个 Head 的偏置：Z @ W + b。"},
     "step1_projection#orientation-and-bias"),
    # dV = P dO and dK = dS Q raise the same matmul error when T_q != T_k (and, with one query, so does K Qᵀ written
    # inline in the backward pass): the first is named there, its advice names both transposes; a square case tells
    # them apart.
    ("backward_dv_not_transposed",
     {"en": "computed dV = P dO instead of Pᵀ dO",
      "zh": "算的是 dV = P dO，而不是 Pᵀ dO"},
     {"en": "Each value row collects from the queries that read it: dV = Pᵀ dO, [T_k, T_q] @ [T_q, D_v]. P dO runs "
            "only when T_q = T_k; dK needs the same transpose, dK = dSᵀ Q / sqrt(D_h).",
      "zh": "每个 Value 行要从读它的各个 Query 收梯度：dV = Pᵀ dO，[T_k, T_q] @ [T_q, D_v]。P dO 只有 T_q = T_k "
            "时才能算；dK 也要同样转置，dK = dSᵀ Q / sqrt(D_h)。"},
     "step13_backward#values"),
    ("backward_dk_not_transposed",
     {"en": "computed dK = dS Q instead of dSᵀ Q",
      "zh": "算的是 dK = dS Q，而不是 dSᵀ Q"},
     {"en": "A key row is in a column of the scores: dK = dSᵀ Q / sqrt(D_h), [T_k, T_q] @ [T_q, D_h]. dS Q runs "
            "only when T_q = T_k.",
      "zh": "一个 Key 行出现在分数的一列里：dK = dSᵀ Q / sqrt(D_h)，[T_k, T_q] @ [T_q, D_h]。dS Q 只有 "
            "T_q = T_k 时才能算。"},
     "step13_backward#scores"),
    ("scores_transposed",
     {"en": "computed K Qᵀ (rows are keys) instead of Q Kᵀ",
      "zh": "算成了 K Qᵀ（行是 Key），而不是 Q Kᵀ"},
     {"en": "Rows of kq are queries (receivers), columns keys (providers): kq = Q @ Kᵀ.",
      "zh": "kq 的行是 Query（接收方），列是 Key（提供方）：kq = Q @ Kᵀ。"},
     "step2_scores#raw-scores"),
    ("scale_missing",
     {"en": "no 1/sqrt(D_h)",
      "zh": "没有除以 sqrt(D_h)"},
     {"en": "Divide the raw scores by sqrt(D_h) before the mask and softmax (1/8 in GPT-2 Small). Dividing by "
            "int(math.sqrt(d_h)) does the same for D_h < 4 (int(1.41) is 1): keep math.sqrt's float.",
      "zh": "在掩码和 softmax 之前，把原始分数除以 sqrt(D_h)（GPT-2 Small 中即乘 1/8）。D_h < 4 时除以 "
            "int(math.sqrt(d_h)) 也是这样（int(1.41) 是 1）：请保留 math.sqrt 给出的浮点数。"},
     "step2_scores#scale"),
    ("scale_rounded",
     {"en": "rounded sqrt(D_h) to an integer (int(math.sqrt(d_h)))",
      "zh": "把 sqrt(D_h) 取整了（int(math.sqrt(d_h))）"},
     {"en": "Divide by math.sqrt(d_h) itself: for D_h = 8 that is 2.828, not int(2.828) = 2.",
      "zh": "直接除以 math.sqrt(d_h)：D_h = 8 时是 2.828，而不是 int(2.828) = 2。"},
     "step2_scores#scale"),
    ("scale_by_keys",
     {"en": "divided by sqrt(T_k) (the number of keys) instead of sqrt(D_h)",
      "zh": "除以了 sqrt(T_k)（Key 的个数），而不是 sqrt(D_h)"},
     {"en": "The scale is the head width D_h, Q's last axis: scale_scores(kq, Q.shape[-1]), not K.shape[-2] "
            "(T_k), which grows with the text.",
      "zh": "缩放用的是 Head 的宽度 D_h，即 Q 的最后一个轴：scale_scores(kq, Q.shape[-1])，而不是会随文本变长的 "
            "K.shape[-2]（T_k）。"},
     "step2_scores#scale"),
    ("scale_by_d",
     {"en": "divided by D_h instead of sqrt(D_h)",
      "zh": "除以了 D_h，而不是 sqrt(D_h)"},
     {"en": "The scale is 1/sqrt(D_h): 1/8 for D_h = 64, not 1/64.",
      "zh": "缩放系数是 1/sqrt(D_h)：D_h = 64 时是 1/8，不是 1/64。"},
     "step2_scores#scale"),
    ("scale_by_model_dim",
     {"en": "divided by sqrt(D) (model width) instead of sqrt(D_h)",
      "zh": "除以了 sqrt(D)（模型宽度），而不是 sqrt(D_h)"},
     {"en": "Use the head width D_h (Q's last axis, 64), not the width of Z (D = 768).",
      "zh": "用 Head 的宽度 D_h（Q 的最后一个轴，64），而不是 Z 的宽度（D = 768）。"},
     "step2_scores#scale"),
    ("kq_scaled",
     {"en": "returned the scaled scores as kq",
      "zh": "把缩放后的分数当作 kq 返回了"},
     {"en": "In the trace kq is the raw Q Kᵀ, as llama.cpp's `kq`; the 1/sqrt(D_h) comes after it.",
      "zh": "中间结果里的 kq 是原始的 Q Kᵀ，和 llama.cpp 的 `kq` 一样；1/sqrt(D_h) 在它之后才乘。"},
     "step6_head#trace"),
    ("mask_top_left",
     {"en": "KV-cache misaligned: top-left instead of bottom-right when T_k > T_q",
      "zh": "KV Cache 对齐错了：T_k > T_q 时对齐在左上角，而不是右下角"},
     {"en": "Query i sits at absolute position past + i with past = T_k - T_q: it may read keys 0 … past + "
            "i.",
      "zh": "Query i 位于绝对位置 past + i，其中 past = T_k - T_q：它可以读 Key 0 … past + i。"},
     "ref_kv_cache#top-left-trap"),
    ("backward_mask_dropped",
     {"en": "gradient flows into hidden keys: P recomputed without the mask",
      "zh": "梯度流进了被遮住的 Key：重算 P 时没有加掩码"},
     {"en": "Take the masked P from step 6's attention(Q, K, V, visible): where it is 0, dS is 0 and no gradient "
            "reaches a key the query never read.",
      "zh": "用第 6 步 attention(Q, K, V, visible) 给出的、加了掩码的 P：它为 0 的地方 dS 也是 0，梯度不会流到"
            "这个 Query 没读过的 Key。"},
     "step13_backward#masked"),
    ("mask_past_sign",
     {"en": "past counted backwards (T_q - T_k instead of T_k - T_q): new queries read fewer keys, not the cached ones",
      "zh": "past 算反了（写成 T_q - T_k，而不是 T_k - T_q）：新的 Query 读到的 Key 反而更少，读不到缓存里的"},
     {"en": "past = T_k - T_q is the number of keys already cached (0 or more): query i may read keys 0 … past + i.",
      "zh": "past = T_k - T_q 是已经在缓存里的 Key 的个数（0 或更多）：Query i 可以读 Key 0 … past + i。"},
     "step3_masks#causal"),
    ("mask_off_by_one",
     {"en": "each position may also read the next one (causal table shifted by one)",
      "zh": "每个位置还能读下一个位置（因果表错位了一格）"},
     {"en": "Query i may read keys 0 … past + i, itself included and nothing after it.",
      "zh": "Query i 可以读 Key 0 … past + i：包括它自己，不包括它之后的任何 Key。"},
     "step3_masks#causal"),
    ("mask_diagonal_excluded",
     {"en": "a position may not read itself",
      "zh": "位置读不到自己"},
     {"en": "The causal table includes its diagonal: key j is visible when j <= past + i.",
      "zh": "因果表包含对角线：j <= past + i 时 Key j 可见。"},
     "step3_masks#causal"),
    ("mask_inverted",
     {"en": "visibility polarity flipped: past hidden, future visible",
      "zh": "可见性的含义反了：过去被隐藏，未来反而可见"},
     {"en": "In this kit True means \"may read\", and M is 0 where visible, -inf where hidden.",
      "zh": "本套练习中 True 表示“可以读”；M 在可见处为 0，隐藏处为 -inf。"},
     "step3_masks#visibility-table"),
    ("mask_combined_with_or",
     {"en": "combined tables with OR (De Morgan slip)",
      "zh": "用 OR 合并了几张表（德摩根定律用错了）"},
     {"en": "A key is readable only if every table allows it: combine visibility tables with & (AND).",
      "zh": "只有每张表都允许，Key 才能读：用 &（AND）合并可见性表。"},
     "step3_masks#combine"),
    ("mask_table_dropped",
     {"en": "combined only the first two tables; a further table was left out",
      "zh": "只合并了前两张表，后面的表被漏掉了"},
     {"en": "combine_visible takes any number of tables: AND every one of them (loop over visibles, or "
            "np.logical_and.reduce).",
      "zh": "combine_visible 接受任意多张表：每一张都要 AND 上（对 visibles 循环，或用 "
            "np.logical_and.reduce）。"},
     "step3_masks#combine"),
    ("mask_tables_stacked",
     {"en": "stacked the tables (np.stack, np.array) before combining them: that needs tables of one shape",
      "zh": "合并前把几张表堆叠起来了（np.stack、np.array）：这要求所有表形状相同"},
     {"en": "Combine them with & (np.logical_and), which broadcasts: a [1, T_k] padding row then applies to "
            "every query row of a [T_q, T_k] table.",
      "zh": "用 &（np.logical_and）合并，它会广播：这样一行 [1, T_k] 的填充表就作用于 [T_q, T_k] 表的每个 "
            "Query 行。"},
     "step3_masks#combine"),
    ("mask_dtype_missing",
     {"en": "the mask array M is float64: built without the scores' dtype",
      "zh": "掩码数组 M 是 float64：构造时没有用分数的 dtype"},
     {"en": "A float64 M added to float32 scores makes S, P and O float64. additive_mask must return the "
            "dtype it is given (.astype(dtype)), and attention must ask for the scores' one: "
            "additive_mask(visible, dtype=kq.dtype).",
      "zh": "float64 的 M 加到 float32 的分数上，会让 S、P 和 O 都变成 float64。additive_mask "
            "必须返回传给它的 dtype（.astype(dtype)），attention 调用时也要传分数的 dtype："
            "additive_mask(visible, dtype=kq.dtype)。"},
     "step3_masks#additive-mask"),
    ("mask_zero_fill",
     {"en": "masked scores set to 0 (or a masked weight multiplied) instead of -inf",
      "zh": "被掩码的分数设成了 0（或把被掩码的权重乘成 0），而不是 -inf"},
     {"en": "A hidden key's score must be -inf so that exp gives weight 0; a score of 0 still gets weight.",
      "zh": "被隐藏的 Key 的分数必须是 -inf，exp 之后权重才是 0；分数为 0 仍然会分到权重。"},
     "step3_masks#additive-mask"),
    ("mask_large_negative",
     {"en": "a large negative number (-1e9) in place of -inf: a row with no visible key gets uniform weights",
      "zh": "用一个很大的负数（-1e9）代替了 -inf：没有可见 Key 的行得到了平均分配的权重"},
     {"en": "Hidden keys are -inf, never -1e9 (GPT-2's eager attention uses a large negative number, so such a row "
            "spreads its weight evenly over every key); softmax gives a row of only -inf all zeros.",
      "zh": "被隐藏的 Key 用 -inf，不要用 -1e9（GPT-2 的 eager attention 用的是很大的负数，这样的行会把权重平均分给"
            "所有 Key）；softmax 让全是 -inf 的行全为 0。"},
     "ref_fully_masked#other-libraries"),
    ("mask_after_softmax",
     {"en": "weights zeroed after softmax without renormalising",
      "zh": "softmax 之后才把权重清零，没有重新归一化"},
     {"en": "Add M to the scores before softmax, so that the visible weights sum to 1.",
      "zh": "在 softmax 之前把 M 加到分数上，这样可见的权重加起来才等于 1。"},
     "step4_softmax#masked-keys"),
    ("mask_not_applied",
     {"en": "left the mask out: every query read every key, the later ones included",
      "zh": "没有加上掩码：每个 Query 都读了所有 Key，包括它之后的"},
     {"en": "Add M = additive_mask(visible) to the scaled scores before softmax: a hidden key's -inf gives it weight 0.",
      "zh": "在 softmax 之前把 M = additive_mask(visible) 加到缩放后的分数上：被遮住的 Key 是 -inf，权重就是 0。"},
     "step6_head#matrix-form"),
    ("torch_mha_polarity",
     {"en": "gave nn.MultiheadAttention the visible table as is",
      "zh": "把可见性表原样交给了 nn.MultiheadAttention"},
     {"en": "nn.MultiheadAttention's bool attn_mask is True where attending is NOT allowed: pass ~visible.",
      "zh": "nn.MultiheadAttention 的布尔 attn_mask 在不允许读的地方为 True：传 ~visible。"},
     "ref_polarity#api-table"),
    ("torch_sdpa_polarity",
     {"en": "inverted the table for SDPA, which wants True = attend",
      "zh": "给 SDPA 传了取反的表，而它要的是 True = 可以读"},
     {"en": "scaled_dot_product_attention's bool attn_mask is True where attending is allowed: pass visible "
            "as is.",
      "zh": "scaled_dot_product_attention 的布尔 attn_mask 在允许读的地方为 True：把 visible 原样传进去。"},
     "ref_polarity#api-table"),
    ("hf_padding_polarity",
     {"en": "read a Hugging Face 1/0 mask backwards",
      "zh": "把 Hugging Face 的 1/0 掩码读反了"},
     {"en": "In a Hugging Face attention_mask 1 is a real token and 0 is padding; key_padding_mask wants "
            "True on the padding.",
      "zh": "Hugging Face 的 attention_mask 中 1 是真实 Token，0 是填充；key_padding_mask 要在填充处为 "
            "True。"},
     "ref_padding#hf-polarity"),
    ("backward_fully_masked_nan",
     {"en": "a query with no visible key gives NaN gradients instead of zeros",
      "zh": "一个可见 Key 都没有的 Query 得到的梯度是 NaN，而不是 0"},
     {"en": "P recomputed as exp(S - max) / sum is NaN on a row of only -inf, and the sums over queries carry the NaN "
            "into dK and dV: take P from step 6's attention, whose row is all zeros there.",
      "zh": "用 exp(S - max) / sum 重算的 P，在整行都是 -inf 的地方是 NaN，对 Query 的求和又把 NaN 带进 dK 和 dV："
            "用第 6 步 attention 给出的 P，那一行是全 0。"},
     "step13_backward#masked"),
    ("fully_masked_nan",
     {"en": "a row with no visible key gives NaN instead of zeros",
      "zh": "没有可见 Key 的行得到 NaN，而不是全 0"},
     {"en": "When a whole row is -inf, its max is -inf and -inf - (-inf) is NaN: give that row all zeros.",
      "zh": "整行都是 -inf 时，最大值是 -inf，而 -inf - (-inf) 是 NaN：让这一行全为 0。"},
     "ref_fully_masked#kit-policy"),
    ("softmax_unstable",
     {"en": "no max subtraction: overflow or NaN for large scores",
      "zh": "没有减去最大值：分数很大时会溢出或得到 NaN"},
     {"en": "Subtract each row's largest finite score before exp; softmax is unchanged by the shift.",
      "zh": "exp 之前先减去每一行最大的有限分数；这样平移不改变 softmax 的结果。"},
     "step4_softmax#stability"),
    ("softmax_wrong_axis",
     {"en": "normalised over queries instead of keys",
      "zh": "沿 Query 归一化了，而不是沿 Key"},
     {"en": "Each query's row of keys must sum to 1: sum over axis=-1 with keepdims=True.",
      "zh": "每个 Query 的那一行 Key 要加起来等于 1：沿 axis=-1 求和，并用 keepdims=True。"},
     "step4_softmax#row-softmax"),
    ("weights_transposed",
     {"en": "used Pᵀ V",
      "zh": "用了 Pᵀ V"},
     {"en": "O = P V: row i of O mixes the values with query i's row of weights.",
      "zh": "O = P V：O 的第 i 行用 Query i 那一行的权重混合各个 Value。"},
     "step5_values#values-not-keys"),
    ("weights_on_keys",
     {"en": "summed keys (P K) instead of values",
      "zh": "加权求和的是 Key（P K），而不是 Value"},
     {"en": "Keys only decide the weights; the output mixes the values: O = P V.",
      "zh": "Key 只决定权重；输出混合的是 Value：O = P V。"},
     "step5_values#values-not-keys"),
    ("outputs_swapped",
     {"en": "returned (P, O) instead of (O, P)",
      "zh": "返回的是 (P, O)，而不是 (O, P)"},
     {"en": "attention returns the output first, then the weights: return O, P.",
      "zh": "attention 先返回输出，再返回权重：return O, P。"},
     "step6_head#matrix-form"),
    ("visible_ignored",
     {"en": "ignored the visible table it was given (used the causal one)",
      "zh": "没有用传进来的 visible 表（用的是因果表）"},
     {"en": "Build the causal table only when visible is None; otherwise mask with the table given, e.g. a padding "
            "table combined with the causal one.",
      "zh": "只有 visible 是 None 时才构造因果表；否则用传进来的表做掩码，例如一张与因果表合并过的填充表。"},
     "step6_head#matrix-form"),
    ("batch_dot",
     {"en": "used np.dot on batched arrays: it pairs every head of P with every head of V",
      "zh": "对批量数组用了 np.dot：它会把 P 的每个 Head 和 V 的每个 Head 两两相乘"},
     {"en": "Use P @ V (np.matmul), which multiplies head by head: [12, T_q, T_k] @ [12, T_k, D_h] gives "
            "[12, T_q, D_h]; np.dot gives [12, T_q, 12, D_h].",
      "zh": "用 P @ V（np.matmul），它逐个 Head 相乘：[12, T_q, T_k] @ [12, T_k, D_h] 得到 "
            "[12, T_q, D_h]；np.dot 得到的是 [12, T_q, 12, D_h]。"},
     "step5_values#weighted-sum"),
    ("qkv_order_swapped",
     {"en": "took Q, K, V from the fused c_attn output in the wrong order",
      "zh": "从融合的 c_attn 输出里取 Q、K、V 的顺序错了"},
     {"en": "The fused output [T, 3D] is [Q | K | V]: Q = columns 0 … D-1, K = D … 2D-1, V = 2D … 3D-1.",
      "zh": "融合输出 [T, 3D] 是 [Q | K | V]：Q = 第 0 … D-1 列，K = D … 2D-1，V = 2D … 3D-1。"},
     "step7_layer#fused-weights"),
    ("heads_split_without_transpose",
     {"en": "split the heads with reshape(n_head, T, D_h), without the transpose",
      "zh": "拆 Head 时直接 reshape(n_head, T, D_h)，没有转置"},
     {"en": "Reshape to [T, n_head, D_h] first, then swap the first two axes: head h is columns h*D_h … "
            "(h+1)*D_h - 1 of every token.",
      "zh": "先 reshape 成 [T, n_head, D_h]，再交换前两个轴：Head h 是每个 Token 的第 h*D_h … (h+1)*D_h - 1 "
            "列。"},
     "step7_layer#split-heads"),
    ("heads_merged_wrong_order",
     {"en": "merged the heads with a plain reshape, gluing rows of different tokens",
      "zh": "合并 Head 时直接 reshape，把不同 Token 的行拼在了一起"},
     {"en": "Swap the head and token axes back to [T, n_head, D_h] before reshaping to [T, D].",
      "zh": "先把 Head 轴和 Token 轴换回 [T, n_head, D_h]，再 reshape 成 [T, D]。"},
     "step7_layer#merge-heads"),
    ("proj_bias_missing",
     {"en": "left out the output projection's bias c_proj_bias",
      "zh": "漏掉了输出投影的偏置 c_proj_bias"},
     {"en": "The layer's output is merged @ c_proj_weight + c_proj_bias.",
      "zh": "整层的输出是 merged @ c_proj_weight + c_proj_bias。"},
     "step7_layer#merge-heads"),
    ("cache_appended_after_attending",
     {"en": "attended to the cache before appending the new keys and values",
      "zh": "先算了 Attention，之后才把新的 Key 和 Value 追加到缓存"},
     {"en": "Append K_new and V_new to the cache first, then attend: each new token must read itself.",
      "zh": "先把 K_new 和 V_new 追加到缓存，再算 Attention：每个新 Token 都必须能读到自己。"},
     "step8_kv_cache#cache"),
    ("positions_restarted",
     {"en": "numbered the new tokens from 0 instead of from the cache's length",
      "zh": "新 Token 的位置从 0 编号，而不是从缓存的长度开始"},
     {"en": "New token i sits at absolute position n_past + i.",
      "zh": "第 i 个新 Token 位于绝对位置 n_past + i。"},
     "step8_kv_cache#positions"),
    ("ggml_ne_not_reversed",
     {"en": "read GGML's ne slowest-first, as if it were a NumPy shape",
      "zh": "把 GGML 的 ne 按从慢到快读了，当成了 NumPy 的形状"},
     {"en": "ne lists sizes fastest first: the NumPy shape is ne reversed, buffer.reshape(ne[::-1]) (and a "
            "NumPy shape becomes ne by reversing it).",
      "zh": "ne 按从快到慢列出尺寸：NumPy 形状是 ne 反过来，buffer.reshape(ne[::-1])（NumPy "
            "形状反过来也就是 ne）。"},
     "step9_ggml_layout#ne-order"),
    ("ggml_heads_tokens_swapped",
     {"en": "heads and tokens (queries) axes swapped when reading a dump",
      "zh": "读导出数据时把 Head 轴和 Token（Query）轴弄反了"},
     {"en": "Qcur is {D_h, n_head, T, 1}: heads inside tokens, so swap them to get [n_head, T, D_h]; kq is "
            "{n_kv, T_q, n_head, 1}: already heads outside queries, nothing to swap.",
      "zh": "Qcur 是 {D_h, n_head, T, 1}：Head 在 Token 里面，所以要交换它们才得到 [n_head, T, D_h]；kq 是 "
            "{n_kv, T_q, n_head, 1}：本来就是 Head 在 Query 外面，不用交换。"},
     "step9_ggml_layout#qkv"),
    ("kq_padding_kept",
     {"en": "kept the padded key slots of a kq dump",
      "zh": "保留了 kq 导出数据中的填充 Key 槽位"},
     {"en": "The cache view has n_kv slots (256 in the lesson) but only the first T_k hold keys: keep "
            "scores[..., :n_keys].",
      "zh": "缓存视图有 n_kv 个槽位（课程里是 256），但只有前 T_k 个放着 Key：保留 scores[..., :n_keys]。"},
     "step9_ggml_layout#kq-padding"),
    ("kq_padding_wrong_end",
     {"en": "dropped the padding from the wrong end (kept the last T_k slots)",
      "zh": "从错误的一端去掉了填充（保留了最后 T_k 个槽位）"},
     {"en": "The keys fill slots 0 … T_k - 1 and the padding comes after them: keep scores[..., :n_keys], "
            "not scores[..., -n_keys:].",
      "zh": "Key 占槽位 0 … T_k - 1，填充在它们后面：保留 scores[..., :n_keys]，而不是 scores[..., "
            "-n_keys:]。"},
     "step9_ggml_layout#kq-padding"),
    ("softmax_backward_no_rowsum",
     {"en": "softmax's backward without the row-sum term (dS = P ⊙ dP)",
      "zh": "softmax 的反向传播漏掉了行和那一项（dS = P ⊙ dP）"},
     {"en": "Raising one weight lowers the others of its row: dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True)). "
            "Each row of dS sums to 0.",
      "zh": "一个权重变大，同一行的其他权重就要变小：dS = P * (dP - (dP * P).sum(axis=-1, keepdims=True))。"
            "dS 的每一行加起来等于 0。"},
     "step13_backward#softmax-backward"),
    ("softmax_backward_rowsum_axis",
     {"en": "the row sum of dP ⊙ P taken over the wrong axis, or without keepdims",
      "zh": "dP ⊙ P 的行和沿错了轴，或者没有 keepdims"},
     {"en": "Sum over the keys and keep a column: (dP * P).sum(axis=-1, keepdims=True) is [..., T_q, 1]; a plain "
            "[..., T_q] broadcasts along the keys instead of the queries.",
      "zh": "沿 Key 求和并保留成一列：(dP * P).sum(axis=-1, keepdims=True) 的形状是 [..., T_q, 1]；直接得到的 "
            "[..., T_q] 会沿 Key 广播，而不是沿 Query。"},
     "step13_backward#softmax-backward"),
    ("backward_scale_missing",
     {"en": "left the 1/sqrt(D_h) out of dQ or dK",
      "zh": "dQ 或 dK 漏掉了 1/sqrt(D_h)"},
     {"en": "The scores were divided by sqrt(D_h), so both gradients are too: dQ = dS K / sqrt(D_h) and "
            "dK = dSᵀ Q / sqrt(D_h).",
      "zh": "分数除过 sqrt(D_h)，所以两个梯度也都要除：dQ = dS K / sqrt(D_h)，dK = dSᵀ Q / sqrt(D_h)。"},
     "step13_backward#scores"),
    ("rope_freq_factor_two",
     {"en": "the inverse frequencies' exponent is off by a factor 2 (-i / d_head or -4 i / d_head)",
      "zh": "频率倒数的指数差了一个因子 2（-i / d_head 或 -4 i / d_head）"},
     {"en": "inv_freq[i] = base ** (-2 i / d_head) for i = 0 … d_head/2 - 1: the 2 i is the index of the pair's "
            "first feature (np.arange(0, d_head, 2) / d_head, divided by d_head, not d_head / 2).",
      "zh": "inv_freq[i] = base ** (-2 i / d_head)，i = 0 … d_head/2 - 1：2 i 是这一对第一个特征的下标"
            "（np.arange(0, d_head, 2) / d_head，除以的是 d_head，不是 d_head / 2）。"},
     "step12_rope#frequencies"),
    ("rope_freq_not_inverted",
     {"en": "computed base ** (2 i / d_head), frequencies that grow, instead of their inverses",
      "zh": "算成了 base ** (2 i / d_head)，频率越来越大，而不是它们的倒数"},
     {"en": "The exponent is negative: inv_freq[i] = base ** (-2 i / d_head), from 1 down to about 1 / base.",
      "zh": "指数是负的：inv_freq[i] = base ** (-2 i / d_head)，从 1 一直减小到约 1 / base。"},
     "step12_rope#frequencies"),
    ("rope_base_ignored",
     {"en": "used base = 10000 whatever base was passed",
      "zh": "不管传进来的 base 是多少，都用了 10000"},
     {"en": "Use the base argument: Llama 2 uses 10000, Llama 3 uses 500000.",
      "zh": "要用参数 base：Llama 2 用 10000，Llama 3 用 500000。"},
     "step12_rope#frequencies"),
    ("rope_pairing_swapped",
     {"en": "paired the features the other way ('half' and 'adjacent' swapped)",
      "zh": "特征配对方式弄反了（'half' 和 'adjacent' 互换了）"},
     {"en": "pairing='half' turns features i and i + d_head/2 together (Hugging Face's rotate_half); "
            "pairing='adjacent' turns 2i and 2i + 1 (llama.cpp's normal mode).",
      "zh": "pairing='half' 把特征 i 和 i + d_head/2 一起转（Hugging Face 的 rotate_half）；"
            "pairing='adjacent' 把 2i 和 2i + 1 一起转（llama.cpp 的普通模式）。"},
     "step12_rope#pairing"),
    ("rope_angles_laid_out_for_other_pairing",
     {"en": "laid the repeated angles out for the other pairing, so the two features of a pair turn by different angles",
      "zh": "重复角度时用了另一种配对的排法，同一对里的两个特征转过了不同的角度"},
     {"en": "With rotate_half ('half') the angles of a row are [angle, angle] (np.concatenate); with "
            "adjacent pairs they are [a0, a0, a1, a1, …] (np.repeat(angle, 2, axis=-1)).",
      "zh": "用 rotate_half（'half'）时，一行的角度是 [angle, angle]（np.concatenate）；相邻配对时是 "
            "[a0, a0, a1, a1, …]（np.repeat(angle, 2, axis=-1)）。"},
     "step12_rope#pairing"),
    ("rope_sin_sign",
     {"en": "flipped the sign of sin: each pair turns the other way",
      "zh": "sin 的符号弄反了：每一对都往反方向转"},
     {"en": "Each pair (x, y) becomes (x cos θ - y sin θ, x sin θ + y cos θ).",
      "zh": "每一对 (x, y) 变成 (x cos θ - y sin θ, x sin θ + y cos θ)。"},
     "step12_rope#rotation"),
    ("rope_positions_restarted",
     {"en": "turned the rows by their row numbers 0, 1, … instead of their positions",
      "zh": "按行号 0, 1, … 而不是按位置来旋转各行"},
     {"en": "Row t turns by positions[t] · inv_freq; in a decoding step new query i sits at past + i, the keys at "
            "0 … T_k - 1.",
      "zh": "第 t 行转过 positions[t] · inv_freq；解码时第 i 个新 Query 位于 past + i，Key 位于 0 … T_k - 1。"},
     "step12_rope#rope-attention"),
    ("rope_added_not_rotated",
     {"en": "added a position vector (sin, cos) to the rows instead of rotating them",
      "zh": "把位置向量 (sin, cos) 加到了各行上，而不是旋转它们"},
     {"en": "RoPE multiplies: each pair (x, y) becomes (x cos θ - y sin θ, x sin θ + y cos θ); only a rotation "
            "makes q_i · k_j depend on i - j alone.",
      "zh": "RoPE 是乘上去的：每一对 (x, y) 变成 (x cos θ - y sin θ, x sin θ + y cos θ)；只有旋转才能让 q_i · k_j "
            "只取决于 i - j。"},
     "step12_rope#relative"),
    ("rope_on_values",
     {"en": "rotated V as well as Q and K",
      "zh": "除了 Q 和 K，把 V 也旋转了"},
     {"en": "RoPE turns only Q and K, which decide the weights P; V enters O = P V as it is.",
      "zh": "RoPE 只转 Q 和 K，它们决定权重 P；V 原样进入 O = P V。"},
     "step12_rope#rope-attention"),
    ("rope_keys_not_rotated",
     {"en": "rotated Q but not K",
      "zh": "只旋转了 Q，没有旋转 K"},
     {"en": "Turn both: Q at positions past … past + T_q - 1 and K at 0 … T_k - 1; the score depends on i - j only "
            "when both are turned.",
      "zh": "两个都要转：Q 在位置 past … past + T_q - 1，K 在 0 … T_k - 1；只有两个都转了，分数才只取决于 i - j。"},
     "step12_rope#rope-attention"),
    ("online_not_rescaled",
     {"en": "added a block's exponentials to l and acc without rescaling them when the maximum grew",
      "zh": "最大值变大时没有重新缩放 l 和 acc，就把这一块的指数加了上去"},
     {"en": "l and acc are measured from the old maximum: multiply both by exp(m - m_new) before adding the block's "
            "exp(S_block - m_new).",
      "zh": "l 和 acc 是从旧的最大值量起的：加上这一块的 exp(S_block - m_new) 之前，先把它们都乘上 exp(m - m_new)。"},
     "step10_tiled#online-update"),
    ("online_output_not_rescaled",
     {"en": "rescaled l when the maximum grew, but not the output acc",
      "zh": "最大值变大时只重新缩放了 l，没有缩放输出 acc"},
     {"en": "acc is a sum of the same exponentials as l (times V): it needs the same factor exp(m - m_new).",
      "zh": "acc 和 l 加的是同样的指数（只是乘了 V）：它也要乘同一个因子 exp(m - m_new)。"},
     "step10_tiled#online-update"),
    ("online_rescale_inverted",
     {"en": "rescaled l and acc by exp(m_new - m) instead of exp(m - m_new)",
      "zh": "用 exp(m_new - m) 而不是 exp(m - m_new) 去缩放 l 和 acc"},
     {"en": "A larger maximum makes every earlier exp(s - m) smaller: the factor exp(m - m_new) is at most 1.",
      "zh": "最大值变大，之前的每个 exp(s - m) 都要变小：因子 exp(m - m_new) 不会超过 1。"},
     "step10_tiled#online-update"),
    ("online_unseen_row_nan",
     {"en": "gave NaN for a row that had seen only hidden keys so far (-inf - (-inf))",
      "zh": "对到目前为止只见过被遮住 Key 的行得出了 NaN（-inf - (-inf)）"},
     {"en": "While a row's maximum is still -inf, measure it from 0: exp(-inf - 0) = 0 keeps its l and acc at 0.",
      "zh": "一行的最大值还是 -inf 时，改从 0 量起：exp(-inf - 0) = 0，它的 l 和 acc 就保持 0。"},
     "step10_tiled#online-update"),
    ("tiled_division_missing",
     {"en": "returned acc without dividing it by l after the last block",
      "zh": "最后一块之后没有把 acc 除以 l 就返回了"},
     {"en": "acc is the unnormalised output: O = acc / l (0 for a row whose l is 0).",
      "zh": "acc 是还没归一化的输出：O = acc / l（l 为 0 的行是 0）。"},
     "step10_tiled#tiles"),
    ("tiled_mask_top_left",
     {"en": "aligned a block's causal mask top-left: key positions compared with the row number i, not with T_k - T_q + i",
      "zh": "把一块的因果掩码左上对齐了：Key 的位置拿去和行号 i 比，而不是和 T_k - T_q + i 比"},
     {"en": "Key j of the block starting at `start` is at position start + j, query i at T_k - T_q + i: it may "
            "read the key when start + j <= T_k - T_q + i.",
      "zh": "从 `start` 开始的那一块里，第 j 个 Key 位于 start + j，第 i 个 Query 位于 T_k - T_q + i："
            "start + j <= T_k - T_q + i 时它可以读这个 Key。"},
     "step10_tiled#tiles"),
    ("tiled_last_block_dropped",
     {"en": "skipped the last block: the loop over start stopped too early (or before a last, shorter block)",
      "zh": "漏掉了最后一块：对 start 的循环结束得太早（或者漏掉了最后那块较短的）"},
     {"en": "Walk start = 0, block, 2·block, … while start < T_k and stop each block at min(start + block, T_k).",
      "zh": "start 取 0、block、2·block、……，只要 start < T_k 就继续，每块在 min(start + block, T_k) 结束。"},
     "step10_tiled#tiles"),
    ("tiled_holds_every_key",
     {"en": "held an array of [T_q, T_k] (all the scores, or the whole causal table) instead of one block at a time",
      "zh": "拿着 [T_q, T_k] 的数组（全部分数，或整张因果表），而不是一次一块"},
     {"en": "Compute the scores Q K_blockᵀ and the mask of each block inside the loop: [T_q, block] at a time.",
      "zh": "在循环里为每一块算分数 Q K_blockᵀ 和掩码：一次只有 [T_q, block]。"},
     "step10_tiled#memory"),
    ("gqa_heads_interleaved",
     {"en": "grouped the query heads by h % n_kv_head (interleaved) instead of in runs of consecutive heads",
      "zh": "按 h % n_kv_head（交错）给 Query Head 分组，而不是按相邻的一段段 Head 分组"},
     {"en": "Query head h reads KV head h // (n_head // n_kv_head): with 4 over 2 that is [0, 0, 1, 1], not "
            "[0, 1, 0, 1]. To copy K and V, np.repeat(K, g, axis=0) repeats each KV head g times in a row; "
            "np.tile(K, (g, 1, 1)) repeats them all, one after another.",
      "zh": "第 h 个 Query Head 读第 h // (n_head // n_kv_head) 个 KV Head：4 配 2 时是 [0, 0, 1, 1]，不是 "
            "[0, 1, 0, 1]。要复制 K 和 V，np.repeat(K, g, axis=0) 让每个 KV Head 连着重复 g 次；"
            "np.tile(K, (g, 1, 1)) 则是把所有 KV Head 整体一遍遍重复。"},
     "step11_gqa#groups"),
    ("gqa_group_by_kv_count",
     {"en": "divided the head number by n_kv_head instead of by the group size n_head // n_kv_head",
      "zh": "用 n_kv_head 去除 Head 编号，而不是用每组的大小 n_head // n_kv_head"},
     {"en": "Each KV head has a group of g = n_head // n_kv_head query heads: h // g. With 6 over 2, g = 3 and the "
            "answer is [0, 0, 0, 1, 1, 1]; h // 2 gives [0, 0, 1, 1, 2, 2], a KV head 2 that does not exist "
            "(4 over 2 cannot tell them apart).",
      "zh": "每个 KV Head 有一组 g = n_head // n_kv_head 个 Query Head：h // g。6 配 2 时 g = 3，答案是 "
            "[0, 0, 0, 1, 1, 1]；h // 2 得到 [0, 0, 1, 1, 2, 2]，多出一个并不存在的 KV Head 2（4 配 2 时两者分不出来）。"},
     "step11_gqa#groups"),
    ("kv_repeated_wrong_axis",
     {"en": "repeated K and V along the tokens (or with no axis) instead of along the head axis",
      "zh": "沿 Token 轴（或者没给轴）重复了 K 和 V，而不是沿 Head 轴"},
     {"en": "The copies go along axis 0, the heads: np.repeat(K, g, axis=0), or K[kv_head_for(n_head, n_kv_head)]. "
            "np.repeat(K, g, axis=1) repeats every key instead, and a reshape to [n_head, T_k, D_h] afterwards "
            "gives the right shape with the tokens mixed up.",
      "zh": "要沿第 0 轴、也就是 Head 轴复制：np.repeat(K, g, axis=0)，或者 K[kv_head_for(n_head, n_kv_head)]。"
            "np.repeat(K, g, axis=1) 重复的是每个 Key，之后再 reshape 成 [n_head, T_k, D_h]，形状对了，Token 却乱了。"},
     "step11_gqa#gqa-attention"),
    ("kv_not_repeated",
     {"en": "passed K and V to attention with their n_kv_head heads, not one per query head",
      "zh": "把只有 n_kv_head 个 Head 的 K 和 V 直接交给了 attention，没有给每个 Query Head 配一份"},
     {"en": "Step 6's attention pairs head h of Q with head h of K and V: give it K[kv_of] and V[kv_of], "
            "[n_head, T_k, D_h], with kv_of = kv_head_for(n_head, n_kv_head). (With a single KV head, "
            "broadcasting happens to make it right.)",
      "zh": "第 6 步的 attention 把 Q 的第 h 个 Head 和 K、V 的第 h 个 Head 配对：要交给它 K[kv_of] 和 V[kv_of]，"
            "形状 [n_head, T_k, D_h]，其中 kv_of = kv_head_for(n_head, n_kv_head)。（只有一个 KV Head 时，广播碰巧"
            "让它算对。）"},
     "step11_gqa#gqa-attention"),
    ("cache_bytes_k_only",
     {"en": "counted the keys only: the factor 2 for K and V is missing",
      "zh": "只算了 Key：少了 K 和 V 两份的那个 2"},
     {"en": "Every layer caches a key and a value per token and KV head: 2 · n_layer · n_kv_head · d_head · n_ctx · "
            "bytes per value.",
      "zh": "每一层为每个 Token、每个 KV Head 缓存一个 Key 和一个 Value：2 · n_layer · n_kv_head · d_head · n_ctx · "
            "每个数的字节数。"},
     "step11_gqa#cache-size"),
    ("cache_bytes_with_query_heads",
     {"en": "counted the cache with n_head, the query heads, instead of n_kv_head",
      "zh": "用 n_head（Query Head 的个数）算了 Cache，而不是 n_kv_head"},
     {"en": "Only the key/value heads are cached: with GQA the query heads share them, so the cache is "
            "n_head / n_kv_head times smaller than with n_head.",
      "zh": "缓存的只有 Key/Value Head：GQA 下 Query Head 共用它们，所以 Cache 比按 n_head 算小 n_head / n_kv_head 倍。"},
     "step11_gqa#cache-size"),
    ("cache_bytes_wrong_dtype",
     {"en": "used the wrong number of bytes per value (4 whatever the dtype, or bits instead of bytes)",
      "zh": "每个数的字节数用错了（不管 dtype 都按 4 个算，或者用了位数而不是字节数）"},
     {"en": "Bytes per value follow dtype: float32 4, float16 2, bfloat16 2, int8 1 (the default is float16). "
            "float16 is 16 bits, which is 2 bytes.",
      "zh": "每个数的字节数跟着 dtype 走：float32 4 个，float16 2 个，bfloat16 2 个，int8 1 个（默认是 float16）。"
            "float16 是 16 位，也就是 2 个字节。"},
     "step11_gqa#cache-size"),
    ("cache_bfloat16_from_numpy",
     {"en": "asked NumPy for the size of bfloat16, a type NumPy does not have",
      "zh": "向 NumPy 要 bfloat16 的大小，可 NumPy 没有这个类型"},
     {"en": "np.dtype('bfloat16') raises: keep your own table of bytes per value, {'float32': 4, 'float16': 2, "
            "'bfloat16': 2, 'int8': 1}.",
      "zh": "np.dtype('bfloat16') 会报错：自己建一张每个数字节数的表，{'float32': 4, 'float16': 2, "
            "'bfloat16': 2, 'int8': 1}。"},
     "step11_gqa#cache-size"),
)


def _learner_texts(code, summary, advice):
    """[(where, text)] of a mistake's texts that a learner reads."""
    return [(f"mistake {code!r}: summary", summary), (f"mistake {code!r}: advice", advice)]


@lru_cache(maxsize=None)
def _catalogue():
    if {code for code, *_ in _TEXT} != set(SLIPS):
        raise ValueError("every catalogued mistake needs its text (catalogue.py's _TEXT) and its slips (slips.py's "
                         f"SLIPS), docs/ADDING_A_STEP.md: {sorted({code for code, *_ in _TEXT} ^ set(SLIPS))}")
    return {code: Mistake(code, SLIPS[code][0].module,
                          *(two_languages(*where_text) for where_text in _learner_texts(code, summary, advice)),
                          lesson)
            for code, summary, advice, lesson in _TEXT}


def text_gaps():
    """One line per summary or advice of the catalogue missing a language: all of them, where loading
    stops at the first."""
    return gaps(pair for code, summary, advice, _ in _TEXT for pair in _learner_texts(code, summary, advice))


def catalogue():
    """{code: Mistake} for every known mistake, in diagnosis order (most specific first)."""
    return dict(_catalogue())


_DESCRIPTION = {"en": "{summary}. {advice} Read: {link}.", "zh": "{summary}。{advice}阅读：{link}。"}


def describe(code, lang=None):
    """"<summary>. <advice> Read: <lesson path>.", the text shown next to a failing test, in `lang`
    (default: the learner's, `i18n.language()`)."""
    mistake, lang = _catalogue()[code], check_language(lang or language())
    return _DESCRIPTION[lang].format(summary=mistake.summary[lang], advice=mistake.advice[lang],
                                     link=lessons.link(mistake.lesson, lang))


def descriptions(code):
    """{lang: describe(code, lang)}: what a release or a notebook stores, to pick from at run time."""
    return {lang: describe(code, lang) for lang in LANGUAGES}
