"""How much of the learner runtime (src/attnkit_runtime/) runs where learners run it: figures only.

coverage.py measures the runtime in the processes a learner starts: `pytest exercises` in the checkout
and in the release installed in a fresh virtualenv (its own copy of the files, which are the same bytes
as src/attnkit_runtime/, so coverage maps them back), on the stubs, on the reference solutions and on
one copy per slip of `attnkit bench` (a known mistake each), and the nbgrader notebook's cells run as
a kernel runs them, in the assignment's folder, importing the checks from the course's attnkit_runtime/
beside the notebook (the same submissions in its step cells). Prints each file's share of lines run.

    python tools/runtime_coverage.py        (needs coverage: pip install -e ".[dev]")
"""
import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from attnkit import cli, manifest
from attnkit.nbgrader_course import ASSIGNMENT
from attnkit.nbgrader_course.notebook import step_code
from attnkit.grader.bench import EDITS, copy_solutions
from attnkit.paths import EXERCISES_DIR, ROOT

RUNTIME = ROOT / "src" / "attnkit_runtime"
RC = """[run]
parallel = true
source_pkgs = attnkit_runtime
data_file = {data}
[paths]
runtime =
    {runtime}
    */attnkit_runtime
"""


def _learner_folders(tmp, exercises):
    """(label, folder): the stubs of `exercises`, the solutions, and the solutions with each slip,
    each beside the test files and conftest of `exercises`."""
    yield "stubs", exercises
    for k, edit in enumerate([None, *EDITS]):
        folder = Path(copy_solutions(tmp / f"learner{k}", edit))
        for tests in [*exercises.glob("test_*.py"), exercises / "conftest.py"]:
            shutil.copy(tests, folder / tests.name)
        yield ("solutions" if edit is None else f"slip {edit[3] or edit[2]}"), folder


def _measure(python, rc, folder, cwd):
    subprocess.run([str(python), "-m", "coverage", "run", f"--rcfile={rc}", "-m", "pytest", str(folder), "-q",
                    "-p", "no:cacheprovider"], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _release_python(tmp):
    """The release written to tmp/handout and installed, with coverage, in tmp/venv; returns its python."""
    handout = tmp / "handout"
    cli.main(["release", str(handout)])
    subprocess.run([sys.executable, "-m", "venv", str(tmp / "venv")], check=True)
    python = tmp / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", ".", "coverage"],
                   cwd=handout, check=True)
    return python, handout


def run_notebook(notebook, folder):
    """Run the code cells of `notebook` (its step cells holding the step files of `folder`) in one namespace,
    in the notebook's own folder, as a kernel does; a failing test cell is shown, not fatal."""
    os.chdir(Path(notebook).parent)
    sys.path.insert(0, os.getcwd())
    for name in [m for m in sys.modules if m.split(".")[0] == "attnkit_runtime"]:  # the kit's own copy: the
        del sys.modules[name]  # notebook imports the course's, beside it
    nb = json.loads(Path(notebook).read_text(encoding="utf-8"))
    steps = {s.module: s for s in manifest.steps()}
    namespace = {"__name__": "__main__"}
    for cell in nb["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
        if cell["cell_type"] == "code":
            source = step_code(steps[grade_id], Path(folder)) if grade_id in steps else cell["source"]
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
                exec(compile(source, cell["id"], "exec"), namespace)


def main():
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        rc = tmp / "coveragerc"
        rc.write_text(RC.format(data=tmp / "coverage", runtime=RUNTIME))
        for label, folder in _learner_folders(tmp / "checkout", EXERCISES_DIR):
            _measure(sys.executable, rc, folder, ROOT)
            print(f"checkout: pytest exercises on {label}")
        python, handout = _release_python(tmp / "release")
        for label, folder in _learner_folders(tmp / "release_learners", handout / "exercises"):
            _measure(python, rc, folder, handout)
            print(f"release: pytest exercises on {label}")
        course = tmp / "course"
        cli.main(["nbgrader-course", str(course)])
        notebook = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        for label, folder in _learner_folders(tmp / "notebook_learners", EXERCISES_DIR):
            subprocess.run([sys.executable, "-m", "coverage", "run", f"--rcfile={rc}", __file__, str(notebook),
                            str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(f"notebook: its cells on {label}")
        subprocess.run([sys.executable, "-m", "coverage", "combine", f"--rcfile={rc}", "-q"], check=True)
        subprocess.run([sys.executable, "-m", "coverage", "report", f"--rcfile={rc}", "--include", f"{RUNTIME}/*"],
                       check=True)


if __name__ == "__main__":
    run_notebook(*sys.argv[1:]) if len(sys.argv) == 3 else main()
