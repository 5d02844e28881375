"""The feedback page with pictures: expected and got as tables (differing cells outlined, attention weights
shaded), one line for an unwritten step, each hint once per step, tables for public tests only, learner
text escaped; opened in a real headless Chromium (a mask mistake and a softmax mistake), in English and
Chinese. The Markdown keeps the same content as text."""
import html
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from attnkit import manifest
from attnkit.grader import feedback_grids, file_names
from attnkit.grader.feedback import markdown_text
from attnkit.grader import grade
from attnkit_runtime.status import Status
from attnkit.grader.bench import copy_solutions
from attnkit.paths import EXERCISES_DIR
from grading_support import grade_path, plan, rendered_markdown, run_cli
from test_class_report import CHROMIUM, open_in_chromium

MASK = ("step3_masks.py", "return j <= past + i", "return j < past + i")  # mask_diagonal_excluded
SOFTMAX = ("step4_softmax.py", "E = np.exp(S - row_max)", "E = np.exp(S)")  # softmax_unstable
HOSTILE_TYPE = "</pre><img src=x onerror=alert(1)><script>alert(2)</script>"
HOSTILE = [("step5_values.py", "return P @ V",
            f"print('<script>alert(3)</script>')\n    return type({HOSTILE_TYPE!r}, (), {{}})()"),
           ("step2_scores.py", "return kq / math.sqrt(d_h)", "raise ValueError('<iframe src=javascript:alert(4)>')")]


def test_a_grid_is_the_window_around_the_first_difference_of_its_2d_slice():
    case = SimpleNamespace(public=True, tolerance={"atol": 1e-6, "rtol": 1e-6})
    want = np.full((2, 20, 20), 0.05)
    got = want.copy()
    got[1, 5, 7] = 0.5
    grid = feedback_grids.grid(case, [{}], [{"P": got}], [{"P": want}])
    assert (grid["label"], grid["where"], grid["shape"], grid["heat"]) == ("P", "[1, 0:12, 1:13]", [2, 20, 20], True)
    assert len(grid["expected"]) == len(grid["got"]) == 12 and len(grid["got"][0]) == 12
    assert [(r, c) for r, row in enumerate(grid["differ"]) for c, d in enumerate(row) if d] == [(5, 6)]
    assert feedback_grids.grid(SimpleNamespace(**{**vars(case), "public": False}), [{}], [{"P": got}], [{"P": want}]) is None
    assert feedback_grids.grid(case, [{}], [{"P": got[0]}], [{"P": want}]) is None  # a wrong shape: no picture


def test_a_grid_is_kept_in_the_results_store_so_a_rerun_draws_it_again():
    case = SimpleNamespace(public=True, tolerance={"atol": 1e-6, "rtol": 1e-6})
    want, got = np.array([[0.5, -np.inf]]), np.array([[np.nan, -np.inf]])
    grid = feedback_grids.grid(case, [{}], [{"S": got}], [{"S": want}])
    test = grade.TestResult("t", "step4_softmax", 0.0, 1.0, Status.FAILED, "wrong", None, True, grid=grid)
    graded = grade.Graded("sub", 0.0, 1.0, [test], {"step4_softmax": (0.0, 1.0)})
    again = grade.Graded.from_record(json.loads(json.dumps(graded.as_record())), {"t"})
    assert repr(again.tests[0].grid) == repr(grid) and grid["differ"] == [[True, False]]
    assert "grid" not in json.dumps(graded.as_spec())  # the contract's JSON is unchanged


