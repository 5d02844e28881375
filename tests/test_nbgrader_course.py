"""The nbgrader course builder, in this process and without nbgrader: files, cell conventions, checks.

The notebook's code cells are run here with `exec` in one namespace, as a kernel would run them, the
checks imported from the folder attnkit_runtime/ beside the notebook;
tests/test_nbgrader_roundtrip.py does the same through nbgrader's own commands and a real kernel.
"""
import ast
import contextlib
import io
import json
import re
import shutil
import sys
import unicodedata
from pathlib import Path

import pytest

from attnkit import cli, manifest, mistakes, rubric, stubs
from attnkit.cases import cases_for
from attnkit.nbgrader_course import ASSIGNMENT, build
from attnkit_runtime import notebook as runtime
from attnkit.nbgrader_course.notebook import EXTENSION, MODERN, TRACKS, step_code, steps_data
from attnkit.nbgrader_course.runtime_folder import FOLDER
from attnkit.paths import LESSONS_DIR, SOLUTIONS_DIR
from attnkit.release import runtime_sources

ASSIGNMENTS = tuple(TRACKS)  # one per track: attention, attention_extension, attention_modern
STEPS = manifest.steps("core")


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    assert cli.main(["nbgrader-course", str(root), "--timeout", "7", "--course-id", "demo"]) == 0
    return root


