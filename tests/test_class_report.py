"""The class report: the terminal summary after a batch, `attnkit report`, and its HTML page opened in a real
headless Chromium (screenshot: each of the four plots drew its bars; no console error). The class holds each
kind of submission the report sorts: correct, known mistakes, a mistake no diagnosis names, a crash, an
exception, a hang and an untouched copy of the stubs; the report names the students of each group."""
import json
import re
import shutil
import subprocess
from collections import Counter
from html.parser import HTMLParser

import pytest

from attnkit import cases
from attnkit.grader import class_report, class_report_html
from attnkit_runtime import i18n
from attnkit.grader.bench import EDITS, HANG, copy_solutions
from attnkit.grader.class_report_html import COLOURS
from attnkit.paths import EXERCISES_DIR
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


CRASH = ("step5_values.py", "return P @ V", "__import__('os').abort()")  # the sandbox's child dies: an error
RAISE = ("step6_head.py", "S = scale_scores(kq, D_h) + M", "raise RuntimeError('lost')")  # an error of its own


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """A class graded in text mode and to --json: one correct, known mistakes (scale_missing twice, scale_by_d),
    one mistake no diagnosis names (EDITS[8]), one that crashes, one that raises, one that hangs, one untouched."""
    root = tmp_path_factory.mktemp("class")
    edits = {"s0": None, "s1": EDITS[0], "s2": EDITS[1], "s3": EDITS[0], "odd": EDITS[8], "crash": CRASH,
             "raises": RAISE, "hangs": HANG}
    subs = [str(copy_solutions(root / name, edit)) for name, edit in edits.items()]
    subs.append(str(shutil.copytree(EXERCISES_DIR, root / "stub", ignore=shutil.ignore_patterns("__pycache__"))))
    options = ("--jobs", "2", "--call-seconds", "8", "--out", str(root / "store"))  # 8 s: no honest call times out
    text = run_cli("grade", *subs, *options)
    lines = run_cli("grade", *subs, "--json", *options)  # the stored grades, so both runs report the same
    assert text.returncode == 0 and lines.returncode == 0, text.stderr + lines.stderr
    results = root / "results.jsonl"
    results.write_text(lines.stdout, encoding="utf-8")
    return {"root": root, "text": text.stdout, "results": results, "grades": [json.loads(x) for x in lines.stdout.splitlines()]}


def _section(text, heading):
    """The lines of the class report under the line starting with `heading`, up to the next heading."""
    lines = text[text.index("class report:"):].splitlines()
    start = next(k for k, line in enumerate(lines) if line.strip().startswith(heading))
    end = next((k for k in range(start + 1, len(lines)) if not lines[k].startswith("    ")), len(lines))
    return lines[start + 1:end]


def test_a_batch_ends_with_the_class_summary(batch):
    summary = batch["text"][batch["text"].index("class report:"):]
    assert summary.startswith("class report: 9 submissions")
    ranked = [line.split()[:2] for line in _section(summary, "known mistakes") if "scale_" in line]
    assert ranked == [["2", "scale_missing"], ["1", "scale_by_d"]]


def test_the_report_says_who_needs_help_by_name(batch):
    text = batch["text"]
    known = _section(text, "known mistakes")
    assert known[known.index(next(x for x in known if "scale_missing" in x)) + 1].strip() == "s1, s3"
    assert "#" * 30 in known[0]  # the most made mistake has the longest bar, whatever the class size
    stopped = {line.split()[0]: line for line in _section(text, "errors and timeouts")}
    assert sorted(stopped) == ["crash", "hangs", "raises"]
    assert "step5_values" in stopped["crash"] and "error" in stopped["crash"]
    assert "step4_softmax" in stopped["hangs"] and "timeout" in stopped["hangs"]
    assert "step6_head" in stopped["raises"] and "error" in stopped["raises"]
    unexplained = _section(text, "points lost with no known diagnosis")
    assert unexplained[0].startswith("       1  step5_values: ") and unexplained[1].strip() == "odd"
    assert len(unexplained[0]) > 40  # what the failing tests check, in words
    assert [line.split(":")[0].strip() for line in _section(text, "steps not written yet")] == ["stub"]
    assert "step1_projection, step2_scores" in _section(text, "steps not written yet")[0]
    groups = {line[:25].strip(): int(line[25:29]) for line in _section(text, "who lost points")}
    assert groups == {"known mistake": 3, "error or timeout": 3, "no known diagnosis": 1, "step not written": 1}


