"""The public tests in exercises/, run as a learner runs them: `pytest exercises` in a subprocess."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from attnkit import manifest
from attnkit.cases import cases_for
from attnkit.paths import EXERCISES_DIR, ROOT, SOLUTIONS_DIR

N_PUBLIC = len(cases_for(visibility="public"))


def run_pytest(*args, cwd=ROOT):
    proc = subprocess.run([sys.executable, "-m", "pytest", *map(str, args), "-p", "no:cacheprovider"],
                          cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "400"})  # pytest cuts summary messages to the width
    return proc.returncode, proc.stdout + proc.stderr


def learner_copy(tmp_path, own_steps):
    """A learner folder: the stubs, with the reference body for the steps in `own_steps`."""
    folder = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for module in own_steps:
        shutil.copy(SOLUTIONS_DIR / f"{module}.py", folder / f"{module}.py")
    return folder


def test_untouched_stubs_fail_every_test_with_the_steps_not_implemented_error():
    code, out = run_pytest(EXERCISES_DIR, "-rf")
    assert code == 1, out
    assert f"{N_PUBLIC} failed" in out and "error" not in out.split("\n")[-2], out
    failures = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    assert len(failures) == N_PUBLIC
    for nodeid, message in failures:
        step = re.search(r"test_(step\d_\w+)\.py", nodeid).group(1)
        assert message.startswith(f"NotImplementedError: Step {step[4]} ({step}."), (nodeid, message)
    assert "src/attnkit" not in out, "a traceback reached into the kit"
    assert "Next: exercises/step1_projection.py" in out


def test_solutions_switch_passes_every_public_test_and_names_hidden_concepts():
    code, out = run_pytest(EXERCISES_DIR, "--solutions")
    assert code == 0, out
    assert f"{N_PUBLIC} passed" in out
    assert f"All {N_PUBLIC} public tests of {len(manifest.steps())} steps pass. That is not full marks yet" in out
    assert "float32" in out and "12 heads" in out


def test_a_mistake_in_step_4_is_reported_by_step_4_only(tmp_path):
    folder = learner_copy(tmp_path, [s.module for s in manifest.steps()])
    source = (folder / "step4_softmax.py").read_text()
    (folder / "step4_softmax.py").write_text(source.replace("axis=-1", "axis=-2"))  # normalise over queries
    code, out = run_pytest(folder, "-rf")
    assert code == 1, out
    failed = re.findall(r"^FAILED (\S+)", out, flags=re.M)
    assert failed and all("test_step4_softmax.py" in nodeid for nodeid in failed), failed
    assert "softmax_over_keys_not_queries" in out
    assert "likely mistake: normalised over queries" in out, out
    assert "Next: exercises/step4_softmax.py" in out


def test_a_syntax_error_in_one_step_does_not_break_the_others(tmp_path):
    folder = learner_copy(tmp_path, ["step1_projection", "step2_scores"])
    (folder / "step3_masks.py").write_text("def causal_visible(n_query, n_key=None:\n    pass\n")
    code, out = run_pytest(folder, "-rf")
    assert "error" not in out.split("\n")[-2], out  # no collection error
    failed = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    step3 = [msg for nodeid, msg in failed if "test_step3_masks.py" in nodeid]
    assert step3 and all("syntax error on line 1" in msg for msg in step3), step3
    assert not [n for n, _ in failed if "test_step1_projection.py" in n or "test_step2_scores.py" in n]
    assert re.search(r"step 1\s+step1_projection\s+4/4\s+done", out), out


@pytest.mark.parametrize("step", manifest.steps(), ids=lambda s: s.module)
def test_every_function_has_public_cases(step):
    for fn in step.functions:
        assert cases_for(step.module, "public", fn.name), f"{step.module}.{fn.name} has no public case"
