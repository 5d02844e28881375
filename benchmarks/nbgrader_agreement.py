"""nbgrader's totals beside `attnkit grade`'s for the same notebooks: figures only.

Writes a course in a temporary folder, releases `attention`, hands in the release finished from the
instructor's notebook with each edit of notebook_output.CHANGES (and the untouched release, and every
step correct), runs `nbgrader autograde` and `nbgrader export`, grades the same notebooks with
`attnkit grade --json`, and prints one row per student: nbgrader's score, attnkit's, and each test
cell's points in nbgrader.

    python benchmarks/nbgrader_agreement.py
"""
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
from nbgrader.api import Gradebook

from attnkit import manifest
from notebook_output import CHANGES, solved


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run([sys.executable, "-m", "attnkit.cli", "nbgrader-course", str(root)], check=True,
                       capture_output=True)
        subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", "attention"], cwd=root, check=True,
                       capture_output=True)
        source = nbformat.read(root / "source/attention/attention.ipynb", as_version=4)
        release = nbformat.read(root / "release/attention/attention.ipynb", as_version=4)
        notebooks = {"correct": solved(source, release), "untouched": release,
                     **{f"mistake_in_{module}": solved(source, release, module) for module in CHANGES}}
        paths = {}
        for student, nb in notebooks.items():
            paths[student] = root / "submitted" / student / "attention" / "attention.ipynb"
            paths[student].parent.mkdir(parents=True)
            nbformat.write(nb, paths[student])
        for command in ("autograde", "export"):
            args = [sys.executable, "-m", "nbgrader", command] + (["attention"] if command == "autograde" else [])
            subprocess.run(args, cwd=root, check=True, capture_output=True)
        with open(root / "grades.csv", newline="") as f:
            nbgrader = {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}
        out = subprocess.run([sys.executable, "-m", "attnkit.cli", "grade", "--json", *map(str, paths.values())],
                             cwd=root, capture_output=True, text=True)
        attnkit = {json.loads(line)["submission"]: json.loads(line)["score"]
                   for line in out.stdout.splitlines() if line.startswith("{")}
        with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
            print(f"{'student':<26} {'nbgrader':>9} {'attnkit':>9}   nbgrader's test cells")
            for student, path in paths.items():
                cells = " ".join(f"{gb.find_grade(f'test_{s.module}', 'attention', 'attention', student).score:g}"
                                 for s in manifest.steps("core"))
                print(f"{student:<26} {nbgrader[student]:>9.4g} {attnkit[str(path)]:>9.4g}   {cells}")


if __name__ == "__main__":
    main()
