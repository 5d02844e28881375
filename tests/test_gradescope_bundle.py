"""The Gradescope bundle, run for real as Gradescope runs it.

`attnkit gradescope-bundle` writes the zip; it is unzipped into ROOT/source of a temporary root laid
out as Gradescope's /autograder; setup.sh installs the kit from the zip into ROOT/venv; then for each
submission ROOT/submission is filled and run_autograder writes ROOT/results/results.json, checked
against Gradescope's documented format (gradescope-autograders.readthedocs.io, "Autograder
Specifications"). Needs root (Gradescope runs both scripts as root) and `unzip`.
"""
import contextlib
import json
import os
import re
from decimal import Decimal
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

import pytest

from attnkit import cases, manifest, rubric
from attnkit.grader import gradescope_run
from attnkit.grader.bench import copy_solutions
from attnkit.grader.gradescope_run import LayoutError, submission_path
from attnkit.grader.plan import Plan
from attnkit.paths import SOLUTIONS_DIR
from agreement_submissions import CACHE_OF_K_ONLY
from grading_support import case_points_of, gradescope_texts, gradescope_visible, notebook, plan, run_cli

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="Gradescope runs setup.sh and run_autograder as root"),
    pytest.mark.skipif(shutil.which("unzip") is None, reason="needs unzip, as Gradescope unpacks the zip"),
]

# Gradescope's results.json, from its "Output format" section
TOP_KEYS = {"score", "execution_time", "output", "output_format", "test_output_format", "test_name_format",
            "visibility", "stdout_visibility", "extra_data", "tests", "leaderboard"}
TEST_KEYS = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
             "tags", "visibility", "extra_data"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}
HIDDEN = {c.name for c in cases.cases_for(visibility="hidden")}
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"  # as in Gradescope's image: no developer's tools first
WITHOUT_CAP_SYS_ADMIN = ("setpriv", "--bounding-set", "-sys_admin", "--")


def assert_gradescope_schema(results):
    assert isinstance(results, dict) and set(results) <= TOP_KEYS, set(results) - TOP_KEYS
    assert isinstance(results["score"], (int, float))
    for key in ("visibility", "stdout_visibility"):
        assert results.get(key, "visible") in VISIBILITIES
    assert isinstance(results.get("output", ""), str)
    assert isinstance(results.get("tests", []), list)
    for test in results.get("tests", []):
        assert isinstance(test, dict) and set(test) <= TEST_KEYS, set(test) - TEST_KEYS
        assert isinstance(test["name"], str) and isinstance(test["output"], str)
        if "score" in test or "max_score" in test:  # without points: information (what the code printed)
            assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], (int, float))
            assert 0 <= test["score"] <= test["max_score"] + 1e-9
        assert test.get("status", "passed") in {"passed", "failed"}
        assert test.get("visibility", "visible") in VISIBILITIES
        assert all(isinstance(tag, str) for tag in test.get("tags", []))


def assert_graded(results, score, track="core"):
    """A full grade of `track` (the assignment the bundle grades: the core unless made with --track):
    every case a test, hidden ones after publication, `score` in total."""
    assert_gradescope_schema(results)
    scored = [t for t in results["tests"] if "score" in t]
    assert {t["name"] for t in scored} == {c.name for c in cases.all_cases() if c.step.track == track}
    for test in scored:
        assert test["visibility"] == ("after_published" if test["name"] in HIDDEN else "visible"), test["name"]
    assert abs(results["score"] - score) < 1e-4
    assert abs(sum(t["score"] for t in scored) - results["score"]) < 1e-4


@pytest.fixture(scope="module")
def autograder_root():
    """A temporary /autograder: source/ = the zip's contents, venv/ made by setup.sh."""
    root = Path(tempfile.mkdtemp(prefix="autograder-", dir="/tmp"))
    root.chmod(0o755)  # as /autograder: learner code (nobody) may pass through, not into source/
    try:
        bundle = root.parent / f"{root.name}.zip"
        done = run_cli("gradescope-bundle", str(bundle))
        assert done.returncode == 0, done.stderr
        subprocess.run(["unzip", "-q", str(bundle), "-d", str(root / "source")], check=True)
        bundle.unlink()
        env = {"PATH": SYSTEM_PATH, "HOME": "/root", "AUTOGRADER_ROOT": str(root)}
        setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root / "source", env=env,
                               capture_output=True, text=True, timeout=900)
        assert setup.returncode == 0, setup.stdout + setup.stderr
        shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope's image build
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def run_autograder(root, files=None, notebook_from=None, prefix=(), links=None):
    """Put a submission in root/submission, run run_autograder, return results.json as a dict."""
    submission = root / "submission"
    for folder in (submission, root / "results"):  # as in Gradescope's fresh container
        shutil.rmtree(folder, ignore_errors=True)
    submission.mkdir()
    for name, text in (files or {}).items():
        (submission / name).parent.mkdir(parents=True, exist_ok=True)
        (submission / name).write_text(text, encoding="utf-8")
    for name, target in (links or {}).items():
        (submission / name).symlink_to(target)
    if notebook_from:
        notebook(notebook_from, submission / "attention.ipynb")
    env = {"PATH": SYSTEM_PATH, "HOME": "/root", "AUTOGRADER_ROOT": str(root)}
    done = subprocess.run([*prefix, str(root / "run_autograder")], cwd=root, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))


