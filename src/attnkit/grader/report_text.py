"""The terminal report: a submission's score, its steps, and what failed with the likely mistake."""
import textwrap

from attnkit_runtime.status import Status
from ..messages import say
from .feedback import status_word
from .terminal import printable

_CAP = 2000  # characters of learner output shown


def _points(x):
    """Points for a reader: at most two decimals (the JSON, CSV and Gradescope files keep them all)."""
    return f"{round(x, 2):g}"


def text(graded):
    """The report, safe to print: learner-controlled text cannot move the cursor or forge a line."""
    lines = [f"{printable(graded.submission, keep='')}: {_points(graded.score)} / {_points(graded.max_score)}"]
    if graded.found_in:
        lines.append("  " + say("grade.found_in", where=printable(graded.found_in, keep="")))
    if graded.problem:  # every test says the same: once is enough
        return "\n".join([*lines, "  " + say("grade.not_graded", why=printable(graded.problem, keep=""))])
    for module, (score, worth) in graded.steps.items():
        mine = [t for t in graded.tests if t.step == module]
        bad = [t for t in mine if t.status is not Status.PASSED]
        mark = say("grade.step_ok") if not bad else say("grade.step_not_passed", bad=len(bad), total=len(mine))
        lines.append(f"  {module:<18} {_points(score):>6} / {_points(worth):<4} {mark}")
    for module in graded.steps:
        bad = [t for t in graded.tests if t.step == module and t.status is not Status.PASSED]
        if not bad:
            continue
        if all(t.not_written for t in bad):
            lines.append("  " + say("grade.step_not_written", module=module, count=len(bad)))
            continue
        lines.append(f"  {module}:")
        for k, t in enumerate(bad):
            tag = "" if t.public else say("grade.hidden_tag")
            code = f" — {t.diagnosis}" if t.diagnosis else ""
            lines.append(f"    {status_word(t.status):<7} {t.name}{tag}{code}")
            if k == 0:  # the first failure of a step in full; the rest are usually the same story
                lines.append(textwrap.indent(printable(t.output), "      "))
    for label, out in (("grade.printed", graded.stdout), ("grade.wrote_stderr", graded.stderr)):
        if out:
            lines.append("  " + say(label))
            lines.append(textwrap.indent(printable(out[:_CAP]) + ("\n…" if len(out) > _CAP else ""), "    | "))
    return "\n".join(lines)
