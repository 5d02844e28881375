"""What the Gradescope bundle's run_autograder runs: grade ROOT/submission into ROOT/results/results.json.

    python -m attnkit.grader.gradescope_run ROOT        (ATTNKIT_ROOT=ROOT/source)

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
from .atomic import write_text
from .report_gradescope import failed


class LayoutError(Exception):
    """The submission folder holds nothing the grader can take as one submission."""


def submission_path(folder):
    """The folder of step files, or the one notebook, that Gradescope unpacked into `folder`.

    A student who zipped a folder has it one level down. Links are never followed. With neither
    step files nor a notebook, `folder` itself: every step is then "not written yet".
    """
    folder = Path(folder)
    names = {step.filename for step in manifest.steps()}
    inner = sorted(p for p in folder.iterdir() if p.is_dir() and not p.is_symlink())
    for candidate in (folder, *inner):
        if any(_plain_file(candidate / name) for name in names):
            return candidate
    notebooks = sorted(p for f in (folder, *inner) for p in f.glob("*.ipynb") if _plain_file(p))
    if len(notebooks) > 1:
        raise LayoutError(say("gradescope.many_notebooks", count=len(notebooks), names=", ".join(p.name for p in notebooks)))
    return notebooks[0] if notebooks else folder


def _plain_file(path):
    return path.is_file() and not path.is_symlink()


def staged(path, dest):
    """Copy the submission at `path` (folder or notebook) into `dest`, plain files only; return the copy.

    Links are dropped, not followed: the grader runs as root and a step file linked to the solution
    would otherwise be read as the student's own.
    """
    if path.is_file():
        shutil.copyfile(path, dest / path.name)
        return dest / path.name
    for step in manifest.steps():
        if _plain_file(path / step.filename):
            shutil.copyfile(path / step.filename, dest / step.filename)
    return dest


def main(root):
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
        command = [sys.executable, "-m", "attnkit.cli", "grade", str(staged(path, copy)), "--gradescope",
                   str(results), "--out", str(journal), "--allow-no-barrier", "--jobs", "1"]
        return subprocess.run(command, cwd=root).returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
