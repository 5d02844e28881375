"""The class report (issue 10, point 5): the terminal summary after a batch, `attnkit report`, and its
HTML page opened in a real headless Chromium (screenshot: the three plots drew their bars; no console error)."""
import json
import shutil
import subprocess
from collections import Counter

import pytest

from attnkit.grader import class_report
from attnkit.grader.bench import EDITS, copy_solutions
from attnkit.grader.class_report_html import COLOURS
from grading_support import run_cli
from png_support import read_png

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def _grade(score, diagnoses, steps=(("step1_projection", 10.0, 10.0),)):
    tests = [{"name": f"{m}_case", "step": m, "score": s, "max_score": w, "status": "passed" if s == w else "failed",
              "output": "", "diagnosis": None} for m, s, w in steps]
    return {"submission": "x", "score": score, "max_score": 100.0, "tests": tests, "diagnoses": diagnoses}


def test_summary_counts_each_mistake_once_per_student_and_ranks_them():
    grades = [_grade(100.0, []), _grade(76.0, ["scale_missing"]), _grade(40.0, ["scale_missing", "bias_missing"]),
              _grade(95.0, ["bias_missing"]), _grade(88.0, ["scale_missing"])]
    s = class_report.summarize(grades)
    assert (s.count, s.mean, s.median) == (5, pytest.approx(79.8), 88.0)
    assert [n for _, _, n in s.histogram] == [0, 0, 0, 0, 1, 0, 0, 1, 1, 2]  # 100 falls in the last bin
    assert [(m.code, m.students) for m in s.mistakes] == [("scale_missing", 3), ("bias_missing", 2)]
    assert s.mistakes[0].lesson == "lessons/en/step2_scores.md#scale"
    text = class_report.text(s)
    assert "5 submissions, mean 79.8, median 88.0" in text and "step1_projection" in text
    assert text.index("scale_missing") < text.index("bias_missing")


def test_an_empty_batch_is_refused_with_a_reason():
    with pytest.raises(ValueError, match="at least one graded submission"):
        class_report.summarize([])


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """Four submissions (one correct, three with known mistakes) graded in text mode and to --json."""
    root = tmp_path_factory.mktemp("class")
    subs = [str(copy_solutions(root / f"s{k}", edit)) for k, edit in enumerate((None, EDITS[0], EDITS[1], EDITS[0]))]
    text = run_cli("grade", *subs, "--jobs", "2")
    lines = run_cli("grade", *subs, "--json", "--jobs", "2")
    assert text.returncode == 0 and lines.returncode == 0, text.stderr + lines.stderr
    results = root / "results.jsonl"
    results.write_text(lines.stdout, encoding="utf-8")
    return {"root": root, "text": text.stdout, "results": results}


def test_a_batch_ends_with_the_class_summary(batch):
    summary = batch["text"][batch["text"].index("class report:"):]
    assert summary.startswith("class report: 4 submissions")
    assert "mean points per step:" in summary
    ranked = [line.split()[:2] for line in summary.splitlines() if "scale_" in line]
    assert ranked == [["2", "scale_missing"], ["1", "scale_by_d"]]


def test_report_command_prints_the_same_summary_and_writes_a_page(batch):
    page = batch["root"] / "report.html"
    proc = run_cli("report", str(batch["results"]), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(batch["text"][batch["text"].index("class report:"):].rstrip("\n"))
    text = page.read_text(encoding="utf-8")
    assert text.count("<svg") == 3 and "<script" not in text and "http" not in text.replace("http://www.w3.org/2000/svg", "")


def test_report_names_the_line_that_is_not_a_grade(tmp_path):
    bad = tmp_path / "results.jsonl"
    bad.write_text(json.dumps(_grade(50.0, [])) + "\n" + '{"score": 1}\n', encoding="utf-8")
    proc = run_cli("report", str(bad))
    assert proc.returncode == 2 and "line 2" in proc.stderr and "max_score" in proc.stderr


def _open_in_chromium(page, tmp_path):
    """(pixels of a screenshot, console messages) of `page` in headless Chromium."""
    shot = tmp_path / "shot.png"
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                           "--window-size=800,1100", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return read_png(shot), console


@pytest.mark.skipif(not shutil.which(CHROMIUM), reason="chromium is not installed (.ci/run installs Debian's)")
def test_the_page_renders_its_plots_in_chromium_without_console_errors(batch, tmp_path):
    page = batch["root"] / "report-browser.html"
    assert run_cli("report", str(batch["results"]), "--html", str(page)).returncode == 0
    pixels, console = _open_in_chromium(page, tmp_path)
    assert console == []
    counts = Counter(p for row in pixels for p in row)
    assert counts.most_common(1)[0][1] < 0.97 * len(pixels) * len(pixels[0])  # not a blank page
    for plot, colour in COLOURS.items():  # each plot drew bars in its own colour
        rgb = tuple(int(colour[k:k + 2], 16) for k in (1, 3, 5))
        assert counts[rgb] > 500, (plot, counts[rgb])


@pytest.mark.skipif(not shutil.which(CHROMIUM), reason="chromium is not installed (.ci/run installs Debian's)")
def test_the_console_check_sees_a_script_error(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text("<html><body><script>no_such_function();</script></body></html>", encoding="utf-8")
    _, console = _open_in_chromium(page, tmp_path)
    assert any("no_such_function" in line for line in console)
