"""The released notebook reads as well as the folder (issue 9 point 6), through a real kernel and nbgrader.

A course is released with `nbgrader generate_assignment`; the release is run in a Jupyter kernel outside
the course folder, as a student runs it (untouched; step 2 with a mistake; the provided cells skipped),
and two submissions go through `nbgrader autograde` and `generate_feedback` (step 5 raising a NameError
from the student's own line; step 2 with a mistake). Checked: a failing test cell shows the teaching
message and nothing of the checking code, and nbgrader still gives it 0 points; the student's line on
an error; a step built on a failing earlier step names it; the progress cell; a clear message when the
provided cells were skipped; the feedback's summary names the steps and its page has CJK fonts that
Chromium renders; the lessons the notebook links are beside it.
"""
import re
import shutil
import subprocess

import pytest

pytest.importorskip("nbgrader", reason="nbgrader is not installed (pip install -e '.[nbgrader]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[nbgrader]')")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -e '.[nbgrader]')")

from attnkit import manifest, rubric  # noqa: E402
from png_support import read_png  # noqa: E402
from test_nbgrader_roundtrip import cell, filled_notebook, nbgrader, released_course  # noqa: E402

ANSI = re.compile(r"\x1b\[[0-9;]*m")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
POINTS = rubric.step_points()
STEPS = manifest.steps("core")


def step2_mistake(code):
    """kq = Q K: the key not transposed (a known mistake, raising in numpy from the student's line)."""
    changed = code.replace("return Q @ np.swapaxes(K, -1, -2)", "return Q @ K")
    assert changed != code
    return changed


def own_name_error(code):
    changed = code.replace("return P @ V", "return P @ v")
    assert changed != code
    return changed


def shown(c):
    """What a cell shows: its printed text and its error's rendered traceback, without colours."""
    parts = [o.get("text", "") if o.output_type == "stream" else "\n".join(o.get("traceback", []))
             for o in c.outputs]
    return ANSI.sub("", "".join(parts))


def errors(c):
    return [o for o in c.outputs if o.output_type == "error"]


def skipped_provided(release):
    nb = nbformat.reads(nbformat.writes(release), as_version=4)
    for grade_id in ("shape_checks", "attnkit_checks"):
        cell(nb, grade_id).source = "pass  # the student skipped this cell"
    return nb


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root, source, release = released_course(tmp_path_factory)
    # a copy of the release outside the course (no hidden checks), as a student runs it
    student = shutil.copytree(root / "release/attention", tmp_path_factory.mktemp("student") / "attention")
    ran = {"untouched": nbformat.reads(nbformat.writes(release), as_version=4),
           "step2_mistake": filled_notebook(source, release, "core", step2_mistake, "step2_scores"),
           "skipped": skipped_provided(release)}
    for nb in ran.values():
        nbclient.NotebookClient(nb, timeout=60, allow_errors=True, resources={"metadata": {"path": str(student)}}).execute()
    submitted = {"own_name_error": filled_notebook(source, release, "core", own_name_error, "step5_values"),
                 "step2_mistake": filled_notebook(source, release, "core", step2_mistake, "step2_scores")}
    for name, nb in submitted.items():
        path = root / "submitted" / name / "attention" / "attention.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
    autograde = nbgrader("autograde", "attention", cwd=root)
    nbgrader("generate_feedback", "attention", cwd=root)
    graded = {name: nbformat.read(root / "autograded" / name / "attention/attention.ipynb", as_version=4)
              for name in submitted}
    return {"root": root, "release": release, "ran": ran, "graded": graded, "log": autograde.stdout + autograde.stderr}


def test_a_failing_test_cell_shows_the_message_and_nothing_of_the_kit(course):
    notebooks = [course["ran"]["untouched"], course["ran"]["step2_mistake"], *course["graded"].values()]
    failing = [cell(nb, f"test_{s.module}") for nb in notebooks for s in STEPS]
    failing = [c for c in failing if errors(c)]
    assert len(failing) >= 7
    for c in failing:
        text = shown(c)
        assert "Traceback" not in text and "_ak.check" not in text and "attnkit_runtime" not in text, text
        assert "File " not in text and "---->" not in text, text


