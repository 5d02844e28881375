"""How long a learner waits for feedback: figures only, no assertions.

Times `python -m pytest exercises` (what a learner runs after each edit, a fresh interpreter every time) in
three states of the learner's folder: the untouched stubs; half done (steps 1-3 written, step 4 with one
wrong result, the rest stubs); finished (every step). Each in the checkout (this interpreter, the kit
installed) and in the learner install (`attnkit release` in a fresh virtualenv, `pip install .`: numpy
and pytest only). The machine may be shared: each run is followed by a *floor*, a plain pytest of as many
numpy tests in the same interpreter (without hypothesis's plugin, which the kit's runs leave out too),
and the figures are medians of N runs in seconds and as the ratio to
the floor (the ratio moves less when others load the machine). The first finished run of a user draws the
extension's GPT-2-sized inputs and keeps them in the cache folder (attnkit_runtime/kept_inputs.py); the
later runs, a learner's loop, read them back. Run it without PYTHONDONTWRITEBYTECODE, as a learner does
(with it set, the checkout's runs compile every module anew).

    python benchmarks/feedback_loop.py [N]          (N runs of each, 10 by default)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnkit import cli, manifest
from attnkit.cases import cases_for
from attnkit.paths import EXERCISES_DIR, SOLUTIONS_DIR

LEARNER_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/")}  # no PYTHONPATH
HALF_DONE = ("step1_projection", "step2_scores", "step3_masks")
WRONG_STEP_4 = ("    return np.divide(E, total, out=np.zeros_like(E), where=total > 0)  # [..., T_q, T_k]\n",
                "    return E / total\n")  # a fully masked row becomes NaN: one wrong result
FLOOR_TEST = '''import numpy as np
import pytest


@pytest.mark.parametrize("k", range({count}))
def test_plain(k):
    assert np.allclose(np.ones((4, 4)) @ np.eye(4), 1.0)
'''


def learner_folder(base, exercises, state):
    """A copy of `exercises` (a stub folder) in `base`/`state`/exercises, with the reference steps of `state`."""
    folder = base / state / "exercises"
    shutil.copytree(exercises, folder, ignore=shutil.ignore_patterns("__pycache__"))
    done = {"stubs": (), "half done": HALF_DONE + ("step4_softmax",),
            "finished": tuple(s.module for s in manifest.steps())}[state]
    for module in done:
        shutil.copy(SOLUTIONS_DIR / f"{module}.py", folder / f"{module}.py")
    if state == "half done":
        step4 = folder / "step4_softmax.py"
        source = step4.read_text(encoding="utf-8")
        assert WRONG_STEP_4[0] in source
        step4.write_text(source.replace(*WRONG_STEP_4), encoding="utf-8")
    return folder


def floor_folder(base, count):
    folder = base / f"floor{count}"
    folder.mkdir()
    (folder / "test_plain.py").write_text(FLOOR_TEST.format(count=count), encoding="utf-8")
    return folder


def seconds(command, cwd, env):
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def learner_install(base):
    """The python of a fresh virtualenv with the release installed, and the release's stub folder."""
    handout = base / "handout"
    assert cli.main(["release", str(handout)]) == 0
    subprocess.run([sys.executable, "-m", "venv", str(base / "venv")], check=True)
    python = base / "venv" / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "."], cwd=handout,
                   check=True)
    return python, handout / "exercises"


def report(label, python, config, folder, runs, base, env=None):
    """Alternate `runs` runs of `pytest folder` with the floor (both with the pytest settings of `config`,
    the install's pyproject.toml); print medians and the ratio."""
    command = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c", str(config)]
    floor = floor_folder(base, len(cases_for(visibility="public")))
    kit, plain = [], []
    for _ in range(runs):
        kit.append(seconds(command + [str(folder)], folder.parent, env))
        plain.append(seconds(command + ["-p", "no:hypothesispytest", str(floor)], floor, env))
    ratios = [k / p for k, p in zip(kit, plain)]
    print(f"{label:<36} median {statistics.median(kit):.2f} s (slowest {max(kit):.2f}), floor "
          f"{statistics.median(plain):.2f} s, ratio {statistics.median(ratios):.2f}", flush=True)


def main(runs=10):
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        installs = {"checkout": (Path(sys.executable), EXERCISES_DIR)}
        installs["learner install"] = learner_install(base / "release")
        for name, (python, exercises) in installs.items():
            for state in ("stubs", "half done", "finished"):
                folder = learner_folder(base / name, exercises, state)
                report(f"{name}, {state}", python, exercises.parent / "pyproject.toml", folder, runs,
                       base / name / state, None if name == "checkout" else LEARNER_ENV)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)
