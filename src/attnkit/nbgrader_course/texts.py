"""The prose of the notebook: the opening cell, each step's heading (its explanation is the manifest's
`about`), the closing cell's heading and the line a test cell shows when the checks cell has not run.

Each text is written in English and in Chinese; a notebook shows both, English first, or the one
language `made_in(lang)` asks for (`attnkit nbgrader-course --lang`)."""
from contextlib import contextmanager
from contextvars import ContextVar

from .. import lessons
from attnkit_runtime.i18n import LANGUAGES, check_language, pick
from attnkit_runtime.messages import MESSAGES

LESSONS = {"en": ("The lessons are in the folder `lessons/` beside this notebook, in English (`lessons/en/`) and "
           "Chinese (`lessons/zh/`): one per step, plus references on mask polarity across APIs, padding, "
           "KV-cache offsets, the fully masked row and GPT-2's Block 0 / Head 0 in llama.cpp. "
           "Each step below links its lesson; [lessons/README.md](lessons/README.md) is the index. "
           "Keep the folder `attnkit_runtime/` beside this notebook too: the test cells' checks and their data are "
           "there."),
           "zh": ("课程在这个 notebook 旁边的 `lessons/` 文件夹里，有英文（`lessons/en/`）和中文（`lessons/zh/`）："
                  "每一步一篇，另有几篇参考：各个 API 的掩码极性、填充、KV Cache 的偏移、整行都被遮住的情况，"
                  "以及 llama.cpp 里 GPT-2 的 Block 0 / Head 0。下面每一步都链接到它的课程；"
                  "[lessons/README.md](lessons/README.md) 是目录。文件夹 `attnkit_runtime/` 也要留在这个 notebook "
                  "旁边：测试单元格的检查代码和数据都在里面。")}

TEST_COMMENT = ("The provided cells at the top load the checks from attnkit_runtime/ beside this notebook. "
                "/ 顶部提供的单元格从旁边的 attnkit_runtime/ 加载检查代码。")

PROVIDED_COMMENT = ("# Provided, do not edit, run it first: the input checks every step calls, from the file {file} "
                    "beside this notebook.\n# 提供的代码，不要修改，先运行它：每一步都调用的输入检查，来自这个 notebook 旁边的 {file} 文件。")

RUN_FIRST = {"en": "the checks are not loaded: run the provided cells at the top first (the second one loads "
                   "the checks), then this cell again",
             "zh": "检查代码还没有加载：先运行最上面提供的单元格（第二个加载检查代码），再运行这个单元格"}

PROGRESS = {"en": "## Progress\n\nRun the cell below after the test cells: a table of the steps, which pass, "
                  "and the points so far.",
            "zh": "## 进度\n\n运行完各步的测试单元格后运行下面这个单元格：它列出每一步是否通过，以及目前的得分。"}


_MADE_IN = ContextVar("notebook_languages", default=LANGUAGES)  # the languages of the notebook being written


@contextmanager
def made_in(lang=None):
    """Write the notebook's texts in `lang` only ("en" or "zh") inside this block; in both when None."""
    token = _MADE_IN.set(LANGUAGES if lang is None else (check_language(lang),))
    try:
        yield
    finally:
        _MADE_IN.reset(token)


def _in_each(text, separator="\n\n"):
    """`text` ({lang: text}) in each language the notebook is written in, English first."""
    return separator.join(pick(text, lang) for lang in _MADE_IN.get())


def run_first():
    """RUN_FIRST in the notebook's languages: the kernel's language is unknown until the checks cell has run."""
    return _in_each(RUN_FIRST, " / ")


def progress_markdown():
    """The closing cell's heading, in the notebook's languages."""
    return _in_each(PROGRESS)


