"""The public tests in exercises/, run as a learner runs them (`pytest exercises` in a subprocess), and the
shipped core's pieces around learner code (time limit, compact arrays)."""
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import numpy as np
import pytest

from attnkit import manifest
from attnkit_runtime import judge
from attnkit.cases import cases_for
from attnkit_runtime.loader import TimeLimitExceeded, time_limit
from attnkit.paths import EXERCISES_DIR, ROOT, SOLUTIONS_DIR

N_PUBLIC = len(cases_for(visibility="public"))
CORE = [s.module for s in manifest.steps("core")]
OPTIONAL = [s for s in manifest.steps() if s.track != "core"]  # every step after the core, whatever its track
TRACKS = {s.track: [t for t in OPTIONAL if t.track == s.track] for s in OPTIONAL}  # each optional track's steps
N_CORE = sum(len(cases_for(module, "public")) for module in CORE)
N_OPTIONAL = N_PUBLIC - N_CORE
STUB_TEXT = {"en": "is not written yet: replace this raise with your code",  # every stub's NotImplementedError
             "zh": "还没有写：把这个 raise 换成你的代码"}  # which holds both languages, shown in the learner's
# What the ladder prints in each language (the row's mark of an unstarted optional step, its last line…)
LADDER = {"en": SimpleNamespace(header="attnkit progress", not_written="not written yet",
                                optional_row="optional, not started (skipped)", last="Read lessons/en/",
                                optional="The steps after the core are optional",
                                skipped="step {n} is optional (after the core) and not started, so its tests are skipped. "
                                        "To start it, write your code in exercises/{file}"),
          "zh": SimpleNamespace(header="attnkit 进度", not_written="还没有写", optional_row="选做，未开始（已跳过）",
                                last="先读 lessons/zh/", optional="核心部分之后的步骤是选做的",
                                skipped="第 {n} 步是核心部分之后的选做内容，还没有开始，所以跳过它的测试。要开始，就在 exercises/{file} 里写你的代码")}


def run_pytest(*args, cwd=ROOT, **env):
    proc = subprocess.run([sys.executable, "-m", "pytest", *map(str, args), "-p", "no:cacheprovider"],
                          cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "400", **env})  # pytest cuts summary messages to the width
    return proc.returncode, proc.stdout + proc.stderr


def assert_ladder_last(out, lang, last):
    """The ladder comes after pytest's final line of counts and ends the output with `last`."""
    lines = out.rstrip().splitlines()
    counts = max(k for k, line in enumerate(lines) if re.match(r"^=+ .* in [\d.]+s", line))
    assert any(line.startswith(LADDER[lang].header) for line in lines[counts:]), out
    assert lines[-1].strip().startswith(last), out


def learner_copy(tmp_path, own_steps):
    """A learner folder: the stubs, with the reference body for the steps in `own_steps`."""
    folder = tmp_path / "exercises"
    shutil.copytree(EXERCISES_DIR, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for module in own_steps:
        shutil.copy(SOLUTIONS_DIR / f"{module}.py", folder / f"{module}.py")
    return folder


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_untouched_stubs_fail_the_core_once_each_skip_the_extension_and_end_on_the_ladder(lang):
    """The first run: each core test is one line (where the stub raised, its text once; the end-of-run
    summary says only "not written yet"), the optional steps are skipped, and the ladder is the last thing."""
    code, out = run_pytest(EXERCISES_DIR, "-rf", ATTNKIT_LANG=lang)
    assert code == 1, out
    assert f"{N_CORE} failed, {N_OPTIONAL} skipped" in out, out
    failures = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    assert len(failures) == N_CORE and {m for _, m in failures} == {LADDER[lang].not_written}, out
    sections = failure_sections(out)
    assert len(sections) == N_CORE, out
    for name, section in sections.items():
        step = manifest.step(re.match(r"exercises/(step\d+_\w+)\.py:", section).group(1))
        assert step.module in CORE, section
        said = (rf"Step {step.number} \({step.module}\.\w+\) {STUB_TEXT['en']}\. Read lessons/en/{step.module}\.md\."
                if lang == "en" else
                rf"第 {step.number} 步（{step.module}\.\w+）{STUB_TEXT['zh']}。阅读 lessons/zh/{step.module}\.md。")
        assert re.fullmatch(rf"{step.module}\.py:\d+: NotImplementedError: {said}", section.removeprefix("exercises/")), \
            section
    assert out.count(STUB_TEXT[lang]) == N_CORE + 1, "the stub's text: once per failing test, once in the ladder's next step"
    other = next(other for other in STUB_TEXT if other != lang)
    assert STUB_TEXT[other] not in out, "the stub's text in the learner's language only"
    assert "src/attnkit" not in out, "a traceback reached into the kit"
    assert len(out.splitlines()) <= 3 * N_CORE + 39 + len(TRACKS), len(out.splitlines())  # was 406 lines; a line per optional track
    assert_ladder_last(out, lang, LADDER[lang].last)
    if lang == "en":
        assert "Next: exercises/step1_projection.py" in out
        assert "no function is written yet, so these failures are expected. Start with step 1" in out
        waits = "After the core, optional, each graded on its own 100 points (shown once the core is done):\n" + "".join(
            f"    steps {steps[0].number}–{steps[-1].number}: {steps[0].track_title['en']}\n" for steps in TRACKS.values())
        assert waits in out, out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_finished_core_is_a_green_run_the_optional_steps_skipped_with_how_to_start(tmp_path, lang):
    folder = learner_copy(tmp_path, CORE)
    code, out = run_pytest(folder, "-rs", ATTNKIT_LANG=lang)
    assert code == 0 and f"{N_CORE} passed, {N_OPTIONAL} skipped" in out, out
    for step in OPTIONAL:
        count = len(cases_for(step.module, "public"))
        reason = LADDER[lang].skipped.format(n=step.number, file=step.filename)
        assert re.search(rf"^SKIPPED \[{count}\] .*: {re.escape(reason)}", out, flags=re.M), out
        row = re.search(rf"^  .* {step.module} +0/{count} +(.*)$", out, flags=re.M)
        assert row and row.group(1) == LADDER[lang].optional_row, out
    assert LADDER[lang].optional in out and "exercises/step7_layer.py" in out.split(LADDER[lang].optional)[1], out
    for steps in TRACKS.values():  # each optional track's rows come under its title
        heading = re.search(rf"^  {re.escape(steps[0].track_title[lang])}.*\n.* {steps[0].module} ", out, flags=re.M)
        assert heading, (steps[0].track, out)
    lines = out.rstrip().splitlines()
    assert_ladder_last(out, lang, lines[-1].strip())  # after the counts; it ends on what the hidden tests check
    assert lines[-1].startswith("  ") and lines.index(next(l for l in lines if l.startswith(LADDER[lang].header))) > \
        max(k for k, line in enumerate(lines) if " passed, " in line), out


def test_an_optional_step_runs_once_its_code_changes_not_for_a_comment(tmp_path):
    """Step 7 with a comment added stays skipped; step 8 with one function written runs (and fails), and the
    ladder sends the learner to it alone; step 9 untouched is skipped."""
    folder = learner_copy(tmp_path, CORE)
    (folder / "step7_layer.py").write_text("# my notes\n" + (folder / "step7_layer.py").read_text())
    source = (folder / "step8_kv_cache.py").read_text()
    raise_line = next(line for line in source.splitlines() if "raise NotImplementedError(" in line)
    (folder / "step8_kv_cache.py").write_text(source.replace(raise_line, raise_line.split("raise")[0] + "return None", 1))
    code, out = run_pytest(folder, "-rfs")
    assert code == 1, out
    failed = re.findall(r"^FAILED (\S+)", out, flags=re.M)
    assert failed and all("test_step8_kv_cache.py" in nodeid for nodeid in failed), out
    skipped = {int(step) for step in re.findall(r"^SKIPPED \[\d+\] .*: step (\d+) is optional", out, flags=re.M)}
    assert skipped == {s.number for s in OPTIONAL} - {8}, out
    assert re.search(r"^  step 8  step8_kv_cache +\d/\d +(in progress|not started) +<- next", out, flags=re.M), out
    assert "Next: exercises/step8_kv_cache.py" in out
    assert LADDER["en"].optional not in out, "while step 8 is next, the ladder does not say to start another step"


def test_solutions_switch_passes_every_public_test_and_names_hidden_concepts():
    code, out = run_pytest(EXERCISES_DIR, "--solutions")
    assert code == 0, out
    assert f"{N_PUBLIC} passed" in out
    header = out[:out.index("collected")]
    assert "attnkit: testing the kit's reference solutions/ (--solutions), not your own code" in header, out
    assert f"All {N_PUBLIC} public tests of {len(manifest.steps())} steps pass on the reference solutions/" in out
    assert "not full marks yet" not in out and "attnkit progress (the reference solutions/" in out
    code, out = run_pytest(EXERCISES_DIR, "--solutions", "-q")  # as `attnkit check --solutions` runs it
    assert out.startswith("attnkit: testing the kit's reference solutions/ (--solutions)"), out
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
    assert step3 and "syntax error on line 1" in step3[0], step3
    assert not [n for n, _ in failed if "test_step1_projection.py" in n or "test_step2_scores.py" in n]
    assert re.search(r"step 1\s+step1_projection\s+4/4\s+done", out), out


@pytest.mark.parametrize("step", manifest.steps(), ids=lambda s: s.module)
def test_every_function_has_public_cases(step):
    for fn in step.functions:
        assert cases_for(step.module, "public", fn.name), f"{step.module}.{fn.name} has no public case"


def edited_copy(tmp_path, edits):
    """A learner folder with every step written (the reference), then `edits` {module: [(old, new)]} applied."""
    folder = learner_copy(tmp_path, [s.module for s in manifest.steps()])
    for module, pairs in edits.items():
        source = (folder / f"{module}.py").read_text()
        for old, new in pairs:
            assert old in source, (module, old)
            source = source.replace(old, new)
        (folder / f"{module}.py").write_text(source)
    return folder


def failure_sections(out):
    """{test id in brackets: the text pytest printed for its failure}."""
    parts = re.split(r"^_{3,} \S+\[(\S+)\] _{3,}$", out.split("= FAILURES =")[1], flags=re.M)[1:]
    sections = dict(zip(parts[::2], parts[1::2]))
    return {name: re.split(r"^={3,} ", text, flags=re.M)[0].strip("\n") for name, text in sections.items()}


def run_limited(*args):
    """run_pytest with a 1 s time limit per call of learner code."""
    os.environ["ATTNKIT_TIME_LIMIT"] = "1"
    try:
        return run_pytest(*args)
    finally:
        del os.environ["ATTNKIT_TIME_LIMIT"]


def test_an_endless_loop_in_a_function_fails_its_tests_and_the_run_ends(tmp_path):
    folder = edited_copy(tmp_path, {"step4_softmax": [("def softmax(", "def softmax(*a, **k):\n    while True:\n"
                                                                       "        pass\n\n\ndef _unused(")]})
    code, out = run_limited(folder, "-rf")
    assert code == 1, out
    failed = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    assert len(failed) == len(cases_for("step4_softmax", "public")), failed
    assert all("test_step4_softmax.py" in nodeid for nodeid, _ in failed), failed
    assert "step4_softmax.softmax() was stopped after 1 s: an endless loop?" in failed[0][1], failed
    for _, message in failed[1:]:  # not run again: each would wait the whole limit
        assert "softmax() was not run again: it was stopped after 1 s on an earlier test" in message, message


def test_an_endless_loop_that_catches_exceptions_is_stopped_too(tmp_path):
    looping = "def softmax(*a, **k):\n    while True:\n        try:\n            pass\n        except Exception:\n" \
              "            pass\n\n\ndef _unused("
    folder = edited_copy(tmp_path, {"step4_softmax": [("def softmax(", looping)]})
    code, out = run_limited(folder / "test_step4_softmax.py", "-rf")
    assert code == 1 and "was stopped after 1 s: an endless loop?" in out, out


def test_an_endless_loop_at_import_fails_the_step_once(tmp_path):
    folder = edited_copy(tmp_path, {"step1_projection": [("def project_qkv(", "while True:\n    pass\n\n\n"
                                                                              "def project_qkv(")]})
    code, out = run_limited(folder, "-rf")
    failed = re.findall(r"^FAILED (\S+) - (.*)$", out, flags=re.M)
    step1 = [message for nodeid, message in failed if "test_step1_projection.py" in nodeid]
    assert "was stopped after 1 s: an endless loop?" in step1[0] and "step1_projection.py" in step1[0], step1
    assert all(m.endswith("step 1 could not be loaded (see the first failure of this step)") for m in step1[1:])
    assert len(step1) == len(cases_for("step1_projection", "public")) and len(failed) == len(step1), failed


def test_a_syntax_error_is_shown_once_with_its_line_not_as_a_chained_traceback(tmp_path):
    folder = learner_copy(tmp_path, ["step1_projection", "step2_scores"])
    (folder / "step3_masks.py").write_text("def causal_visible(n_query, n_key=None:\n    pass\n")
    code, out = run_pytest(folder / "test_step3_masks.py")
    sections = list(failure_sections(out).values())
    assert "syntax error on line 1" in sections[0] and "def causal_visible(n_query, n_key=None:" in sections[0]
    assert all(s == "step 3 could not be loaded (see the first failure of this step)" for s in sections[1:]), sections
    assert "During handling" not in out and "direct cause" not in out, out


def test_an_exception_at_import_names_the_learners_line(tmp_path):
    folder = edited_copy(tmp_path, {"step2_scores": [("def raw_scores(", "SCALE = 1 / 0\n\n\ndef raw_scores(")]})
    code, out = run_pytest(folder / "test_step2_scores.py")
    first = next(iter(failure_sections(out).values()))
    assert re.search(r"failed while being imported on line \d+ \(SCALE = 1 / 0\): ZeroDivisionError", first), first


def test_a_renamed_function_fails_its_tests_plainly_and_the_steps_other_functions_run(tmp_path):
    folder = edited_copy(tmp_path, {"step2_scores": [("def scale_scores(", "def scale_score(")]})
    code, out = run_pytest(folder / "test_step2_scores.py", "-rf")
    failed = re.findall(r"^FAILED \S+::(\w+)\[\S+\] - (.*)$", out, flags=re.M)
    assert failed and {name for name, _ in failed} == {"test_scale_scores"}, out
    assert all(m == "Failed: exercises/step2_scores.py has no function scale_scores(): keep the name and signature of the stub"
               for _, m in failed), out


def test_a_twelve_head_failure_shows_one_slice_and_the_whole_arrays_under_vv(tmp_path):
    folder = edited_copy(tmp_path, {"step6_head": [("    return O, P\n", "    return 2 * O, P\n")]})
    code, out = run_pytest(folder / "test_step6_head.py")
    section = failure_sections(out)["attention_twelve_heads"]
    assert len(section.splitlines()) <= 16, section
    assert "the first slice that differs, [0, :, :]" in section and "(pytest -vv shows the whole arrays)" in section
    code, out = run_pytest(folder / "test_step6_head.py", "-vv")
    section = failure_sections(out)["attention_twelve_heads"]
    assert "got (whole)" in section and "..." not in section.split("expected (whole)")[1], section


def test_six_wrong_mask_functions_stay_short(tmp_path):
    folder = edited_copy(tmp_path, {"step3_masks": [
        ("return j <= past + i", "return j < past + i"),
        ("return np.repeat(rows, n_query, axis=-2)", "return ~np.repeat(rows, n_query, axis=-2)"),
        ("return combined.copy()", "return ~combined"),
        ("return visible.copy()  # True", "return ~visible  # True"),
        ("return ~visible  # True = blocked", "return visible.copy()  # True = blocked"),
        ("return ~real", "return real"),
    ]})
    code, out = run_pytest(folder / "test_step3_masks.py")
    sections = failure_sections(out)
    assert len(sections) >= 6, out
    assert sum(len(section.splitlines()) for section in sections.values()) < 89, out
    for name, section in sections.items():
        assert len(section.splitlines()) <= 11, section
        for cells in re.findall(r"first at ([^)]*\)(?:, \([^)]*\))*(?:, …)?)\)", section):
            assert cells.count("(") <= 3, cells


def test_bare_pytest_in_a_learners_install_without_dev_extras_collects_and_skips(tmp_path):
    """A learner's clone installed with `pip install .` (no hypothesis, no nbgrader, no torch): bare
    `pytest` at its top collects; the tests that need the extras skip with a reason."""
    clone = tmp_path / "kit"
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    for rel in files:
        (clone / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, clone / rel)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    python3 = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    subprocess.run([python3, "-m", "venv", str(tmp_path / ".venv")], check=True, env=env)
    python = tmp_path / ".venv" / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "."], cwd=clone,
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert subprocess.run([str(python), "-c", "import hypothesis"], env=env, capture_output=True).returncode != 0
    collect = subprocess.run([str(python), "-m", "pytest", "--collect-only", "-q", "-rs"], cwd=clone, env=env,
                             capture_output=True, text=True, timeout=600)
    assert collect.returncode == 0 and "ERROR" not in collect.stdout, collect.stdout + collect.stderr
    assert "hypothesis is not installed" in collect.stdout, collect.stdout


def _spin(seconds):
    """Busy for at most `seconds` (a loop a time limit must stop); returns if nothing stopped it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        pass


def test_a_time_limit_inside_another_leaves_the_outer_one_running():
    with pytest.raises(TimeLimitExceeded, match=r"^outer was stopped after 0.5 s: an endless loop\?"):
        with time_limit("outer", 0.5):
            with time_limit("inner", 60):
                pass
            _spin(60)
    assert signal.getitimer(signal.ITIMER_REAL)[0] == 0
    with pytest.raises(TimeLimitExceeded, match=r"^outer was not run again: it was stopped after 0.5 s"):
        with time_limit("outer", 0.5):
            pytest.fail("the block of code already stopped once ran again")


def test_only_the_public_tests_offer_the_whole_arrays():
    """The grader and the notebook (full_arrays None) show the slice and say nothing of pytest -vv."""
    rng = np.random.default_rng(0)
    expected = rng.standard_normal((12, 4, 64))
    verdict = judge.compare(expected, 2 * expected, {"atol": 1e-9, "rtol": 1e-7}, "O")
    case = SimpleNamespace(step=SimpleNamespace(module="step6_head"), function="attention", concept="12 heads",
                           hint="", read="lessons/en/step6_head.md")
    graded = judge.teaching_message(case, [], verdict)
    assert "[0, :, :]" in graded and "pytest -vv" not in graded and "(whole)" not in graded
    assert "(pytest -vv shows the whole arrays)" in judge.teaching_message(case, [], verdict, full_arrays=False)
    assert "got (whole)" in judge.teaching_message(case, [], verdict, full_arrays=True)


IN_PLACE = {  # right results, reached by writing into an argument the caller still holds
    "step2_scores": ("    return kq / math.sqrt(d_h)", "    kq /= math.sqrt(d_h)\n    return kq"),
    "step4_softmax": ("    E = np.exp(S - row_max)", "    S -= row_max\n    E = np.exp(S, out=S)"),
}


@pytest.mark.parametrize("module", sorted(IN_PLACE))
def test_a_function_that_modifies_its_argument_fails_and_is_told_why(tmp_path, module):
    """The kit's functions never modify their inputs: a right result reached by `kq /= …` or `out=S`
    fails, and the message names the argument."""
    folder = learner_copy(tmp_path, [module])
    path = folder / f"{module}.py"
    honest, in_place = IN_PLACE[module]
    assert honest in path.read_text()
    path.write_text(path.read_text().replace(honest, in_place))
    code, out = run_pytest(folder / f"test_{module}.py", "-rf")
    assert code == 1, out
    assert "changed its argument" in out and ("argument kq in place" in out or "argument S in place" in out), out
