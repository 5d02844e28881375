"""docs/ADDING_A_STEP.md, followed: a toy step 14 written into a copy of the kit reaches every front end.

The copy (src/, solutions/, exercises/, lessons/, autograder/cases/ and the kit's tests of a step's data)
is made once for the module; the toy step is written into it by touching exactly the files the recipe's
table names, and then each front end is run through its command, with `PYTHONPATH` and `ATTNKIT_ROOT`
pointing at the copy: `attnkit stubs`, `pytest exercises` and its ladder, `attnkit grade` (the real
sandbox), `attnkit verify`, `attnkit release` (and the release's own tests) and `attnkit nbgrader-course`.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnkit.paths import ROOT

MODULE = "step14_kv_groups"
TRACK = "modern"  # appended after step 13, it joins the last track
MISTAKE = "kv_heads_tiled"
RECIPE = ROOT / "docs" / "ADDING_A_STEP.md"
KIT_CHECKS = ("tests/test_input_validation.py", "tests/test_lesson_references.py")  # the kit's tests of a step's data
COPIED = ("src/attnkit", "src/attnkit_runtime", "solutions", "exercises", "lessons", "autograder/cases", "README.md",
          "tests/conftest.py", *KIT_CHECKS, "tools/relink_lessons.py")
GENERATED = {f"exercises/{MODULE}.py", f"exercises/test_{MODULE}.py"}  # what `attnkit stubs` adds

SOLUTION = '''"""Step 14 — grouped-query attention: several query heads share one key/value head.