INTRO = {"core": {"en": """# Single-head causal self-attention, in numpy

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

{lessons}

**How to work.** Run the two provided cells below first. Then, for each step, replace every
`raise NotImplementedError(...)` in the step's code cell with your code, run that cell, and run the
test cell under it. A test cell prints what it expected, what it got and where to read. Later steps
use your earlier functions (step 6 calls steps 1–5), so go in order. All cells share one namespace: a
function is there once its cell has run, by its name, with no import (`from step3_masks import …`, the
folder hand-out's habit, is not needed here).
""",
                  "zh": """# 单头因果自注意力，用 numpy 实现

你将一步一步写出 GPT-2 Small（D = 768，12 个 Head，D_h = 64）的一个 Attention Head，记号与课程一致：

| 名称 | 含义 | 形状 |
|---|---|---|
| `Z` | 进入 Attention 的 LayerNorm 输出 | `[T, D]` |
| `W_Q, W_K, W_V`, `b_Q, b_K, b_V` | 一个 Head 的权重和偏置 | `[D, D_h]`, `[D_h]` |
| `Q, K, V` | Query、Key、Value | `[T_q, D_h]`, `[T_k, D_h]`, `[T_k, D_h]` |
| `kq` | 原始分数 `Q Kᵀ`，还没有缩放 | `[T_q, T_k]` |
| `M` | 加性掩码：可见处为 `0`，不可见处为 `-inf` | `[T_q, T_k]` |
| `S` | `kq / sqrt(D_h) + M` | `[T_q, T_k]` |
| `P` | `softmax(S)`，逐行计算 | `[T_q, T_k]` |
| `O` | `P V` | `[T_q, D_h]` |

{lessons}

**怎么做。** 先运行下面两个提供的单元格。然后每一步：把这一步代码单元格里的每个
`raise NotImplementedError(...)` 换成你的代码，运行这个单元格，再运行它下面的测试单元格。测试单元格会打印
应得的结果、你的结果以及该读哪里。后面的步骤会调用你前面写的函数（第 6 步调用第 1–5 步），所以请按顺序做。
所有单元格共用一个命名空间：一个函数所在的单元格运行过之后，直接用它的名字就能调用，不需要 import
（文件夹版练习里的习惯 `from step3_masks import …` 在这里用不着）。
"""},
         "extension": {"en": """# Beyond one head: GPT-2's attention layer and decoding with a KV cache

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

{lessons}

**How to work.** Run the provided cells first: the third holds working versions of steps 1–6
(`attention`, `project`, …) for your new code to call. Then, for each step, replace every
`raise NotImplementedError(...)` in the step's code cell with your code, run it, and run the test
cell under it.
""",
                       "zh": """# 不止一个 Head：GPT-2 的 Attention 层与带 KV Cache 的解码

这份作业接在单个 Head 的作业之后，单独按 100 分评分。你将用 GPT-2 原样存储的权重（`c_attn.weight [D, 3D]`、
`c_attn.bias [3D]`、`c_proj.weight [D, D]`、`c_proj.bias [D]`，按 `x @ W + b` 使用）一次算出所有 Head，
搭出 GPT-2 完整的 Attention 层；然后用 KV Cache 解码，并检查任意分块都能得到完整因果计算的那些行；最后把
llama.cpp 的张量（GGML 的 `ne` 形状、扁平缓冲区、带填充的 `kq` 转储）读成这些数组。

| 名称 | 含义 | 形状 |
|---|---|---|
| `Z` | 进入 Attention 的 LayerNorm 输出 | `[T, D]` |
| 拆成多个 Head 的 `Q, K, V` | 每个 Head 一份 | `[n_head, T, D_h]` |
| `kq`, `kq_soft_max` | 每个 Head 一份 | `[n_head, T_q, T_k]` |
| `out` | 经过 `c_proj` 之后的层输出 | `[T, D]` |
| `K_past, V_past` | KV Cache | `[n_head, T_past, D_h]` |
| `buffer`, `ne` | 一个 GGML 张量：扁平的数，大小从最快的维度写起 | `[ne0·ne1·…]`, `{{ne0, ne1, …}}` |

{lessons}

**怎么做。** 先运行提供的单元格：第三个里有第 1–6 步的可用版本（`attention`、`project` ……），供你的新代码
调用。然后每一步：把这一步代码单元格里的每个 `raise NotImplementedError(...)` 换成你的代码，运行它，再运行
它下面的测试单元格。
"""}}

