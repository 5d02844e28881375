"""Every "read:" reference in the kit names a lesson file and heading that exist, in both languages.

References come in two spellings of one form (attnkit.lessons): the short `<lesson>#<anchor>` of the
data (case files, manifest, mistake catalogue), and the rendered path `lessons/en/<lesson>.md#<anchor>`
written into text (docstrings, hints, READMEs, links between lessons). Both must resolve in en/ and zh/.
"""
import importlib.util
import re

import pytest

from attnkit import cases, lessons, manifest, mistakes
from attnkit.paths import ROOT

LESSONS_DIR = ROOT / "lessons"
ANCHOR = re.compile(r'<a id="([a-z0-9-]+)"></a>')
PATH_REFERENCE = re.compile(r"lessons/(?:en|zh)/([a-z0-9_]+)\.md(?:#([a-z0-9-]+))?")
LINK_BETWEEN_LESSONS = re.compile(r"\]\((?:en/|zh/)?([a-z0-9_]+)\.md(?:#([a-z0-9-]+))?\)")
OLD_REFERENCE = re.compile(r"[Ll]esson 00[02]|\b00[02] ·|Read lesson |read lesson ")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".txt"}


def lesson_files(lang):
    return {p.stem: p for p in sorted((LESSONS_DIR / lang).glob("*.md"))}


def anchors(path):
    return ANCHOR.findall(path.read_text(encoding="utf-8"))


def unresolved(lesson, anchor):
    """What is missing for `lesson`#`anchor` (anchor may be None), language by language."""
    problems = []
    for lang in lessons.LANGUAGES:
        path = LESSONS_DIR / lang / f"{lesson}.md"
        if not path.is_file():
            problems.append(f"no file lessons/{lang}/{lesson}.md")
        elif anchor is not None and anchor not in anchors(path):
            problems.append(f"no heading #{anchor} in lessons/{lang}/{lesson}.md")
    return problems


def kit_text_files():
    """The kit's own text: package, solutions, learner folder, READMEs, docs and the lessons themselves."""
    roots = [ROOT / "src", ROOT / "solutions", ROOT / "exercises", ROOT / "docs", LESSONS_DIR, ROOT / "autograder"]
    found = [ROOT / "README.md"]
    for root in roots:
        found += [p for p in root.rglob("*") if p.suffix in TEXT_SUFFIXES and p.is_file() and "__pycache__" not in p.parts]
    return found


def test_both_languages_hold_the_same_lessons_with_the_same_anchors():
    en, zh = lesson_files("en"), lesson_files("zh")
    assert en and set(en) == set(zh)
    for name in en:
        assert anchors(en[name]) == anchors(zh[name]), name
        assert len(set(anchors(en[name]))) == len(anchors(en[name])), f"{name}: an anchor used twice"


@pytest.mark.parametrize("lang", lessons.LANGUAGES)
def test_every_section_heading_carries_an_anchor(lang):
    for name, path in lesson_files(lang).items():
        lines = path.read_text(encoding="utf-8").splitlines()
        for k, line in enumerate(lines):
            if line.startswith("## "):
                assert k > 0 and ANCHOR.fullmatch(lines[k - 1]), f"lessons/{lang}/{name}.md: {line!r} has no anchor above it"


@pytest.mark.parametrize("lang, marker", [("en", "Leads to:"), ("zh", ("对应函数：", "对应："))])  # 对应： when not a function
def test_every_section_ends_with_the_function_it_leads_to(lang, marker):
    for name, path in lesson_files(lang).items():
        sections = path.read_text(encoding="utf-8").split("\n<a id=")[1:]
        assert sections, name
        for section in sections:
            last_paragraph = section.strip().split("\n\n")[-1]
            assert last_paragraph.startswith(marker), f"lessons/{lang}/{name}.md: section {section[:40]!r}"


def test_the_index_lists_every_lesson_in_both_languages():
    index = (LESSONS_DIR / "README.md").read_text(encoding="utf-8")
    for lang in lessons.LANGUAGES:
        for name in lesson_files(lang):
            assert f"]({lang}/{name}.md)" in index, f"lessons/README.md does not link {lang}/{name}.md"


def test_every_step_has_its_lesson():
    for step in manifest.steps():
        assert not unresolved(step.module, None), step.module


def test_every_reference_in_the_data_resolves():
    references = {f"manifest.yaml step {s.module}": s.lesson for s in manifest.steps()}
    references |= {f"case {c.name}": c.lesson for c in cases.all_cases()}
    references |= {f"mistake {code}": m.lesson for code, m in mistakes.catalogue().items()}
    dangling = {where: (ref, unresolved(*lessons.parse(ref))) for where, ref in references.items()}
    assert not {where: found for where, found in dangling.items() if found[1]}


