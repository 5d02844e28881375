"""What a test cell of the notebook shows: the step's outcome as one error that IPython prints as the
message alone, the learner's own frames of an exception, and the closing progress table.

Part of the runtime folder the notebook imports (notebook.py): standard library only, plus the kit's messages.
"""
import os
import sysconfig
import traceback

from .i18n import pick
from .messages import say
from .text_wrap import columns

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep  # the checks' own files: their frames are the kit's
_LIBRARIES = tuple({sysconfig.get_paths()[key] for key in ("stdlib", "purelib", "platlib")})
MOST_FRAMES = 4  # of the learner's own, the innermost
MOST_MESSAGES = 3  # teaching messages shown in full; the other failed checks get one line each
TITLE_WIDTH = 58  # columns of a step's title in the progress table


def text(key, **values):
    """The notebook's message `key` (messages.py, "notebook.<key>") in the learner's language, filled in."""
    return say(f"notebook.{key}", **values)


class _MessageOnly:
    """IPython prints `_render_traceback_()` instead of a traceback: the message, nothing of the checking
    code. nbgrader still records the cell's error, so the cell earns 0 points."""

    def _render_traceback_(self):
        return str(self).split("\n")


class StepFailed(_MessageOnly, AssertionError):
    """A step whose checks did not all pass."""


class StepNotWritten(_MessageOnly, NotImplementedError):
    """A step whose functions still raise the stub's NotImplementedError."""


def _where(filename, cells):
    """How a frame's file is named: the step whose cell it is (`cells`: {file name: "the cell of step 3
    (step3_masks)"}), with 'Cell In[7]' as IPython names it, else the file's name."""
    try:
        run = f"Cell In[{get_ipython().compile._filename_map[filename]}]"  # noqa: F821 (IPython's builtin)
    except (NameError, AttributeError, KeyError):
        run = filename
    return f"{cells[filename]} ({run})" if filename in cells else run


def their_frames(err, cells=None):
    """The learner's own frames of `err`'s traceback, innermost last, as text lines (no checking code,
    no standard library, no numpy): in a notebook, its cells, named by their step (`cells`, as `_where`
    takes it) and with the line in the cell."""
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if not f.filename.startswith(PACKAGE_DIR) and not f.filename.startswith(_LIBRARIES)]
    lines = []
    for frame in frames[-MOST_FRAMES:]:
        lines.append(f"  {_where(frame.filename, cells or {})}, line {frame.lineno}, in {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line}")
    return lines


def exception_text(err, frames):
    """What a learner's exception becomes in the teaching message: the exception, then their lines."""
    head = text("raised", name=type(err).__name__, text=err)
    return "\n".join([head, text("your_line"), *frames] if frames else [head])


def blocked_by(steps):
    """The line naming the earlier steps (dicts) that fail their own checks, in place of this step's failures."""
    names = say("list.separator").join(text("step_name", number=s["number"], module=s["module"]) for s in steps)
    return text("earlier", steps=names, first=steps[0]["number"])


def progress_table(steps, outcomes, hidden_ran):
    """The closing cell's table: one row per step (`steps`: the course's step dicts, in order) with its
    points and its outcome in this kernel (`outcomes`: {module: ("passed" | "failed" | "not_started",
    points earned)}), its columns aligned in a monospace font (a CJK character is two columns wide)."""
    whose = text("whose_all") if hidden_ran else text("whose_public")
    lines = [text("progress", whose=whose)]
    next_step = next((s for s in steps if outcomes.get(s["module"], ("",))[0] != "passed"), None)
    labels = [text("step_label", number=s["number"]) for s in steps]
    label_width = max(map(columns, labels))
    for s, label in zip(steps, labels):
        outcome, earned = outcomes.get(s["module"], ("not_run", 0.0))
        pointer = text("next") if s is next_step else ""
        lines.append(f"  {_fit(label, label_width)}  {_fit(pick(s['title']), TITLE_WIDTH)}  "
                     f"{text('points_row', earned=earned, points=s['points'])}   {text(outcome)}{pointer}")
    earned = sum(outcomes.get(s["module"], ("", 0.0))[1] for s in steps)
    total = sum(s["points"] for s in steps)
    lines += ["", text("total" if hidden_ran else "total_public", earned=round(earned, 6), total=total)]
    if next_step is None and not hidden_ran:
        lines.append(text("all_passed"))
    elif next_step is not None:
        lines.append(text("read_next", number=next_step["number"], read=pick(next_step["read"])))
    return "\n".join(lines)


def _fit(line, width):
    """`line` padded with spaces to `width` columns, or cut to fit with " …" at its end (after a whole
    word: a Latin word is not cut)."""
    if columns(line) > width:
        cut = line
        while columns(cut) > width - 2:
            cut = cut[:-1]
        inside_a_word = line[len(cut)].isascii() and line[len(cut)].isalnum() and cut[-1:].isascii()
        line = (cut.rsplit(" ", 1)[0] if inside_a_word and " " in cut else cut).rstrip() + " …"
    return line + " " * (width - columns(line))
