"""The release's own texts: the student README, pyproject.toml, .gitignore and the public test files."""
import textwrap

from .. import manifest

README = {"en": """# Single-head causal self-attention, in numpy

You write one GPT-2 Small attention head, step by step, in `exercises/`. Tests say what was expected,
what came, where they differ, the likely mistake and where in the lesson to read.

The lessons are in `lessons/`: English in `lessons/en/`, Chinese in `lessons/zh/` (same files, same
sections). Each step has its own (`lessons/en/step1_projection.md` …), and every "read:" in a test's
message names a file and section there, e.g. `read: lessons/en/step2_scores.md#scale`.

Messages come in English or Chinese (中文), and so do the lesson links in them: {language}.
To choose it yourself, set `ATTNKIT_LANG=zh` (or `en`), e.g. `export ATTNKIT_LANG=zh`, or add `--lang zh` to one run: `pytest exercises --lang zh`.

## Set up (once)

```bash
python3 -m venv .venv && .venv/bin/pip install -q . && . .venv/bin/activate
```

(Python 3.10 or newer; it installs numpy, pytest and `{runtime}`, the small package that runs the tests.)

## Work

```bash
pytest exercises                               # every step (bare `pytest` does the same); the ladder says what is next
pytest exercises/test_step1_projection.py      # one step
```

Open the file the ladder names, e.g. `exercises/step1_projection.py`, and replace each
`raise NotImplementedError(...)` with your code. Leave the input checks above it as they are. Each
function's docstring says what it takes and returns, in English and then in Chinese.
Steps {core} are the core. After it come optional tracks, each graded on its own 100 points:

{tracks}

Their tests are skipped while a step's file still holds the stub's code (comments aside), so a finished
core is a green run; change the step's file and its tests run.

- A failing test shows the inputs of each call, the values it must give and yours (the cases are
  stored in `runtime/{runtime}/data/course.json`).
- A step that uses earlier steps (step 6 imports steps 1–5) runs on YOUR versions of them. If a call
  used one of those and it does not pass its own tests yet, the failure says which one to fix first.
- Each call of your function has a time limit (3 s; `ATTNKIT_TIME_LIMIT=20` gives more): an endless
  loop fails its test and the run still ends (on Windows there is no limit: stop a hung run with Ctrl+C).
  A large array is shown by its shape and the first slice that differs; `pytest -vv` shows it whole.
- To look at your own result while you experiment: `attnkit-show causal_visible 2 5` (or
  `attnkit-show softmax "0,1,-inf;-inf,-inf,-inf"`) calls your function from `exercises/` and prints
  each part of its result as a labelled grid, beside the expected one with differing cells marked `*`
  where that call is stored (for another call it says which are); `attnkit-show kv-cache` (or
  `padding`, `how-are-you`) prints a frame from the lessons. In Python:
  `from {runtime}.show import grid; print(grid(P, tokens, tokens, "P"))` (rows are queries, columns keys).
- Passing every public test is not full marks: the graded run adds hidden tests; the ladder lists
  what they also check. A function's public tests count only once it also passes a hidden test that
  checks values: answers copied from the public tests earn nothing.
""",
          "zh": """# 单头因果自注意力，用 numpy 实现

你将在 `exercises/` 里一步一步写出 GPT-2 Small 的一个 Attention Head。测试会告诉你应得的结果、你的结果、
两者哪里不同、可能的错误，以及该去课程的哪一节阅读。

课程在 `lessons/` 里：英文在 `lessons/en/`，中文在 `lessons/zh/`（文件相同，小节相同）。每一步都有自己的
课程（`lessons/zh/step1_projection.md` …），测试消息里的每个“阅读：”都指向那里的一个文件和小节，
例如 `阅读：lessons/zh/step2_scores.md#scale`。

消息有英文和中文两种，消息里的课程链接也一样：{language}。
要自己指定，设置 `ATTNKIT_LANG=zh`（或 `en`），例如 `export ATTNKIT_LANG=zh`，或者只在一次运行里加上 `--lang zh`：`pytest exercises --lang zh`。

## 准备（只做一次）

```bash
python3 -m venv .venv && .venv/bin/pip install -q . && . .venv/bin/activate
```

（需要 Python 3.10 或更新版本；它会安装 numpy、pytest 和运行测试的小程序包 `{runtime}`。）

## 练习

```bash
pytest exercises                               # 所有步骤（直接运行 `pytest` 也一样）；进度表会告诉你下一步做什么
pytest exercises/test_step1_projection.py      # 只测一步
```

打开进度表指出的文件，例如 `exercises/step1_projection.py`，把每个 `raise NotImplementedError(...)` 换成你的
代码。它上面的输入检查保持原样。每个函数的 docstring 先用英文、再用中文说明它的参数和返回值。
第 {core} 步是核心。核心之后是可以不做的选做部分，各自单独按 100 分评分：

{tracks}

某一步的文件还是原来的桩代码（注释不算）时，它的测试会被跳过，所以核心做完，整个运行就是绿的；
改动这一步的文件，它的测试就会运行。

- 失败的测试会列出每次调用的输入、应得的值和你的值（这些用例保存在
  `runtime/{runtime}/data/course.json` 里）。
- 用到前面步骤的那一步（第 6 步导入第 1–5 步）运行的是**你自己**写的版本。如果一次调用用到了其中某一步，
  而那一步还没通过它自己的测试，失败信息会告诉你先改哪一步。
- 你的函数每次调用都有时间限制（3 秒；`ATTNKIT_TIME_LIMIT=20` 可以放宽）：死循环会让它的测试失败，
  这次运行也照样会结束（Windows 上没有限制：用 Ctrl+C 停止卡住的运行）。大数组只显示形状和第一个有差异的
  切片；`pytest -vv` 显示完整数组。
- 边做边看自己的结果：`attnkit-show causal_visible 2 5`（或
  `attnkit-show softmax "0,1,-inf;-inf,-inf,-inf"`）会调用 `exercises/` 里你的函数，把结果的每一部分打印成
  带标签的表格；这次调用的期望结果保存在材料里时（别的调用会告诉你保存了哪些），期望的表格就在旁边，
  不同的格子标着 `*`。`attnkit-show kv-cache`（或 `padding`、`how-are-you`）打印课程里的一幅图。在 Python 里：
  `from {runtime}.show import grid; print(grid(P, tokens, tokens, "P"))`（行是 query，列是 key）。
- 通过全部公开测试还不等于满分：评分时还会加上隐藏测试，进度表列出了它们另外检查的内容。一个函数的公开测试
  只有在它也通过一个检查数值的隐藏测试时才计分：照抄公开测试的答案得不到分。
"""}