@pytest.fixture
def source(course):
    return json.loads((course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8"))


def meta(cell):
    return cell["metadata"].get("nbgrader", {})


def code_cell(nb, grade_id):
    return next(c for c in nb["cells"] if meta(c).get("grade_id") == grade_id)


def student_folder(course, tmp_path, assignment=ASSIGNMENT):
    """A folder outside the course holding what the release puts beside the notebook: the runtime folder and
    the provided input checks."""
    folder = tmp_path / assignment
    shutil.copytree(course / "source" / assignment / FOLDER, folder / FOLDER)
    shutil.copy(course / "source" / assignment / "shape_checks.py", folder)
    return folder


def _beside_the_notebook(name):
    """Whether module `name` is one a kernel imports from the notebook's folder (the runtime, shape_checks)."""
    return name.split(".")[0] in (FOLDER, "shape_checks")


def run_cells(nb, cwd, monkeypatch, values=None):
    """{grade_id: (printed text, exception or None)} of every code cell run in order, like a kernel in `cwd`:
    `import attnkit_runtime…` and `from shape_checks import *` find the files in `cwd` (never this process's own copies). `values`, a dict,
    gets each cell's result as IPython shows it (its last line's value when that is an expression)."""
    monkeypatch.chdir(cwd)
    monkeypatch.syspath_prepend(str(cwd))
    own = {name: sys.modules.pop(name) for name in list(sys.modules) if _beside_the_notebook(name)}
    for step in manifest.steps():  # a fresh kernel has imported no step module (earlier tests of this process may have)
        monkeypatch.delitem(sys.modules, step.module, raising=False)
    namespace, outcome = {"__name__": "__main__"}, {}
    try:
        for cell in nb["cells"]:
            if cell["cell_type"] != "code":
                continue
            out, error = io.StringIO(), None
            with contextlib.redirect_stdout(out):
                try:
                    value = _run_cell(cell["source"], cell["id"], namespace)
                    if values is not None:
                        values[meta(cell).get("grade_id")] = value
                except Exception as err:  # a failing test cell, as the kernel would show it
                    error = err
            outcome[meta(cell).get("grade_id")] = (out.getvalue(), error)
        if "_ak" in namespace:
            assert Path(namespace["_ak"].__file__).is_relative_to(Path(cwd).resolve() / FOLDER), namespace["_ak"].__file__
    finally:
        for name in [m for m in sys.modules if _beside_the_notebook(m)]:
            del sys.modules[name]
        sys.modules.update(own)
    return outcome


def _run_cell(source, filename, namespace):
    """Run a cell's code in `namespace`, as IPython does: the value of its last line when an expression."""
    tree = ast.parse(source)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    exec(compile(tree, filename, "exec"), namespace)
    return eval(compile(ast.Expression(last.value), filename, "eval"), namespace) if last else None


def test_writes_config_notebook_and_hidden_cases(course):
    config = (course / "nbgrader_config.py").read_text()
    for line in ("c.CourseDirectory.course_id = 'demo'", "c.Execute.timeout = 7", "c.ExecutePreprocessor.timeout = 7",
                 "c.OverwriteCells.add_missing_cells = True", 'c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE"}',
                 "c.Execute.kernel_name = 'attnkit-barrier'"):
        assert line in config
    lessons = [p.relative_to(LESSONS_DIR.parent).as_posix() for p in LESSONS_DIR.rglob("*.md")]
    assert sorted(p.relative_to(course).as_posix() for p in course.rglob("*") if p.is_file()) == sorted([
        "feedback_templates/attnkit_feedback.html.j2", "jupyter/kernels/attnkit-barrier/kernel.json", "nbgrader_config.py",
        *(f"hidden_tests/{assignment}.json" for assignment in ASSIGNMENTS),
        *(f"source/{assignment}/{assignment}.ipynb" for assignment in ASSIGNMENTS),
        *(f"source/{assignment}/shape_checks.py" for assignment in ASSIGNMENTS),
        *(f"source/{assignment}/{lesson}" for assignment in ASSIGNMENTS for lesson in lessons),
        *(f"source/{assignment}/{FOLDER}/{name}" for assignment in ASSIGNMENTS
          for name in [*(p.name for p in runtime_sources()), f"data/{assignment}.json"])])
    assert ASSIGNMENTS == (ASSIGNMENT, EXTENSION, MODERN)


def test_the_runtime_folder_is_the_learner_runtime_file_for_file(course):
    for assignment in ASSIGNMENTS:
        for path in runtime_sources():
            assert (course / "source" / assignment / FOLDER / path.name).read_bytes() == path.read_bytes()


def test_refuses_to_overwrite_without_force(course, capsys):
    assert cli.main(["nbgrader-course", str(course)]) == 1
    assert "--force" in capsys.readouterr().err
    with pytest.raises(FileExistsError):
        build(course)


def test_cell_conventions(source):
    points = rubric.step_points("core")
    ids = [meta(c).get("grade_id") for c in source["cells"] if c["cell_type"] == "code"]
    assert ids == ["shape_checks", "attnkit_checks", *[x for s in STEPS for x in (s.module, f"test_{s.module}")],
                   "attnkit_progress"]
    for cell in source["cells"]:
        if cell["cell_type"] == "code":
            assert meta(cell)["schema_version"] == 3
    for grade_id in ("shape_checks", "attnkit_checks"):  # 0-point grade cells, so nbgrader restores them
        assert (meta(code_cell(source, grade_id))["locked"], meta(code_cell(source, grade_id))["points"]) == (True, 0)
    for step in STEPS:
        solution, test = code_cell(source, step.module), code_cell(source, f"test_{step.module}")
        assert (meta(solution)["solution"], meta(solution)["grade"], meta(solution)["locked"]) == (True, False, False)
        assert stubs.BEGIN in solution["source"] and stubs.END in solution["source"]
        assert not re.search(r"^(from|import) (shape_checks|step\d+_)", solution["source"], flags=re.M)
        assert (meta(test)["grade"], meta(test)["locked"], meta(test)["points"]) == (True, True, points[step.module])
        assert "HIDDEN TESTS" not in test["source"]  # a stripped block would change the cell's checksum
        assert test["source"].splitlines()[-1] == f"_ak.check({step.module!r})"  # the data is not in the cell
        assert len(test["source"]) < 400 and not [c for c in cases_for(step.module) if c.name in test["source"]]
        previous = source["cells"][source["cells"].index(solution) - 1]
        assert previous["cell_type"] == "markdown" and f"Step {step.number}" in previous["source"]
    assert sum(meta(c).get("points", 0) for c in source["cells"]) == 100
    checks = code_cell(source, "attnkit_checks")["source"]
    assert checks.splitlines()[-2:] == ["import attnkit_runtime.notebook as _ak",
                                        f"_ak.configure({ASSIGNMENT!r}, {digest_of(source)!r})"]
    assert len(checks) < 500  # the checking code and its data are files beside the notebook
    progress = source["cells"][-1]
    assert (progress["source"].splitlines()[-1], meta(progress)["locked"]) == ("_ak.progress()", True)


def test_the_input_checks_are_a_file_beside_the_notebook_that_one_short_cell_imports(course, source, monkeypatch):
    for assignment in (ASSIGNMENT, EXTENSION):
        beside = course / "source" / assignment / "shape_checks.py"
        assert beside.read_bytes() == (SOLUTIONS_DIR / "shape_checks.py").read_bytes()
    provided = code_cell(source, "shape_checks")["source"]
    assert provided.splitlines()[-1] == "from shape_checks import *" and len(provided) < 400
    assert "def " not in provided
    nb = json.loads(json.dumps(source))
    head = code_cell(nb, "step6_head")
    head["source"] = "from shape_checks import float_array\n" + head["source"]  # the folder's habit: works too
    outcome = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)
    assert outcome["shape_checks"] == ("", None)
    assert_every_check_passed(outcome, STEPS)


def test_the_public_checks_data_is_beside_the_notebook_and_holds_no_hidden_case(course):
    data = (course / "source" / ASSIGNMENT / FOLDER / "data" / f"{ASSIGNMENT}.json").read_text(encoding="utf-8")
    assert all(c.name in data for c in cases_for(visibility="public") if c.step.track == "core")
    assert not [c.name for c in cases_for(visibility="hidden") if c.name in data]


def assert_every_check_passed(outcome, steps):
    assert {k: v[1] for k, v in outcome.items() if v[1] is not None} == {}
    for step in steps:
        n, m = len(cases_for(step.module, "public")), len(cases_for(step.module, "hidden"))
        assert f"{step.module}: {n} of {n} public checks passed, {m} of {m} hidden checks passed" in outcome[f"test_{step.module}"][0]


def test_instructor_notebook_passes_everything(course, source, monkeypatch):
    assert_every_check_passed(run_cells(source, course / "source" / ASSIGNMENT, monkeypatch), STEPS)


def released(source):
    """The notebook as a learner gets it: stubs instead of solutions, the test cells as they are."""
    nb = json.loads(json.dumps(source))
    for step in STEPS:
        code_cell(nb, step.module)["source"] = stubs.strip_solutions(step_code(step), step)
    return nb


def test_stubs_stop_at_each_steps_not_implemented_error(course, source, tmp_path, monkeypatch):
    outcome = run_cells(released(source), student_folder(course, tmp_path), monkeypatch)
    for step in STEPS:
        printed, error = outcome[f"test_{step.module}"]
        assert isinstance(error, NotImplementedError), step.module
        assert str(error).startswith(f"Step {step.number} ({step.module}.")


@pytest.mark.parametrize("lang, other", [("zh", "is not written yet"), ("en", "还没有写")])
def test_an_earlier_steps_stub_is_told_in_the_learners_language_only(course, source, tmp_path, monkeypatch, lang,
                                                                      other):
    nb = released(source)
    for step in STEPS:
        if step.module != "step5_values":
            code_cell(nb, step.module)["source"] = step_code(step)
    monkeypatch.setenv("ATTNKIT_LANG", lang)
    printed, error = run_cells(nb, student_folder(course, tmp_path), monkeypatch)["test_step6_head"]
    told = printed + str(error or "")
    assert "step5_values" in told and other not in told, told[-600:]


def test_public_checks_pass_and_name_what_the_hidden_tests_check(course, source, tmp_path, monkeypatch):
    nb = released(source)
    for step in STEPS:
        code_cell(nb, step.module)["source"] = step_code(step)
    outcome = run_cells(nb, student_folder(course, tmp_path), monkeypatch)
    printed, error = outcome["test_step4_softmax"]
    assert error is None
    assert "At grading, hidden checks also cover: " in printed and "hidden test" not in printed  # the notebook's word
    assert "float32 scores give float32 weights" in printed


def test_a_mistake_fails_its_step_with_the_teaching_message(course, source, monkeypatch):
    nb = json.loads(json.dumps(source))
    head = code_cell(nb, "step6_head")
    head["source"] = head["source"].replace("scale_scores(kq, D_h) + M", "kq + M")
    values = {}
    outcome = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch, values)
    printed, error = outcome["test_step6_head"]
    assert error is None and 0 < values["test_step6_head"] < 24  # the known mistake's public checks pay
    assert f"This cell earns {values['test_step6_head']:g} of its 24 points" in printed
    assert "FAILED (public check): step6_head.attention — the whole head on the lesson's 2×4 example" in printed
    assert "FAILED (hidden check)" in printed and "read: lessons/en/step6_head.md" in printed
    assert f"likely mistake: {mistakes.describe('scale_missing')}" in printed  # as the public tests say it
    assert all(outcome[f"test_{s.module}"][1] is None for s in STEPS if s.module != "step6_head")


