"""What a test cell of the notebook shows: the step's outcome as one error that IPython prints as the
message alone, the learner's own frames of an exception, and the closing progress table.

Embedded in the notebook with runtime.py (see embed.py): standard library only, plus the kit's i18n.
"""
import sysconfig
import textwrap
import traceback

from ..i18n import pick

PACKAGE = "attnkit_notebook_checks"  # the notebook's copy of the checking code: its frames are the kit's
_LIBRARIES = tuple({sysconfig.get_paths()[key] for key in ("stdlib", "purelib", "platlib")})
MOST_FRAMES = 4  # of the learner's own, the innermost
MOST_MESSAGES = 3  # teaching messages shown in full; the other failed checks get one line each

TEXTS = {
    "summary": {"en": "{module}: {public_ok} of {public_run} public checks passed",
                "zh": "{module}：公开检查通过 {public_ok} / {public_run}"},
    "summary_hidden": {"en": ", {hidden_ok} of {hidden_run} hidden checks passed",
                       "zh": "，隐藏检查通过 {hidden_ok} / {hidden_run}"},
    "hidden_also": {"en": "The hidden tests run at grading also check: {concepts}.",
                    "zh": "评分时运行的隐藏测试还会检查：{concepts}。"},
    "not_written": {"en": "not written yet: {text}", "zh": "还没有写：{text}"},
    "failed_check": {"en": "FAILED ({visibility} check): {text}", "zh": "未通过（{visibility}检查）：{text}"},
    "public": {"en": "public", "zh": "公开"},
    "hidden": {"en": "hidden", "zh": "隐藏"},
    "more": {"en": "{count} more failed check(s), not shown in full: {concepts}",
             "zh": "另有 {count} 项检查未通过，未逐条展开：{concepts}"},
    "points": {"en": "This cell earns its {points:g} points only when every check passes.",
               "zh": "只有所有检查都通过，这个单元格才能得到 {points:g} 分。"},
    "earlier": {"en": "This step calls your functions of earlier steps that do not pass their own tests yet: {steps}. "
                      "Fix step {first} first (its test cell says what is wrong), then run this cell again.",
                "zh": "这一步会调用你在前面几步写的函数，而这些步骤还没有通过它们自己的测试：{steps}。"
                      "先改好第 {first} 步（它的测试单元格会说明哪里不对），再重新运行这个单元格。"},
    "step_name": {"en": "step {number} ({module})", "zh": "第 {number} 步（{module}）"},
    "raised": {"en": "raised {name}: {text}", "zh": "抛出了 {name}：{text}"},
    "your_line": {"en": "in your code:", "zh": "出错的是你的代码："},
    "progress": {"en": "attnkit progress ({whose})", "zh": "attnkit 进度（{whose}）"},
    "whose_public": {"en": "public checks; hidden checks run at grading", "zh": "公开检查；隐藏检查在评分时运行"},
    "whose_all": {"en": "public and hidden checks", "zh": "公开检查与隐藏检查"},
    "passed": {"en": "passed", "zh": "通过"},
    "failed": {"en": "failed", "zh": "未通过"},
    "not_started": {"en": "not written yet", "zh": "还没有写"},
    "not_run": {"en": "test cell not run yet", "zh": "测试单元格还没有运行"},
    "next": {"en": "   <- next", "zh": "   <- 下一步"},
    "points_row": {"en": "{points:>5g} points", "zh": "{points:>5g} 分"},
    "total": {"en": "Points so far: {earned:g} of {total:g} (a step's test cell earns its points only when every "
                    "check in it passes).",
              "zh": "目前得分：{earned:g} / {total:g}（每一步的测试单元格只有全部检查通过才得分）。"},
    "read_next": {"en": "Next: step {number}. Read {read} (beside this notebook).",
                  "zh": "下一步：第 {number} 步。请读 {read}（在这个 notebook 旁边）。"},
    "all_passed": {"en": "Every step passes here. That is not full marks yet: the hidden checks run at grading.",
                   "zh": "每一步在这里都通过了。这还不等于满分：评分时还会运行隐藏检查。"},
}


def text(key, **values):
    """TEXTS[key] in the learner's language, filled in."""
    return pick(TEXTS[key]).format(**values)


class _MessageOnly:
    """IPython prints `_render_traceback_()` instead of a traceback: the message, nothing of the checking
    code. nbgrader still records the cell's error, so the cell earns 0 points."""

    def _render_traceback_(self):
        return str(self).split("\n")


class StepFailed(_MessageOnly, AssertionError):
    """A step whose checks did not all pass."""


class StepNotWritten(_MessageOnly, NotImplementedError):
    """A step whose functions still raise the stub's NotImplementedError."""


def _where(filename):
    """'Cell In[7]' for a notebook cell (as IPython names it), else the file's name."""
    try:
        return f"Cell In[{get_ipython().compile._filename_map[filename]}]"  # noqa: F821 (IPython's builtin)
    except (NameError, AttributeError, KeyError):
        return filename


def their_frames(err):
    """The learner's own frames of `err`'s traceback, innermost last, as text lines (no checking code,
    no standard library, no numpy)."""
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if not f.filename.startswith(PACKAGE) and not f.filename.startswith(_LIBRARIES)]
    lines = []
    for frame in frames[-MOST_FRAMES:]:
        lines.append(f"  {_where(frame.filename)}, line {frame.lineno}, in {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line}")
    return lines


def exception_text(err, frames):
    """What a learner's exception becomes in the teaching message: the exception, then their lines."""
    head = text("raised", name=type(err).__name__, text=err)
    return "\n".join([head, text("your_line"), *frames] if frames else [head])


def blocked_by(steps):
    """The line naming the earlier steps (dicts) that fail their own checks, in place of this step's failures."""
    names = ", ".join(text("step_name", number=s["number"], module=s["module"]) for s in steps)
    return text("earlier", steps=names, first=steps[0]["number"])


def progress_table(steps, outcomes, hidden_ran):
    """The closing cell's table: one row per step (`steps`: the course's step dicts, in order) with its
    points and its outcome in this kernel (`outcomes`: {module: "passed" | "failed" | "not_started"})."""
    whose = text("whose_all") if hidden_ran else text("whose_public")
    lines = [text("progress", whose=whose)]
    next_step = next((s for s in steps if outcomes.get(s["module"]) != "passed"), None)
    for s in steps:
        status = text(outcomes.get(s["module"], "not_run"))
        pointer = text("next") if s is next_step else ""
        title = textwrap.shorten(pick(s["title"]), width=58, placeholder=" …")
        lines.append(f"  step {s['number']}  {title:<58} {text('points_row', points=s['points'])}   {status}{pointer}")
    earned = sum(s["points"] for s in steps if outcomes.get(s["module"]) == "passed")
    lines += ["", text("total", earned=earned, total=sum(s["points"] for s in steps))]
    if next_step is None and not hidden_ran:
        lines.append(text("all_passed"))
    elif next_step is not None:
        lines.append(text("read_next", number=next_step["number"], read=pick(next_step["read"])))
    return "\n".join(lines)
