"""`attnkit grade` end to end: scores, feedback, diagnoses, notebooks, and submissions that fight back."""
import json

import pytest

from attnkit.grader.bench import EDITS, copy_solutions
from attnkit.grader.notebook import step_sources
from attnkit.grader.sandbox import Limits, barrier_description
from attnkit.paths import EXERCISES_DIR, ROOT, SOLUTIONS_DIR
from grading_support import assert_only_functions_lost, assert_spec_shape, grade_path, notebook, run_cli

FAKE_JSON = '{"submission": "x", "score": 100.0, "max_score": 100.0, "tests": [], "diagnoses": []}'


def test_cli_grades_solutions_100_stubs_0_and_ignores_fake_json(tmp_path):
    faker = copy_solutions(tmp_path / "faker", ("step3_masks.py", "return ~visible  # True = blocked",
                                                f"print({FAKE_JSON!r})\n    return visible.copy()"))
    done = run_cli("grade", str(SOLUTIONS_DIR), str(EXERCISES_DIR), faker, "--json", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    grades = {g["submission"]: g for g in map(json.loads, lines)}
    for g in grades.values():
        assert_spec_shape(g)
    assert grades[str(SOLUTIONS_DIR)]["score"] == 100.0
    assert all(t["status"] == "passed" for t in grades[str(SOLUTIONS_DIR)]["tests"])
    stubs = grades[str(EXERCISES_DIR)]
    assert stubs["score"] == 0.0 and stubs["diagnoses"] == []
    assert all(t["status"] == "failed" and "not written yet" in t["output"] for t in stubs["tests"])
    assert grades[faker]["score"] < 100.0 and grades[faker]["diagnoses"] == ["torch_mha_polarity"]


def test_cli_terminal_report_of_the_stubs_is_clear():
    done = run_cli("grade", str(EXERCISES_DIR))
    assert done.returncode == 0, done.stderr
    assert "isolation:" in done.stdout and "0 / 100" in done.stdout
    assert "step4_softmax: not written yet" in done.stdout


def test_a_missing_path_is_the_graders_problem(tmp_path):
    done = run_cli("grade", str(tmp_path / "nowhere"), "--json")
    assert done.returncode != 0 and "no such folder" in done.stderr and done.stdout == ""


def test_a_mistake_costs_only_its_own_step(tmp_path):
    """scale_missing in step 2: step 6 runs with the reference step 2 and keeps all its points."""
    graded = grade_path(copy_solutions(tmp_path / "s", EDITS[0]))
    assert_only_functions_lost(graded, {("step2_scores", "scale_scores")})
    assert graded.steps["step6_head"] == (24.0, 24.0)
    assert {t.diagnosis for t in graded.tests if t.status != "passed"} == {"scale_missing"}


@pytest.mark.parametrize("edit", EDITS, ids=[f"{e[0][:5]}-{e[3]}" for e in EDITS])
def test_diagnoses_come_out_as_named(tmp_path, edit):
    graded = grade_path(copy_solutions(tmp_path / "s", edit))
    failed = [t for t in graded.tests if t.status != "passed"]
    assert failed and all(t.step == edit[0][:-3] for t in failed)
    if edit[3] is None:  # no known mistake: numbers say what is wrong
        assert graded.diagnoses == [] and "largest error" in failed[0].output
    else:
        assert edit[3] in graded.diagnoses
        assert "likely mistake: " in next(t.output for t in failed if t.diagnosis == edit[3])


def test_notebook_scores_as_the_folder(tmp_path):
    folder = grade_path(SOLUTIONS_DIR)
    nb = grade_path(notebook(SOLUTIONS_DIR, tmp_path / "solutions.ipynb",
                             extra_cells=["%matplotlib inline\n!pip install numpy\nx = 1\n"]))
    assert nb.score == 100.0 and nb.steps == folder.steps


def test_the_nbgrader_course_notebook_scores_100(tmp_path):
    """The instructor notebook `attnkit nbgrader-course` writes follows the same cell convention."""
    from attnkit.nbgrader_course.notebook import source_notebook

    path = tmp_path / "attention.ipynb"
    path.write_text(json.dumps(source_notebook("digest")), encoding="utf-8")
    assert grade_path(path).score == 100.0


def test_notebook_without_metadata_and_with_a_bug(tmp_path):
    buggy = copy_solutions(tmp_path / "buggy", EDITS[0])
    graded = grade_path(notebook(buggy, tmp_path / "buggy.ipynb", tagged=False))
    assert_only_functions_lost(graded, {("step2_scores", "scale_scores")})
    assert graded.diagnoses == ["scale_missing"]


def test_one_untagged_cell_may_hold_several_steps():
    cells = [{"cell_type": "code", "metadata": {}, "source": "%%time\nprint(1)\n"},
             {"cell_type": "code", "metadata": {}, "source": "import math\n!ls\n"},
             {"cell_type": "code", "metadata": {},
              "source": "from step4_softmax import (\n    softmax)\ndef softmax(S):\n    return S\n\n"
                        "def weighted_sum(P, V):\n    return P @ V\n"}]
    sources = step_sources(json.dumps({"cells": cells}))
    assert sorted(sources) == ["step4_softmax.py", "step5_values.py"]
    for text in sources.values():
        assert text.startswith("from shape_checks import *; import math; \n")
        assert "def softmax" in text and "def weighted_sum" in text and "from step4_softmax" not in text
        compile(text, "step.py", "exec")


def test_the_kits_imports_are_left_out_of_a_rebuilt_step_module():
    """The checks cell's `import attnkit_runtime.notebook as _ak` is no learner import, nor any import of the
    learner runtime, shape_checks or a step: the header imports what a step needs (one import stripper)."""
    cells = [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "attnkit_checks"}},
              "source": "import attnkit_runtime.notebook as _ak\n_ak.configure('attention', '0')\n"},
             {"cell_type": "code", "metadata": {},
              "source": "import numpy as np\nfrom attnkit_runtime.judge import build_arg\nimport step1_projection\n"},
             {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "step4_softmax"}},
              "source": "from shape_checks import (\n    float_array)\ndef softmax(S):\n    return S\n"}]
    sources = step_sources(json.dumps({"cells": cells}))
    assert list(sources) == ["step4_softmax.py"]
    assert sources["step4_softmax.py"] == "from shape_checks import *; import numpy as np; \n\ndef softmax(S):\n    return S\n"


