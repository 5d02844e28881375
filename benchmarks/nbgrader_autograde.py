"""Seconds `nbgrader autograde` takes per notebook in the kit's generated course: figures only.

Writes a course in a temporary folder, releases `attention`, hands in N solved notebooks (the
instructor's solution cells in the released notebook) and times `nbgrader autograde attention
--force` over them, in turn with the course's sandboxed kernel (`attnkit-barrier`) and with the
notebook's own kernel (`python3`, the config's opt-out, docs/NBGRADER.md), ROUNDS times each; prints
the seconds per notebook of each run.

    python benchmarks/nbgrader_autograde.py [N]
"""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from notebook_output import solved  # the release with every step finished from the instructor's notebook


KERNELS = ("attnkit-barrier", "python3")
ROUNDS = 2


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
        for _ in range(ROUNDS):
            for kernel in KERNELS:
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "nbgrader", "autograde", "attention", "--force",
                                f"--Execute.kernel_name={kernel}"], cwd=root, check=True, capture_output=True)
                seconds = time.perf_counter() - start
                print(f"{kernel:>16}: {count} notebooks in {seconds:.1f} s, {seconds / count:.2f} s per notebook")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 4)
