"""How big the course's notebooks and feedback pages are, and how long `attnkit grade` takes to read one:
figures only.

Writes a course in a temporary folder, releases both assignments, hands in a solved `attention`
notebook and one with step 2's mistake (`Q @ K`), autogrades them and writes their feedback; prints
the characters of each notebook's checks cell, the bytes of the source and released notebooks and of
each feedback page, and the milliseconds `attnkit.grader.notebook.step_sources` takes on a submitted
notebook (median of ROUNDS).

    python benchmarks/notebook_size.py
"""
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from attnkit.grader.notebook import step_sources
from notebook_output import cell, solved

ASSIGNMENTS = ("attention", "attention_extension")
ROUNDS = 5


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run([sys.executable, "-m", "attnkit.cli", "nbgrader-course", str(root)], check=True,
                       capture_output=True)
        for assignment in ASSIGNMENTS:
            subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", assignment], cwd=root,
                           check=True, capture_output=True)
            source = root / "source" / assignment / f"{assignment}.ipynb"
            release = root / "release" / assignment / f"{assignment}.ipynb"
            checks = cell(nbformat.read(source, as_version=4), "attnkit_checks").source
            print(f"{assignment}: checks cell {len(checks):,} characters; source notebook "
                  f"{source.stat().st_size:,} bytes, released {release.stat().st_size:,} bytes")
        source = nbformat.read(root / "source/attention/attention.ipynb", as_version=4)
        release = nbformat.read(root / "release/attention/attention.ipynb", as_version=4)
        for student, change in (("solved", None), ("step2_mistake", "step2_scores")):
            path = root / "submitted" / student / "attention" / "attention.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(solved(source, release, change), path)
        for command in ("autograde", "generate_feedback"):
            subprocess.run([sys.executable, "-m", "nbgrader", command, "attention"], cwd=root, check=True,
                           capture_output=True)
        for page in sorted(root.glob("feedback/*/attention/attention.html")):
            print(f"feedback page of {page.parts[-3]}: {page.stat().st_size:,} bytes")
        text = (root / "submitted/solved/attention/attention.ipynb").read_text(encoding="utf-8")
        seconds = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            step_sources(text)
            seconds.append(time.perf_counter() - start)
        print(f"grader/notebook.py step_sources on a submitted notebook: {statistics.median(seconds) * 1000:,.0f} ms "
              f"(median of {ROUNDS})")


if __name__ == "__main__":
    main()
