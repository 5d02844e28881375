"""The student release: its size, and how long a student waits for `pytest exercises` in it.

Writes `attnkit release` into a temporary folder, installs it as its README says (a virtualenv made
with the system's python3, `pip install .`), and times `python -m pytest exercises` there, with a
bare environment, on the stubs and on the reference solutions copied in, N runs each. Figures only.

    python benchmarks/release_feedback.py [N]
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from feedback_loop import report

from attnkit.paths import SOLUTIONS_DIR
from attnkit.release import write


def main(runs=5):
    with tempfile.TemporaryDirectory() as tmp:
        handout = Path(tmp) / "handout"
        files = write(handout)
        size = sum(path.stat().st_size for path in files)
        biggest = max(files, key=lambda path: path.stat().st_size)
        print(f"release: {len(files)} files, {size / 1000:.0f} kB "
              f"(largest {biggest.relative_to(handout)}, {biggest.stat().st_size / 1000:.0f} kB)")
        env = {"PATH": "/usr/bin:/bin", "HOME": tmp}
        python = Path(tmp) / "venv" / "bin" / "python"
        subprocess.run(["python3", "-m", "venv", str(python.parents[1])], check=True, env=env)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "."],
                       check=True, cwd=handout, env=env)
        solved = handout / "solved"
        shutil.copytree(handout / "exercises", solved)
        for path in SOLUTIONS_DIR.glob("step*.py"):
            shutil.copy(path, solved / path.name)
        pytest = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        report({"pytest exercises (stubs)": [*pytest, "exercises"],
                "pytest exercises (solutions)": [*pytest, "solved"]}, runs, cwd=handout, env=env)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