def step_files(folder):
    return {p.name: p.read_text(encoding="utf-8") for p in Path(folder).glob("step*.py")}


def test_the_zip_has_the_entry_points_at_its_top_and_the_secrets_inside(autograder_root):
    source = autograder_root / "source"
    assert os.access(source / "setup.sh", os.X_OK) and os.access(source / "run_autograder", os.X_OK)
    assert sorted(p.name for p in (source / "autograder" / "cases").iterdir()) == \
        sorted(f"{s.module}.yaml" for s in manifest.steps())
    assert (source / "solutions" / "step4_softmax.py").read_bytes() == (SOLUTIONS_DIR / "step4_softmax.py").read_bytes()
    assert list(source.glob("attnkit-*.whl"))
    assert (source.stat().st_mode & 0o077) == 0  # setup.sh left the secrets to root


def test_a_correct_submission_gets_100(autograder_root):
    results = run_autograder(autograder_root, step_files(SOLUTIONS_DIR))
    assert_graded(results, 100.0)
    assert all(t["status"] == "passed" for t in results["tests"])


def test_a_known_mistake_loses_its_cases_and_is_named(autograder_root, tmp_path):
    buggy = copy_solutions(tmp_path / "buggy", ("step2_scores.py", "kq / math.sqrt(d_h)", "kq / d_h"))
    results = run_autograder(autograder_root, step_files(buggy))
    assert_graded(results, 100.0 - case_points_of({("step2_scores", "scale_scores")}))
    assert "scale_by_d" in results["output"]
    assert any("scale_by_d" in t.get("tags", []) for t in results["tests"])


@contextlib.contextmanager
def baked_run_autograder(root, tmp_path, option, value):
    """The run_autograder of a bundle made with `option value` in place of the fixture's while the block runs;
    yields (that run_autograder's text, the fixture's)."""
    bundle = tmp_path / f"{value}.zip"
    done = run_cli("gradescope-bundle", str(bundle), option, value)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(bundle) as zf:
        baked = zf.read("run_autograder").decode("utf-8")
    original = root / "run_autograder"
    kept = original.read_text(encoding="utf-8")
    original.write_text(baked, encoding="utf-8")
    try:
        yield baked, (root / "source" / "run_autograder").read_text(encoding="utf-8")
    finally:
        original.write_text(kept, encoding="utf-8")


def test_lang_zh_is_baked_into_run_autograder_and_gives_chinese_feedback(autograder_root, tmp_path):
    with baked_run_autograder(autograder_root, tmp_path, "--lang", "zh") as (baked, plain):
        buggy = copy_solutions(tmp_path / "buggy", ("step2_scores.py", "kq / math.sqrt(d_h)", "kq / d_h"))
        results = run_autograder(autograder_root, step_files(buggy))
    exported = re.compile(r"^export ATTNKIT_LANG=(en|zh)  # attnkit gradescope-bundle: --lang or \$ATTNKIT_LANG\n", re.M)
    assert exported.findall(baked) == ["zh"]  # the fixture's bundle has the tests' ATTNKIT_LANG=en (conftest)
    assert exported.sub("", baked) == exported.sub("", plain)
    assert "每一步单独评分" in results["output"]
    assert any("可能的错误：" in t["output"] and "lessons/zh/step2_scores.md#scale" in t["output"] for t in results["tests"])