def test_every_lesson_path_written_in_the_kit_resolves():
    seen, dangling = 0, []
    for path in kit_text_files():
        text = path.read_text(encoding="utf-8")
        found = PATH_REFERENCE.findall(text)
        if path.is_relative_to(LESSONS_DIR):
            found += LINK_BETWEEN_LESSONS.findall(text)
        seen += len(found)
        dangling += [(str(path.relative_to(ROOT)), lesson, anchor, problem)
                     for lesson, anchor in found for problem in unresolved(lesson, anchor or None)]
    assert seen > 50 and not dangling  # seen: the scan does find the docstrings' and lessons' links


def test_no_reference_to_the_old_unpublished_lessons_is_left():
    left = [f"{path.relative_to(ROOT)}:{k}: {line.strip()}"
            for path in kit_text_files() if path.suffix in {".py", ".yaml"} or path.name == "README.md"
            for k, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if OLD_REFERENCE.search(line)]
    assert not left


def test_learner_docstrings_cite_lessons_not_the_contract():
    """The learner's files point at the lessons, which they have, not at the instructor's docs."""
    learner_side = [*(ROOT / "solutions").glob("*.py"), *(ROOT / "exercises").glob("*.py")]
    assert not [p.name for p in learner_side if "CONTRACT.md" in p.read_text(encoding="utf-8")]


def test_the_check_catches_a_dangling_reference():
    assert unresolved("step2_scores", "scale") == []
    assert unresolved("step2_scores", "no-such-heading") == [
        f"no heading #no-such-heading in lessons/{lang}/step2_scores.md" for lang in lessons.LANGUAGES]
    assert unresolved("no_such_lesson", None) == [f"no file lessons/{lang}/no_such_lesson.md" for lang in lessons.LANGUAGES]


def test_a_reference_renders_in_the_learners_language(monkeypatch):
    for variable in ("ATTNKIT_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    assert lessons.link("step2_scores#scale") == "lessons/en/step2_scores.md#scale"
    assert lessons.link("step2_scores") == "lessons/en/step2_scores.md"
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    assert lessons.link("step2_scores#scale") == "lessons/zh/step2_scores.md#scale"
    assert lessons.link("step2_scores#scale", "en") == "lessons/en/step2_scores.md#scale"
    monkeypatch.setenv("ATTNKIT_LANG", "fr")
    assert lessons.language() == "en"


@pytest.mark.parametrize("bad", ["000 · Q、K、V", "step2_scores#", "Step2#scale", "", None])
def test_a_malformed_reference_is_refused(bad):
    with pytest.raises(ValueError, match="lesson reference"):
        lessons.parse(bad)


def test_a_case_with_an_old_style_lesson_is_refused_when_loaded():
    softmax_step = next(s for s in manifest.steps() if s.module == "step4_softmax")
    raw = {"name": "old_style", "function": "softmax", "concept": "c", "lesson": "000 · 第三步：Softmax",
           "args": {"S": [[0.0, 1.0]]}, "expect": {"reference": True}}
    with pytest.raises(ValueError, match="case 'old_style': lesson reference"):
        cases._parse_case(softmax_step, raw, {}, "hidden")


def test_a_case_with_an_unknown_property_is_refused_when_loaded():
    softmax_step = next(s for s in manifest.steps() if s.module == "step4_softmax")
    raw = {"name": "typo", "function": "softmax", "concept": {"en": "c", "zh": "c"},
           "args": {"S": [[0.0, 1.0]]}, "expect": {"property": "rows_sum_to_one", "pick": "P"}}
    with pytest.raises(ValueError, match="case 'typo': unknown property 'rows_sum_to_one'; the properties are "
                                         "same_across_calls, rows_sum_to_one_or_zero"):
        cases._parse_case(softmax_step, raw, {}, "hidden")


def test_the_relink_script_maps_old_references_per_step_and_can_run_again(tmp_path):
    spec = importlib.util.spec_from_file_location("relink_lessons", ROOT / "tools" / "relink_lessons.py")
    relink = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(relink)
    old = "000 · 最小数值例子 (P = [[1, 0], [0.378, 0.622]])"
    for module, new in (("step4_softmax", "step4_softmax#worked-examples"), ("step6_head", "step6_head#minimal-example")):
        path = tmp_path / f"{module}.yaml"
        path.write_text(f'cases:\n  - name: a\n    lesson: "{old}"\n  - name: b\n    lesson: "not in the table"\n',
                        encoding="utf-8")
        assert relink.relink(path) == ["not in the table"]
        assert f'    lesson: "{new}"\n' in path.read_text(encoding="utf-8")
        assert relink.relink(path) == ["not in the table"]  # the relinked line is left alone
    assert all(not unresolved(*lessons.parse(new)) for new in relink.MAPPING.values())