LANGUAGE = {None: {"en": "the language follows your locale (`LANG=zh_CN.UTF-8` gives Chinese)",
                   "zh": "语言跟随你的 locale（`LANG=zh_CN.UTF-8` 就是中文）"},
            "en": {"en": "this hand-out speaks English, whatever your locale",
                   "zh": "这份材料默认用英文，与 locale 无关"},
            "zh": {"en": "this hand-out speaks Chinese, whatever your locale",
                   "zh": "这份材料默认用中文，与 locale 无关"}}  # {hand-out language: {README language: text}}
OTHER_README = {"en": "中文说明：[{other}]({other})", "zh": "English: [{other}]({other})"}


def readme_files(runtime, lang=None):
    """{file name: text} of the READMEs: README.md in the hand-out's language `lang` (English when the
    hand-out is made in both), README.<other>.md in the other one, each naming the other at its top."""
    first = lang or "en"
    names = {code: "README.md" if code == first else f"README.{code}.md" for code in README}
    return {names[code]: OTHER_README[code].format(other=names[other]) + "\n\n" + README[code].format(
        runtime=runtime, language=LANGUAGE[lang][code], core=_span(manifest.steps(manifest.DEFAULT_TRACK)),
        tracks="\n".join(TRACK_ROW[code].format(span=_span(manifest.steps(track)), title=manifest.track_title(track)[code])
                         for track in manifest.tracks() if track != manifest.DEFAULT_TRACK))
            for code in README for other in README if other != code}


TRACK_ROW = {"en": "- steps {span}: {title}", "zh": "- 第 {span} 步：{title}"}  # an optional track in the README


def _span(steps):
    """"1–6": the first and last numbers of `steps`."""
    return f"{steps[0].number}–{steps[-1].number}"


PYPROJECT = """[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{runtime}"
version = "{version}"
description = "Runs the public tests of the attnkit exercises (pytest exercises)"
requires-python = ">=3.10"
dependencies = ["numpy>=1.24", "pytest>=7.4"]

[project.scripts]
attnkit-show = "{runtime}.show_tool:main"

[tool.setuptools.packages.find]
where = ["runtime"]

[tool.setuptools.package-data]
{runtime} = ["data/*"]

[tool.pytest.ini_options]
testpaths = ["exercises"]
addopts = "-p no:anyio"
"""

GITIGNORE = """.venv/
__pycache__/
*.egg-info/
build/
.pytest_cache/
"""


def test_file(step, runtime):
    """exercises/test_<step>.py: one test per function, running the step's public cases stored in the runtime."""
    header = textwrap.dedent(f'''\
        """Public tests of step {step.number}: {step.titles}

        Run: pytest exercises/test_{step.filename}   (all steps: pytest exercises)
        Each test runs the public cases of one function, stored in runtime/{runtime}/data/course.json
        (large arrays in data/snapshot.npz beside it). A failing case shows the inputs of each call, what
        was expected and what came.

        第 {step.number} 步的公开测试。运行：pytest exercises/test_{step.filename}（所有步骤：pytest exercises）。
        每个测试运行一个函数的公开用例，用例存放在 runtime/{runtime}/data/course.json 里（大数组在它旁边的
        data/snapshot.npz 里）。失败的用例会列出每次调用的输入、应得的结果和实际的结果。
        """
        from {runtime}.exercise import case_test

        ''')
    return header + "".join(f"test_{fn.name} = case_test({step.module!r}, {fn.name!r})\n" for fn in step.functions)
