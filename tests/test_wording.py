"""Wording a Chinese-first learner reads (issue 18): one step is "第 3 步", not "1 步"; Chinese is wrapped only where
a line may end; Chinese lists are separated by 、 and ；; the phrasings the newcomer found written, not translated."""
import numpy as np
import pytest

from attnkit import manifest
from attnkit.cases import case
from attnkit_runtime import ladder, text_wrap
from attnkit_runtime.judge import compare, warning_verdict
from attnkit_runtime.notebook_feedback import blocked_by, progress_table

STEPS = manifest.steps("core")


@pytest.mark.parametrize("lang, one, many", [
    ("en", "All 4 public tests of step 3 pass.", f"All {4 * len(STEPS)} public tests of {len(STEPS)} steps pass."),
    ("zh", "第 3 步的全部 4 个公开测试都通过了。", f"{len(STEPS)} 个步骤的全部 {4 * len(STEPS)} 个公开测试都通过了。"),
])
def test_the_last_line_counts_one_step_as_that_step(monkeypatch, lang, one, many):
    monkeypatch.setenv("ATTNKIT_LANG", lang)
    assert one in ladder.render({"step3_masks": ladder.StepTally(passed=4)}, STEPS, {})
    assert many in ladder.render({s.module: ladder.StepTally(passed=4) for s in STEPS}, STEPS, {})


SENTENCE = "第 6 步：方阵 [3, 3] 的因果表里，每个 Query 只读它自己和它之前的 Key 一 次；填充表 [1, T_k] 作用于每一行。"


@pytest.mark.parametrize("width", [14, 20, 30, 44])
def test_chinese_is_wrapped_only_where_a_line_may_end(width):
    lines = text_wrap.wrap(SENTENCE, width)
    assert "".join(lines).replace(" ", "") == SENTENCE.replace(" ", "")
    for phrase in ("第 6 步：", "[3, 3]", "[1, T_k]", "一 次"):
        assert any(phrase in line for line in lines), (phrase, lines)
    for line in lines:
        assert text_wrap.columns(line) <= width or line in text_wrap.pieces(SENTENCE), (width, lines)


def test_english_is_wrapped_as_textwrap_wraps_it():
    text = "step 6: attention masks with the visible table it is given, not the causal one"
    assert text_wrap.wrap(text, 30, "  ") == __import__("textwrap").wrap(text, 30, initial_indent="  ")


def test_a_chinese_list_of_steps_is_separated_by_the_chinese_comma(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    line = blocked_by([{"number": 2, "module": "step2_scores"}, {"number": 3, "module": "step3_masks"}])
    assert "第 2 步（step2_scores）、第 3 步（step3_masks）" in line, line


def test_the_warning_message_reads_as_written_in_chinese(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    text = warning_verdict("softmax", ["RuntimeWarning: invalid value"]).message
    assert "之后又被掩盖了；正确的写法应让每个中间值" in text, text


def test_the_stability_hint_says_for_every_row():
    assert case("softmax_large_scores_stable").hint["zh"].endswith("对每一行都有 softmax(S) = softmax(S - max(S))。")


TERMS = "第 6 步：因果表和填充表一起用；KV Cache 的一步；GPT-2 Small 的宽度：D = 768，D_h = 64，缩放系数 1/8；KV Cache，past = 3，new = 2。"


@pytest.mark.parametrize("width", [12, 16, 24, 36])
def test_a_chinese_line_keeps_a_term_of_latin_words_whole(width):
    """`KV Cache`, `GPT-2 Small` and `past = 3` are cut neither in the middle nor at the line's end: a Chinese
    line ends after its own punctuation."""
    lines = text_wrap.wrap(TERMS, width)
    assert "".join(lines).replace(" ", "") == TERMS.replace(" ", "")
    for term in ("KV Cache 的一步", "GPT-2 Small 的宽度", "D = 768", "past = 3", "new = 2"):
        assert any(term in line for line in lines), (term, lines)


@pytest.mark.parametrize("width", [20, 30, 40])
def test_english_keeps_a_shape_in_brackets_whole(width):
    text = "a causal [T_q, T_k] table and a batch's padding [B, 1, T_k] broadcast to [B, T_q, T_k]"
    lines = text_wrap.wrap(text, width, "  ")
    assert " ".join(line.strip() for line in lines) == text
    for shape in ("[T_q, T_k]", "[B, 1, T_k]", "[B, T_q, T_k]"):
        assert any(shape in line for line in lines), (shape, lines)


def test_the_notebooks_progress_table_cuts_a_long_english_title_after_a_whole_word(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "en")
    steps = [{"module": s.module, "number": s.number, "title": s.title, "points": 10, "read": s.read} for s in STEPS]
    table = progress_table(steps, {}, hidden_ran=False)
    masks = next(line for line in table.splitlines() if line.startswith("  step 3 "))
    title = manifest.step("step3_masks").title["en"]
    shown = masks.split("  ")[2].strip()
    assert shown.endswith(" …") and title.startswith(shown.removesuffix(" …") + " "), (shown, title)


@pytest.mark.parametrize("lang, shared", [("en", "All cells share one namespace"), ("zh", "所有单元格共用一个命名空间")])
def test_the_notebooks_intro_says_its_cells_share_one_namespace(lang, shared):
    """The folder's habit `from step3_masks import …` is not needed in the notebook: its intro says why; the
    Chinese names the notebook one way (not 笔记本 in one cell and notebook in another)."""
    from attnkit.nbgrader_course import texts

    intro = texts.INTRO["core"][lang]
    assert shared in intro and "from step3_masks import" in intro, intro
    assert "笔记本" not in texts.PROVIDED_COMMENT and "padding" not in texts.LESSONS["zh"]


@pytest.mark.parametrize("lang, said, unsaid", [("en", "P: 3 NaN values where numbers", "0 inf"),
                                                ("zh", "P：应为普通数值的地方出现了 3 个 NaN（", "0 个 inf")])
def test_a_nan_result_counts_only_what_came(monkeypatch, lang, said, unsaid):
    monkeypatch.setenv("ATTNKIT_LANG", lang)
    nan = float("nan")
    verdict = compare([[0.0, 0.0, 0.0], [0.27, 0.0, 0.73]], np.array([[nan, nan, nan], [0.27, 0.0, 0.73]]),
                      {"atol": 1e-6, "rtol": 1e-6}, "P")
    assert said in verdict.message and unsaid not in verdict.message, verdict.message