def digest_of(notebook):
    """The hidden-cases file's SHA-256 the notebook's checks cell was built with."""
    return code_cell(notebook, "attnkit_checks")["source"].split("_ak.configure(")[1].split("'")[3]


def test_a_big_public_case_is_diagnosed_in_the_notebook():
    """attention_twelve_heads ([12, 4, 64]): its mistakes' outputs are too large to write out as lists, and
    are stored (base64) all the same, so the notebook names the mistake as the public tests do."""
    step = next(s for s in steps_data("core") if s["module"] == "step6_head")
    spec = next(c for c in step["public"] if c["name"] == "attention_twelve_heads")
    checks = runtime.StepChecks(step, {"attention": mistakes.mistaken_function("scale_missing", "step6_head", "attention")})
    checks.run(spec)
    [(visibility, _, message, _)] = checks.failures
    assert visibility == "public" and f"likely mistake: {mistakes.describe('scale_missing')}" in message, message


def test_hidden_cases_are_found_only_with_their_digest(course, source, tmp_path):
    text = (course / runtime.HIDDEN_DIR / f"{ASSIGNMENT}.json").read_bytes()
    digest = digest_of(source)
    deep = course / "autograded" / "student" / ASSIGNMENT
    deep.mkdir(parents=True)
    assert runtime.find_hidden(ASSIGNMENT, digest, start=deep) == json.loads(text)
    forged = deep / runtime.HIDDEN_DIR
    forged.mkdir()
    (forged / f"{ASSIGNMENT}.json").write_text('{"steps": {}}')
    assert runtime.find_hidden(ASSIGNMENT, digest, start=deep) == json.loads(text)
    with pytest.raises(FileNotFoundError, match="attnkit nbgrader-course"):
        runtime.find_hidden(ASSIGNMENT, "0" * 64, start=deep)
    outside = tmp_path / "student" / ASSIGNMENT  # a student's own copy: no course folder above it
    outside.mkdir(parents=True)
    assert runtime.find_hidden(ASSIGNMENT, digest, start=outside) is None
    (tmp_path / "gradebook.db").touch()  # a course folder whose config lives elsewhere: no silent skip
    with pytest.raises(FileNotFoundError, match="attnkit nbgrader-course"):
        runtime.find_hidden(ASSIGNMENT, digest, start=outside)


