"""The prose of the notebook: the opening cell, each step's heading (its explanation is the manifest's
`about`, in both languages), the closing cell's heading and the line a test cell shows when the checks
cell has not run."""
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
"""

INTRO = {"core": CORE_INTRO, "extension": EXTENSION_INTRO}

def _link(reference, lang):
    """A Markdown link to a lesson shipped beside the notebook."""
    path = lessons.link(reference, lang)
    return f"[{path}]({path})"


def step_markdown(step, points):
    """The Markdown cell above a step's code: heading, the manifest's `about` in every language, where to read."""
    about = "\n\n".join(step.about[lang] for lang in LANGUAGES)
    return (f"## Step {step.number}: {step.titles}\n\n{about}\n\n"
            f"Read: {_link(step.lesson, 'en')} (中文：{_link(step.lesson, 'zh')}). The test cell below is worth **{points:g} points**.")
