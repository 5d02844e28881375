"""Helpers for the grader's tests: one plan per session, submissions and notebooks, the grading JSON's shape."""
import json
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from attnkit import manifest
from attnkit.grader import submission
from attnkit.grader.feedback import markdown_text
from attnkit.grader.grade import grade_submission
from attnkit.grader.plan import Plan
from attnkit.grader.runners import SandboxRunner
from attnkit.paths import ROOT

STATUSES = {"passed", "failed", "error", "timeout"}
_KIT_IMPORT = re.compile(r"^from (shape_checks|step\d+_\w+) import .*$", re.M)


@lru_cache(maxsize=None)
def plan():
    return Plan()


def grade_path(path, limits=None):
    """Grade the submission at `path` through the real sandbox."""
    sub = submission.read(str(path))
    return grade_submission(plan(), SandboxRunner(limits), sub)


def case_points_of(functions):
    """Points of the cases that call any of `functions` ({(step module, function)})."""
    return sum(p.points for p in plan().cases if (p.case.step.module, p.case.function) in functions)


def assert_only_functions_lost(graded, functions):
    """Every test of `functions` failed, every other test passed, and the score says exactly that."""
    for t, p in zip(graded.tests, plan().cases):
        lost = (p.case.step.module, p.case.function) in functions
        assert (t.status != "passed") == lost, (t.name, t.status, t.output)
    assert abs(graded.score - (100 - case_points_of(functions))) < 1e-4


def notebook(folder, path, tagged=True, extra_cells=()):
    """Write an nbgrader-style notebook of the step files in `folder` (one solution cell per step)."""
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Attention, step by step\n"]},
             _code("import numpy as np\nimport math\n", {})]
    for step in manifest.steps():
        source = _KIT_IMPORT.sub("", (Path(folder) / step.filename).read_text(encoding="utf-8"))
        meta = {"nbgrader": {"grade_id": step.module, "solution": True, "grade": False, "locked": False}}
        cells.append(_code(source, meta if tagged else {}))
        cells.append(_code(f"# tests of {step.module}\nassert True\n",
                           {"nbgrader": {"grade_id": f"test_{step.module}", "grade": True, "points": 1}}))
    cells += [_code(text, {}) for text in extra_cells]
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
          "nbformat": 4, "nbformat_minor": 5}
    Path(path).write_text(json.dumps(nb, indent=1), encoding="utf-8")
    return str(path)


def _code(text, meta):
    return {"cell_type": "code", "metadata": meta, "execution_count": None, "outputs": [],
            "source": text.splitlines(keepends=True)}


def feedback_row(module):
    """The start of a step's row in a student's English Markdown feedback: "| Step 2\\: Scores… |"."""
    step = manifest.step(module)
    name = f"Step {step.number}: {step.title['en']}"
    return f"| {markdown_text(name)} |"


def run_cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "attnkit.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def assert_spec_shape(obj):
    """`obj` is a grade as docs/CONTRACT.md pins it."""
    assert set(obj) >= {"submission", "score", "max_score", "tests", "diagnoses"}  # more keys allowed (docs/CONTRACT.md)
    assert isinstance(obj["submission"], str)
    assert isinstance(obj["score"], float) and isinstance(obj["max_score"], float)
    assert obj["max_score"] == 100.0 and 0.0 <= obj["score"] <= 100.0
    assert isinstance(obj["diagnoses"], list) and all(isinstance(d, str) for d in obj["diagnoses"])
    steps = {s.module for s in manifest.steps()}
    for t in obj["tests"]:
        assert set(t) == {"name", "step", "score", "max_score", "status", "output", "diagnosis"}
        assert t["step"] in steps and t["status"] in STATUSES
        assert isinstance(t["output"], str) and (t["diagnosis"] is None or isinstance(t["diagnosis"], str))
        assert t["score"] == (t["max_score"] if t["status"] == "passed" else 0.0)
        assert (t["output"] == "") == (t["status"] == "passed")
    assert sorted({t["diagnosis"] for t in obj["tests"] if t["diagnosis"]}) == obj["diagnoses"]


def gradescope_visible(results):
    """What a student sees of Gradescope's `results` before grades are published (Gradescope's rules):
    the top-level output, the tests whose visibility is `visible`, and the total only when no test is
    hidden ("If test cases are hidden, students will not be able to see their total score")."""
    default = results.get("visibility", "visible")
    tests = [t for t in results["tests"] if t.get("visibility", default) == "visible"]
    shown = {"output": results.get("output", "") if default == "visible" else "", "tests": tests}
    if len(tests) == len(results["tests"]):
        shown["score"] = results["score"]
    return shown


def gradescope_texts(results):
    """[(text, format)]: each text of Gradescope's `results` a student may see, with the format Gradescope
    renders it in (its defaults: `simple_format`, HTML, for the top-level output, `text` for the tests)."""
    texts = [(results.get("output", ""), results.get("output_format", "simple_format"))]
    for t in results["tests"]:
        texts.append((t.get("output", ""), t.get("output_format", results.get("test_output_format", "text"))))
        texts.append((t.get("name", ""), t.get("name_format", results.get("test_name_format", "text"))))
    return texts


def rendered_markdown(text):
    """The HTML a Markdown renderer that lets raw HTML through (as Jupyter's does) makes of `text`
    (mistune, from the dev extra; the test is skipped without it)."""
    mistune = pytest.importorskip("mistune")
    return mistune.create_markdown(escape=False, plugins=["table"])(text)
