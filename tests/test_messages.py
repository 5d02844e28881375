"""Every learner-facing message the code words exists in English and Chinese, with the same placeholders,
and a learner who asks for Chinese (ATTNKIT_LANG=zh, --lang zh) gets it from the public tests and the grader."""
import importlib.util
import json
import os
import string
import subprocess
import sys
from pathlib import Path

import pytest

from attnkit import messages as kit_messages
from attnkit_runtime import i18n, messages
from attnkit.paths import SOLUTIONS_DIR
from test_public_tests import edited_copy

PLANTED = {"step2_scores": [("return kq / math.sqrt(d_h)", "return kq / d_h")]}  # a classic: no square root


def _provided_checks():
    spec = importlib.util.spec_from_file_location("shape_checks_under_test", SOLUTIONS_DIR / "shape_checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tables():
    """Every table of code messages (the learner runtime's, the kit's for instructors, the provided checks');
    read when a test runs (collecting needs no solutions/)."""
    return {"messages": messages.MESSAGES, "kit messages": kit_messages.MESSAGES,
            "shape_checks": _provided_checks()._MESSAGES}


def _placeholders(template):
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in string.Formatter().parse(template)
            if field is not None}


def test_every_code_message_exists_in_english_and_chinese():
    missing = [f"{table}: {key} lacks {', '.join(i18n.missing(text))}"
               for table, entries in _tables().items() for key, text in entries.items() if i18n.missing(text)]
    assert not missing, "\n".join(missing)


def test_the_two_versions_of_each_message_have_the_same_placeholders():
    differ = [f"{table}: {key}: en {sorted(_placeholders(text['en']))}, zh {sorted(_placeholders(text['zh']))}"
              for table, entries in _tables().items() for key, text in entries.items()
              if _placeholders(text["en"]) != _placeholders(text["zh"])]
    assert not differ, "\n".join(differ)


def test_a_chinese_message_differs_from_the_english_one():
    """A message copied into the zh slot untranslated is caught (code-only texts do not belong in the table)."""
    same = [f"{table}: {key}" for table, entries in _tables().items() for key, text in entries.items()
            if text["en"] == text["zh"]]
    assert not same, same


def test_say_follows_the_language(monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    assert messages.say("teach.read", where="lessons/zh/step2_scores.md#scale") == "阅读：lessons/zh/step2_scores.md#scale"
    monkeypatch.setenv("ATTNKIT_LANG", "en")
    assert messages.say("teach.read", where="x") == "read: x"


def test_the_provided_checks_speak_chinese_when_asked(monkeypatch):
    checks = _provided_checks()
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    with pytest.raises(ValueError, match=r"Z 必须有 2 个轴 \[T, D\]，实际形状是 \(3,\)"):
        checks.float_array("Z", [1.0, 2.0, 3.0], ndim=2, shape_text="[T, D]")
    monkeypatch.setenv("ATTNKIT_LANG", "en")
    with pytest.raises(ValueError, match=r"Z must have 2 axes \[T, D\], got shape \(3,\)"):
        checks.float_array("Z", [1.0, 2.0, 3.0], ndim=2, shape_text="[T, D]")


def _run_scores_tests(folder, lang_env, *options):
    env = {**os.environ, "ATTNKIT_LANG": lang_env, "COLUMNS": "400"}
    proc = subprocess.run([sys.executable, "-m", "pytest", str(folder / "test_step2_scores.py"), "-p",
                           "no:cacheprovider", *options], cwd=folder.parent, capture_output=True, text=True,
                          timeout=300, env=env)
    return proc.returncode, proc.stdout + proc.stderr


def test_a_planted_mistake_is_explained_in_chinese_with_the_chinese_lesson(tmp_path):
    folder = edited_copy(tmp_path, PLANTED)
    code, out = _run_scores_tests(folder, "zh")
    assert code == 1, out
    assert "可能的错误：" in out and "lessons/zh/step2_scores.md#scale" in out, out
    assert "阅读：lessons/zh/step2_scores.md" in out and "输入：kq = " in out, out
    assert "个值中有" in out and "应为" in out, out  # "n of m values are off", "expected"
    assert "attnkit 进度（公开测试）" in out and "下一步：exercises/step2_scores.py" in out, out
    assert "likely mistake:" not in out and "lessons/en/" not in out.split("attnkit 进度")[0], out


def test_pytest_lang_option_wins_over_the_environment(tmp_path):
    folder = edited_copy(tmp_path, PLANTED)
    code, out = _run_scores_tests(folder, "en", "--lang", "zh")
    assert code == 1 and "阅读：lessons/zh/step2_scores.md" in out and "read: lessons/" not in out, out
    code, out = _run_scores_tests(folder, "zh", "--lang", "en")
    assert code == 1 and "read: lessons/en/step2_scores.md" in out and "阅读" not in out, out


def test_grade_lang_zh_writes_chinese_feedback_even_for_the_provided_checks(tmp_path):
    """The grader words the feedback in --lang's language, and the sandbox's provided checks follow it."""
    from attnkit.grader.bench import copy_solutions
    from attnkit.grader.file_names import stems
    from grading_support import run_cli

    sub = copy_solutions(tmp_path / "bob", ("step2_scores.py", "return kq / math.sqrt(d_h)", "return kq / d_h", None))
    step1 = Path(sub, "step1_projection.py")
    step1.write_text(step1.read_text().replace("return Z @ W + b", 'return float_array("Z", Z, ndim=3, shape_text="[B, T, D]")'))
    proc = run_cli("grade", str(sub), "--lang", "zh", "--feedback", str(tmp_path / "fb"),
                   "--gradescope", str(tmp_path / "results.json"))
    assert proc.returncode == 0, proc.stderr
    feedback = tmp_path / "fb" / stems([sub])[sub]
    md = Path(f"{feedback}.md").read_text(encoding="utf-8")
    assert md.startswith("# bob 的反馈：") and "| 步骤 | 得分 | 未通过的测试 |" in md, md
    assert "可能的错误：" in md and "阅读：lessons/zh/step2_scores.md" in md and "（隐藏测试：未通过）" in md and "failed" not in md, md
    assert "Z 必须有 3 个轴 [B, T, D]" in md, md  # worded inside the sandbox, in the grader's language
    assert "likely mistake" not in md and "read: lessons" not in md, md
    html = Path(f"{feedback}.html").read_text(encoding="utf-8")
    assert "<th>步骤</th>" in html and "隐藏测试" in html
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert "每一步单独评分" in results["output"]
    assert any("阅读：lessons/zh/step2_scores.md" in test["output"] for test in results["tests"])


@pytest.mark.parametrize("argv, chinese", [
    (["show", "--lang", "zh", "kv-cache"], ["0（位置 3）", "visible（True = 可以读）", "所有分数相等"]),
    (["show", "--lang", "zh", "--mine", "causal_visible", "2", "5"], ["还没有写："]),  # the untouched stub
    (["check", "--lang", "zh", "2"], ["attnkit 进度（公开测试）", "运行的测试都因 NotImplementedError 失败",
                                      "先读 lessons/zh/step2_scores.md"]),
], ids=["show", "show --mine", "check"])
def test_the_learners_commands_take_lang(argv, chinese):
    from grading_support import run_cli

    proc = run_cli(*argv)
    out = proc.stdout + proc.stderr
    assert all(text in out for text in chinese), out

