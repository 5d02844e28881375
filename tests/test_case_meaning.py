"""Cases that mean what they say (issue 9 point 5): each input a case names can change its answer."""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from attnkit import cli, manifest
from attnkit.cases import cases_for
from attnkit.nbgrader_course import ASSIGNMENT
from attnkit.nbgrader_course.notebook import step_code
from attnkit.paths import EXERCISES_DIR, SOLUTIONS_DIR
from attnkit.reference import load_step
from attnkit.reference import reference_function
from grading_support import grade_path
from test_nbgrader_course import run_cells


def test_every_table_of_the_three_table_combine_case_matters():
    combine = reference_function("step3_masks", "combine_visible")
    (case,) = [c for c in cases_for("step3_masks", "hidden", "combine_visible") if c.name == "combine_visible_three_tables"]
    (call,) = case.build_calls()
    tables = call["*visibles"]
    assert len(tables) == 3
    everything = combine(*tables)
    for k in range(3):
        without = combine(*(t for j, t in enumerate(tables) if j != k))
        assert not np.array_equal(without, everything), f"table {k} never hides a cell the others allow"


# ---------------------------------------------------------------- a softmax that hides its NaN

HONEST_BODY = """    row_max = S.max(axis=-1, keepdims=True)  # [..., T_q, 1]
    row_max = np.where(np.isfinite(row_max), row_max, 0)  # a row of only -inf has nothing to subtract
"""
HIDING_BODY = """    row_max = S.max(axis=-1, keepdims=True)  # -inf for a fully masked row: -inf - (-inf) is NaN
"""
HIDING_RETURN = ("    return np.divide(E, total, out=np.zeros_like(E), where=total > 0)  # [..., T_q, T_k]",
                 "    return np.nan_to_num(E / total)  # the NaN rows become zeros")
WARNING = "RuntimeWarning: invalid value encountered in subtract"


def hiding_softmax_source():
    """The reference softmax, made to compute NaN on a fully masked row and hide it with np.nan_to_num."""
    source = (SOLUTIONS_DIR / "step4_softmax.py").read_text(encoding="utf-8")
    assert HONEST_BODY in source and HIDING_RETURN[0] in source
    return source.replace(HONEST_BODY, HIDING_BODY).replace(*HIDING_RETURN)


@pytest.fixture
def hiding_folder(tmp_path):
    """A learner folder: every step right, softmax through NaN and np.nan_to_num."""
    folder = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for step in manifest.steps():
        shutil.copy(SOLUTIONS_DIR / step.filename, folder / step.filename)
    (folder / "step4_softmax.py").write_text(hiding_softmax_source(), encoding="utf-8")
    return folder


def test_the_hiding_softmax_returns_the_right_values(hiding_folder):
    """The premise: its results are the reference's, so only the warning on the way can catch it."""
    hiding = load_step("step4_softmax", hiding_folder).softmax
    S = np.array([[-np.inf, -np.inf], [0.5, -np.inf]])
    with np.errstate(all="ignore"):
        assert np.array_equal(hiding(S), reference_function("step4_softmax", "softmax")(S))
    with pytest.warns(RuntimeWarning, match="invalid value encountered in subtract"):
        hiding(S)


def test_public_tests_fail_a_softmax_that_warns_on_the_way(hiding_folder):
    run = subprocess.run([sys.executable, "-m", "pytest", str(hiding_folder / "test_step4_softmax.py"), "-rf",
                          "-p", "no:cacheprovider"], capture_output=True, text=True, env={**os.environ, "COLUMNS": "400"})
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert re.findall(r"^FAILED \S+\[(\S+)\]", out, flags=re.M) == ["softmax_fully_masked_row_is_zero"], out
    assert WARNING in out and "step4_softmax.py, line" in out, out


def test_the_grader_fails_a_softmax_that_warns_on_the_way(hiding_folder):
    graded = grade_path(hiding_folder)
    failed = {t.name: t for t in graded.tests if t.status != "passed"}
    assert set(failed) == {"softmax_fully_masked_row_is_zero", "softmax_causal_rows_with_padding_query",
                           "softmax_rows_sum_to_one_or_zero"}, {n: t.output for n, t in failed.items()}
    assert graded.score < 100
    assert all(WARNING in t.output for t in failed.values())


def test_the_notebook_fails_a_softmax_that_warns_on_the_way(tmp_path, monkeypatch):
    root = tmp_path / "course"
    assert cli.main(["nbgrader-course", str(root)]) == 0
    nb = json.loads((root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == "step4_softmax")
    cell["source"] = step_code(manifest.step("step4_softmax")).replace(HONEST_BODY, HIDING_BODY).replace(*HIDING_RETURN)
    assert "nan_to_num" in cell["source"]
    outcome = run_cells(nb, root / "source" / ASSIGNMENT, monkeypatch)
    printed, error = outcome["test_step4_softmax"]  # the cell earns its other cases' points: it prints, not raises
    assert error is None and "This cell earns" in printed, (printed, error)
    assert "FAILED (public check): step4_softmax.softmax — a row with no visible key gives all zeros" in printed
    assert "FAILED (hidden check)" in printed and WARNING in printed


# ---------------------------------------------------------------- dtype messages name the array

def test_a_float64_mask_is_named_as_the_array_that_promoted_float32(tmp_path):
    folder = tmp_path / "exercises"
    shutil.copytree(SOLUTIONS_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    _replace(folder / "step6_head.py", "M = additive_mask(visible, dtype=kq.dtype)", "M = additive_mask(visible)")
    _replace(folder / "step3_masks.py", "return np.where(visible, 0.0, -np.inf).astype(dtype)",
             "return np.where(visible, 0.0, -np.inf)")
    graded = grade_path(folder)
    failed = {t.name: t for t in graded.tests if t.status != "passed"}
    assert {"attention_float32", "additive_mask_float32"} <= set(failed), sorted(failed)
    for name in ("attention_float32", "additive_mask_float32"):
        assert failed[name].diagnosis == "mask_dtype_missing", failed[name].output
        assert "the mask array M is float64" in failed[name].output
        assert "scalar promotes" not in failed[name].output


def _replace(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")