def test_track_modern_is_baked_into_run_autograder_and_grades_the_modern_track(autograder_root, tmp_path):
    """`--track modern`: the same zip but for run_autograder's track line; it grades steps 10–13 out of 100."""
    with baked_run_autograder(autograder_root, tmp_path, "--track", "modern") as (baked, plain):
        right = run_autograder(autograder_root, step_files(SOLUTIONS_DIR))
        files = step_files(SOLUTIONS_DIR)
        files["step11_gqa.py"] += CACHE_OF_K_ONLY
        wrong = run_autograder(autograder_root, files)
        core_only = run_autograder(autograder_root, {name: text for name, text in step_files(SOLUTIONS_DIR).items()
                                                     if manifest.step(name.removesuffix(".py")).track == "core"})
    exported = re.compile(r"^export ATTNKIT_TRACK=(\w+)  # attnkit gradescope-bundle --track: the assignment graded\n", re.M)
    assert exported.findall(plain) == ["core"] and exported.findall(baked) == ["modern"]
    assert exported.sub("", baked) == exported.sub("", plain)
    assert_graded(right, 100.0, "modern")
    lost = sum(p.points for p in Plan("modern").cases if (p.case.step.module, p.case.function) == ("step11_gqa", "kv_cache_bytes"))
    assert 0 < lost < 25
    assert_graded(wrong, 100.0 - lost, "modern")
    assert core_only["score"] == 0.0 and {t["name"] for t in core_only["tests"] if "score" in t} == {
        c.name for c in cases.all_cases() if c.step.track == "modern"}


def test_a_crashing_and_a_broken_file_cost_only_their_steps(autograder_root):
    files = step_files(SOLUTIONS_DIR)
    files["step4_softmax.py"] = "import os\n\ndef softmax(S):\n    os._exit(3)\n"
    files["step5_values.py"] = "def weighted_sum(P, V)\n    return P @ V\n"
    results = run_autograder(autograder_root, files)
    lost = {("step4_softmax", "softmax"), ("step5_values", "weighted_sum")}
    assert_graded(results, 100.0 - case_points_of(lost))


def test_an_empty_submission_gets_0_saying_what_it_holds(autograder_root):
    results = run_autograder(autograder_root, {"notes.txt": "my notes"})
    assert_gradescope_schema(results)
    assert results["score"] == 0 and not results["tests"]
    assert "could not be graded" in results["output"] and "its top holds: notes.txt" in results["output"]


def test_an_upload_two_levels_deep_is_graded_and_says_where(autograder_root):
    files = {f"zipped/exercises/{name}": text for name, text in step_files(SOLUTIONS_DIR).items()}
    results = run_autograder(autograder_root, {**files, "zipped/README.md": "mine"})
    assert_graded(results, 100.0)
    assert "step files found in zipped/exercises/" in results["output"]


def test_a_notebook_submission_is_graded(autograder_root):
    results = run_autograder(autograder_root, notebook_from=SOLUTIONS_DIR)
    assert_graded(results, 100.0)


def test_a_step_file_linked_to_the_solution_is_not_read(autograder_root):
    files = step_files(SOLUTIONS_DIR)
    del files["step4_softmax.py"]
    link = autograder_root / "source" / "solutions" / "step4_softmax.py"
    results = run_autograder(autograder_root, files, links={"step4_softmax.py": link})
    assert_graded(results, 100.0 - case_points_of({("step4_softmax", "softmax")}))


def test_a_failing_grader_still_leaves_a_valid_results_json(autograder_root):
    venv = autograder_root / "venv"
    venv.rename(autograder_root / "venv.away")
    try:
        results = run_autograder(autograder_root, step_files(SOLUTIONS_DIR))
    finally:
        (autograder_root / "venv.away").rename(venv)
    assert_gradescope_schema(results)
    assert results["score"] == 0.0 and results["tests"] == []
    assert "autograder itself failed" in results["output"] and results["output_format"] == "text"


SPY = """
import os
_reference_softmax = softmax

def softmax(S):
    root = os.environ.get("AR", %(root)r)
    for label, path, mode in (("solutions", root + "/source/solutions/step4_softmax.py", "r"),
                              ("cases", root + "/source/autograder/cases/step4_softmax.yaml", "r"),
                              ("kit", %(kit)r, "r"),
                              ("results", root + "/results/results.json", "w")):
        try:
            with open(path, mode) as f:
                f.write('{"score": 100.0}') if mode == "w" else f.read(1)
            print("SPY", label, "OPENED")
        except OSError as err:
            print("SPY", label, "DENIED", type(err).__name__)
    return _reference_softmax(S)
"""


