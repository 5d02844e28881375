"""The texts a learner reads that live in data (cases' concepts and hints, public and hidden; the mistake
catalogue's summaries and advice; the manifest's step titles) exist in English and in Chinese, the loaders
refuse one that lacks a language, and a Chinese learner reads them in Chinese wherever they are shown."""
import importlib
import json
import re
import shutil

import pytest
import yaml

from attnkit import cases, manifest, mistakes
from attnkit.grader.bench import EDITS, copy_solutions
from attnkit.grader.file_names import stems
from attnkit.paths import CASES_DIR, HIDDEN_CASES_DIR

from grading_support import plan, run_cli
from test_nbgrader_course import code_cell, course, run_cells, source  # noqa: F401 (course, source: fixtures)
from test_public_tests import learner_copy, run_pytest

catalogue = importlib.import_module("attnkit.mistakes.catalogue")  # the package's `catalogue` is a function
SCALE_BY_D = ("return kq / math.sqrt(d_h)", "return kq / d_h")  # the planted mistake of step 2


def all_gaps():
    return cases.text_gaps() + catalogue.text_gaps() + manifest.text_gaps()


def test_every_data_text_a_learner_reads_exists_in_english_and_chinese():
    assert cases.hidden_cases_available(), "run from the checkout: the hidden cases are checked too"
    gaps = all_gaps()
    assert not gaps, f"{len(gaps)} data texts lack a language:\n" + "\n".join(gaps)


@pytest.fixture
def fresh_catalogues(monkeypatch):
    """Monkeypatch data under the loaders; their caches are emptied before and after."""
    def clear():
        for cached in (cases.all_cases, catalogue._catalogue, manifest._load, manifest._all_steps):
            cached.cache_clear()
    clear()
    yield monkeypatch
    monkeypatch.undo()
    clear()


def _drop(raw, field, lang):
    del raw[field][lang]


@pytest.fixture
def gappy_cases(fresh_catalogues, tmp_path):
    """Copies of the case files where two public texts and one hidden one lack a language."""
    public, hidden = tmp_path / "public", tmp_path / "hidden"
    shutil.copytree(CASES_DIR, public)
    shutil.copytree(HIDDEN_CASES_DIR, hidden)
    for path, edits in ((public / "step2_scores.yaml", [(0, "concept", "zh"), (1, "hint", "en")]),
                        (hidden / "step4_softmax.yaml", [(0, "concept", "zh")])):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for index, field, lang in edits:
            _drop(data["cases"][index], field, lang)
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    fresh_catalogues.setattr(cases, "CASES_DIR", public)
    fresh_catalogues.setattr(cases, "HIDDEN_CASES_DIR", hidden)
    return public, hidden


def test_the_list_names_every_missing_text_one_line_each(gappy_cases):
    hidden_name = yaml.safe_load((gappy_cases[1] / "step4_softmax.yaml").read_text(encoding="utf-8"))["cases"][0]["name"]
    assert cases.text_gaps() == [
        "step2_scores.yaml: case 'raw_scores_minimal': concept: no zh text (write it as {en: \"...\", zh: \"...\"})",
        "step2_scores.yaml: case 'raw_scores_unequal_sizes': hint: no en text (write it as {en: \"...\", zh: \"...\"})",
        f"step4_softmax.yaml: case '{hidden_name}': concept: no zh text (write it as {{en: \"...\", zh: \"...\"}})",
    ]


def test_a_case_missing_a_language_is_refused_when_the_catalogue_loads(gappy_cases):
    with pytest.raises(ValueError, match=r"^case 'raw_scores_minimal': concept: no zh text"):
        cases.all_cases()


def test_a_mistake_missing_a_language_is_refused_and_listed(fresh_catalogues):
    text = [list(entry) for entry in catalogue._TEXT]
    scale_by_d = next(entry for entry in text if entry[0] == "scale_by_d")
    scale_by_d[2] = {"zh": scale_by_d[2]["zh"]}
    text[0][1] = "used .T on a batched array"  # a plain string: a text in no language
    fresh_catalogues.setattr(catalogue, "_TEXT", tuple(map(tuple, text)))
    assert catalogue.text_gaps() == [
        "mistake 'batch_transpose': summary: no en and no zh text (write it as {en: \"...\", zh: \"...\"})",
        "mistake 'scale_by_d': advice: no en text (write it as {en: \"...\", zh: \"...\"})"]
    with pytest.raises(ValueError, match=r"^mistake 'batch_transpose': summary: no en and no zh text"):
        mistakes.catalogue()


def test_a_step_title_missing_a_language_is_refused_and_listed(fresh_catalogues):
    data = json.loads(json.dumps(manifest._load()))
    data["steps"][1]["title"] = {"en": data["steps"][1]["title"]["en"], "zh": "  "}
    fresh_catalogues.setattr(manifest, "_load", lambda: data)
    assert manifest.text_gaps() == [
        "step 2 (step2_scores): title: no zh text (write it as {en: \"...\", zh: \"...\"})"]
    with pytest.raises(ValueError, match=r"^step 2 \(step2_scores\): title: no zh text"):
        manifest.steps()


