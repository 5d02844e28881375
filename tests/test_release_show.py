"""The release's `attnkit-show` does what the lessons say `attnkit show` does (issue 18): the lessons' presets, and
`--mine` with the expected grid beside the learner's (stored at release time: the release has no reference),
differing cells marked, each part's axes named. Run for real: the release installed in a virtualenv, the command
in a subprocess."""
import os
import re
import shlex
import subprocess

import pytest

from attnkit.show_frames import PRESETS, render
from attnkit_runtime.i18n import speaking
from test_release import exercises_with, student_venv  # noqa: F401  (the release installed in a virtualenv)

LESSON_COMMAND = re.compile(r"`attnkit[ -]show ([^`]*)`")  # the kit's command, or the release's


def _show(student_venv, cwd, *args, lang="en"):  # noqa: F811
    return subprocess.run([str(student_venv[1].parent / "attnkit-show"), *args], cwd=cwd, capture_output=True,
                          text=True, env={**student_venv[2], "ATTNKIT_LANG": lang}, timeout=120)


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_preset_prints_the_kits_frame(student_venv, tmp_path, preset, lang):  # noqa: F811
    run = _show(student_venv, tmp_path, preset, lang=lang)
    with speaking(lang):
        assert run.returncode == 0 and run.stdout == render(PRESETS[preset]) + "\n", run.stdout + run.stderr


def test_no_argument_prints_how_are_you_as_attnkit_show_does(student_venv, tmp_path):  # noqa: F811
    run = _show(student_venv, tmp_path)
    assert run.returncode == 0 and '0.8849  0.0563  0.0588' in run.stdout, run.stdout + run.stderr


def test_mine_puts_the_stored_expected_grid_beside_a_mistake_and_marks_it(student_venv, tmp_path):  # noqa: F811
    exercises_with(student_venv, tmp_path, ["step3_masks"], {"step3_masks": ("return j <= past + i", "return j <= i")})
    run = _show(student_venv, tmp_path, "--mine", "causal_visible", "2", "5")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "yours: visible" in run.stdout and "expected: visible" in run.stdout
    assert "visible: 6 of 10 cells differ (marked *)" in run.stdout
    assert "0                True   False*  False*  False*  False     0                True  True  True  True  False" \
        in run.stdout, run.stdout


def test_the_output_O_is_headed_by_its_features_and_P_by_its_keys(student_venv, tmp_path):  # noqa: F811
    exercises_with(student_venv, tmp_path, ["step1_projection", "step2_scores", "step3_masks", "step4_softmax",
                                            "step5_values", "step6_head"])
    run = _show(student_venv, tmp_path, "--mine", "attention", "1,0;0,1", "1,0;0,1", "1,2;3,4")
    assert run.returncode == 0, run.stdout + run.stderr
    o_block, p_block = run.stdout.split("yours: O")[1].split("yours: P")
    assert "token ↓ / feature →" in o_block and "key" not in o_block, o_block
    assert "query ↓ / key →" in p_block and "O: matches the expected one" in run.stdout


def test_arguments_without_a_stored_result_show_the_learners_grid_and_which_are_stored(student_venv, tmp_path):  # noqa: F811,E501
    exercises_with(student_venv, tmp_path, ["step3_masks"])
    run = _show(student_venv, tmp_path, "causal_visible", "4", lang="zh")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "你的：visible" in run.stdout and "attnkit-show --mine causal_visible 2 5" in run.stdout, run.stdout


@pytest.mark.parametrize("lang, said", [("en", "no expected result of weighted_sum is stored; calls that have one:"),
                                        ("zh", "没有存下 weighted_sum 的应有结果；存了应有结果的调用有：")])
def test_a_function_without_a_stored_result_names_the_calls_that_have_one(student_venv, tmp_path, lang, said):  # noqa: F811,E501
    exercises_with(student_venv, tmp_path, ["step5_values"])
    run = _show(student_venv, tmp_path, "weighted_sum", "0.5,0.5;1,0", "1,2;3,4", lang=lang)
    assert run.returncode == 0, run.stdout + run.stderr
    assert said in run.stdout and "attnkit-show --mine causal_visible 2 5" in run.stdout and "—" not in run.stdout, \
        run.stdout


def test_every_attnkit_show_the_lessons_and_readme_name_works_in_the_release(student_venv, tmp_path):  # noqa: F811
    """Each `attnkit show …` (or `attnkit-show …`) of the release's lessons and README, run as `attnkit-show …` on a
    finished folder: a preset prints, a --mine call shows the expected grid beside the learner's."""
    handout = student_venv[0]
    exercises_with(student_venv, tmp_path, [path.stem for path in (handout / "exercises").glob("step*.py")])
    commands = {command for path in [handout / "README.md", *(handout / "lessons").rglob("*.md")]
                for command in LESSON_COMMAND.findall(path.read_text(encoding="utf-8"))}
    assert commands, "the lessons name no attnkit show command: this test looks for the wrong text"
    for command in sorted(commands):
        run = _show(student_venv, tmp_path, *shlex.split(command))
        assert run.returncode == 0, (command, run.stdout + run.stderr)
        if not shlex.split(command)[0] in PRESETS:
            assert "expected:" in run.stdout and "matches the expected one" in run.stdout, (command, run.stdout)


def test_a_wrong_command_names_the_presets_and_the_functions(student_venv, tmp_path):  # noqa: F811
    run = _show(student_venv, tmp_path, "no_such_thing")
    assert run.returncode == 2
    assert "how-are-you, kv-cache, padding" in run.stderr and "FUNCTION is one of: project, project_qkv," in run.stderr


@pytest.mark.parametrize("lang, said", [
    ("en", "attnkit-show: Step 5 (step5_values.weighted_sum) is not written yet: replace this raise with your code. "
           "Read lessons/en/step5_values.md.\n"),
    ("zh", "attnkit-show: 第 5 步（step5_values.weighted_sum）还没有写：把这个 raise 换成你的代码。"
           "阅读 lessons/zh/step5_values.md。\n")])
def test_a_stub_is_named_in_the_learners_language_only_also_an_earlier_steps(student_venv, tmp_path, lang, said):  # noqa: F811,E501
    exercises_with(student_venv, tmp_path / "stubs", [])
    run = _show(student_venv, tmp_path / "stubs", "weighted_sum", "0.5,0.5;1,0", "1,2;3,4", lang=lang)
    assert run.returncode == 1 and run.stderr == said, run.stderr
    exercises_with(student_venv, tmp_path / "later", ["step1_projection", "step2_scores", "step3_masks",
                                                      "step4_softmax", "step6_head"])  # step 6 calls step 5's stub
    run = _show(student_venv, tmp_path / "later", "attention", "1,0;0,1", "1,0;0,1", "1,2;3,4", lang=lang)
    assert run.returncode == 1 and run.stderr == said, run.stderr


def test_a_reader_that_went_away_ends_it_quietly(student_venv, tmp_path):  # noqa: F811
    """`attnkit-show | head -3` as a Unix tool ends: no BrokenPipeError traceback. The pipe's reading end is
    closed before the command starts, so its first write already finds no reader."""
    read, write = os.pipe()
    os.close(read)
    try:
        run = subprocess.run([str(student_venv[1].parent / "attnkit-show")], cwd=tmp_path, stdout=write,
                             stderr=subprocess.PIPE, text=True, env=student_venv[2], timeout=120)
    finally:
        os.close(write)
    assert run.stderr == "" and run.returncode == 0, run.stderr
