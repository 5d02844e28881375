"""Seconds `nbgrader autograde` takes per notebook in the kit's generated course: figures only.

Writes a course in a temporary folder, releases `attention`, hands in N solved notebooks (the
instructor's solution cells in the released notebook) and times `nbgrader autograde attention`
over them, then divides by N. Whatever kernel the course's nbgrader_config.py selects is the one
timed (today the barrier kernel, docs/NBGRADER.md).

    python benchmarks/nbgrader_autograde.py [N]
"""
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from attnkit import manifest, stubs


def cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def solved(source, release):
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(release), as_version=4))
    for step in manifest.steps("core"):
        code = "\n".join(line for line in cell(source, step.module).source.splitlines()
                         if line.strip() not in (stubs.BEGIN, stubs.END))
        cell(nb, step.module).source = re.sub(r"\n\s*raise NotImplementedError\(.*\)", "", code)
    return nb


def main(count):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run([sys.executable, "-m", "attnkit.cli", "nbgrader-course", str(root)], check=True)
        subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", "attention"], cwd=root, check=True,
                       capture_output=True)
        source = nbformat.read(root / "source/attention/attention.ipynb", as_version=4)
        release = nbformat.read(root / "release/attention/attention.ipynb", as_version=4)
        for k in range(count):
            path = root / "submitted" / f"student{k}" / "attention" / "attention.ipynb"
            path.parent.mkdir(parents=True)
            nbformat.write(solved(source, release), path)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "attention"], cwd=root, check=True,
                       capture_output=True)
        seconds = time.perf_counter() - start
    print(f"nbgrader autograde: {count} notebooks in {seconds:.1f} s, {seconds / count:.2f} s per notebook")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