def test_a_track_without_its_title_is_listed_and_refused_where_a_front_end_names_it(fresh_catalogues):
    data = json.loads(json.dumps(manifest._load()))
    del data["tracks"]["modern"]
    fresh_catalogues.setattr(manifest, "_load", lambda: data)
    assert manifest.text_gaps() == ["tracks: modern: no en and no zh text (write it as {en: \"...\", zh: \"...\"})"]
    with pytest.raises(ValueError, match=r"track 'modern' has no title under `tracks:`"):
        manifest.track_title("modern")


def test_one_english_text_reads_the_same_in_chinese_wherever_it_is_used():
    """Hidden concepts are deduplicated per language: that gives the same list in both only if a concept
    (or hint) written twice is translated the same way twice, and two different ones differently."""
    zh_of, en_of = {}, {}
    for case in cases.all_cases():
        for text in (case.concept, case.hint or None):
            if text:
                assert zh_of.setdefault(text["en"], text["zh"]) == text["zh"], (case.name, text)
                assert en_of.setdefault(text["zh"], text["en"]) == text["en"], (case.name, text)


def test_hidden_concepts_are_the_same_concepts_in_each_language():
    for step in manifest.steps():
        hidden = cases.hidden_concepts(step.module)
        public = {c.concept["zh"] for c in cases.cases_for(step.module, "public")}
        assert len(hidden["en"]) == len(hidden["zh"]) and hidden["en"], step.module
        assert not public & set(hidden["zh"]), step.module


def test_describe_gives_the_mistake_in_the_learners_language(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    text = mistakes.describe("scale_by_d")
    assert text == ("除以了 D_h，而不是 sqrt(D_h)。缩放系数是 1/sqrt(D_h)：D_h = 64 时是 1/8，不是 1/64。"
                    "阅读：lessons/zh/step2_scores.md#scale。")
    assert mistakes.descriptions("scale_by_d") == {"en": mistakes.describe("scale_by_d", "en"), "zh": text}


def _zh(code):
    mistake = mistakes.catalogue()[code]
    return mistake.summary["zh"], mistake.advice["zh"]


def test_pytest_exercises_in_chinese_shows_the_zh_concept_and_advice(tmp_path, monkeypatch):
    folder = learner_copy(tmp_path, [s.module for s in manifest.steps()])
    source = (folder / "step2_scores.py").read_text(encoding="utf-8")
    assert SCALE_BY_D[0] in source
    (folder / "step2_scores.py").write_text(source.replace(*SCALE_BY_D), encoding="utf-8")
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    code, out = run_pytest(folder / "test_step2_scores.py")
    assert code == 1, out
    summary, advice = _zh("scale_by_d")
    assert f"可能的错误：{summary}。{advice}阅读：lessons/zh/step2_scores.md#scale。" in out, out
    assert "GPT-2 Small：D_h = 64，所以缩放系数是 1/8" in out  # the failing case's concept
    assert "d_h 是 Head 的宽度（64），不是模型宽度 D = 768。" in out  # and its hint
    assert "分数：kq = Q Kᵀ 与 1/sqrt(D_h) 缩放" in out  # the ladder's step title
    assert "divided by D_h instead of sqrt(D_h)" not in out and "lessons/en/" not in out, out


def test_the_notebook_checks_speak_the_language_of_whoever_runs_them(course, source, monkeypatch):  # noqa: F811
    nb = json.loads(json.dumps(source))
    cell = code_cell(nb, "step2_scores")
    assert SCALE_BY_D[0] in cell["source"]
    cell["source"] = cell["source"].replace(*SCALE_BY_D)
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    printed, error = run_cells(nb, course / "source" / "attention", monkeypatch)["test_step2_scores"]
    assert error is None and "这个单元格得到" in printed, (printed, error)  # partial credit: it prints, not raises
    summary, advice = _zh("scale_by_d")
    assert f"{summary}。{advice}阅读：lessons/zh/step2_scores.md#scale。" in printed, printed
    assert "GPT-2 Small：D_h = 64，所以缩放系数是 1/8" in printed
    assert not re.search(r"lessons/en/|divided by D_h instead", printed), printed


def test_grading_feedback_names_hidden_concepts_and_mistakes_in_chinese(tmp_path, monkeypatch):
    sub = copy_solutions(tmp_path / "bob", EDITS[0])  # step 2 returns kq unscaled: scale_missing
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    proc = run_cli("grade", str(sub), "--json", "--feedback", str(tmp_path / "feedback"))
    assert proc.returncode == 0, proc.stderr
    md = (tmp_path / "feedback" / f"{stems([sub])[sub]}.md").read_text(encoding="utf-8")
    failed = [plan().case_named[t["name"]] for t in json.loads(proc.stdout)["tests"] if t["status"] == "failed"]
    hidden = next(case for case in failed if not case.public)
    assert f"{hidden.concept['zh']}（隐藏测试：未通过）" in md, md
    assert f"可能的错误：{mistakes.describe('scale_missing', 'zh')}" in md, md
    assert "lessons/en/" not in md and hidden.concept["en"] not in md, md
