"""The prose of the notebook: the opening cell, one short explanation per step (Markdown), the
closing cell's heading and the line a test cell shows when the checks cell has not run."""
from .. import lessons
from attnkit_runtime.i18n import LANGUAGES, pick

LESSONS = ("The lessons are in the folder `lessons/` beside this notebook, in English (`lessons/en/`) and "
           "Chinese (`lessons/zh/`): one per step, plus references on mask polarity across APIs, padding, "
           "KV-cache offsets, the fully masked row and GPT-2's Block 0 / Head 0 in llama.cpp. "
           "Each step below links its lesson; [lessons/README.md](lessons/README.md) is the index. "
           "Keep the folder `attnkit_runtime/` beside this notebook too: the test cells' checks and their data are "
           "there.")

TEST_COMMENT = "The checks are loaded by the provided cells at the top, from the folder attnkit_runtime/ beside this notebook."

RUN_FIRST = {"en": "the checks are not loaded: run the provided cells at the top first (the second one loads "
                   "the checks), then this cell again",
             "zh": "检查代码还没有加载：先运行最上面提供的单元格（第二个加载检查代码），再运行这个单元格"}

PROGRESS = {"en": "## Progress\n\nRun the cell below after the test cells: a table of the steps, which pass, "
                  "and the points so far.",
            "zh": "## 进度\n\n运行完各步的测试单元格后运行下面这个单元格：它列出每一步是否通过，以及目前的得分。"}


def run_first():
    """RUN_FIRST in both languages: the kernel's language is unknown until the checks cell has run."""
    return " / ".join(pick(RUN_FIRST, lang) for lang in LANGUAGES)


def progress_markdown():
    """The closing cell's heading, both languages."""
    return "\n\n".join(pick(PROGRESS, lang) for lang in LANGUAGES)

CORE_INTRO = f"""# Single-head causal self-attention, in numpy

You will write, step by step, one attention head of GPT-2 Small (D = 768, 12 heads, D_h = 64) in the
notation of the lessons:

| name | meaning | shape |
|---|---|---|
| `Z` | LayerNorm output entering attention | `[T, D]` |
| `W_Q, W_K, W_V`, `b_Q, b_K, b_V` | one head's weights and biases | `[D, D_h]`, `[D_h]` |
| `Q, K, V` | queries, keys, values | `[T_q, D_h]`, `[T_k, D_h]`, `[T_k, D_h]` |
| `kq` | raw scores `Q Kᵀ`, not scaled yet | `[T_q, T_k]` |
| `M` | additive mask: `0` where visible, `-inf` where not | `[T_q, T_k]` |
| `S` | `kq / sqrt(D_h) + M` | `[T_q, T_k]` |
| `P` | `softmax(S)`, row by row | `[T_q, T_k]` |
| `O` | `P V` | `[T_q, D_h]` |

{LESSONS}

**How to work.** Run the two provided cells below first. Then, for each step, replace every
`raise NotImplementedError(...)` in the step's code cell with your code, run that cell, and run the
test cell under it. A test cell prints what it expected, what it got and where to read. Later steps
use your earlier functions (step 6 calls steps 1–5), so go in order.

**Points.** Each step's test cell is worth that step's points, all or nothing: nbgrader gives a
cell its points only when every check in it passes. The test cells you see run the public checks;
at grading, hidden checks (other shapes, float32, batches of heads, KV-cache frames, …) run in the
same cells, so passing everything here does not yet mean full marks. Do not delete or edit the
test cells: they are restored from the instructor's copy when your notebook is graded.
"""

EXTENSION_INTRO = f"""# Beyond one head: GPT-2's attention layer and decoding with a KV cache

This assignment follows the one on a single head and is graded on its own 100 points. You will build
GPT-2's whole attention layer from its weights as stored (`c_attn.weight [D, 3D]`, `c_attn.bias [3D]`,
`c_proj.weight [D, D]`, `c_proj.bias [D]`, applied as `x @ W + b`), all heads at once, then decode
with a KV cache and check that any chunking gives the rows of the full causal pass, and finally read
llama.cpp's tensors (GGML's `ne` shapes, flat buffers, padded `kq` dumps) as these arrays.

| name | meaning | shape |
|---|---|---|
| `Z` | LayerNorm output entering attention | `[T, D]` |
| `Q, K, V` split into heads | per head | `[n_head, T, D_h]` |
| `kq`, `kq_soft_max` | per head | `[n_head, T_q, T_k]` |
| `out` | the layer's output after `c_proj` | `[T, D]` |
| `K_past, V_past` | the KV cache | `[n_head, T_past, D_h]` |
| `buffer`, `ne` | a GGML tensor: flat numbers, sizes fastest first | `[ne0·ne1·…]`, `{{ne0, ne1, …}}` |

{LESSONS}

**How to work.** Run the provided cells first: the third holds working versions of steps 1–6
(`attention`, `project`, …) for your new code to call. Then, for each step, replace every
`raise NotImplementedError(...)` in the step's code cell with your code, run it, and run the test
cell under it.

**Points.** Each step's test cell is worth that step's points, all or nothing. Hidden checks
(GPT-2 Small's sizes, float32, more chunkings) run in the same cells at grading. Do not delete or
edit the test cells or the provided cells: they are restored from the instructor's copy at grading.
"""

