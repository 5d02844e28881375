"""Gradescope's autograder results.json: public tests visible, hidden ones after grades are published.

A hidden test's output, even once published, is its concept and likely mistake only (feedback.py's
rule), unless the instructor asks for `reveal_hidden`.
"""
import json
import os
from pathlib import Path

from .atomic import write_text
from .feedback import shown_output
from .file_names import stems
from ..messages import say
from .grade import points_split

_CAP = 8000  # characters of learner output shown


def results(graded, cases, reveal_hidden=False):
    """The results.json object; `cases` maps test names to catalogue cases."""
    tests = [{"name": t.name, "score": t.score, "max_score": t.max_score,
              "status": "passed" if t.status == "passed" else "failed",
              "output": shown_output(t, cases[t.name], reveal_hidden),
              "tags": [t.step] + ([t.diagnosis] if t.diagnosis else []),
              "visibility": "visible" if t.public else "after_published"}
             for t in graded.tests]
    lines = [say("gradescope.score", score=f"{graded.score:g}", max=f"{graded.max_score:g}", split=points_split()),
             say("gradescope.isolation", isolation=graded.isolation)]
    lines += [f"  {m}: {s:g} / {w:g}" for m, (s, w) in graded.steps.items()]
    if graded.diagnoses:
        lines.append(say("gradescope.mistakes", codes=", ".join(graded.diagnoses)))
    for label, text in (("gradescope.printed", graded.stdout), ("gradescope.stderr", graded.stderr)):
        if text:
            lines += [say(label), text[:_CAP]]
    return {"score": graded.score, "output": "\n".join(lines), "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests, "extra_data": {"isolation": graded.isolation}}


def failed(output):
    """A results.json for a submission that could not be graded: score 0, no tests, `output` says why."""
    return {"score": 0.0, "output": output, "visibility": "visible", "stdout_visibility": "hidden", "tests": []}


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