def test_a_notebook_steps_lines_keep_their_numbers_in_its_cell():
    """An error in a rebuilt step module names the line of the step's cell (issue 19: "line 27" of a file
    the student does not have, for line 19 of the cell): the header joins the cell's first line."""
    code = '\"\"\"Step 5.\"\"\"\nimport numpy as np\n\n\ndef weighted_sum(P, V):\n    return P @ v\n'
    first_def = {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "step5_values"}},
                 "source": "def weighted_sum(P, V):\n    return P @ v\n"}
    for source in (code, first_def["source"]):
        cells = [{**first_def, "source": source}]
        text = step_sources(json.dumps({"cells": cells}))["step5_values.py"]
        compile(text, "step5_values.py", "exec")
        if source is code:
            assert text.splitlines()[5] == "    return P @ v"  # line 6 of the cell, line 6 of the module
        else:  # a `def` cannot follow a `;`: the header stays on lines of its own
            assert text.startswith("from shape_checks import *\n\ndef weighted_sum")


def test_unreadable_notebook_scores_0_with_the_reason(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json", encoding="utf-8")
    graded = grade_path(bad)
    assert graded.score == 0.0 and "not a readable .ipynb" in graded.tests[0].output


def test_stubs_notebook_scores_0(tmp_path):
    graded = grade_path(notebook(EXERCISES_DIR, tmp_path / "stubs.ipynb"))
    assert graded.score == 0.0


# Each attack is appended to a solution file, redefining one function; only that function's tests
# may lose points, and the grade must come back.
ATTACKS = {
    "sys_exit": ("step4_softmax", "softmax", "def softmax(S):\n    import sys\n    sys.exit(0)\n"),
    "os_exit": ("step5_values", "weighted_sum", "def weighted_sum(P, V):\n    import os\n    os._exit(0)\n"),
    "keyboard_interrupt": ("step2_scores", "scale_scores", "def scale_scores(kq, d_h):\n    raise KeyboardInterrupt\n"),
    "memory_bomb": ("step2_scores", "raw_scores", "def raw_scores(Q, K):\n    return bytearray(1 << 40)\n"),
    "hang": ("step1_projection", "project_qkv",
             "def project_qkv(Z, W_Q, b_Q, W_K, b_K, W_V, b_V):\n    while True:\n        pass\n"),
    "numpy_comparisons_patched": (
        "step3_masks", "additive_mask",
        "np.isclose = lambda *a, **k: np.ones(np.broadcast(*a[:2]).shape, bool)\n"
        "np.allclose = np.array_equal = lambda *a, **k: True\n"
        "np.testing.assert_allclose = lambda *a, **k: None\n"
        "def additive_mask(visible, dtype=np.float64):\n    return np.zeros(np.shape(visible), dtype)\n"),
    "pickle_payload": (
        "step6_head", "attention_head",
        "import pickle, os\nclass _Boom:\n    def __reduce__(self):\n        return (os.system, ('touch MARKER',))\n"
        "def attention_head(*args, **kwargs):\n    return pickle.dumps(_Boom())\n"),
    "object_with_array_interface": (
        "step5_values", "weighted_sum",
        "class _Liar:\n    def __array__(self, *a, **k):\n        raise SystemExit\n    def __eq__(self, other):\n"
        "        return True\ndef weighted_sum(P, V):\n    return _Liar()\n"),
    "segfault": ("step5_values", "weighted_sum",
                 "def weighted_sum(P, V):\n    import ctypes\n    ctypes.string_at(0)\n"),
    "steal_the_reference": (
        "step4_softmax", "softmax",
        "import glob, os, sys, importlib.util\ndef softmax(S):\n"
        "    for path in glob.glob('ROOT/solutions/*4_softmax.py') + glob.glob('/work/*/solutions/*4_softmax.py'):\n"
        "        sys.path.insert(0, os.path.dirname(path))\n"
        "        spec = importlib.util.spec_from_file_location('stolen', path)\n"
        "        module = importlib.util.module_from_spec(spec)\n        spec.loader.exec_module(module)\n"
        "        return module.softmax(S)\n    raise RuntimeError('no reference found')\n"),
    "syntax_error": ("step4_softmax", "softmax", "def softmax(S)\n    return S\n"),
    "child_processes": (
        "step3_masks", "to_torch_sdpa_mask",
        "import subprocess\ndef to_torch_sdpa_mask(visible):\n    subprocess.Popen(['sleep', '60'])\n"
        "    return ~visible\n"),
}


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_adversarial_submission_scores_no_more_than_it_earned(tmp_path, attack):
    step, function, code = ATTACKS[attack]
    folder = copy_solutions(tmp_path / "s")
    path = tmp_path / "s" / f"{step}.py"
    if attack == "steal_the_reference" and barrier_description().startswith("none"):
        pytest.skip("no OS barrier on this machine: the kit's files are readable (docs/SECURITY.md)")
    code = code.replace("MARKER", str(tmp_path / "pwned")).replace("ROOT", str(ROOT))
    path.write_text(path.read_text(encoding="utf-8") + "\n\n" + code, encoding="utf-8")
    graded = grade_path(folder, Limits(call_seconds=0.5))
    assert_only_functions_lost(graded, {(step, function)})
    assert not (tmp_path / "pwned").exists()
    if attack == "hang":
        lost = [t for t in graded.tests if t.step == step and t.status != "passed"]
        assert {t.status for t in lost} == {"timeout", "error"}  # calls never made after two timeouts: error
        assert all(t.status == "timeout" or "not run (" in t.output for t in lost)