INTRO["modern"] = {"en": """# After GPT-2: how today's engines compute attention

This assignment follows the one on a single head and is graded on its own 100 points, 25 per step. You
will compute step 6's attention the way today's engines do: in blocks of keys with an online softmax
(FlashAttention's loop), with fewer key/value heads than query heads (grouped-query attention, as in
Llama), with rotary position embeddings turning `Q` and `K`, and backwards, from `dO` to `dQ, dK, dV`.

| name | meaning | shape |
|---|---|---|
| `m`, `l`, `acc` | per query row: running maximum, running sum of `exp(S - m)`, unnormalised output | `[T_q]`, `[T_q]`, `[T_q, D_v]` |
| `S_block`, `V_block` | one block of scaled scores (hidden entries `-inf`), its values | `[T_q, B]`, `[B, D_v]` |
| `Q` / `K, V` with GQA | query heads / key-value heads, `n_head % n_kv_head == 0` | `[n_head, T_q, D_h]` / `[n_kv_head, T_k, D_h]` |
| `inv_freq` | RoPE's frequencies `base ** (-2 i / d_head)` | `[d_head // 2]` |
| `dO` → `dQ, dK, dV` | the loss's gradient at `O` → at the head's inputs | `[T_q, D_v]` → the shapes of `Q, K, V` |

{lessons}

**How to work.** Run the provided cells first: the third holds working versions of steps 1–6
(`attention`, `softmax`, `causal_visible`, …) for your new code to call. Then, for each step, replace every
`raise NotImplementedError(...)` in the step's code cell with your code, run it, and run the test
cell under it. The steps do not use each other: do them in any order.
""",
                   "zh": """# GPT-2 之后：今天的引擎怎样算注意力

这份作业接在单个 Head 的作业之后，单独按 100 分评分，每一步 25 分。你要像今天的引擎那样计算第 6 步的
Attention：把 Key 分块、用在线 softmax 处理（FlashAttention 的循环）；让多个 Query Head 共用较少的
Key/Value Head（分组查询 Attention，Llama 就是这样）；用旋转位置编码转动 `Q` 和 `K`；最后反过来，由 `dO`
求出 `dQ, dK, dV`。

| 名称 | 含义 | 形状 |
|---|---|---|
| `m`, `l`, `acc` | 每个 Query 行的运行最大值、`exp(S - m)` 的运行和、未归一化的输出 | `[T_q]`, `[T_q]`, `[T_q, D_v]` |
| `S_block`, `V_block` | 一块缩放后的分数（被隐藏处为 `-inf`）和它对应的 Value | `[T_q, B]`, `[B, D_v]` |
| GQA 的 `Q` / `K, V` | Query Head / Key-Value Head，`n_head % n_kv_head == 0` | `[n_head, T_q, D_h]` / `[n_kv_head, T_k, D_h]` |
| `inv_freq` | RoPE 的频率 `base ** (-2 i / d_head)` | `[d_head // 2]` |
| `dO` → `dQ, dK, dV` | 损失在 `O` 处的梯度 → 在这个 Head 输入处的梯度 | `[T_q, D_v]` → 与 `Q, K, V` 形状相同 |

{lessons}

**怎么做。** 先运行提供的单元格：第三个里有第 1–6 步的可用版本（`attention`、`softmax`、`causal_visible`
……），供你的新代码调用。然后每一步：把这一步代码单元格里的每个 `raise NotImplementedError(...)` 换成你的
代码，运行它，再运行它下面的测试单元格。这几步互不依赖，顺序随你。
"""}


def intro(track):
    """The opening cell of `track`'s notebook, in the notebook's languages."""
    return _in_each({lang: text.format(lessons=LESSONS[lang]) for lang, text in INTRO[track].items()}, "\n\n---\n\n")


def about_points():
    """The cell on how the test cells earn points and how to switch the checks' language."""
    return _in_each({lang: "\n\n".join(pick(MESSAGES[key], lang) for key in ("notebook.points_rule", "notebook.language"))
                     for lang in LANGUAGES})


def _link(reference, lang):
    """A Markdown link to a lesson shipped beside the notebook."""
    path = lessons.link(reference, lang)
    return f"[{path}]({path})"


STEP = {"en": "## Step {number}: {title}", "zh": "## 第 {number} 步：{title}"}
READ_AND_WORTH = {"en": "Read: {link}. The test cell below is worth **{points:g} points**.",
                  "zh": "阅读：{link}。下面的测试单元格值 **{points:g} 分**。"}


def step_markdown(step, points):
    """The Markdown cell above a step's code: heading, the manifest's `about`, where to read and what the
    test cell is worth, in each of the notebook's languages."""
    return _in_each({lang: "\n\n".join((STEP[lang].format(number=step.number, title=step.title[lang]), step.about[lang],
                                         READ_AND_WORTH[lang].format(link=_link(step.lesson, lang), points=points)))
                     for lang in LANGUAGES})
