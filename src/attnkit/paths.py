"""Where the kit's folders are.

The kit is used from a clone of its repository (`pip install -e .`), so `solutions/`,
`exercises/` and `autograder/` sit next to `src/`. ATTNKIT_ROOT points elsewhere when needed
(an installed wheel, the Gradescope bundle's source folder).

The package holds no hidden case and no solution: its data/cases/ are the public cases, the hidden
ones live in ROOT/autograder/cases/ and the reference in ROOT/solutions/, and an installed kit
without them grades the public cases only. It is still the instructor's, not a hand-out: it holds
the grader and the mistake catalogue (autograder/README.md); students get `attnkit release` or the
nbgrader notebook.
"""
import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"
CASES_DIR = DATA_DIR / "cases"  # public cases only
ROOT = Path(os.environ.get("ATTNKIT_ROOT") or PACKAGE_DIR.parents[1]).resolve()
SOLUTIONS_DIR = ROOT / "solutions"
EXERCISES_DIR = ROOT / "exercises"
HIDDEN_CASES_DIR = ROOT / "autograder" / "cases"
LESSONS_DIR = ROOT / "lessons"  # lessons/en/, lessons/zh/: what every "read:" link points into
