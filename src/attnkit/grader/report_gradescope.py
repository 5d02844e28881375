"""Gradescope's autograder results.json: before grades are published, a student sees the public tests only.

Gradescope shows a test whose visibility is `visible` at once and an `after_published` one once the
instructor publishes the grades; while any test is hidden it shows no total. So the public tests are
visible, and the top-level output sums them up alone (no score, no step totals: those count the
hidden tests). The hidden tests and what the learner's code printed (it ran on the hidden cases too,
so its lines would count and describe them) come after publication. The isolation note is for the
instructor: `extra_data`, which students never see. Every text is rendered as plain text, so a
learner's markup shows as typed. A step's tests are numbered `<step>.<k>`, its public ones first: the
numbers a student sees leave no gap where a hidden test sits.

A hidden test's output, even once published, is its concept and likely mistake only (feedback.py's
rule), unless the instructor asks for `reveal_hidden`.
"""
import json
import os
from collections import Counter
from enum import Enum
from pathlib import Path

from .atomic import write_text
from .feedback import shown_output
from .file_names import stems
from attnkit_runtime.messages import say
from attnkit_runtime.status import Status
from .grade import points_split

_CAP = 8000  # characters of learner output shown
_TEXT = "text"  # Gradescope's format that renders no HTML, Markdown or ANSI


class Visibility(str, Enum):
    """When Gradescope shows a test (or the grader's own log) to the student."""

    VISIBLE = "visible"
    AFTER_PUBLISHED = "after_published"
    HIDDEN = "hidden"


def results(graded, cases, reveal_hidden=False):
    """The results.json object; `cases` maps test names to catalogue cases."""
    numbers = _numbers(graded.tests, cases)
    anything_hidden = not all(t.public for t in graded.tests)
    withheld = [t for t in graded.tests if t.public and _unpaid(t)] if anything_hidden else []
    held = {t.name for t in withheld}
    tests = [{"name": t.name, "number": numbers[t.name], "score": t.max_score if t.name in held else t.score,
              "max_score": t.max_score, "status": Status.PASSED if t.status is Status.PASSED else Status.FAILED,
              "output": "" if t.name in held else shown_output(t, cases[t.name], reveal_hidden),
              "tags": [t.step] + ([t.diagnosis] if t.diagnosis else []),
              "visibility": Visibility.VISIBLE if t.public else Visibility.AFTER_PUBLISHED}
             for t in graded.tests]
    tests += _withheld_points(withheld)
    printed = Visibility.AFTER_PUBLISHED if anything_hidden else Visibility.VISIBLE
    tests += [{"name": say(label), "output": text[:_CAP], "visibility": printed}  # information: no points
              for label, text in (("gradescope.printed", graded.stdout), ("gradescope.stderr", graded.stderr)) if text]
    return _results(graded.score, _summary(graded, anything_hidden), tests, {"isolation": graded.isolation})


def _unpaid(test):
    """A passed test that earned no points: its function gave no evidence on a hidden value test (attnkit.credit)."""
    return test.status is Status.PASSED and test.score < test.max_score


def _withheld_points(withheld):
    """Per step, one point-less-but-negative test shown after publication taking back the points of its
    visible public tests that passed unpaid: before publication those look like any passed test, since
    why they are unpaid is a hidden result."""
    by_step = {}
    for t in withheld:
        by_step.setdefault(t.step, []).append(t)
    return [{"name": say("gradescope.withheld", step=step), "score": -round(sum(t.max_score - t.score for t in mine), 6),
             "max_score": 0.0, "output": "\n".join(t.output for t in mine), "tags": [step],
             "visibility": Visibility.AFTER_PUBLISHED} for step, mine in by_step.items()]


def failed(output):
    """A results.json for a submission that could not be graded: score 0, no tests, `output` says why."""
    return _results(0.0, output, [], {})


def _results(score, output, tests, extra_data):
    return {"score": score, "output": output, "output_format": _TEXT, "test_output_format": _TEXT,
            "test_name_format": _TEXT, "visibility": Visibility.VISIBLE, "stdout_visibility": Visibility.HIDDEN,
            "tests": tests, "extra_data": extra_data}


def _summary(graded, anything_hidden):
    """The top-level output: the public tests passed, per step, and their likely mistakes."""
    public = [t for t in graded.tests if t.public]
    lines = [say("gradescope.public_passed", passed=_passed(public), total=len(public), split=points_split())]
    if graded.found_in:
        lines.append(say("intake.found_in", where=graded.found_in))
    for module in graded.steps:
        mine = [t for t in public if t.step == module]
        if mine:
            lines.append(f"  {module}: " + say("gradescope.public_step", passed=_passed(mine), total=len(mine)))
    codes = sorted({t.diagnosis for t in public if t.diagnosis})
    if codes:
        lines.append(say("gradescope.mistakes", codes=", ".join(codes)))
    if anything_hidden:
        lines.append(say("gradescope.after_publication"))
    return "\n".join(lines)


def _passed(tests):
    return sum(t.status is Status.PASSED for t in tests)


def _numbers(tests, cases):
    """{test name: "<step number>.<k>"}, k counting a step's public tests first, then its hidden ones."""
    counted, numbers = Counter(), {}
    for t in sorted(tests, key=lambda t: not t.public):  # stable: the plan's order otherwise
        step = cases[t.name].step.number
        counted[step] += 1
        numbers[t.name] = f"{step}.{counted[step]}"
    return numbers


def write(path, graded, cases, reveal_hidden=False):
    write_text(path, json.dumps(results(graded, cases, reveal_hidden), indent=1) + "\n")


def files_for(names, target, roster=None):
    """{submission path: the results.json it writes} for the submissions `names` and --gradescope `target`.

    One submission: `target` itself, or `target`/results.json when it ends with a slash or is an
    existing folder. Several: `target` is a folder of `<student's file name>.json`, one each
    (file_names.stems: never shared, never too long); ValueError if two would still share one.
    """
    distinct = list(dict.fromkeys(names))
    if len(distinct) == 1:
        folder = str(target).endswith(("/", os.sep)) or Path(target).is_dir()
        return {distinct[0]: Path(target) / "results.json" if folder else Path(target)}
    return {name: Path(target) / f"{stem}.json" for name, stem in stems(distinct, roster).items()}
