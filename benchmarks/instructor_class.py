"""The instructor of a class (issue 19's closing figures): figures and pictures only, no assertions.

Into OUT (default: a new temporary folder, kept), builds a class as an instructor collects it:
- folders: correct ones (the solutions and correct rewrites), each known mistake of `bench.EDITS`, a
  mistake no diagnosis names, a mask and a softmax mistake in one (`mia`), a crash, an exception, a hang,
  an untouched copy of the stubs, and a student's whole repository (the step files in its `exercises/`);
- notebooks: the nbgrader course's released `attention` notebook finished from the instructor's one,
  correct, with a known mistake, a mistake no diagnosis names, an exception, or untouched;
- a roster as an LMS exports it (`student_id,name,email`), with students who handed nothing in, and
  submissions named by id, by e-mail's local part or by name, some by nobody on it.

Then grades the class with `attnkit grade --roster --csv --feedback` (the terminal report is printed),
writes the HTML report (`attnkit report --html`), screenshots it and `mia`'s feedback page with headless
Chromium (OUT/*.png), runs `nbgrader autograde` and `nbgrader export` on the same notebooks and prints
nbgrader's totals beside attnkit's, times the parse of a 300 kB notebook in a fresh process at
PARSE_BEFORE (the commit before the fix) and now (benchmarks/notebook_parse.py), and prints the command
lines of benchmarks/hostile_class.py for the class-of-200 times.

    python benchmarks/instructor_class.py [OUT]
"""
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

from attnkit.grader import bench, file_names, students
from attnkit.paths import EXERCISES_DIR, ROOT
from notebook_output import cell, solved

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
PARSE_BEFORE = "d83f83c^"  # the parent of "a cell's imports are written from its tree" (get_source_segment before)
CRASH = ("step5_values.py", "return P @ V", "__import__('os').abort()")
RAISE = ("step6_head.py", "S = scale_scores(kq, D_h) + M", "raise RuntimeError('lost my notes')")
MASK = ("step3_masks.py", "return j <= past + i", "return j < past + i")
SOFTMAX = ("step4_softmax.py", "E = np.exp(S - row_max)", "E = np.exp(S)")
UNKNOWN = bench.EDITS[8]  # P @ V * 1.01: numbers only, no known mistake
KNOWN = [edit for edit in bench.EDITS if edit[3]]
UNROSTERED = ("s010", "s020", "s041")  # they hand in, but the LMS export lacks them
LATE = ("late_submission", "mallory")  # folders named after nobody on the roster
NAMES = ("Alice Liddell", "Bob Stone", "Chen Wei", "Dora Zed", "Eve Adams", "Farid Haddad", "Grace Ho", "Hana Sato",
         "Ivan Petrov", "Jia Li", "Kofi Mensah", "Lena Berg", "Mia Rossi", "Nils Ek", "Olga Nowak", "Priya Rao",
         "Quentin Roy", "Rosa Diaz", "Sam Okafor", "Tomás Silva", "Uma Iyer", "Viktor Kral", "Wen Zhao", "Xavier Moss",
         "Yuki Mori", "Zara Khan", "Ana Costa", "Ben Katz", "Carla Ruiz", "Dev Patel", "Emil Lund", "Fatima Bello",
         "Gus Green", "Hugo Blanc", "Ines Moreau", "Jon Snow", "Kira Volk", "Liam Byrne", "Maya Cohen", "Noor Aziz",
         "Omar Said", "Pia Lehto", "Raj Mehta", "Sara Lind", "Theo Marsh", "Ulla Berg", "Vera Pike", "Will Tan",
         "Xin Yu", "Yara Nasser", "Zoe Hart", "Arto Salo", "Bea Quinn", "Cem Kaya", "Dina Roth", "Elif Sahin")


def _edited(folder, *edits):
    """The solutions copied to `folder` with each (file, old, new[, code]) edit made once."""
    bench.copy_solutions(folder)
    for file, old, new, *_ in edits:
        path = Path(folder) / file
        path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    return folder


def roster_and_names():
    """([(student_id, name, email)], {student_id: the name of their submission}): the students' submissions
    are named by id, by e-mail's local part or by name, in turn."""
    rows, named = [], {}
    for k, name in enumerate(NAMES):
        sid, local = f"s{k + 1:03d}", name.lower().replace(" ", ".").replace("á", "a")
        rows.append((sid, name, f"{local}@uni.example"))
        named[sid] = (sid, local, name.replace(" ", "_"))[k % 3]
    return rows, named


def folder_class(subs, names):
    """The folder submissions, one per roster student in `names` order until they run out: {student_id: path}."""
    kinds = [None, *bench.REWRITES[1:]] * 4 + [e[:3] for e in KNOWN] + [UNKNOWN[:3]] * 3 + [CRASH, RAISE, bench.HANG]
    kinds += [None] * 6
    paths = {}
    for (sid, name), edit in zip(list(names.items())[:len(kinds)], kinds):
        paths[sid] = _edited(subs / name, *filter(None, [edit]))
    sid, name = list(names.items())[len(kinds)]
    paths[sid] = _edited(subs / name, MASK, SOFTMAX)  # mia's page: a mask and a softmax mistake
    stubs = list(names.items())[len(kinds) + 1]
    paths[stubs[0]] = shutil.copytree(EXERCISES_DIR, subs / stubs[1], ignore=shutil.ignore_patterns("__pycache__"))
    repo = list(names.items())[len(kinds) + 2]
    (subs / repo[1]).mkdir()
    (subs / repo[1] / "README.md").write_text("# my attention exercises\n")
    paths[repo[0]] = bench.copy_solutions(subs / repo[1] / "exercises")
    return paths