def test_a_changed_hidden_test_file_is_named_by_the_checks(course, source):
    """The course's file changed after the build (issue 16): the test cell names it, not "not found"."""
    path = course / runtime.HIDDEN_DIR / f"{ASSIGNMENT}.json"
    digest = digest_of(source)
    deep = course / "autograded" / "changed" / ASSIGNMENT
    deep.mkdir(parents=True)
    original = path.read_bytes()
    path.write_bytes(original + b" ")
    try:
        with pytest.raises(FileNotFoundError) as raised:
            runtime.find_hidden(ASSIGNMENT, digest, start=deep)
    finally:
        path.write_bytes(original)
    assert f"{path.resolve()} was changed after the course was built" in str(raised.value)


def test_a_result_of_the_wrong_shape_is_judged_not_crashed_on(course, source, monkeypatch):
    nb = json.loads(json.dumps(source))
    code_cell(nb, "step5_values")["source"] += "\n\n\ndef weighted_sum(P, V):\n    return np.zeros((1, 1))\n"
    printed, error = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)["test_step5_values"]
    assert isinstance(error, AssertionError)
    printed = str(error)  # every case judged (a part that cannot be taken from the result too), none crashed
    public, hidden = (len(cases_for("step5_values", visibility)) for visibility in ("public", "hidden"))
    assert "expected shape" in printed and f"0 of {public} public checks passed, 0 of {hidden} hidden" in printed


@pytest.fixture
def extension(course):
    return json.loads((course / "source" / EXTENSION / f"{EXTENSION}.ipynb").read_text(encoding="utf-8"))


@pytest.fixture(params=[EXTENSION, MODERN])
def optional_track(request, course):
    """(assignment, its steps, its instructor's notebook) of each track after the core."""
    assignment = request.param
    notebook = json.loads((course / "source" / assignment / f"{assignment}.ipynb").read_text(encoding="utf-8"))
    return assignment, manifest.steps(TRACKS[assignment]), notebook


