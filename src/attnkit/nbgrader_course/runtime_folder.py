"""The learner runtime beside each notebook: source/<assignment>/attnkit_runtime/, the package the checks
cell imports (`import attnkit_runtime.notebook as _ak`), and the provided modules the steps call
(shape_checks.py, imported by the first provided cell: `from shape_checks import *`).

nbgrader releases it with the notebook (every file of the assignment's source folder) and, at
autograde, copies the source's files over the submission's; the course's kernel also mounts the
source's copy, read-only, over the folder a notebook is graded in (attnkit.nbgrader_kernel), so a
student's own copy never grades.

    attnkit_runtime/*.py            src/attnkit_runtime/, file for file (as `attnkit release` ships it)
    attnkit_runtime/data/           what the checks read, filled by the builder (`data_files`): the
                                    assignment's public checks, data/<assignment>.json
    shape_checks.py                 solutions/shape_checks.py (the manifest's provided modules), as the
                                    release's exercises/ holds it (`provided_files`)
"""
import json
from pathlib import Path

from .. import manifest
from ..paths import SOLUTIONS_DIR
from ..release import runtime_sources
from attnkit_runtime.notebook import public_checks_name

FOLDER = "attnkit_runtime"  # the package's name: the folder is imported as it is


def data_files(assignment, steps):
    """{file name in data/: bytes}: the public checks of `assignment` (`steps`: notebook.steps_data).

    Every file the runtime reads from its data/ folder in the notebook is written here (the place for
    the stored cases too, when the notebook reads the release's form of them)."""
    text = json.dumps(steps, ensure_ascii=False, separators=(",", ":")) + "\n"
    return {public_checks_name(assignment): text.encode("utf-8")}


def provided_files():
    """{file name: bytes} of the provided modules (shape_checks.py), from solutions/."""
    return {f"{name}.py": (SOLUTIONS_DIR / f"{name}.py").read_bytes() for name in manifest.provided_modules()}


def files(assignment, steps):
    """{path relative to the assignment's source folder: bytes} of the runtime folder and the provided modules."""
    found = {Path(name): data for name, data in provided_files().items()}
    found.update({Path(FOLDER, path.name): path.read_bytes() for path in runtime_sources()})
    found.update({Path(FOLDER, "data", name): data for name, data in data_files(assignment, steps).items()})
    return found