def notebook_class(course, subs, students):
    """Notebooks of `students` ({student_id: submission name}) handed in to the nbgrader course `course` and
    copied to `subs` as <name>.ipynb: {student_id: path in subs}."""
    source = nbformat.read(course / "source/attention/attention.ipynb", as_version=4)
    release = nbformat.read(course / "release/attention/attention.ipynb", as_version=4)
    edits = [None, None, None, KNOWN[0], KNOWN[4], KNOWN[7], UNKNOWN, RAISE, "untouched"]
    paths = {}
    for (sid, name), edit in zip(students.items(), edits * 2):
        nb = release if edit == "untouched" else solved(source, release)
        if edit not in (None, "untouched"):
            module = edit[0].removesuffix(".py")
            cell(nb, module).source = cell(nb, module).source.replace(edit[1], edit[2], 1)
        handed_in = course / "submitted" / sid / "attention" / "attention.ipynb"
        handed_in.parent.mkdir(parents=True)
        nbformat.write(nb, handed_in)
        paths[sid] = shutil.copy(handed_in, subs / f"{name}.ipynb")
    return paths


def attnkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "attnkit.cli", *args], cwd=cwd, capture_output=True, text=True)


def nbgrader(*args, cwd):
    subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=cwd, check=True, capture_output=True)


def screenshot(page, png, height):
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={profile}", f"--window-size=1000,{height}", f"--screenshot={png}",
                        page.as_uri()], check=True, capture_output=True, timeout=120)
    print(f"screenshot: {png}")


def main(out=None):
    out = Path(out or tempfile.mkdtemp(prefix="instructor-class-"))
    subs, course = out / "submissions", out / "course"
    subs.mkdir(parents=True)
    rows, names = roster_and_names()
    on_roster = [row for row in rows if row[0] not in UNROSTERED]
    with open(out / "export.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("student_id", "name", "email"), *on_roster])
    folders = folder_class(subs, dict(list(names.items())[:40]))
    for late in LATE:
        bench.copy_solutions(subs / late)
    attnkit("nbgrader-course", str(course), cwd=out).check_returncode()
    nbgrader("generate_assignment", "attention", cwd=course)
    notebooks = notebook_class(course, subs, dict(list(names.items())[40:52]))  # the last 4 hand nothing in
    print(f"class: {len(folders) + len(LATE)} folders, {len(notebooks)} notebooks; a roster of {len(on_roster)} "
          f"(4 hand nothing in; {len(UNROSTERED) + len(LATE)} submissions by nobody on it)")
    paths = sorted(str(p) for p in subs.iterdir())
    options = ["--roster", str(out / "export.csv"), "--out", str(out / "store"), "--jobs", "2"]
    text = attnkit("grade", *paths, *options, "--csv", str(out / "gradebook.csv"), "--feedback", str(out / "feedback"),
                   cwd=out)
    print(text.stdout[text.stdout.index("class report:"):] if "class report:" in text.stdout else text.stdout + text.stderr)
    lines = attnkit("grade", *paths, *options, "--json", cwd=out).stdout
    (out / "results.jsonl").write_text(lines, encoding="utf-8")
    attnkit("report", str(out / "results.jsonl"), "--html", str(out / "report.html"), cwd=out).check_returncode()
    screenshot(out / "report.html", out / "report.png", 2600)
    stems = file_names.stems(paths, students.read_roster(out / "export.csv"))
    mia = folders[list(folders)[-3]]  # folder_class's mask and softmax mistake
    screenshot(out / "feedback" / f"{stems[str(mia)]}.html", out / "feedback-mask-softmax.png", 3000)
    nbgrader("autograde", "attention", cwd=course)
    nbgrader("export", cwd=course)
    with open(course / "grades.csv", newline="") as f:
        by_nbgrader = {row["student_id"]: float(row["score"]) for row in csv.DictReader(f)}
    by_attnkit = {Path(g["submission"]).name: g["score"] for g in map(json.loads, lines.splitlines())}
    print(f"\n{'notebook':<24} {'nbgrader':>9} {'attnkit':>9}")
    for sid, path in notebooks.items():
        print(f"{Path(path).name:<24} {by_nbgrader[sid]:>9.4g} {by_attnkit[Path(path).name]:>9.4g}")
    before = Path(tempfile.mkdtemp(prefix="parse-before-"))
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(before), PARSE_BEFORE], check=True,
                   capture_output=True)
    try:
        subprocess.run([sys.executable, str(ROOT / "benchmarks/notebook_parse.py"), str(before / "src"),
                        str(ROOT / "src")], check=True)
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(before)], check=True)
    print("\nthe class of 200 (run quietly, one at a time):")
    for track in ("core", "extension"):
        for hostile in ("0", "0.3"):
            print(f"    python benchmarks/hostile_class.py 200 --hostile {hostile} --jobs 2 --track {track}")
    print(f"\nall files in {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
