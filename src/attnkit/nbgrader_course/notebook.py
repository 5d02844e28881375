"""The instructor's notebook of the course, made from solutions/, the case catalogue and the rubric.

Cell conventions (`attnkit grade` reads submitted notebooks by them): a locked cell that imports the
provided input checks from shape_checks.py beside the notebook (grade_id "shape_checks",
`provided_source`); a locked cell that loads the checks (`checks_source`: the
learner runtime from the folder attnkit_runtime/ beside the notebook, runtime_folder.py); then per
step a Markdown explanation, a solution cell (grade_id = the step module) holding the module's code
without its imports of shape_checks / earlier steps, and a locked, autograded test cell (grade_id
"test_<step module>", the rubric's points) with the call that runs the step's public and hidden
checks. That call is not in a hidden-tests block: the released test cell is the instructor's, so
nbgrader finds its checksum unchanged at autograde (a stripped block changed it: six warnings per
notebook); outside the course folder the call finds no hidden cases and runs none.

Each solution block ends in a `return`, and the builder adds after its END marker the line the stub
of exercises/ has there, `raise NotImplementedError(<step and function>)`: dead code in this notebook,
the line the student sees in the released one (nbgrader replaces the block by `# YOUR CODE HERE`).
"""
import ast
import re

from .. import lessons, manifest, portable_cases, rubric, stubs
from ..cases import cases_for, concepts
from ..kit_imports import without_kit_imports
from ..paths import SOLUTIONS_DIR
from . import texts
from .runtime_folder import FOLDER

ASSIGNMENT = "attention"


def assignment_of(track):
    """The nbgrader assignment of `track`: "attention" for the core, "attention_<track>" for the others."""
    return ASSIGNMENT if track == manifest.DEFAULT_TRACK else f"{ASSIGNMENT}_{track}"


TRACKS = {assignment_of(track): track for track in manifest.tracks()}  # one assignment per track (docs/GRADING.md)
EXTENSION, MODERN = assignment_of("extension"), assignment_of("modern")
CHECKS_CELL = "attnkit_checks"
EARLIER_STEPS_CELL = "earlier_steps"
PROGRESS_CELL = "attnkit_progress"
RUNTIME = "_ak"  # the checks cell's name for the notebook's checks (attnkit_runtime.notebook)


def step_code(step, solutions_dir=SOLUTIONS_DIR):
    """The step module's source without its imports of the kit's own modules (one notebook namespace)."""
    source = (solutions_dir / step.filename).read_text(encoding="utf-8")
    text = without_kit_imports(source, ast.parse(source))
    return re.sub(r"\n{3,}(?=\S)", "\n\n\n", text).strip() + "\n"


def solution_source(step, solutions_dir=SOLUTIONS_DIR):
    """step_code() with the stub's `raise NotImplementedError(...)` after each solution block."""
    def keep_and_stub(function, indent, begin, block, end):
        code = [b.strip() for b in block if b.strip() and not b.strip().startswith("#")]
        if not code or not code[-1].startswith("return"):
            raise ValueError(f"{step.filename}: the solution block of {function}() must end with its return")
        return [begin, *block, end, f"{indent}raise NotImplementedError({stubs.not_written_message(step, function)!r})\n"]
    return stubs.rewrite_solution_blocks(step_code(step, solutions_dir), step.filename, keep_and_stub).rstrip("\n")


def earlier_steps(track):
    """The steps of other tracks that `track`'s steps import, directly or through each other, in order:
    steps 1–6 for the extension and for the modern track, never another optional track's steps."""
    needed, todo = set(), [m for s in manifest.steps(track) for m in s.depends_on]
    while todo:
        module = todo.pop()
        if module not in needed:
            needed.add(module)
            todo += manifest.step(module).depends_on
    return [s for s in manifest.steps() if s.module in needed and s.track != track]


def earlier_steps_source(track, solutions_dir=SOLUTIONS_DIR):
    """The reference code of `earlier_steps(track)` (markers dropped), for a locked cell: the
    extension's notebook builds on working steps 1–6 whatever the learner's own core holds."""
    code = "\n\n".join(step_code(s, solutions_dir) for s in earlier_steps(track))
    return "\n".join(line for line in code.splitlines() if line.strip() not in (stubs.BEGIN, stubs.END))


def test_source(step):
    """The test cell: one call; its cases are data of the checks cell (public) and of the hidden file."""
    return f"# Tests of step {step.number}. {texts.TEST_COMMENT}\n" + _guarded(f"check({step.module!r})")


