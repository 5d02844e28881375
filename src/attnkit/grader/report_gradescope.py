"""Gradescope's autograder results.json: public tests visible, hidden ones after grades are published."""
import json

from .atomic import write_text
from .grade import POINTS_SPLIT

_CAP = 8000  # characters of learner output shown


def results(graded):
    tests = [{"name": t.name, "score": t.score, "max_score": t.max_score,
              "status": "passed" if t.status == "passed" else "failed", "output": t.output,
              "tags": [t.step] + ([t.diagnosis] if t.diagnosis else []),
              "visibility": "visible" if t.public else "after_published"}
             for t in graded.tests]
    lines = [f"Score {graded.score:g} / {graded.max_score:g}. {POINTS_SPLIT}", f"Isolation: {graded.isolation}"]
    lines += [f"  {m}: {s:g} / {w:g}" for m, (s, w) in graded.steps.items()]
    if graded.diagnoses:
        lines.append("Likely mistakes: " + ", ".join(graded.diagnoses))
    for label, text in (("Your code printed", graded.stdout), ("Your code wrote to stderr", graded.stderr)):
        if text:
            lines += [f"{label}:", text[:_CAP]]
    return {"score": graded.score, "output": "\n".join(lines), "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests, "extra_data": {"isolation": graded.isolation}}


def write(path, graded):
    write_text(path, json.dumps(results(graded), indent=1) + "\n")
