"""Feedback a student may read: per step its points, each failure as much as the student may see.

A public test's failure is shown in full (expected vs got, likely mistake, hint, lesson). A hidden
test's is shown by its concept and likely mistake only: its inputs and expected values would let a
submission look its answers up (the learner's code can print the inputs it is given). The
instructor may show them in full with `reveal_hidden` (e.g. after the deadline). Gradescope's
results.json follows the same rule (report_gradescope).

The Markdown holds learner text (folder names and roster names in its title, what the code raised in
the failures) so that no renderer, Jupyter's included, makes markup of it: text outside code blocks
is one line with HTML's special characters as entities and every other ASCII punctuation
backslash-escaped; a code block's fence is longer than any run of backticks in it, so no line of it
can close the block. In both, control and format characters are visible escapes (as in the terminal
report), so `cat` of the file is safe too. The HTML page escapes all text, and writes those characters
as visible escapes too.
"""
import html
import re

from .. import mistakes
from attnkit_runtime import judge
from attnkit_runtime.messages import say
from attnkit_runtime.status import Status
from .terminal import printable

_ASCII_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}


def shown_output(test, case, reveal_hidden):
    """The text of a failed test that its student may read; `case` is the catalogue's case of `test`."""
    if test.public or reveal_hidden or not test.output:
        return test.output
    lines = [say("feedback.hidden_title", title=judge.title(case), status=status_word(test.status))]
    if test.not_written:
        lines.append("  " + say("feedback.step_not_written", step=case.step.number, mark=say("grade.not_written_mark")))
    if test.diagnosis:
        lines.append("  " + say("teach.likely_mistake", text=mistakes.describe(test.diagnosis)))
    return "\n".join(lines)


def markdown_text(text):
    """`text` as Markdown that renders as exactly that text, on one line: no emphasis, link, heading or HTML."""
    return _ASCII_PUNCTUATION.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), printable(text, keep=""))


def code_block(text):
    """`text` as a fenced Markdown code block that no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, printable(text), fence]


def _steps(graded, cases, reveal_hidden):
    """[(step module, points, worth, [(test, text shown)])] for every step."""
    out = []
    for module, (score, worth) in graded.steps.items():
        failed = [(t, shown_output(t, cases[t.name], reveal_hidden))
                  for t in graded.tests if t.step == module and t.status is not Status.PASSED]
        out.append((module, score, worth, failed))
    return out


def _title(graded, student, text=str):
    """The page's title, the student's id and name (learner text) put through `text`."""
    who = f"{text(student.name)} ({text(student.id)})" if student.name else text(student.id)
    return say("feedback.title", who=who, score=f"{graded.score:.4g}", max=f"{graded.max_score:g}")


def status_word(status):
    """A test's Status as the student reads it, in their language."""
    return say(f"status.{status.value}")


def _found_in(graded):
    """[the line saying where the step files were found], or [] when they were at the top."""
    return [say("intake.found_in", where=graded.found_in)] if graded.found_in else []


def _header():
    """The titles of the steps table's columns."""
    return say("feedback.column_step"), say("feedback.column_points"), say("feedback.column_failed")


def markdown(graded, student, cases, reveal_hidden=False):
    """The feedback as Markdown. `cases` maps test names to catalogue cases."""
    found = [f"{markdown_text(line)}\n" for line in _found_in(graded)]
    lines = [f"# {_title(graded, student, markdown_text)}", "", *found,
             "| " + " | ".join(_header()) + " |", "|---|---|---|"]
    steps = _steps(graded, cases, reveal_hidden)
    lines += [f"| {m} | {s:.4g} / {w:g} | {len(failed)} |" for m, s, w, failed in steps]
    for module, _, _, failed in steps:
        if failed:
            lines += ["", f"## {module}"]
            for test, text in failed:
                name = test.name if test.public or reveal_hidden else say("feedback.hidden_test")
                lines += ["", f"**{name}**: {status_word(test.status)}", "", *code_block(text)]
    return "\n".join(lines) + "\n"


def html_page(graded, student, cases, reveal_hidden=False):
    """The same feedback as one self-contained HTML page (no scripts, no outside files); all text escaped."""
    def e(text):
        return html.escape(printable(text))
    title = _title(graded, student, lambda text: printable(text, keep=""))
    steps = _steps(graded, cases, reveal_hidden)
    rows = "".join(f"<tr><td>{e(m)}</td><td>{s:.4g} / {w:g}</td><td>{len(failed)}</td></tr>" for m, s, w, failed in steps)
    body = [f"<h1>{e(title)}</h1>", *(f"<p>{e(line)}</p>" for line in _found_in(graded)),
            "<table><tr>" + "".join(f"<th>{e(h)}</th>" for h in _header()) + f"</tr>{rows}</table>"]
    for module, _, _, failed in steps:
        if failed:
            body.append(f"<h2>{e(module)}</h2>")
            for test, text in failed:
                name = test.name if test.public or reveal_hidden else say("feedback.hidden_test")
                body.append(f"<h3>{e(name)}: {e(status_word(test.status))}</h3><pre>{e(text)}</pre>")
    return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{e(title)}</title><style>"
            "body{font-family:sans-serif;max-width:60em;margin:2em auto}td,th{padding:.2em .8em;text-align:left}"
            "pre{background:#f4f4f4;padding:.6em;white-space:pre-wrap}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