lessons/en/step14_kv_groups.md (Chinese: lessons/zh/, same names): with n_head query heads and n_kv_head
key/value heads, query head h reads key/value head h // (n_head // n_kv_head).
"""
import numpy as np

from shape_checks import float_array


def repeat_kv(K, n_head):
    """Return K with each of its heads repeated for its group of query heads.

    Shapes: K [n_kv_head, T, D_h] -> [n_head, T, D_h]; head h of the result is K[h // (n_head // n_kv_head)].
    Read: lessons/en/step14_kv_groups.md#groups.
    """
    K = float_array("K", K, min_ndim=3, shape_text="[n_kv_head, T, D_h]")
    if not isinstance(n_head, int) or n_head % K.shape[-3]:
        raise ValueError(f"n_head must be a whole multiple of n_kv_head = {K.shape[-3]}, got {n_head!r}")
    ### BEGIN SOLUTION
    return np.repeat(K, n_head // K.shape[-3], axis=-3)
    ### END SOLUTION
'''

MANIFEST_ENTRY = '''  - module: step14_kv_groups
    title:
      en: "Grouped-query attention: query heads share key/value heads"
      zh: "分组查询 Attention：多个 Query Head 共用 Key/Value Head"
    lesson: "step14_kv_groups"
    points: 10
    about:
      en: "Each key/value head serves a group of `n_head // n_kv_head` query heads, one after the other."
      zh: "每个 Key/Value Head 依次服务一组 `n_head // n_kv_head` 个 Query Head。"
    track: modern
    depends_on: []
    functions:
      repeat_kv: {returns: [K]}
'''


def _cases(visibility, cases):
    return f"cases:\n{cases}".replace("VISIBILITY", visibility)


_CASE = '''  - name: {name}
    function: repeat_kv
    visibility: VISIBILITY
    concept:
      en: "{en}"
      zh: "{zh}"
    lesson: "step14_kv_groups#groups"
    args: {args}
    expect: {expect}
'''
PUBLIC_CASES = _cases("public", "".join([
    _CASE.format(name="repeat_kv_two_groups", en="each key/value head serves its own group of query heads",
                 zh="每个 Key/Value Head 服务它自己那一组 Query Head",
                 args="{K: [[[1.0]], [[2.0]]], n_head: 4}", expect="{value: [[[1.0]], [[1.0]], [[2.0]], [[2.0]]]}"),
    _CASE.format(name="repeat_kv_shapes", en="[n_kv_head, T, D_h] becomes [n_head, T, D_h]",
                 zh="[n_kv_head, T, D_h] 变成 [n_head, T, D_h]",
                 args="{K: {normal: [2, 3, 4], seed: 1001}, n_head: 6}", expect="{reference: true}"),
]))
HIDDEN_CASES = _cases("hidden", "".join([
    _CASE.format(name="repeat_kv_twelve_heads", en="12 query heads on 4 key/value heads",
                 zh="12 个 Query Head 共用 4 个 Key/Value Head",
                 args="{K: {normal: [4, 5, 8], seed: 1002}, n_head: 12}", expect="{reference: true}"),
    _CASE.format(name="repeat_kv_float32", en="float32 keys stay float32", zh="float32 的 Key 仍是 float32",
                 args="{K: {normal: [2, 2, 3], seed: 1003, dtype: float32}, n_head: 4}", expect="{reference: true}"),
]))

CATALOGUE_ENTRY = '''    ("kv_heads_tiled",
     {"en": "repeated the key/value heads as a whole block (tile) instead of each head for its group",
      "zh": "把 Key/Value Head 整块重复（tile），而不是每个 Head 重复给它那一组"},
     {"en": "Query head h reads key/value head h // group: np.repeat(K, group, axis=-3), not np.tile.",
      "zh": "Query Head h 读 Key/Value Head h // group：用 np.repeat(K, group, axis=-3)，不是 np.tile。"},
     "step14_kv_groups#groups"),
'''
SLIP = '''@slip("step14_kv_groups", "repeat_kv")
def _kv_heads_tiled(K, n_head):
    """the whole block of heads repeated: head h reads K[h % n_kv_head]."""
    K = _floats(K)
    return np.concatenate([K] * (n_head // K.shape[-3]), axis=-3)


'''
LESSON = {"en": "# Step 14 — Grouped-query attention\n\n<a id=\"groups\"></a>\n## Groups of query heads\n\n"
                "Query head `h` reads key/value head `h // (n_head // n_kv_head)`.\n\nLeads to: `repeat_kv(K, n_head)`.\n",
          "zh": "# 第 14 步 — 分组查询 Attention\n\n<a id=\"groups\"></a>\n## Query Head 的分组\n\n"
                "Query Head `h` 读 Key/Value Head `h // (n_head // n_kv_head)`。\n\n对应函数：`repeat_kv(K, n_head)`。\n"}
LESSON_ROW = ("| 14 (modern · 现代) | [Grouped-query attention](en/step14_kv_groups.md) | "
              "[分组查询 Attention](zh/step14_kv_groups.md) | `repeat_kv` |\n")
BAD_INPUT = """    "repeat_kv: n_head not a multiple": ("step14_kv_groups", "repeat_kv", dict(K=a(2, 3, 4), n_head=3),
                                         ValueError, ["n_head", "n_kv_head = 2", "3"]),
"""
WRONG_LINE = "np.concatenate([K] * (n_head // K.shape[-3]), axis=-3)"


def _insert(text, before, addition):
    """`text` with `addition` put just before the one occurrence of `before`."""
    assert text.count(before) == 1, before
    return text.replace(before, addition + before)


def _manifest(text):
    """The toy step appended, its 10 points taken from step 13 (the track must still total 100)."""
    step13 = text.index("  - module: step13_backward")
    return text[:step13] + text[step13:].replace("points: 25", "points: 15", 1) + MANIFEST_ENTRY


TOY_EDITS = {  # path -> new text from the old one (None when the file is new)
    f"solutions/{MODULE}.py": lambda old: SOLUTION,
    "src/attnkit/data/manifest.yaml": _manifest,
    f"src/attnkit/data/cases/{MODULE}.yaml": lambda old: PUBLIC_CASES,
    f"autograder/cases/{MODULE}.yaml": lambda old: HIDDEN_CASES,
    "src/attnkit/mistakes/catalogue.py": lambda old: _insert(old, ")\n\n\ndef _learner_texts", CATALOGUE_ENTRY),
    "src/attnkit/mistakes/slips.py": lambda old: _insert(
        _insert(old, "\nSLIPS = {", SLIP), "\n}\n", f'\n    "{MISTAKE}": (_kv_heads_tiled,),'),
    f"lessons/en/{MODULE}.md": lambda old: LESSON["en"],
    f"lessons/zh/{MODULE}.md": lambda old: LESSON["zh"],
    "lessons/README.md": lambda old: _insert(old, "\n| reference · 参考 |", LESSON_ROW),
    "tests/test_input_validation.py": lambda old: _insert(old, "}\n\n\n@pytest.mark.parametrize(\"module, function", BAD_INPUT),
}


def recipe_files():
    """The files of the recipe's table "The files you write", for the toy step."""
    table = RECIPE.read_text(encoding="utf-8").split("## The files you write", 1)[1].split("\n## ", 1)[0]
    return {m.group(1).replace("stepN_name", MODULE) for m in re.finditer(r"^\| `([^`]+)` \|", table, flags=re.M)}


def _digests(root):
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


class Kit:
    """A copy of the kit at `root`, run through its commands."""

    def __init__(self, root):
        self.root = root
        self.touched = set()  # the files the toy step changed or added, relative to root
        self.env = {**os.environ, "PYTHONPATH": str(root / "src"), "ATTNKIT_ROOT": str(root), "ATTNKIT_LANG": "en"}

    def run(self, *argv, cwd=None):
        return subprocess.run([sys.executable, *argv], cwd=cwd or self.root, env=self.env, capture_output=True,
                              text=True, timeout=900)

    def attnkit(self, *argv):
        return self.run("-m", "attnkit.cli", *argv)


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    """The copy with the toy step written in and `attnkit stubs` run; `touched` the files that changed."""
    root = tmp_path_factory.mktemp("kit")
    for rel in COPIED:
        if (ROOT / rel).is_dir():
            shutil.copytree(ROOT / rel, root / rel, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        else:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / rel, root / rel)
    before = _digests(root)
    for rel, edit in TOY_EDITS.items():
        path = root / rel
        path.write_text(edit(path.read_text(encoding="utf-8") if path.exists() else None), encoding="utf-8")
    kit = Kit(root)
    done = kit.attnkit("stubs")
    assert done.returncode == 0, done.stdout + done.stderr
    after = _digests(root)
    kit.touched = {rel for rel in after if before.get(rel) != after[rel]} | (before.keys() - after.keys())
    return kit


def test_the_recipe_names_exactly_the_files_a_step_is_made_of(kit):
    assert set(TOY_EDITS) == recipe_files()
    assert kit.touched == recipe_files() | GENERATED, "attnkit stubs wrote more than the new step's two files"


def test_the_kits_own_checks_of_a_steps_data_pass(kit):
    """Lessons in both languages, same anchors, in the index; the reference refuses bad input by name."""
    done = kit.run("-m", "pytest", *KIT_CHECKS, "-q", "-p", "no:cacheprovider")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "repeat_kv: n_head not a multiple" in kit.run("-m", "pytest", KIT_CHECKS[0], "--collect-only", "-q").stdout


def test_the_stubs_have_the_step(kit):
    stub = (kit.root / "exercises" / f"{MODULE}.py").read_text(encoding="utf-8")
    assert re.search(r"raise NotImplementedError\(.Step 14 \(step14_kv_groups\.repeat_kv\) is not written yet", stub)
    assert "np.repeat" not in stub
    assert kit.attnkit("stubs", "--check").returncode == 0


def _started(kit, tmp_path):
    """A copy of the kit's exercises/ whose step 14 is started: one line of code added to its stub."""
    learner = tmp_path / "exercises"
    shutil.copytree(kit.root / "exercises", learner)
    path = learner / f"{MODULE}.py"
    path.write_text(path.read_text(encoding="utf-8") + "\nSTARTED = True\n", encoding="utf-8")
    return learner


def test_the_public_tests_run_the_step(kit, tmp_path):
    tests = f"exercises/test_{MODULE}.py"
    on_stub = kit.run("-m", "pytest", tests, "-q", "-p", "no:cacheprovider", "-rs")
    assert on_stub.returncode == 0 and "2 skipped" in on_stub.stdout, on_stub.stdout  # an optional step, not started
    assert "step 14 is optional (after the core) and not started" in on_stub.stdout, on_stub.stdout
    started = kit.run("-m", "pytest", str(_started(kit, tmp_path) / f"test_{MODULE}.py"), "-q", "-p", "no:cacheprovider",
                      "-rf")
    assert started.returncode == 1, started.stdout
    assert "2 failed" in started.stdout and "NotImplementedError: Step 14 (step14_kv_groups.repeat_kv)" in started.stdout
    on_reference = kit.run("-m", "pytest", tests, "--solutions", "-q", "-p", "no:cacheprovider")
    assert on_reference.returncode == 0 and "2 passed" in on_reference.stdout, on_reference.stdout
    collected = kit.run("-m", "pytest", "exercises", "--collect-only", "-q", "-p", "no:cacheprovider")
    files = list(dict.fromkeys(re.findall(r"^exercises/test_(step\d+)_", collected.stdout, flags=re.M)))
    assert files == [f"step{k}" for k in range(1, 15)], collected.stdout  # in step order, not by name


def _learner(kit, tmp_path, wrong=False):
    """A learner's exercises/: every step written (the reference), step 14 right or with the mistake."""
    folder = tmp_path / ("wrong" if wrong else "right")
    shutil.copytree(kit.root / "solutions", folder)
    if wrong:
        path = folder / f"{MODULE}.py"
        path.write_text(path.read_text(encoding="utf-8").replace("np.repeat(K, n_head // K.shape[-3], axis=-3)",
                                                                 WRONG_LINE), encoding="utf-8")
    return folder


def test_the_ladder_shows_the_step_last_and_names_its_first_failure(kit, tmp_path):
    learner = _started(kit, tmp_path)
    for path in (kit.root / "solutions").glob("step*.py"):
        if path.name != f"{MODULE}.py":
            shutil.copy(path, learner / path.name)
    done = kit.run("-m", "pytest", str(learner), "-q", "-p", "no:cacheprovider", "--tb=no", cwd=tmp_path)
    assert done.returncode == 1, done.stdout
    rows = re.findall(r"^\s+step (\d+) +(\w+)", done.stdout, flags=re.M)
    assert rows[-1] == ("14", MODULE) and [int(n) for n, _ in rows] == sorted(int(n) for n, _ in rows), done.stdout
    assert f"Next: exercises/{MODULE}.py" in done.stdout


def test_grade_pays_the_step_and_names_its_mistake(kit, tmp_path):
    right, wrong = _learner(kit, tmp_path), _learner(kit, tmp_path, wrong=True)
    done = kit.attnkit("grade", str(right), str(wrong), "--track", TRACK, "--json",
                       "--call-seconds", "30", "--submission-seconds", "300")  # step 10's calls: no timeout on a busy machine
    assert done.returncode == 0, done.stdout + done.stderr
    graded = {Path(g["submission"]).name: g
              for g in map(json.loads, done.stdout.splitlines())}
    by_name = {name: {t["name"]: t for t in g["tests"]} for name, g in graded.items()}
    assert graded["right"]["score"] == 100, graded["right"]
    toy = {"repeat_kv_two_groups", "repeat_kv_shapes", "repeat_kv_twelve_heads", "repeat_kv_float32"}
    assert toy <= by_name["right"].keys() and toy <= by_name["wrong"].keys()
    assert all(by_name["right"][n]["status"] == "passed" for n in toy)
    assert graded["wrong"]["score"] == 90, graded["wrong"]
    assert {n for n in toy if by_name["wrong"][n]["status"] != "passed"} == toy
    assert MISTAKE in json.dumps(graded["wrong"])


def test_verify_catches_and_names_the_mistake(kit):
    done = kit.attnkit("verify", "--track", TRACK)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(rf"^  ok   {MISTAKE} ", done.stdout, flags=re.M), done.stdout
    assert "ok   solutions/ scores 100" in done.stdout and "ok   exercises/ scores 0" in done.stdout


def test_the_release_has_the_step(kit, tmp_path):
    out = tmp_path / "release"
    done = kit.attnkit("release", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    for rel in (f"exercises/{MODULE}.py", f"exercises/test_{MODULE}.py", f"lessons/en/{MODULE}.md",
                f"lessons/zh/{MODULE}.md"):
        assert (out / rel).is_file(), rel
    assert f"case_test({MODULE!r}, 'repeat_kv')" in (out / f"exercises/test_{MODULE}.py").read_text(encoding="utf-8")
    assert "repeat_kv_two_groups" in (out / "runtime/attnkit_runtime/data/course.json").read_text(encoding="utf-8")
    checked = kit.attnkit("release", "--check", str(out))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    on_stub = _release_pytest(out)
    assert "2 skipped" in on_stub.stdout and "The steps after the core are optional" in on_stub.stdout, on_stub.stdout
    path = out / "exercises" / f"{MODULE}.py"
    path.write_text(path.read_text(encoding="utf-8") + "\nSTARTED = True\n", encoding="utf-8")
    started = _release_pytest(out)
    assert "2 failed" in started.stdout, started.stdout + started.stderr
    assert "NotImplementedError: Step 14 (step14_kv_groups.repeat_kv)" in started.stdout
    shutil.copy(kit.root / "solutions" / f"{MODULE}.py", out / "exercises")
    written = _release_pytest(out)
    assert written.returncode == 0 and "2 passed" in written.stdout, written.stdout + written.stderr


def _release_pytest(out):
    """The release's own public tests of the toy step, on its runtime (not the kit's)."""
    return subprocess.run([sys.executable, "-m", "pytest", f"exercises/test_{MODULE}.py", "-q", "-rf",
                           "-p", "no:cacheprovider"], cwd=out, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(out / "runtime"), "ATTNKIT_LANG": "en"})


def test_the_nbgrader_course_has_the_step(kit, tmp_path):
    course = tmp_path / "course"
    done = kit.attnkit("nbgrader-course", str(course))
    assert done.returncode == 0, done.stdout + done.stderr
    notebook = json.loads((course / "source/attention_modern/attention_modern.ipynb").read_text(encoding="utf-8"))
    texts = ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown"]
    about = next(text for text in texts if text.startswith("## Step 14: Grouped-query attention"))
    assert "每个 Key/Value Head 依次服务" in about and "**10 points**" in about
    graded = {cell["metadata"]["nbgrader"]["grade_id"]: cell for cell in notebook["cells"]
              if cell["metadata"].get("nbgrader", {}).get("grade_id")}
    assert "np.repeat" in "".join(graded[MODULE]["source"])  # the solution cell, as nbgrader's source
    assert graded[f"test_{MODULE}"]["metadata"]["nbgrader"]["points"] == 10
    hidden = (course / "hidden_tests/attention_modern.json").read_text(encoding="utf-8")
    assert "repeat_kv_twelve_heads" in hidden
    assert (course / f"source/attention_modern/lessons/zh/{MODULE}.md").is_file()
