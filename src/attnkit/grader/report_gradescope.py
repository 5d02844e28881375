"""Gradescope's autograder results.json: public tests visible, hidden ones after grades are published.

A hidden test's output, even once published, is its concept and likely mistake only (feedback.py's
rule), unless the instructor asks for `reveal_hidden`.
"""
import json

from .atomic import write_text
from .feedback import shown_output
from .grade import POINTS_SPLIT

_CAP = 8000  # characters of learner output shown


def results(graded, cases, reveal_hidden=False):
    """The results.json object; `cases` maps test names to catalogue cases."""
    tests = [{"name": t.name, "score": t.score, "max_score": t.max_score,
              "status": "passed" if t.status == "passed" else "failed",
              "output": shown_output(t, cases[t.name], reveal_hidden),
              "tags": [t.step] + ([t.diagnosis] if t.diagnosis else []),
              "visibility": "visible" if t.public else "after_published"}
             for t in graded.tests]
    lines = [f"Score {graded.score:g} / {graded.max_score:g}. {POINTS_SPLIT}"]
    lines += [f"  {m}: {s:g} / {w:g}" for m, (s, w) in graded.steps.items()]
    if graded.diagnoses:
        lines.append("Likely mistakes: " + ", ".join(graded.diagnoses))
    for label, text in (("Your code printed", graded.stdout), ("Your code wrote to stderr", graded.stderr)):
        if text:
            lines += [f"{label}:", text[:_CAP]]
    return {"score": graded.score, "output": "\n".join(lines), "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests}


def write(path, graded, cases, reveal_hidden=False):
    write_text(path, json.dumps(results(graded, cases, reveal_hidden), indent=1) + "\n")
