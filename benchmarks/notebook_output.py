"""What a student reads in the released nbgrader notebook: figures only, no assertions.

Writes a course in a temporary folder, releases `attention` with `nbgrader generate_assignment`,
then runs the released notebook in a Jupyter kernel (nbclient, errors allowed), outside the course
folder as a student would, four ways: untouched; step 2 with a mistake (kq not transposed: `Q @ K`);
step 5 raising a NameError from the student's own line; the provided cells skipped. Prints, per
failing test cell, the characters of its outputs (text and traceback, ANSI colours removed).

    python benchmarks/notebook_output.py
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbclient
import nbformat

from attnkit import manifest, stubs

ANSI = re.compile(r"\x1b\[[0-9;]*m")
CHANGES = {"step2_scores": ("return Q @ np.swapaxes(K, -1, -2)", "return Q @ K"),
           "step5_values": ("return P @ V", "return P @ v")}


def cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def solved(source, release, change=None):
    """The release with every step finished from the instructor's notebook; `change` = a CHANGES key."""
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(release), as_version=4))
    for step in manifest.steps("core"):
        code = "\n".join(line for line in cell(source, step.module).source.splitlines()
                         if line.strip() not in (stubs.BEGIN, stubs.END))
        code = re.sub(r"\n\s*raise NotImplementedError\(.*\)", "", code)
        if step.module == change:
            old, new = CHANGES[change]
            assert old in code, (change, old)
            code = code.replace(old, new)
        cell(nb, step.module).source = code
    return nb


def skipped_provided(release):
    nb = nbformat.from_dict(nbformat.reads(nbformat.writes(release), as_version=4))
    for c in nb.cells:
        if c.metadata.get("nbgrader", {}).get("points") == 0:  # the provided cells
            c.source = "pass  # skipped"
    return nb


def output_text(c):
    parts = []
    for out in c.outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type == "error":
            parts.append("\n".join(out.traceback))
    return ANSI.sub("", "".join(parts))


def main():
    with tempfile.TemporaryDirectory() as tmp:
        root, student = Path(tmp, "course"), Path(tmp, "student")
        subprocess.run([sys.executable, "-m", "attnkit.cli", "nbgrader-course", str(root)], check=True,
                       capture_output=True)
        subprocess.run([sys.executable, "-m", "nbgrader", "generate_assignment", "attention"], cwd=root,
                       check=True, capture_output=True)
        shutil.copytree(root / "release/attention", student)  # the release as a student has it: its checks beside it
        source = nbformat.read(root / "source/attention/attention.ipynb", as_version=4)
        release = nbformat.read(root / "release/attention/attention.ipynb", as_version=4)
        runs = {"untouched": release, "step 2 mistake (Q @ K)": solved(source, release, "step2_scores"),
                "step 5 NameError": solved(source, release, "step5_values"),
                "provided cells skipped": skipped_provided(release)}
        for label, nb in runs.items():
            nbclient.NotebookClient(nb, timeout=60, allow_errors=True,
                                    resources={"metadata": {"path": str(student)}}).execute()
            print(f"{label}:")
            for c in nb.cells:
                grade_id = c.metadata.get("nbgrader", {}).get("grade_id", "")
                if c.cell_type == "code" and any(o.output_type == "error" for o in c.outputs):
                    print(f"  {grade_id or c.id:<22} {len(output_text(c)):>7} characters")
            if label != "untouched":
                print()
            else:
                print(f"  (source of the test cells: {max(len(cell(nb, 'test_' + s.module).source) for s in manifest.steps('core'))}"
                      " characters at most)\n")


if __name__ == "__main__":
    main()
