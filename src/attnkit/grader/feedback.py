"""Feedback a student may read: per step its points, each failure as much as the student may see.

A public test's failure is shown in full (expected vs got, likely mistake, hint, lesson). A hidden
test's is shown by its concept and likely mistake only: its inputs and expected values would let a
submission look its answers up (the learner's code can print the inputs it is given). The
instructor may show them in full with `reveal_hidden` (e.g. after the deadline). Gradescope's
results.json follows the same rule (report_gradescope).

Both files are built from `steps()`: per step, the functions not written yet (one line, not one block
per test), the failures, and the step's notes — each likely mistake, hint and lesson once, taken off
the end of the failures' texts where the judge put them. The HTML page (feedback_html) draws expected
and got as tables; this module writes the Markdown, for text-only use.

The Markdown holds learner text (folder names and roster names in its title, what the code raised in
the failures) so that no renderer, Jupyter's included, makes markup of it: text outside code blocks
is one line with HTML's special characters as entities and every other ASCII punctuation
backslash-escaped; a code block's fence is longer than any run of backticks in it, so no line of it
can close the block. In both, control and format characters are visible escapes (as in the terminal
report), so `cat` of the file is safe too.
"""
import re
from dataclasses import dataclass

from .. import manifest
from ..catalogue_diagnosis import CATALOGUE
from attnkit_runtime import judge
from attnkit_runtime.i18n import pick
from attnkit_runtime.messages import say
from attnkit_runtime.status import Status
from .terminal import printable

_ASCII_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;"}
_NOTE_KINDS = ("likely_mistake", "hint", "read")  # judge.closing_lines's kinds, in the order a step lists them


def shown_output(test, case, reveal_hidden):
    """The text of a failed test that its student may read; `case` is the catalogue's case of `test`."""
    if test.public or reveal_hidden or not test.output:
        return test.output
    lines = [say("feedback.hidden_title", title=judge.title(case), status=status_word(test.status))]
    if test.not_written:
        lines.append("  " + say("feedback.step_not_written", step=case.step.number, mark=say("grade.not_written_mark")))
    if test.diagnosis:
        lines.append("  " + say("teach.likely_mistake", text=described(test)))
    return "\n".join(lines)


def described(test):
    """The likely-mistake text of a failed test in the student's language: its diagnosis, then each known
    mistake the test cannot tell apart from it, as the learner front ends name them; "" when it has none."""
    return CATALOGUE.described(test.alike or ((test.diagnosis,) if test.diagnosis else ()))


@dataclass(frozen=True)
class Failure:
    """One failed test as its student sees it: `name` and `status` (in the student's language), `text`
    without the step's notes, `grid` (feedback_grids) or None. A hidden test not revealed is one line,
    its concept (`text`), for the `count` hidden tests that read the same."""

    name: str
    status: str
    text: str
    grid: dict | None = None
    count: int = 1
    full: bool = True  # shown in full; else the one line of a hidden test


@dataclass(frozen=True)
class StepFeedback:
    module: str
    name: str  # "Step 3: Causal masks", the title the track's manifest gives, in the student's language
    score: float
    worth: float
    not_passed: int
    unwritten: str  # the sentence naming what is not written yet, or ""
    failures: tuple  # (Failure, …)
    notes: tuple  # (likely mistake, hint, where to read, …): each once
    hidden: bool  # some failure is a hidden test's (drawn without tables; unless revealed, one line)


def status_word(status):
    """A test's status in the student's language."""
    return say(f"status.{Status(status).value}")


def steps(graded, cases, reveal_hidden):
    """[StepFeedback] for every step; `cases` maps test names to catalogue cases."""
    return [_step(module, score, worth, [t for t in graded.tests if t.step == module and t.status is not Status.PASSED],
                  cases, reveal_hidden) for module, (score, worth) in graded.steps.items()]