def _edited(target, *edits):
    """The solutions copied to `target` with each (file, old, new) edit applied."""
    copy_solutions(target)
    for file, old, new in edits:
        path = Path(target) / file
        text = path.read_text(encoding="utf-8")
        assert old in text, (file, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(target)


def _feedback(subs, out, *extra):
    proc = run_cli("grade", *subs, "--feedback", str(out), "--jobs", "2", "--call-seconds", "20", *extra)  # none hangs
    assert proc.returncode == 0, proc.stderr
    stems = file_names.stems(subs)
    return {Path(sub).name: {suffix: Path(out, f"{stems[sub]}{suffix}") for suffix in (".html", ".md")} for sub in subs}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Feedback files of: mask + softmax mistakes (English and Chinese), the untouched stubs, a hostile submission."""
    root = tmp_path_factory.mktemp("pages")
    mia = _edited(root / "mia", MASK, SOFTMAX)
    stub = str(shutil.copytree(EXERCISES_DIR, root / "stub", ignore=shutil.ignore_patterns("__pycache__")))
    hostile = _edited(root / "<svg onload=alert(5)>", *HOSTILE)
    files = _feedback([mia, stub, hostile], root / "en", "--lang", "en")
    files["mia_zh"] = _feedback([mia], root / "zh", "--lang", "zh")["mia"]
    return files


def test_a_mistake_graded_again_keeps_its_grid_when_its_verdict_is_remembered(tmp_path):
    first, again = (grade_path(copy_solutions(tmp_path / name, MASK)) for name in ("first", "again"))
    grids = [{t.name: t.grid for t in graded.tests if t.grid} for graded in (first, again)]
    assert "causal_visible_four_tokens" in grids[0] and grids[0] == grids[1]


def _sections(page):
    """{step module: its part of the page}."""
    parts = re.split(r'<h2 id="(step\d_\w+)">', page)
    return dict(zip(parts[1::2], parts[2::2]))


def _grids(page):
    """[(test name, the pair of tables)] of each failure drawn with tables."""
    return re.findall(r'<h3>([^<:]+): [^<]*</h3>(<div class="pair">.*?</div></div>)', page)


def test_a_failed_public_test_shows_expected_and_got_as_tables_with_differing_cells_marked(pages):
    page = pages["mia"][".html"].read_text(encoding="utf-8")
    sections = _sections(page)
    masks, softmax = dict(_grids(sections["step3_masks"])), dict(_grids(sections["step4_softmax"]))
    four = masks["causal_visible_four_tokens"]
    expected, got = re.findall(r'<table class="g">(.*?)</table>', four)
    assert expected.count("<tr>") == got.count("<tr>") == 4 and expected.count("<td") == 16
    assert got.count('class="d"') == 4  # the diagonal, which j < i leaves out
    assert re.search(r'<td class="d t">T</td>', expected) and re.search(r'<td class="d">F</td>', got)
    stable = softmax["softmax_large_scores_stable"]
    assert "NaN" in stable and "background:rgba(31,119,180," in stable  # P as a heat map, NaN cells marked
    assert "the cells outlined in red differ" in page and "Weights are shaded" in page


def test_tables_are_drawn_for_public_tests_only_and_the_page_says_so(pages):
    page = pages["mia"][".html"].read_text(encoding="utf-8")
    drawn = [name for name, _ in _grids(page)]
    public = {p.case.name for p in plan().cases if p.case.public}
    assert drawn and set(drawn) <= public
    assert "drawn as tables for public tests only" in page
    assert "(a hidden test: failed)" in page


def test_an_unwritten_step_is_one_line_and_each_hint_is_given_once_per_step(pages):
    stub = pages["stub"][".html"].read_text(encoding="utf-8")
    sections = _sections(stub)
    assert len(sections) == 6 and "<pre>" not in stub
    for step, part in sections.items():
        assert part.count("is not written yet") == 1, step
    assert re.search(r"Step 1 is not written yet \(\d+ tests\)", stub)
    for step, part in sections.items():  # the step's lesson, once; not each case's section (a hidden case's too)
        assert re.findall(r"<li>read: (.*?)</li>", part) == [f"lessons/en/{step}.md"], step
    page = pages["mia"][".html"].read_text(encoding="utf-8")
    for step, part in _sections(page).items():
        hints = re.findall(r"<li>(hint: .*?)</li>", part)
        assert hints and len(hints) == len(set(hints)), step
        assert not re.search(r"<pre>[^<]*hint: ", part), step  # not repeated in each failure
        assert len(re.findall(r"<li>likely mistake: ", part)) == 1, step


def test_the_markdown_keeps_the_same_feedback_as_text(pages):
    md = pages["mia"][".md"].read_text(encoding="utf-8")
    assert "<table" not in md and "expected" in md and "got" in md
    for step in ("step3_masks", "step4_softmax"):
        part = md.split(f"## Step {manifest.step(step).number}\\:")[1].split("\n## ")[0]
        hints = [line for line in part.splitlines() if line.startswith("hint: ")]
        assert hints and len(hints) == len(set(hints)), step
    stub = pages["stub"][".md"].read_text(encoding="utf-8")
    assert stub.count("is not written yet") == 6


def test_each_step_is_named_by_its_title_in_the_learners_language(pages):
    """As the track's manifest gives it (the module, step3_masks, is the page's anchor only)."""
    for files, name in (("mia", "Step {number}: {title}"), ("mia_zh", "第 {number} 步：{title}")):
        page, md = (pages[files][suffix].read_text(encoding="utf-8") for suffix in (".html", ".md"))
        lang = "zh" if files.endswith("_zh") else "en"
        for step in manifest.steps("core"):
            titled = name.format(number=step.number, title=step.title[lang])
            assert f"<tr><td>{html.escape(titled)}</td>" in page, titled
            assert f"| {markdown_text(titled)} |" in md, titled
        for step in ("step3_masks", "step4_softmax"):
            number, title = manifest.step(step).number, manifest.step(step).title[lang]
            assert f'<h2 id="{step}">{html.escape(name.format(number=number, title=title))} — ' in page
            assert f"## {markdown_text(name.format(number=number, title=title))}\n" in md
        assert not re.search(r"<td>step\d_", page) and "## step" not in md


def test_the_chinese_page_is_worded_in_chinese(pages):
    page = pages["mia_zh"][".html"].read_text(encoding="utf-8")
    assert "<b>应为</b>" in page and "<b>实际</b>" in page and "红框标出的格子" in page and "权重按深浅着色" in page
    assert "：未通过</h3>" in page and "（隐藏测试：未通过）" in page and "只为公开测试" in page
    assert not re.search(r"\b(failed|expected|hint|read)\b", re.sub(r"<[^>]+>|step\d_\w+|\w+\.md\S*", "", page))


def test_hostile_names_printed_text_and_outputs_stay_text(pages):
    page = pages["<svg onload=alert(5)>"][".html"].read_text(encoding="utf-8")
    assert not re.search(r"<(script|img|svg|iframe)\b", page) and "onerror=alert(1)" in html.unescape(page)
    assert html.escape(HOSTILE_TYPE, quote=True) in page  # the type's name, shown as text
    assert "&lt;svg onload=alert(5)&gt;" in page
    rendered = rendered_markdown(pages["<svg onload=alert(5)>"][".md"].read_text(encoding="utf-8"))
    assert not re.search(r"<(script|img|svg|iframe)\b", rendered)


@pytest.mark.skipif(not shutil.which(CHROMIUM), reason="chromium is not installed (.ci/run installs Debian's)")
def test_the_hostile_page_runs_nothing_in_chromium(pages, tmp_path):
    page = pages["<svg onload=alert(5)>"][".html"]
    dom = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'p'}",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    assert "<h1>" in dom and not re.search(r"<(script|img|svg|iframe)\b", dom)
    _, console = open_in_chromium(page, tmp_path)
    assert console == []


@pytest.mark.skipif(not shutil.which(CHROMIUM), reason="chromium is not installed (.ci/run installs Debian's)")
@pytest.mark.parametrize("language", ["mia", "mia_zh"])
def test_the_mask_and_softmax_page_draws_its_tables_in_chromium(pages, tmp_path, language):
    pixels, console = open_in_chromium(pages[language][".html"], tmp_path, height=2400)
    assert console == []
    counts = Counter(p for row in pixels for p in row)
    assert counts[(0xd6, 0x27, 0x28)] > 300  # differing cells outlined in red
    assert counts[(0xcf, 0xe8, 0xcf)] > 2000  # the visible (True) cells of the mask tables
    shaded = sum(n for (r, g, b), n in counts.items() if b > r + 60 and b > 150 and g < 235)  # the heat map's blues
    assert shaded > 300  # four shaded cells of P