@pytest.mark.parametrize("prefix", [(), WITHOUT_CAP_SYS_ADMIN], ids=["root", "root-without-CAP_SYS_ADMIN"])
def test_learner_code_cannot_read_the_secrets_or_write_results(autograder_root, prefix):
    if prefix and shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot drop CAP_SYS_ADMIN")
    kit = next((autograder_root / "venv").glob("lib/python3*/site-packages/attnkit/mistakes/catalogue.py"))
    files = step_files(SOLUTIONS_DIR)
    files["step4_softmax.py"] += SPY % {"root": str(autograder_root), "kit": str(kit)}
    results = run_autograder(autograder_root, files, prefix=prefix)
    assert_graded(results, 100.0)
    printed = "\n".join(t["output"] for t in results["tests"] if "score" not in t)
    spied = [line for line in printed.splitlines() if line.startswith("SPY")]
    assert spied and all("DENIED" in line for line in spied), spied


UPCAST = """
_reference_softmax = softmax

def softmax(S):
    print("softmax got", S.shape, '<b>bold</b><img src=x onerror="alert(1)">')  # a line per call, hidden ones too
    return _reference_softmax(S).astype(np.float64)  # float32 scores give float64: only a hidden test sees it
"""
@pytest.mark.parametrize("prefix", [(), WITHOUT_CAP_SYS_ADMIN], ids=["root", "root-without-CAP_SYS_ADMIN"])
def test_an_upload_failing_only_hidden_tests_shows_what_a_correct_one_shows(autograder_root, prefix):
    if prefix and shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is not installed: cannot drop CAP_SYS_ADMIN")
    correct = run_autograder(autograder_root, step_files(SOLUTIONS_DIR), prefix=prefix)
    files = step_files(SOLUTIONS_DIR)
    files["step4_softmax.py"] += UPCAST
    results = run_autograder(autograder_root, files, prefix=prefix)
    written = (autograder_root / "results" / "results.json").read_text(encoding="utf-8")
    lost = next(p.points for p in plan().cases if p.case.name == "softmax_float32_stays_float32")
    assert_graded(results, 100.0 - lost)
    assert all(t["status"] == "passed" for t in results["tests"] if t.get("visibility") == "visible")

    assert gradescope_visible(results) == gradescope_visible(correct)  # no total, weight, name or count differs
    isolation = results["extra_data"]["isolation"]
    texts = [text for text, _ in gradescope_texts(results)]  # all a student may ever see, published or not
    assert isolation and not any(isolation in text or str(autograder_root) in text for text in texts)
    assert not any("world-readable" in text for text in texts)
    marked_up = [fmt for text, fmt in gradescope_texts(results) if "<img" in text]
    assert marked_up and set(marked_up) == {"text"}  # shown as typed, never rendered

    exact = json.loads(written, parse_float=Decimal)  # the numbers as written, added without rounding
    scored = [t for t in exact["tests"] if "max_score" in t]
    assert sum(t["max_score"] for t in scored) == 100
    for module, points in rubric.step_points().items():
        assert sum(t["max_score"] for t in scored if t["tags"][0] == module) == points, module


def test_the_submission_is_found_loose_in_a_folder_or_as_one_notebook(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "step2_scores.py").write_text("")
    assert submission_path(tmp_path) == tmp_path / "mine"  # the student zipped their folder
    (tmp_path / "step1_projection.py").write_text("")
    assert submission_path(tmp_path) == tmp_path
    only_notebooks = tmp_path / "nb"
    only_notebooks.mkdir()
    (only_notebooks / "a.ipynb").write_text("{}")
    assert submission_path(only_notebooks) == only_notebooks / "a.ipynb"
    (only_notebooks / "b.ipynb").write_text("{}")
    with pytest.raises(LayoutError, match="found 2 notebooks"):
        submission_path(only_notebooks)


def test_run_autograder_refuses_to_grade_unless_root(tmp_path, monkeypatch):
    (tmp_path / "submission").mkdir()
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert gradescope_run.main(tmp_path) == 3
    assert not (tmp_path / "results" / "results.json").exists()  # run_autograder's fallback writes it


def test_notebook_names_in_a_refusal_are_shown_as_typed(tmp_path):
    (tmp_path / "submission").mkdir()
    for name in ("<b>bold.ipynb", "<img src=x onerror=alert(1)>.ipynb"):
        (tmp_path / "submission" / name).write_text("{}")
    assert gradescope_run.main(tmp_path) == 0
    results = json.loads((tmp_path / "results" / "results.json").read_text(encoding="utf-8"))
    assert_gradescope_schema(results)
    assert "<img src=x onerror=alert(1)>.ipynb" in results["output"] and results["output_format"] == "text"