def test_each_step_spreads_the_whole_class_over_its_buckets(batch):
    summary = class_report.summarize(batch["grades"])
    assert all(sum(p.counts) == 9 for p in summary.steps)
    head = next(p for p in summary.steps if p.step == "step6_head")
    assert head.counts[0] >= 2 and head.counts[3] >= 5  # the stub and the raising one get none of step 6


def test_report_command_prints_the_same_summary_and_writes_a_page(batch):
    page = batch["root"] / "report.html"
    proc = run_cli("report", str(batch["results"]), "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(batch["text"][batch["text"].index("class report:"):].rstrip("\n"))
    text = page.read_text(encoding="utf-8")
    assert text.count("<svg") == 4 and "<script" not in text and "http" not in text.replace("http://www.w3.org/2000/svg", "")
    for name in ("s1, s3", "crash", "hangs", "raises", "odd", "stub"):
        assert f"<td>{name}" in text.replace("<wbr>", ""), name


def test_students_names_are_escaped_in_the_page_and_the_terminal():
    grade = {**_grade(50.0, ["scale_missing"]), "name": "<img src=x onerror=alert(1)>\x1b[2J"}
    s = class_report.summarize([grade])
    page = class_report_html.page(s)
    assert "<img" not in page and "&lt;img src=x onerror=alert(1)&gt;\\x1b[2J" in page
    assert "\x1b" not in class_report.text(s) and "\\x1b[2J" in class_report.text(s)


def test_report_names_the_line_that_is_not_a_grade(tmp_path):
    bad = tmp_path / "results.jsonl"
    bad.write_text(json.dumps(_grade(50.0, [])) + "\n" + '{"score": 1}\n', encoding="utf-8")
    proc = run_cli("report", str(bad))
    assert proc.returncode == 2 and "line 2" in proc.stderr and "max_score" in proc.stderr


def open_in_chromium(page, tmp_path, height=1100):
    """(pixels of a screenshot, console messages) of `page` in headless Chromium; the screenshot is kept
    as tmp_path/shot.png."""
    shot = tmp_path / "shot.png"
    proc = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-background-networking", "--disable-component-update", "--disable-sync",
                           f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0",
                           f"--window-size=800,{height}", f"--screenshot={shot}", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return read_png(shot), console


@pytest.mark.skipif(not shutil.which(CHROMIUM), reason="chromium is not installed (.ci/run installs Debian's)")
def test_the_page_renders_its_plots_in_chromium_without_console_errors(batch, tmp_path):
    page = batch["root"] / "report-browser.html"
    assert run_cli("report", str(batch["results"]), "--html", str(page)).returncode == 0
    pixels, console = open_in_chromium(page, tmp_path, height=1700)
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
    _, console = open_in_chromium(page, tmp_path)
    assert any("no_such_function" in line for line in console)


class _VisibleText(HTMLParser):
    """The text a browser shows of a page (its title included, its style sheet not), one piece per text node."""

    def __init__(self):
        super().__init__()
        self.pieces, self.in_style = [], False

    def handle_starttag(self, tag, attrs):
        self.in_style = tag == "style"

    def handle_data(self, data):
        if not self.in_style:
            self.pieces.append(data)


def _visible_text(page):
    reader = _VisibleText()
    reader.feed(page.replace("<wbr>", ""))
    return " ".join(reader.pieces)


def _class_data(summary):
    """The learners' and the catalogue's own texts in a summary: names, mistake codes and summaries, lesson
    paths, step modules, the failing tests' concepts; what is left of a report without them is the kit's."""
    data = {"attnkit"} | {p.step for p in summary.steps}
    for m in summary.mistakes:
        data |= {m.code, m.summary, m.lesson, *m.who}
    for st in summary.stopped:
        data |= {st.who, *(step for step, _ in st.steps)}
    for u in summary.unexplained:
        data |= {u.who, *(step for step, _ in u.concepts), *(c for _, concepts in u.concepts for c in concepts)}
    for name, steps in summary.not_written:
        data |= {name, *steps}
    return sorted(data - {""}, key=len, reverse=True)


def _kit_words(rendered, summary):
    """The latin-letter words of `rendered` that are not the class's data (numbers hold none)."""
    for piece in _class_data(summary):
        rendered = rendered.replace(piece, " ")
    return sorted(set(re.findall(r"[A-Za-z]+", rendered)))


def test_the_report_in_chinese_has_no_english_word_of_the_kit(batch):
    page = batch["root"] / "report-zh.html"
    proc = run_cli("report", str(batch["results"]), "--lang", "zh", "--html", str(page))
    assert proc.returncode == 0, proc.stderr
    with i18n.speaking("zh"):
        summary = class_report.summarize(batch["grades"])
    assert summary.stopped and summary.unexplained and summary.not_written and summary.mistakes  # every section
    assert _kit_words(proc.stdout.replace(str(page), " "), summary) == []
    assert _kit_words(_visible_text(page.read_text(encoding="utf-8")), summary) == []


def test_a_class_with_nothing_to_report_reads_in_chinese_too():
    grades = [_grade(100.0, []), _grade(100.0, [])]
    with i18n.speaking("zh"):
        summary = class_report.summarize(grades)
        rendered = [class_report.text(summary), _visible_text(class_report_html.page(summary))]
    assert [_kit_words(r, summary) for r in rendered] == [[], []]


def _failing(student, score, *step_tests):
    """A grade of `student` that failed each (step, test name) with no diagnosis."""
    tests = [{"name": name, "step": step, "score": 0.0, "max_score": 5.0, "status": "failed", "output": "",
              "diagnosis": None} for step, name in step_tests]
    return {"submission": student, "score": score, "max_score": 100.0, "tests": tests, "diagnoses": []}


def test_students_who_failed_the_same_concepts_share_one_entry():
    grades = [_failing("ann", 60.0, ("step2_scores", "lone_concept")),
              _failing("bob", 70.0, ("step2_scores", "shared_a"), ("step2_scores", "shared_b")),
              _failing("cy", 80.0, ("step2_scores", "shared_a"), ("step2_scores", "shared_b"))]
    s = class_report.summarize(grades)
    text = class_report.text(s)
    entries = text[text.index("points lost with no known diagnosis"):].splitlines()[1:]
    assert entries == ["       2  step2_scores: shared_a; shared_b", "      bob, cy",
                       "       1  step2_scores: lone_concept", "      ann"]
    assert text.count("shared_a") == 1
    page = class_report_html.page(s).replace("<wbr>", "")
    assert page.count("shared_a") == 1 and "<td>bob, cy</td>" in page


def test_a_batch_graded_in_chinese_ends_with_the_class_report_in_chinese(tmp_path):
    subs = [str(copy_solutions(tmp_path / name, None)) for name in ("a", "b")]
    proc = run_cli("grade", *subs, "--lang", "zh", "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    assert "班级报告：2 份提交，平均分 100.0，中位数 100.0（满分 100）" in proc.stdout
    assert "没有学生犯已知错误" in proc.stdout and "class report" not in proc.stdout


def test_the_failing_tests_concepts_follow_the_language_of_each_report():
    case = next(iter(cases.all_cases()))
    grades = [_failing("ann", 50.0, (case.step.module, case.name))]
    said = {}
    for lang in ("en", "zh", "en"):  # the first language asked is not kept for the next report
        with i18n.speaking(lang):
            said.setdefault(lang, set()).add(class_report.summarize(grades).unexplained[0].concepts[0][1])
    assert said == {lang: {(case.concept[lang],)} for lang in ("en", "zh")}