def test_each_optional_track_is_its_own_assignment_on_working_earlier_steps(optional_track):
    assignment, steps, notebook = optional_track
    ids = [meta(c).get("grade_id") for c in notebook["cells"] if c["cell_type"] == "code"]
    assert ids == ["shape_checks", "attnkit_checks", "earlier_steps",
                   *[x for s in steps for x in (s.module, f"test_{s.module}")], "attnkit_progress"]
    earlier = code_cell(notebook, "earlier_steps")
    assert (meta(earlier)["locked"], meta(earlier)["points"], meta(earlier)["solution"]) == (True, 0, False)
    assert "def attention(" in earlier["source"] and stubs.BEGIN not in earlier["source"]
    assert sum(meta(c).get("points", 0) for c in notebook["cells"]) == 100
    assert f"_ak.configure({assignment!r}," in code_cell(notebook, "attnkit_checks")["source"]


def test_each_optional_notebook_passes_everything_and_its_stubs_stop_at_each_step(course, optional_track, monkeypatch):
    assignment, steps, notebook = optional_track
    assert_every_check_passed(run_cells(notebook, course / "source" / assignment, monkeypatch), steps)
    nb = json.loads(json.dumps(notebook))
    for step in steps:
        code_cell(nb, step.module)["source"] = stubs.strip_solutions(step_code(step), step)
    outcome = run_cells(nb, course / "source" / assignment, monkeypatch)
    for step in steps:
        assert str(outcome[f"test_{step.module}"][1]).startswith(f"Step {step.number} ({step.module}.")


def test_an_extension_mistake_fails_its_step_and_is_named(course, extension, monkeypatch):
    nb = json.loads(json.dumps(extension))
    cache = code_cell(nb, "step8_kv_cache")
    cache["source"] = cache["source"].replace("chunk_positions(np.shape(K_past)[1], Z_new.shape[0])",
                                              "chunk_positions(0, Z_new.shape[0])")
    outcome = run_cells(nb, course / "source" / EXTENSION, monkeypatch)
    printed, error = outcome["test_step8_kv_cache"]
    printed = str(error) if error else printed  # no point earned: raised; some: printed, the cell's result
    assert f"{rubric.step_points('extension')['step8_kv_cache']:g} points" in printed
    assert "FAILED (public check): step8_kv_cache.decode_step" in printed and "likely mistake:" in printed
    assert outcome["test_step7_layer"][1] is None


def test_an_extension_step_on_a_failing_step_7_names_it(course, extension, monkeypatch):
    """Step 8 calls the learner's step 7: a broken step 7 is named in step 8's cell, in place of the
    failures of the cases that called it."""
    nb = json.loads(json.dumps(extension))
    layer = code_cell(nb, "step7_layer")
    layer["source"] = layer["source"].replace("return np.swapaxes(heads, -3, -2)", "return heads")
    assert layer["source"] != code_cell(extension, "step7_layer")["source"]
    values = {}
    outcome = run_cells(nb, course / "source" / EXTENSION, monkeypatch, values)
    printed, error = outcome["test_step7_layer"]
    assert "FAILED" in (str(error) if error else printed)
    assert values.get("test_step7_layer", 0.0) < rubric.step_points("extension")["step7_layer"]
    printed, error = outcome["test_step8_kv_cache"]
    assert error is None and "step 7 (step7_layer)" in printed and "Fix step 7 first" in printed
    assert "FAILED" not in printed
    # no double penalty: the cases that failed only on step 7 keep step 8's points, as `attnkit grade` gives them
    assert values["test_step8_kv_cache"] == rubric.step_points("extension")["step8_kv_cache"]


def test_the_notebooks_own_texts_follow_the_kernels_language(course, source, tmp_path, monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    outcome = run_cells(source, student_folder(course, tmp_path), monkeypatch)
    assert "评分时运行的隐藏检查还会考查：" in outcome["test_step4_softmax"][0]
    progress = outcome["attnkit_progress"][0]
    assert "attnkit 进度（公开检查；隐藏检查在评分时运行）" in progress and "公开检查的得分：100 / 100" in progress
    assert "不等于满分" not in progress and "每一步都通过了公开检查" in progress  # one wording: no contradiction


def test_the_learners_names_and_the_checks_names_do_not_clash(course, source, monkeypatch):
    """Helpers named like the runtime's modules and functions: the checks still pass, the learner's still work."""
    nb = json.loads(json.dumps(source))
    code_cell(nb, "step1_projection")["source"] += ("\n\n\ndef show(x):\n    raise RuntimeError('mine')\n\n\n"
                                                    "pick = judge = notebook = messages = harness = None\n")
    outcome = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)
    assert_every_check_passed(outcome, STEPS)


