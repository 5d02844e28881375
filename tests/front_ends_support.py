"""The four front ends, each run once on a set of submissions, and what each says of every public case.

`checkout`: pytest on folders of step files beside the kit's exercises/ test files and conftest;
`release`: pytest in the student release's virtualenv on folders beside its test files and conftest;
`notebook`: the nbgrader notebook's checks, its step cells holding the submission's code;
`grade`: `attnkit grade --json`. Each gives {(submission, case name): Verdict}; a pytest front end's
results are read with a small plugin (RESULTS_PLUGIN) that writes each test's outcome as JSON.
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from attnkit import cli, manifest
from attnkit.cases import cases_for
from attnkit.mistakes import catalogue
from attnkit.nbgrader_course.runtime_folder import FOLDER
from attnkit.nbgrader_course.notebook import TRACKS, step_code
from attnkit.paths import EXERCISES_DIR
from attnkit_runtime.status import Status
from test_nbgrader_course import code_cell

FRONT_ENDS = ("checkout", "release", "notebook", "grade")
NOTEBOOKS = {track: assignment for assignment, track in TRACKS.items()}  # every track: {"core": "attention", …}
RESULTS_ENV = "ATTNKIT_AGREE_RESULTS"
RESULTS_PLUGIN = f'''"""Writes each test's outcome, its case and its failure text as one JSON line to ${RESULTS_ENV}."""
import json
import os

import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    report = (yield).get_result()
    if report.when == "call" or report.failed:
        case = getattr(getattr(item, "callspec", None), "params", {{}}).get("case")
        with open(os.environ["{RESULTS_ENV}"], "a", encoding="utf-8") as out:
            out.write(json.dumps({{"folder": item.path.parent.name, "case": getattr(case, "name", item.name),
                                  "when": report.when, "outcome": report.outcome,
                                  "raised": call.excinfo.typename if call.excinfo else "",
                                  "blamed": dict(item.user_properties).get("attnkit_blamed", []),
                                  "text": report.longreprtext}}) + "\\n")