def test_nbgrader_gives_each_cell_the_points_its_checks_earn(course):
    """A step whose every case raises earns 0; a step that failed only on the earlier step it calls keeps its
    points (no double penalty); a step with one known mistake earns less than its points."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course['root'] / 'gradebook.db'}") as gb:
        def score(student, module):
            return gb.find_grade(f"test_{module}", "attention", "attention", student).score

        assert score("own_name_error", "step5_values") == 0.0
        assert score("step2_mistake", "step2_scores") < POINTS["step2_scores"]
        for student in ("own_name_error", "step2_mistake"):
            assert score(student, "step6_head") == POINTS["step6_head"], student
            assert score(student, "step1_projection") == POINTS["step1_projection"], student


def test_the_test_cells_hold_no_test_data(course):
    for step in STEPS:
        source = cell(course["release"], f"test_{step.module}").source
        assert source.splitlines()[-1] == f"_ak.check({step.module!r})" and len(source.splitlines()) == 3


def test_an_error_in_the_students_code_shows_their_line(course):
    text = shown(cell(course["graded"]["own_name_error"], "test_step5_values"))
    assert "raised NameError: name 'v' is not defined" in text
    assert re.search(r"in your code:\n\s+the cell of step 5 \(step5_values\) \(Cell In\[\d+\]\), line \d+, in weighted_sum\n"
                     r"\s+return P @ v", text), text


def test_a_step_on_a_failing_earlier_step_names_it(course):
    for nb, earlier in ((course["graded"]["own_name_error"], 5), (course["ran"]["step2_mistake"], 2),
                        (course["graded"]["step2_mistake"], 2)):
        text = shown(cell(nb, "test_step6_head"))
        assert f"step {earlier} (" in text and f"Fix step {earlier} first" in text, text
        assert len(text) < 600, text  # instead of 55–70 K characters of step 6's own failures


def test_the_untouched_notebook_says_what_to_write_in_a_few_lines(course):
    for step in STEPS:
        text = shown(cell(course["ran"]["untouched"], f"test_{step.module}"))
        assert text.startswith(f"Step {step.number} ({step.module}.") and len(text) < 1500, text


def test_the_progress_cell_tabulates_the_steps(course):
    text = shown(cell(course["graded"]["own_name_error"], "attnkit_progress"))
    rows = {s.number: next(line for line in text.splitlines() if line.startswith(f"  step {s.number} ")) for s in STEPS}
    assert all(rows[n].rstrip().endswith("passed") for n in (1, 2, 3, 4)), text
    assert rows[5].endswith("failed   <- next") and rows[6].endswith("failed"), text
    assert f"Points: {100 - POINTS['step5_values']:g} of 100." in text and "public and hidden checks" in text
    text = shown(cell(course["ran"]["untouched"], "attnkit_progress"))
    assert "Points on the public checks: 0 of 100." in text and "Next: step 1. Read lessons/en/step1_projection.md" in text


def test_skipping_the_provided_cells_says_to_run_them(course):
    for step in STEPS:
        (error,) = errors(cell(course["ran"]["skipped"], f"test_{step.module}"))
        assert error.ename == "NameError" and "run the provided cells at the top first" in error.evalue
        assert "先运行最上面提供的单元格" in error.evalue


def test_the_lessons_the_notebook_links_are_beside_it(course):
    folder = course["root"] / "release/attention"
    links = {link.split("#")[0] for c in course["release"].cells if c.cell_type == "markdown"
             for link in re.findall(r"\]\(([^)]+)\)", c.source)}
    assert {f"lessons/{lang}/{s.module}.md" for s in STEPS for lang in ("en", "zh")} <= links
    assert [link for link in links if not (folder / link).is_file()] == []


def feedback_page(course, student):
    return (course["root"] / "feedback" / student / "attention/attention.html").read_text(encoding="utf-8")


def test_the_feedback_summary_names_the_steps(course):
    html = feedback_page(course, "step2_mistake")
    toc = html[html.index('<div id="toc">'):html.index("</ol>")]
    assert re.findall(r'href="#test_step\d+_\w+">([^<]+)</a>', toc) == [
        "step 1 · projection", "step 2 · scores", "step 3 · masks", "step 4 · softmax", "step 5 · values", "step 6 · head"]
    assert "Test cell" not in toc
    assert "likely mistake: multiplied Q K instead of Q Kᵀ" in html


@pytest.mark.skipif(not shutil.which(CHROMIUM), reason="chromium is not installed (.ci/run installs Debian's)")
def test_the_feedback_page_renders_chinese_glyphs_not_boxes(course, tmp_path):
    """The page's own styles, with two different Chinese characters in its code and prose fonts: with no
    CJK font both are the same empty box (tofu), with one they are different glyphs."""
    html = feedback_page(course, "own_name_error")
    assert "Noto Sans CJK SC" in html
    styles = "".join(re.findall(r"<style[^>]*>.*?</style>", html, flags=re.S))
    crops = []
    for char in "第步":
        page = tmp_path / f"{ord(char)}.html"
        page.write_text(f'<html><head><meta charset="utf-8">{styles}</head><body style="margin:0">'
                        f'<pre class="output_text" style="font-size:80px;margin:0">{char * 3}</pre>'
                        f'<p style="font-size:80px;margin:0">{char * 3}</p></body></html>', encoding="utf-8")
        shot = tmp_path / f"{ord(char)}.png"
        proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                               f"--user-data-dir={tmp_path / 'profile'}", "--window-size=400,300",
                               f"--screenshot={shot}", page.as_uri()], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
        crops.append(read_png(shot))
    inked = [sum(pixel != (255, 255, 255) for row in rows for pixel in row) for rows in crops]
    assert min(inked) > 500, inked  # something was drawn
    assert crops[0] != crops[1], "the two characters render identically: no CJK font (tofu)"


def test_the_feedback_page_is_small(course):
    """nbgrader's page inlined ~220 kB of CSS and the provided cells' code in every page (~600 kB per student)."""
    for page in (course["root"] / "feedback").rglob("attention.html"):
        assert page.stat().st_size < 100_000, (page, page.stat().st_size)
        assert "the same in every notebook" in page.read_text(encoding="utf-8")


def test_autograde_logs_no_lesson_copies(course):
    copies = [line for line in course["log"].splitlines() if "Copying" in line]
    assert copies and not [line for line in copies if "/lessons/" in line], copies[:5]
