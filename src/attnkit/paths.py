"""Where the kit's folders are.

The kit is used from a clone of its repository (`pip install -e .`), so `solutions/`,
`exercises/` and `autograder/` sit next to `src/`. ATTNKIT_ROOT points elsewhere when needed
(an installed wheel, the Gradescope bundle's source folder).

The package holds only what a student may see (public cases in data/cases/); the hidden cases
live on the instructor's side, in ROOT/autograder/cases/, and an installed kit without them
grades the public cases only.
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
