"""Step 10's memory case in the student release, run for real (the release installed in a virtualenv, pytest in
a subprocess): the release's public test measures the learner's call, as the checkout's does, and a walk that
takes all the keys as one block loses that case alone, with the mistake named."""
import re

from attnkit import manifest, mistakes
from test_release import exercises_with, student_pytest, student_venv  # noqa: F401  (the release in a virtualenv)

ONE_BLOCK = ("    for start in range(0, T_k, block):", "    block = max(T_k, 1)\n    for start in range(0, T_k, block):")


def test_the_release_measures_a_walk_that_holds_every_key(student_venv, tmp_path):  # noqa: F811
    folder = exercises_with(student_venv, tmp_path, [s.module for s in manifest.steps()], {"step10_tiled": ONE_BLOCK})
    code, out = student_pytest(student_venv, folder / "test_step10_tiled.py")
    assert code == 1 and "1 failed" in out, out
    assert re.search(r"^FAILED \S*test_step10_tiled\.py::test_attention_tiled\[attention_tiled_holds_one_block\]",
                     out, flags=re.M), out
    assert f"likely mistake: {mistakes.describe('tiled_holds_every_key')}" in out, out
