"""Every text a learner reads in a hand-out exists in English and in Chinese: the stubs' input checks and
docstrings, the cases' property explanations, the release's README and the notebook's Markdown."""
import ast
import re

import pytest

from attnkit import stubs
from attnkit_runtime import i18n

from test_messages import _provided_checks

CHINESE = re.compile(r"[\u4e00-\u9fff]")
RAISED = ("ValueError", "TypeError")


def _stub_trees():
    """{file name: parsed source} of every step stub and provided module the learner is handed."""
    return {name: ast.parse(text) for name, text in stubs.generated_files().items()
            if name.endswith(".py") and not name.startswith("test_") and name != "conftest.py"}


def _handed_out_trees():
    """{file name: parsed source} of every Python file of exercises/, in the checkout and in the release."""
    from attnkit.release import release_files

    trees = {f"exercises/{name}": ast.parse(text) for name, text in stubs.generated_files().items()}
    released = release_files()
    trees.update({f"release {path}": ast.parse(data.decode("utf-8")) for path, data in released.items()
                  if path.startswith("exercises/") and path.endswith(".py")})
    return trees


def _worded_raises(tree):
    """The line of each `raise ValueError/TypeError(...)` whose message is written in place (a string or
    f-string, in one language), not taken from the provided checks' two-language table with say()."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and getattr(node.exc.func, "id", "") in RAISED:
            message = node.exc.args[0] if node.exc.args else None
            if message is not None and getattr(getattr(message, "func", None), "id", "") == "say":
                continue
            if message is not None and any(isinstance(part, (ast.Constant, ast.JoinedStr)) for part in ast.walk(message)):
                lines.append(node.lineno)
    return lines


def test_every_input_check_of_the_stubs_is_worded_in_both_languages():
    worded = [f"exercises/{name}:{line}" for name, tree in _stub_trees().items() for line in _worded_raises(tree)]
    assert not worded, f"raise with a message written in one language (use say(...) of shape_checks): {worded}"


@pytest.mark.parametrize("lang, text", [("en", "n_key (2) must be >= n_query (3)"),
                                        ("zh", "n_key（2）必须 >= n_query（3）")])
def test_a_steps_own_check_speaks_the_learners_language(monkeypatch, lang, text):
    monkeypatch.setenv("ATTNKIT_LANG", lang)
    assert _provided_checks().say("n_key_below_n_query", n_key=2, n_query=3).startswith(text)


def _docstrings(tree):
    """(line, docstring) of the module and of each class and function of a parsed file."""
    nodes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    return [(getattr(n, "lineno", 1), ast.get_docstring(n)) for n in nodes if ast.get_docstring(n)]


def test_every_docstring_of_the_stubs_is_english_then_chinese():
    """English first, then the same in Chinese after a blank line (docs/RELEASE.md, "Languages")."""
    one_language = [f"{name}:{line}" for name, tree in _handed_out_trees().items()
                    for line, text in _docstrings(tree)
                    if not (text[0].isascii() and text[0].isalpha()) or not CHINESE.search(text.split("\n\n")[-1])]
    assert not one_language, f"docstrings not in English then Chinese: {one_language}"


def test_the_release_readme_exists_in_both_languages_and_lang_picks_readme_md():
    from attnkit.release.texts import readme_files

    both, chinese = readme_files("attnkit_runtime"), readme_files("attnkit_runtime", "zh")
    assert set(both) == {"README.md", "README.zh.md"} and set(chinese) == {"README.md", "README.en.md"}
    assert "。" not in both["README.md"] and both["README.zh.md"].count("。") > 10
    assert chinese["README.md"] == both["README.zh.md"].replace("README.md", "README.en.md").replace(
        "语言跟随你的 locale（`LANG=zh_CN.UTF-8` 就是中文）", "这份材料默认用中文，与 locale 无关")
    assert "pytest exercises --lang zh" in chinese["README.md"] and "{" not in chinese["README.md"].replace("{runtime}", "")


def _notebook_texts():
    """Every two-language text table of the notebook's Markdown (nbgrader_course/texts.py)."""
    from attnkit.nbgrader_course import texts

    return {"LESSONS": texts.LESSONS, "RUN_FIRST": texts.RUN_FIRST, "PROGRESS": texts.PROGRESS, "STEP": texts.STEP,
            "READ_AND_WORTH": texts.READ_AND_WORTH, **{f"INTRO[{track}]": text for track, text in texts.INTRO.items()}}