def _step(module, score, worth, failed, cases, reveal_hidden):
    notes = {kind: {} for kind in _NOTE_KINDS}  # {kind: {line: None}}: each line once, in order
    failures, hidden, unwritten, any_hidden = [], {}, {}, False  # hidden: {its line: its index in failures}
    for test in failed:
        case, status = cases[test.name], status_word(test.status)
        if test.not_written:
            unwritten[case.function] = unwritten.get(case.function, 0) + 1
            notes["read"][say("teach.read", where=case.step.read)] = None  # the step's lesson: a hidden case's is its own
            continue
        description = described(test)
        any_hidden = any_hidden or not test.public
        if test.public or reveal_hidden:
            text = _without_notes(test.output, judge.closing_lines(case, description), notes)
            failures.append(Failure(test.name, status, text, test.grid))
            continue
        if description:
            notes["likely_mistake"][say("teach.likely_mistake", text=description)] = None
        line = say("feedback.hidden_title", title=judge.title(case), status=status)
        if line in hidden:
            seen = failures[hidden[line]]
            failures[hidden[line]] = Failure(seen.name, status, line, count=seen.count + 1, full=False)
        else:
            hidden[line] = len(failures)
            failures.append(Failure(say("feedback.hidden_test"), status, line, full=False))
    step = manifest.step(module)
    name = say("feedback.step_name", number=step.number, title=pick(step.title))
    return StepFeedback(module, name, score, worth, len(failed), _unwritten_sentence(failed, unwritten, cases),
                        tuple(failures), tuple(line for kind in _NOTE_KINDS for line in notes[kind]), any_hidden)


def _without_notes(output, closing, notes):
    """`output` without the closing lines it ends with (judge.closing_lines: {kind: line}), which go to
    `notes` ({kind: {line: None}})."""
    for kind, line in reversed(closing.items()):
        if output.endswith("\n  " + line):
            output = output[:-len(line) - 3]
            notes[kind][line] = None
    return output


def _unwritten_sentence(failed, unwritten, cases):
    if not unwritten:
        return ""
    tests = sum(unwritten.values())
    if tests == len(failed):
        return say("feedback.step_unwritten", step=cases[failed[0].name].step.number, tests=tests)
    return say("feedback.functions_unwritten", functions=", ".join(
        say("feedback.function_tests", function=f, tests=n) for f, n in unwritten.items()))


def markdown_text(text):
    """`text` as Markdown that renders as exactly that text, on one line: no emphasis, link, heading or HTML."""
    return _ASCII_PUNCTUATION.sub(lambda m: _ENTITIES.get(m.group(), "\\" + m.group()), printable(text, keep=""))


def code_block(text):
    """`text` as a fenced Markdown code block that no line of it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, printable(text), fence]


def title(graded, student, text=str):
    """The page's title, the student's id and name (learner text) put through `text`."""
    who = f"{text(student.name)} ({text(student.id)})" if student.name else text(student.id)
    return say("feedback.title", who=who, score=f"{graded.score:.4g}", max=f"{graded.max_score:g}")


def found_in(graded):
    """[the line saying where the step files were found], or [] when they were at the top."""
    return [say("intake.found_in", where=graded.found_in)] if graded.found_in else []


def header():
    """The titles of the steps table's columns."""
    return say("feedback.column_step"), say("feedback.column_points"), say("feedback.column_failed")


def heading(failure):
    """'name: status' of a failure shown in full."""
    return say("feedback.failure", name=failure.name, status=failure.status)


def hidden_line(failure):
    """The line of a hidden test not revealed, with the count of those that read the same."""
    return failure.text + (" " + say("feedback.times", count=failure.count) if failure.count > 1 else "")


def markdown(graded, student, cases, reveal_hidden=False):
    """The feedback as Markdown. `cases` maps test names to catalogue cases."""
    found = [f"{markdown_text(line)}\n" for line in found_in(graded)]
    lines = [f"# {title(graded, student, markdown_text)}", "", *found, "| " + " | ".join(header()) + " |", "|---|---|---|"]
    shown = steps(graded, cases, reveal_hidden)
    lines += [f"| {markdown_text(s.name)} | {s.score:.4g} / {s.worth:g} | {s.not_passed} |" for s in shown]
    for s in shown:
        if not s.not_passed:
            continue
        lines += ["", f"## {markdown_text(s.name)}"]
        for failure in s.failures:
            if failure.full:
                lines += ["", f"**{markdown_text(heading(failure))}**", "", *code_block(failure.text)]
        rest = [s.unwritten] if s.unwritten else []
        rest += [hidden_line(f) for f in s.failures if not f.full] + list(s.notes)
        lines += ["", *code_block("\n".join(rest))]
    return "\n".join(lines) + "\n"