def checks_source(assignment, digest):
    """The locked checks cell: the runtime's notebook module as `_ak` (one name: a learner's `show` or
    `pick` cannot break the checks, nor the checks the learner's code), told the assignment and the
    SHA-256 of its hidden-cases file."""
    return (f"# Provided, do not edit, run it first: the checks of the test cells, from the folder {FOLDER}/ beside\n"
            "# this notebook (attnkit's own checking code, a package of its own so that its names never clash with yours).\n"
            f"import {FOLDER}.notebook as {RUNTIME}\n"
            f"{RUNTIME}.configure({assignment!r}, {digest!r})")


def provided_source():
    """The locked cell of the provided modules: each imported whole from its file beside the notebook
    (runtime_folder.py), so its functions are names of the notebook's one namespace, as a step's
    `from shape_checks import …` gives them in the folder."""
    return "\n".join([texts.PROVIDED_COMMENT.format(file=", ".join(f"{m}.py" for m in manifest.provided_modules())),
                      *(f"from {m} import *" for m in manifest.provided_modules())])


def _guarded(call):
    """`_ak.<call>`, after a line that says what to do when the checks cell has not run."""
    return f"if {RUNTIME!r} not in globals(): raise NameError({texts.run_first()!r})\n{RUNTIME}.{call}"


def steps_data(track):
    """The public checks' data `attnkit_runtime.notebook.configure` reads (runtime_folder.py): each step of
    `track`, its points, where to read, the earlier steps of this notebook it calls, the concepts of its
    hidden cases, its public cases."""
    steps, points = manifest.steps(track), rubric.step_points(track)
    own = {s.module for s in steps}
    return [{"module": s.module, "number": s.number, "title": s.title, "points": points[s.module],
             "read": lessons.links(s.lesson),
             "depends_on": [m for m in s.depends_on if m in own],
             "hidden_concepts": concepts(cases_for(s.module, "hidden")),
             "public": [_weighed(c, portable_cases.case_spec(c, sampled=True)) for c in cases_for(s.module, "public")]}
            for s in steps]


def _weighed(case, spec):
    """The stored form `spec` of `case` with its weight, its share of the step's points (rubric.py)."""
    return {**spec, "weight": case.weight}


def hidden_cases(assignment=ASSIGNMENT):
    """{"steps": {step module: [hidden case in the stored form, …]}}: the file the test cells read at grading."""
    return {"steps": {s.module: [_weighed(c, portable_cases.case_spec(c)) for c in cases_for(s.module, "hidden")]
                      for s in manifest.steps(TRACKS[assignment])}}


def _nbgrader(grade_id, *, solution=False, grade=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if points is not None:
        meta["points"] = points
    return {"nbgrader": meta}


def _provided(grade_id):
    """A provided cell's metadata: locked, worth 0 points, its code collapsed (Jupyter shows one line)."""
    return {**_nbgrader(grade_id, grade=True, locked=True, points=0), "jupyter": {"source_hidden": True}}


def _code(cell_id, source, metadata):
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": metadata,
            "outputs": [], "source": source}


def _markdown(cell_id, source):
    return {"cell_type": "markdown", "id": cell_id, "metadata": {}, "source": source}


def source_notebook(digest, solutions_dir=SOLUTIONS_DIR, assignment=ASSIGNMENT):
    """The source notebook of `assignment` (nbformat 4.5, as a dict); `digest` is the SHA-256 of its
    hidden-cases file."""
    track = TRACKS[assignment]
    points = rubric.step_points(track)
    checks_meta = _provided(CHECKS_CELL)
    cells = [
        _markdown("intro", texts.intro(track)),
        _markdown("about_points", texts.about_points()),
        # Grade cells worth 0 points: nbgrader puts back only grade cells a student deleted.
        _code("shape_checks", provided_source(), _provided("shape_checks")),
        _code(CHECKS_CELL, checks_source(assignment, digest), checks_meta),
    ]
    if earlier_steps(track):
        cells.append(_code(EARLIER_STEPS_CELL, earlier_steps_source(track, solutions_dir), _provided(EARLIER_STEPS_CELL)))
    for step in manifest.steps(track):
        worth = points[step.module]
        cells += [
            _markdown(f"about_{step.module}", texts.step_markdown(step, worth)),
            _code(step.module, solution_source(step, solutions_dir), _nbgrader(step.module, solution=True)),
            _code(f"test_{step.module}", test_source(step),
                  _nbgrader(f"test_{step.module}", grade=True, locked=True, points=worth)),
        ]
    cells += [_markdown("about_progress", texts.progress_markdown()),
              _code(PROGRESS_CELL, _guarded("progress()"), _nbgrader(PROGRESS_CELL, locked=True))]
    return {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                     "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }

