"""The trust boundary on disk: hidden cases live in autograder/, never in the package students install."""
import json
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from attnkit import cases, manifest
from attnkit.paths import CASES_DIR, HIDDEN_CASES_DIR, ROOT, SOLUTIONS_DIR

HIDDEN_NAMES = [c.name for c in cases.cases_for(visibility="hidden")]


def test_each_side_holds_only_its_own_cases():
    assert HIDDEN_NAMES, "a checkout must find the hidden cases in autograder/cases/"
    for step in manifest.steps():
        public = yaml.safe_load((CASES_DIR / f"{step.module}.yaml").read_text(encoding="utf-8"))["cases"]
        hidden = yaml.safe_load((HIDDEN_CASES_DIR / f"{step.module}.yaml").read_text(encoding="utf-8"))["cases"]
        assert {c.get("visibility", "public") for c in public} == {"public"}, step.module
        assert {c.get("visibility", "hidden") for c in hidden} == {"hidden"}, step.module


def test_a_hidden_case_in_the_package_file_is_refused():
    step = manifest.step("step4_softmax")
    raw = {"name": "leaky", "function": "softmax", "visibility": "hidden", "concept": "x",
           "args": {"S": [[0.0]]}, "expect": {"reference": True}}
    with pytest.raises(ValueError, match="hidden ones in autograder/cases/"):
        cases._parse_file(step, {"cases": [raw]}, "public", set())


def _copy_checkout(dest):
    ignore = shutil.ignore_patterns(".venv", ".git", "__pycache__", "*.egg-info", "build", "dist")
    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


def test_the_built_wheel_contains_no_hidden_case_name(tmp_path):
    tree = _copy_checkout(tmp_path / "kit")
    assert (tree / "autograder" / "cases").is_dir()  # the hidden cases are there to be left out
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "w"),
                           str(tree)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    (wheel,) = (tmp_path / "w").glob("attnkit-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        blob = b"\n".join(zf.read(n) for n in names)
    assert any(n.endswith("data/cases/step4_softmax.yaml") for n in names)  # the public cases ship
    assert b"softmax_three_scores" in blob
    leaked = [name for name in HIDDEN_NAMES if name.encode() in blob]
    assert not leaked, leaked


def test_a_kit_without_the_hidden_cases_grades_public_ones_and_says_so(tmp_path):
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")  # a root with the reference, no autograder/
    env = {**os.environ, "ATTNKIT_ROOT": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "attnkit.cli", "grade", str(SOLUTIONS_DIR), "--json"],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("only the PUBLIC cases are used") == 1
    (graded,) = map(json.loads, done.stdout.splitlines())
    names = {t["name"] for t in graded["tests"]}
    assert names == {c.name for c in cases.cases_for(visibility="public") if c.step.track == "core"}  # the default track
    assert graded["score"] == 100.0


def test_an_nbgrader_course_built_without_the_hidden_cases_says_so(tmp_path):
    shutil.copytree(SOLUTIONS_DIR, tmp_path / "solutions")
    env = {**os.environ, "ATTNKIT_ROOT": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "attnkit.cli", "nbgrader-course", str(tmp_path / "course")],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("only the PUBLIC cases are used") == 1


def test_a_checkout_grades_without_the_notice():
    names = set()
    for track in manifest.tracks():
        done = subprocess.run([sys.executable, "-m", "attnkit.cli", "grade", str(SOLUTIONS_DIR), "--json", "--track", track],
                              capture_output=True, text=True, timeout=300, cwd=ROOT)
        assert done.returncode == 0 and "PUBLIC" not in done.stderr, done.stderr
        names |= {t["name"] for t in json.loads(done.stdout)["tests"]}
    assert set(HIDDEN_NAMES) <= names


def test_the_gradescope_bundle_needs_the_hidden_cases(tmp_path):
    env = {**os.environ, "ATTNKIT_ROOT": str(tmp_path)}  # a kit without autograder/ nor solutions/
    done = subprocess.run([sys.executable, "-m", "attnkit.cli", "gradescope-bundle", str(tmp_path / "gs.zip")],
                          capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert done.returncode == 2 and "needs the hidden cases" in done.stderr
    assert not (tmp_path / "gs.zip").exists()