INTRO = {"core": CORE_INTRO, "extension": EXTENSION_INTRO}

STEPS = {
    "step1_projection": """Each row of `Z` is one token. The head projects every row with the same weights:
`Q = Z W_Q + b_Q`, `K = Z W_K + b_K`, `V = Z W_V + b_V`. `Z` is on the left (rows are tokens), and the
bias is added to every row. For GPT-2 Small a `[T, 768]` input becomes `[T, 64]`.""",
    "step2_scores": """How well query `i` matches key `j` is the dot product `q_i · k_j`; all of them at
once are `kq = Q Kᵀ` (llama.cpp's `kq`), transposing only the last two axes of `K` so a batch of 12
heads `[12, T, 64]` still works. Before softmax the scores are divided by `sqrt(D_h)`: the head
width, so `1/8` in GPT-2 Small, not the model width `D`.""",
    "step3_masks": """A mask is a visibility table: `visible[i, j]` is True where query row `i` may read key
column `j`. With a KV cache, query `i` of `T_q` new ones sits at position `past + i` with
`past = T_k - T_q`, and may read keys `0 … past + i` (aligned bottom-right). Padding hides keys,
causality hides the future, and a key is readable only if every table allows it. The additive
mask `M` is `0` where visible and `-inf` where not. Other libraries give the same boolean table
opposite meanings: the adapter functions convert this kit's table to what each API expects.""",
    "step4_softmax": """`P = softmax(S)` turns each query's row of scores into weights that are non-negative and
sum to 1. Subtract the row's largest score before `exp` so that scores like `+1000` do not
overflow; a `-inf` score (a masked key) gets weight exactly 0, and a row with no visible key at
all gives zeros, not NaN.""",
    "step5_values": """Each query's output is a weighted sum of the value vectors: `o_i = Σ_j P[i, j] v_j`,
i.e. `O = P V`, shape `[T_q, D_h]`. The weights act on `V`, not on `K`.""",
    "step6_head": """Put the steps together: `S = kq / sqrt(D_h) + M`, `P = softmax(S)`, `O = P V`, with
`M` from the causal table by default (bottom-right aligned, so a KV-cache step works).
`attention_head` runs the whole head on `Z` and returns every intermediate tensor under
llama.cpp's names (`kq`, `kq_soft_max`, `kqv`).""",
    "step7_layer": """GPT-2 stores one layer's attention as fused weights: `Z @ c_attn.weight + c_attn.bias` is
`[T, 3D]` and holds `[Q | K | V]`, in that order. Each of them is `n_head` heads side by side: split
`[T, D]` into `[n_head, T, D_h]` (reshape to `[T, n_head, D_h]`, then swap the first two axes), run
step 6's `attention` on all heads at once, merge the heads back to `[T, D]` and apply `c_proj`.""",
    "step8_kv_cache": """Decoding keeps the keys and values of earlier tokens in a cache `[n_head, T_past, D_h]`. A step
computes Q, K, V of the new tokens only, appends their K and V first (a token reads itself), places
them at absolute positions `T_past + i`, and lets each read keys `0 … T_past + i`. The provided
`decode_in_chunks` feeds a sequence chunk by chunk: any chunking must give the full pass's rows.""",
    "step9_ggml_layout": """llama.cpp keeps a tensor as a flat buffer and its sizes `ne`, listed fastest axis first:
the NumPy shape is `ne` reversed (`Qcur-0 {64, 12, 2, 1}` is `[1, 2, 12, 64]`). `Qcur` is
`{D_h, n_head, T, 1}`, heads inside tokens: swap them to get `[n_head, T, D_h]`. `kq` is
`{n_kv, T_q, n_head, 1}` with `n_kv` padded (256 in the lesson): keep the first `T_k` key slots of
each row to get `[n_head, T_q, T_k]`.""",
}


def _link(reference, lang):
    """A Markdown link to a lesson shipped beside the notebook."""
    path = lessons.link(reference, lang)
    return f"[{path}]({path})"


def step_markdown(step, points):
    return (f"## Step {step.number}: {step.titles}\n\n{STEPS[step.module]}\n\n"
            f"Read: {_link(step.lesson, 'en')} (中文：{_link(step.lesson, 'zh')}). The test cell below is worth **{points:g} points** (all or nothing).")
