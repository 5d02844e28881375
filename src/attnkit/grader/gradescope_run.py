"""What the Gradescope bundle's run_autograder runs: grade ROOT/submission into ROOT/results/results.json.

    python -m attnkit.grader.gradescope_run ROOT [TRACK]        (ATTNKIT_ROOT=ROOT/source)

TRACK (default core) is the assignment graded: `attnkit gradescope-bundle --track` bakes it into run_autograder.

Gradescope gives each submission a throwaway container and runs this as root; where the container
allows no user namespaces, bubblewrap cannot build the sandbox's barrier: `attnkit grade` is told
`--allow-no-barrier`, and what keeps the secrets is the uid. The sandbox runs learner code under a
uid of its own whenever the grader is root, and setup.sh / run_autograder left the hidden cases, the
solutions, the installed kit and the results folder readable by root only. Not root: refuse (exit 3).
A grader failure leaves no results.json; run_autograder then writes one that says so.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import manifest
from attnkit_runtime.messages import say
from . import step_folder
from .atomic import write_text
from .report_gradescope import failed


class LayoutError(Exception):
    """The submission folder holds nothing the grader can take as one submission."""


def submission_path(folder):
    """The folder of step files, or the one notebook, that Gradescope unpacked into `folder`.

    A student who zipped a folder has it a level or two down (step_folder.py: links never followed).
    LayoutError, saying what the upload holds, when there is none or more than one.
    """
    folder = Path(folder)
    found = step_folder.survey(folder)
    where = found.chosen() or found.lone_notebook()
    if where is None:
        raise LayoutError(found.problem(folder.name))
    return folder / where


def _plain_file(path):
    return path.is_file() and not path.is_symlink()


def staged(path, top, dest):
    """Copy the submission at `path` (a folder or notebook at or below `top`) into `dest`, at the same place
    below it (so that the grade says where it was found), plain files only; return `dest`.

    Links are dropped, not followed: the grader runs as root and a step file linked to the solution
    would otherwise be read as the student's own.
    """
    below = dest / path.relative_to(top)
    if path.is_file():
        below.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, below)
        return dest
    below.mkdir(parents=True, exist_ok=True)
    for step in manifest.steps():
        if _plain_file(path / step.filename):
            shutil.copyfile(path / step.filename, below / step.filename)
    return dest


def main(root, track=manifest.DEFAULT_TRACK):
    root = Path(root)
    results = root / "results" / "results.json"
    if os.geteuid() != 0:
        print("gradescope_run: not root, so learner code cannot run as another user and could "
              "rewrite results.json or read the hidden cases: refusing to grade", file=sys.stderr)
        return 3
    try:
        path = submission_path(root / "submission")
    except LayoutError as err:
        write_text(results, json.dumps(failed(say("gradescope.not_graded", reason=err))) + "\n")
        return 0
    with tempfile.TemporaryDirectory(prefix="submission-") as tmp:
        copy, journal = Path(tmp) / "submission", Path(tmp) / "journal"  # the journal: not beside results.json
        copy.mkdir()
        command = [sys.executable, "-m", "attnkit.cli", "grade", str(staged(path, root / "submission", copy)),
                   "--gradescope", str(results), "--out", str(journal), "--allow-no-barrier", "--jobs", "1",
                   "--track", track]
        return subprocess.run(command, cwd=root).returncode


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
