"""Where the kit's folders are.

The kit is used from a clone of its repository (`pip install -e .`), so `solutions/` and
`exercises/` sit next to `src/`. ATTNKIT_ROOT points elsewhere when needed.
"""
import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"
CASES_DIR = DATA_DIR / "cases"
ROOT = Path(os.environ.get("ATTNKIT_ROOT") or PACKAGE_DIR.parents[1]).resolve()
SOLUTIONS_DIR = ROOT / "solutions"
EXERCISES_DIR = ROOT / "exercises"