'''
_LIKELY = re.compile(r"likely mistake: (?:\w+ — )?(.+)")  # the release shows the code word first
_FAILURES = ("Failed", "NotImplementedError")  # pytest.fail (a teaching message) and a stub's error: failed, not error


@dataclass(frozen=True)
class Verdict:
    status: str
    diagnosis: str = ""  # the code of the known mistake the front end names, "" if none

    def __str__(self):
        return self.status + (f" {self.diagnosis}" if self.diagnosis else "")


BLAMED = Verdict("blamed")  # failed on the learner's own earlier step, which a failing call used and which fails


def public_cases(track):
    return [c.name for s in manifest.steps(track) for c in cases_for(s.module, "public")]


def named_mistake(text):
    """The code of the known mistake a failure text names on its "likely mistake:" line ("" if none;
    "?<text>" when the line names no mistake of the catalogue)."""
    found = _LIKELY.search(text or "")
    if not found:
        return ""
    summaries = {code: m.summary["en"] for code, m in catalogue().items() if found[1].startswith(m.summary["en"] + ".")}
    return max(summaries, key=lambda code: len(summaries[code])) if summaries else f"?{found[1][:60]}"


def _pytest_verdicts(results_file):
    verdicts = {}
    for line in results_file.read_text(encoding="utf-8").splitlines() if results_file.is_file() else ():
        row = json.loads(line)
        if row["outcome"] == "passed":
            verdict = Verdict(Status.PASSED.value)
        elif row["blamed"]:
            verdict = BLAMED
        elif row["outcome"] == "skipped":  # an optional step not started: not written, as the others say
            verdict = Verdict(Status.FAILED.value)
        elif row["when"] != "call" or row["raised"] not in _FAILURES:
            verdict = Verdict(Status.ERROR.value, named_mistake(row["text"]))
        else:
            verdict = Verdict(Status.FAILED.value, named_mistake(row["text"]))
        verdicts.setdefault((row["folder"], row["case"]), verdict)  # a failed teardown does not overwrite
    return verdicts


def _run_pytest(python, root, folders, env):
    """Verdicts of `python -m pytest` on `folders` (in `root`, beside its conftest.py)."""
    plugin_dir, results = root / "_plugin", root / "results.jsonl"
    plugin_dir.mkdir(exist_ok=True)
    (plugin_dir / "agree_results.py").write_text(RESULTS_PLUGIN, encoding="utf-8")
    results.unlink(missing_ok=True)
    proc = subprocess.run([str(python), "-m", "pytest", *map(str, folders), "-q", "-p", "no:cacheprovider",
                           "-p", "agree_results", "--import-mode=importlib"], cwd=root, capture_output=True, text=True,
                          timeout=1800, env={**env, "PYTHONPATH": str(plugin_dir), RESULTS_ENV: str(results),
                                             "ATTNKIT_LANG": "en", "COLUMNS": "200"})
    assert proc.returncode in (0, 1), f"pytest stopped ({proc.returncode}):\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    return _pytest_verdicts(results)


def _beside_tests(submissions, tests_dir, root):
    """A copy of each submission folder in `root`, with the test files of `tests_dir`, and its conftest in `root`."""
    root.mkdir(parents=True)
    shutil.copy(tests_dir / "conftest.py", root / "conftest.py")
    folders = []
    for folder in submissions:
        shutil.copytree(folder, root / folder.name)
        for test_file in tests_dir.glob("test_*.py"):
            shutil.copy(test_file, root / folder.name / test_file.name)
        folders.append(root / folder.name)
    return folders


def checkout(submissions, work):
    root = work / "checkout"
    return _run_pytest(sys.executable, root, _beside_tests(submissions, EXERCISES_DIR, root), dict(os.environ))


def release(submissions, work, student_venv):
    handout, python, env = student_venv
    root = work / "release"
    return _run_pytest(python, root, _beside_tests(submissions, handout / "exercises", root), env)


def grade(submissions, work):
    verdicts = {}
    for track in NOTEBOOKS:
        proc = subprocess.run([sys.executable, "-m", "attnkit.cli", "grade", "--json", "--track", track,
                               *map(str, submissions)], cwd=work, capture_output=True, text=True, timeout=1800,
                              env={**os.environ, "ATTNKIT_LANG": "en"})
        rows = [json.loads(line) for line in proc.stdout.splitlines()]
        graded = {Path(row["submission"]).name for row in rows if row.get("tests")}
        assert graded == {folder.name for folder in submissions}, proc.stderr[-3000:]
        for row in rows:
            for test in row["tests"]:
                verdicts[(Path(row["submission"]).name, test["name"])] = Verdict(test["status"], test["diagnosis"] or "")
    return verdicts


def notebook(submissions, work):
    """The notebook's checks on every public case, each step cell holding the submission's step file."""
    course = work / "course"
    assert cli.main(["nbgrader-course", str(course)]) == 0
    verdicts = {}
    for track, assignment in NOTEBOOKS.items():
        source = json.loads((course / "source" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8"))
        for folder in submissions:
            nb = copy.deepcopy(source)
            for step in manifest.steps(track):
                code_cell(nb, step.module)["source"] = step_code(step, folder)
            verdicts.update({(folder.name, case): v
                             for case, v in _notebook_checks(nb, course / "source" / assignment).items()})
    return verdicts


def _notebook_checks(nb, folder):
    """{case name: Verdict} of each public check of the notebook's steps: the cells but the test cells run
    in one namespace, the checks and shape_checks.py imported from the course's files in `folder` as a kernel
    there imports them, then each public case through StepChecks.run with the earlier steps watched, as
    a test cell runs it, one case at a time (a test cell prints a step's summary and its first failures only)."""
    namespace = {"__name__": "__main__"}
    own = {name: sys.modules.pop(name) for name in list(sys.modules) if name.split(".")[0] in (FOLDER, "shape_checks")}
    sys.path.insert(0, str(folder))
    try:
        for cell in nb["cells"]:
            grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id", "")
            if cell["cell_type"] == "code" and not grade_id.startswith(("test_", "attnkit_progress")):
                exec(compile(cell["source"], cell["id"], "exec"), namespace)
        runtime = namespace["_ak"]
        verdicts = {}
        for module, step in runtime.COURSE["steps"].items():
            for spec in step["public"]:
                with runtime.earlier_steps_watched(module, namespace, None) as (log, earlier_passes):
                    checks = runtime.StepChecks(step, namespace, log, earlier_passes)
                    checks.run(spec)
                verdicts[spec["name"]] = _notebook_verdict(checks)
        return verdicts
    finally:
        sys.path.remove(str(folder))
        for name in [m for m in sys.modules if m.split(".")[0] in (FOLDER, "shape_checks")]:
            del sys.modules[name]
        sys.modules.update(own)


def _notebook_verdict(checks):
    if checks.counts["public"][0]:
        return Verdict(Status.PASSED.value)
    if checks.blamed:
        return BLAMED
    if not checks.failures:  # a stub's NotImplementedError
        return Verdict(Status.FAILED.value)
    _, _, message, raised_at = checks.failures[0]
    return Verdict((Status.ERROR if raised_at else Status.FAILED).value, named_mistake(message))


def disagreements(verdicts, submission):
    """[(case, {front end: Verdict or None})] for each public case of `submission` the front ends judge differently.

    A case the release or the notebook blames on the learner's own earlier step (BLAMED) is left out of the
    comparison: those run a step on the learner's earlier steps, the checkout and the grader on the kit's."""
    rows = []
    for track in NOTEBOOKS:
        for case in public_cases(track):
            seen = {fe: verdicts[fe].get((submission, case)) for fe in FRONT_ENDS}
            if len(set(seen.values()) - {BLAMED}) > 1:  # a blamed case ran on other earlier code, by design
                rows.append((case, seen))
    return rows


def table(submission, rows):
    """The rows as a text table: submission × case × front end."""
    widths = [max([len(submission), len("submission")]), max([len(c) for c, _ in rows] + [4])]
    cells = [[str(seen[fe] or "—") for fe in FRONT_ENDS] for _, seen in rows]
    widths += [max([len(fe)] + [len(row[k]) for row in cells]) for k, fe in enumerate(FRONT_ENDS)]
    lines = [("submission", "case", *FRONT_ENDS)] + [(submission, case, *row) for (case, _), row in zip(rows, cells)]
    return "\n".join("  ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip() for line in lines)