def test_every_notebook_text_exists_in_english_and_chinese():
    lacking = [f"{name} lacks {i18n.missing(text)}" for name, text in _notebook_texts().items() if i18n.missing(text)]
    untranslated = [name for name, text in _notebook_texts().items()
                    if not i18n.missing(text) and (text["en"] == text["zh"] or not CHINESE.search(text["zh"]))]
    assert not lacking and not untranslated, lacking + untranslated


def _markdown_cells(notebook):
    return [cell["source"] for cell in notebook["cells"] if cell["cell_type"] == "markdown"]


def test_a_notebook_is_made_in_both_languages_or_in_the_one_asked_for():
    import json
    from pathlib import Path

    from attnkit.nbgrader_course import course_files
    from attnkit.nbgrader_course.notebook import source_notebook

    both_cells = _markdown_cells(source_notebook("0" * 64))
    assert both_cells and all(CHINESE.search(cell) and "。" in cell and re.search(r"\b(the|Run)\b", cell)
                              for cell in both_cells), both_cells
    chinese = course_files(lang="zh")
    zh_cells = _markdown_cells(json.loads(chinese[Path("source/attention/attention.ipynb")]))
    assert zh_cells and all(CHINESE.search(cell) for cell in zh_cells)
    assert not [cell for cell in zh_cells if "How to work" in cell or "## Step" in cell or "Read: " in cell]
    assert chinese[Path("source/attention/attnkit_runtime/data/language")] == "zh\n"


def test_a_chinese_handout_speaks_chinese_whatever_the_locale(tmp_path):
    """The runtime of a hand-out made with --lang zh picks Chinese under an English locale; ATTNKIT_LANG wins."""
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    from attnkit.release import runtime_sources

    package = tmp_path / "attnkit_runtime"
    (package / "data").mkdir(parents=True)
    for path in runtime_sources():
        shutil.copy(path, package / path.name)
    asked = [sys.executable, "-c", "from attnkit_runtime import i18n; print(i18n.language())"]
    env = {k: v for k, v in os.environ.items() if k != "ATTNKIT_LANG"} | {"LANG": "en_US.UTF-8", "LC_ALL": ""}

    def run(**extra):
        return subprocess.run(asked, cwd=tmp_path, env=env | extra, capture_output=True, text=True).stdout.strip()
    assert run() == "en"
    Path(package, "data", "language").write_text("zh\n", encoding="utf-8")
    assert run() == "zh" and run(ATTNKIT_LANG="en") == "en"


CJK_TOUCHES_LATIN = re.compile(r"[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]")


def test_chinese_text_keeps_a_space_between_chinese_and_latin_words():
    """`GPT-2 Small 的 Attention 层`, not `GPT-2 Small 的Attention 层`: the lessons, the cases' and the
    catalogue's texts, the messages, the stubs and the hand-outs' prose."""
    import importlib

    from attnkit.cases import HIDDEN_CASES_DIR
    from attnkit.paths import DATA_DIR, LESSONS_DIR, SOLUTIONS_DIR

    modules = ("attnkit_runtime.messages", "attnkit.mistakes.catalogue", "attnkit.nbgrader_course.texts",
               "attnkit.release.texts")
    files = [*LESSONS_DIR.glob("zh/*.md"), *(DATA_DIR / "cases").glob("*.yaml"), *HIDDEN_CASES_DIR.glob("*.yaml"),
             DATA_DIR / "manifest.yaml", *SOLUTIONS_DIR.glob("*.py"),
             *(importlib.import_module(name).__file__ for name in modules)]
    touching = [f"{path}:{number}: {line.strip()[:80]}" for path in map(str, files)
                for number, line in enumerate(open(path, encoding="utf-8"), start=1)
                if CJK_TOUCHES_LATIN.search(line.replace("`", " ").replace("\\n", " "))]
    assert not touching, "\n".join(touching)



def test_attnkit_release_lang_zh_writes_a_chinese_handout_and_leaves_the_kits_language_alone(tmp_path, monkeypatch):
    import os

    from attnkit import cli

    monkeypatch.delenv("ATTNKIT_LANG", raising=False)
    out = tmp_path / "handout"
    assert cli.main(["release", "--lang", "zh", str(out)]) == 0
    assert (out / "runtime/attnkit_runtime/data/language").read_text(encoding="utf-8") == "zh\n"
    assert "。" in (out / "README.md").read_text(encoding="utf-8") and (out / "README.en.md").is_file()
    assert "ATTNKIT_LANG" not in os.environ  # the hand-out's language, not the instructor's messages
