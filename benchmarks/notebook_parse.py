"""How long `attnkit grade` takes to read a 300 kB notebook in a fresh process (as every Gradescope upload
and every `attnkit grade` run pays it): figures only.

Builds a notebook of about 300 kB: the instructor's step cells (solutions/, without the kit's imports, as
the course has them) after a provided cell in the style of the course's checks cell before the checks
moved beside the notebook: imports, one line of 222,396 characters of base64 data, and ~70 kB of code
(solutions/shape_checks.py, repeated). Then, ROUNDS times, starts a fresh
Python that imports attnkit.grader.notebook and calls step_sources on it; prints the median seconds of the
call and of the whole process, for the code in each SRC folder given (default: this checkout's src/), so
that `python benchmarks/notebook_parse.py OLD/src src` prints before and after.

    python benchmarks/notebook_parse.py [SRC ...]
"""
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnkit import manifest
from attnkit.nbgrader_course.notebook import step_code
from attnkit.paths import SOLUTIONS_DIR

ROUNDS = 5
TARGET_BYTES = 300_000
DATA_CHARS = 222_396  # the old checks cell's longest line
CHILD = """import sys, time
start = time.perf_counter()
from attnkit.grader.notebook import step_sources
text = open(sys.argv[1], encoding="utf-8").read()
begin = time.perf_counter()
sources = step_sources(text)
print(time.perf_counter() - begin, len(sources))
"""


def notebook():
    """The notebook's JSON text: a big provided cell, then one code cell per step (grade_id = the module)."""
    code = (SOLUTIONS_DIR / "shape_checks.py").read_text(encoding="utf-8")
    provided = "import base64\nimport json\n\nimport numpy as np\n\nDATA = " + repr("QUJD" * (DATA_CHARS // 4)) + "\n"
    provided += "\n\n".join([code] * ((TARGET_BYTES - len(provided)) // len(code)))
    cells = [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "provided"}}, "source": provided,
              "outputs": [], "execution_count": None}]
    cells += [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": s.module}}, "source": step_code(s),
               "outputs": [], "execution_count": None} for s in manifest.steps("core")]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def main(sources):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "submitted.ipynb")
        path.write_text(notebook(), encoding="utf-8")
        print(f"notebook: {path.stat().st_size:,} bytes")
        for src in sources:
            calls, processes = [], []
            for _ in range(ROUNDS):
                start = time.perf_counter()
                out = subprocess.run([sys.executable, "-c", CHILD, str(path)], capture_output=True, text=True,
                                     check=True, env={"PYTHONPATH": str(Path(src).resolve()), "PATH": "/usr/bin:/bin"})
                processes.append(time.perf_counter() - start)
                calls.append(float(out.stdout.split()[0]))
            print(f"{src}: step_sources {statistics.median(calls):.3f} s, whole fresh process "
                  f"{statistics.median(processes):.3f} s (median of {ROUNDS}; {out.stdout.split()[1]} step modules)")


if __name__ == "__main__":
    main(sys.argv[1:] or [str(Path(__file__).resolve().parent.parent / "src")])