def test_a_learners_exception_shows_their_cell_and_no_file_of_the_checks(course, source, monkeypatch):
    nb = json.loads(json.dumps(source))
    values = code_cell(nb, "step5_values")
    values["source"] = values["source"].replace("return P @ V", "return P @ v")
    error = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)["test_step5_values"][1]
    assert isinstance(error, AssertionError)
    # its cell named by its step, then as the kernel names it (here the cell's id; in IPython "Cell In[7]")
    assert "in your code:\n    the cell of step 5 (step5_values) (step5_values), line " in str(error)
    assert FOLDER not in str(error) and ".py" not in str(error), str(error)


def test_the_progress_table_is_aligned_and_localized_in_a_chinese_locale(course, source, tmp_path, monkeypatch):
    """A bare student kernel (no kit, no ATTNKIT_LANG) in a Chinese locale: the checks speak Chinese, the table
    says 第 N 步 as the folder does, and its points column lines up although the titles hold CJK text."""
    monkeypatch.delenv("ATTNKIT_LANG", raising=False)
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    nb = released(source)
    for step in STEPS[:2]:
        code_cell(nb, step.module)["source"] = step_code(step)
    progress = run_cells(nb, student_folder(course, tmp_path), monkeypatch)["attnkit_progress"][0]
    rows = [line for line in progress.splitlines() if line.startswith("  第 ")]
    assert [row.split()[1] for row in rows] == [str(s.number) for s in STEPS]
    columns = {_width(row[:row.rindex(" / ")]) for row in rows}  # where each row's points column ends
    assert len(columns) == 1, rows
    assert "还没有写" in progress and "下一步" in progress


def _width(text):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def test_an_import_of_an_earlier_step_gives_the_notebooks_own_functions(course, source, monkeypatch):
    """The folder's habit, `from step3_masks import …`: the cells share one namespace; the import works and says so."""
    nb = json.loads(json.dumps(source))
    head = code_cell(nb, "step6_head")
    head["source"] = "from step3_masks import causal_visible, additive_mask\nimport step4_softmax\n\n" + head["source"]
    outcome = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)
    printed, error = outcome["step6_head"]
    assert error is None and "share one namespace" in printed and "step3_masks" in printed
    assert_every_check_passed(outcome, STEPS)
    nb = json.loads(json.dumps(source))
    code_cell(nb, "step1_projection")["source"] = "from step3_masks import causal_visible\n"
    error = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)["step1_projection"][1]
    assert isinstance(error, ImportError) and "run the cell that defines it first" in str(error)


def test_a_function_not_defined_is_said_in_the_learners_language(course, source, monkeypatch):
    monkeypatch.setenv("ATTNKIT_LANG", "zh")
    nb = json.loads(json.dumps(source))
    code_cell(nb, "step5_values")["source"] = "pass\n"
    error = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch)["test_step5_values"][1]
    assert "weighted_sum() 还没有定义：先运行这一步的代码单元格" in str(error)
    assert "is not defined" not in str(error)


def test_a_partly_right_step_returns_its_share_of_the_points(course, source, monkeypatch):
    """nbgrader's partial credit: the test cell's value is the points its cases earn, printed with the failures."""
    nb = json.loads(json.dumps(source))
    masks = code_cell(nb, "step3_masks")
    masks["source"] = masks["source"].replace("return j <= past + i", "return j <= i")  # mask_top_left
    values = {}
    outcome = run_cells(nb, course / "source" / ASSIGNMENT, monkeypatch, values)
    printed, error = outcome["test_step3_masks"]
    points = rubric.step_points("core")
    assert error is None and isinstance(values["test_step3_masks"], float)
    assert 0 < values["test_step3_masks"] < points["step3_masks"] and "FAILED" in printed
    assert values["test_step6_head"] == points["step6_head"]  # failed only on step 3, which it calls
    assert "step 3 (step3_masks)" in outcome["test_step6_head"][0]
    progress = outcome["attnkit_progress"][0]
    assert f"Points: {round(100 - points['step3_masks'] + values['test_step3_masks'], 6):g} of 100." in progress
