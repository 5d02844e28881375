"""`attnkit show`: the renderer, the lessons' presets, --mine matching and differing, and bad arguments."""
import os
import re
import shutil
import subprocess
import sys

import pytest

from attnkit_runtime import show
from attnkit_runtime.i18n import LANGUAGES, speaking
from attnkit.cli import main
from attnkit.paths import LESSONS_DIR, SOLUTIONS_DIR
from attnkit.show_frames import PRESETS, render


def _run(capsys, *argv):
    """(exit code, stdout, stderr) of `attnkit show …`."""
    try:
        code = main(["show", *argv])
    except SystemExit as stop:  # argparse's usage error
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def learner(tmp_path):
    """A learner's folder holding the reference steps, to be edited into a mistake."""
    for path in SOLUTIONS_DIR.glob("*.py"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _edit(folder, module, old, new):
    path = folder / f"{module}.py"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


# ---------------------------------------------------------------- the renderer

def test_display_width_counts_cjk_as_two_columns():
    assert show.display_width("How") == 3
    assert show.display_width("你好") == 4
    assert show.display_width("e\u0301") == 1  # e + combining acute accent


def test_grid_aligns_cjk_and_ascii_labels_by_display_width():
    text = show.grid([[True, False], [True, True]], ["0 你好吗", "1 a"], ["你", "are"])
    lines = text.splitlines()
    assert len({show.display_width(line) for line in lines}) == 1, text
    # the first key column ends at the same display column in every line (its last line is wider)
    ends = [show.display_width(line[:line.index(word) + len(word)]) for line, word in zip(lines, ("你", "True", "True"))]
    assert len(set(ends)) == 1, text


def test_grid_marks_differing_cells_and_keeps_alignment():
    text = show.grid([[True, False]], differs=[[False, True]])
    header, row = text.splitlines()
    assert row.split()[-1] == "False" + show.MARK
    assert show.display_width(header) == show.display_width(row)


def test_grid_of_a_batch_gives_one_grid_per_leading_index():
    text = show.grid([[[0.5, 0.5]], [[1.0, 0.0]]], title="P")
    assert "P [0, :, :]" in text and "P [1, :, :]" in text and "1.0000" in text


def test_grid_refuses_labels_of_the_wrong_count():
    with pytest.raises(ValueError, match="col_labels must name each of the 2 cols, got 3"):
        show.grid([[True, False]], col_labels=["a", "b", "c"])


# ---------------------------------------------------------------- presets and frames

@pytest.mark.parametrize("argv, lines", [
    ([], ['query ↓ / key →  "How"  " are"  " you"', '0 "How"           True   False   False',  # how-are-you
          '1 " are"          True    True   False    1 " are"             0       0    -inf',
          '2 " you"         0.8849  0.0563  0.0588']),  # the lesson's GPT-2 Head 0 weights
    (["kv-cache"], ["T_q = 2, T_k = 5, past = T_k - T_q = 3", "0 (pos 3)        True  True  True  True  False",
                    "1 (pos 4)        True  True  True  True   True"]),
    (["padding"], ['0 "<pad>"              0       0       0       0',  # the padding query's P: zeros
                   '3 " you"               0  0.3333  0.3333  0.3333']),
    (["gqa"], ["n_head = 4, n_kv_head = 2: query head h reads KV head h // 2",  # the lesson's 4 over 2
               "query head ↓ / KV head →    kv0    kv1", "q1                         True  False",
               "q2                        False   True"]),
], ids=["how-are-you (default)", "kv-cache", "padding", "gqa"])
def test_presets_show_the_lessons_frames(capsys, argv, lines):
    code, out, _ = _run(capsys, *argv)
    assert code == 0
    for line in lines:
        assert line in out, (line, out)


def test_frame_from_options_with_cjk_tokens_and_padding(capsys):
    code, out, _ = _run(capsys, "--tq", "2", "--pad", "1,1,1,0", "--tokens", "你", "好", "吗", "a")
    assert code == 0
    assert "attention_mask = [1, 1, 1, 0]" in out
    assert '0 "吗"           True  True  True  False' in out


# ---------------------------------------------------------------- --mine

def test_mine_matching_the_reference_exits_0(capsys, learner):
    code, out, _ = _run(capsys, "--folder", str(learner), "--mine", "causal_visible", "2", "5")
    assert code == 0
    assert out.startswith("causal_visible(2, 5)\n") and "yours: visible" in out and "expected: visible" in out
    assert "visible: matches the expected one" in out
    assert show.MARK not in out.split("\n\n")[0].replace("query ↓ / key →", "")


def test_mine_differing_marks_the_cells_and_exits_1(capsys, learner):
    _edit(learner, "step3_masks", "return j <= past + i", "return j <= i")  # the top-left trap
    code, out, _ = _run(capsys, "--folder", str(learner), "--mine", "causal_visible", "2", "5")
    assert code == 1
    assert "visible: 6 of 10 cells differ (marked *)" in out
    assert "0                True   False*  False*  False*  False     0                True  True  True  True  False" in out


def test_mine_names_a_dtype_difference(capsys, learner):
    _edit(learner, "step3_masks", ".astype(dtype)  # [..., T_q, T_k]", "  # [..., T_q, T_k]")
    code, out, _ = _run(capsys, "--folder", str(learner), "--mine", "additive_mask", "T,F;T,T", "float32")
    assert code == 1
    assert "M: dtype differs: expected float32, got float64" in out


def test_mine_shows_each_part_of_a_result_with_what_its_rows_and_columns_are(capsys, learner):
    _edit(learner, "step6_head", "return O, P", "return O, P.T")
    code, out, _ = _run(capsys, "--folder", str(learner), "--mine", "attention", "1,0;0,1", "1,0;0,1", "1,2;3,4")
    assert code == 1
    assert "O: matches the expected one" in out and "P: 2 of 4 cells differ (marked *)" in out
    o_block, p_block = out.split("yours: O")[1].split("yours: P")
    assert "token ↓ / feature →" in o_block and "query ↓ / key →" not in o_block
    assert "query ↓ / key →" in p_block


def test_mine_shows_a_learner_error_plainly(capsys, learner):
    _edit(learner, "step4_softmax", "row_max = S.max(axis=-1, keepdims=True)", "row_max = S.maxx(axis=-1)")
    code, out, err = _run(capsys, "--folder", str(learner), "--mine", "softmax", "0,1,-inf")
    assert code == 1 and out == ""
    assert "your code raised AttributeError" in err
    assert f"{learner / 'step4_softmax.py'}, line" in err and "S.maxx" in err
    assert "Traceback" not in err and "attnkit" not in err.replace("attnkit show:", "")


def test_mine_stopped_by_ctrl_c_says_so_without_a_traceback(capsys, learner):
    _edit(learner, "step3_masks", "    past = n_key - n_query\n", "    raise KeyboardInterrupt  # as Ctrl-C in an endless loop\n")
    code, _, err = _run(capsys, "--folder", str(learner), "--mine", "causal_visible", "2", "5")
    assert code == 1
    assert err == "attnkit show: stopped (Ctrl-C) while your code ran: an endless loop?\n"


def test_mine_stops_an_endless_loop_at_the_public_tests_time_limit(learner):
    """In a child process with a deadline: on a kit without the limit the loop never ends."""
    _edit(learner, "step3_masks", "    past = n_key - n_query\n", "    while True:\n        pass\n")
    run = subprocess.run([sys.executable, "-m", "attnkit.cli", "show", "--folder", str(learner), "--mine",
                          "causal_visible", "2", "5"], capture_output=True, text=True, timeout=30,
                         env={**os.environ, "ATTNKIT_TIME_LIMIT": "1"})
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == ("attnkit show: causal_visible() was stopped after 1 s: an endless loop? "
                          "(the time limit is 1 s; ATTNKIT_TIME_LIMIT=20 gives more)\n"), run.stderr


@pytest.mark.parametrize("lang, said", [
    ("en", "Step 3 (step3_masks.causal_visible) is not written yet: replace this raise with your code. "
           "Read lessons/en/step3_masks.md."),
    ("zh", "第 3 步（step3_masks.causal_visible）还没有写：把这个 raise 换成你的代码。阅读 lessons/zh/step3_masks.md。")])
def test_mine_on_an_untouched_stub_says_not_written_yet_in_the_learners_language_only(capsys, lang, said):
    with speaking("en"):  # the --lang option's choice is undone after the block
        code, _, err = _run(capsys, "--lang", lang, "--mine", "causal_visible", "2", "5")
    assert code == 1 and err == f"attnkit show: {said}\n", err


def test_mine_without_solutions_shows_the_learners_grid_and_says_why(tmp_path, learner):
    env = {"ATTNKIT_ROOT": str(tmp_path / "release"), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, "-m", "attnkit.cli", "show", "--folder", str(learner),
                          "--mine", "causal_visible", "2", "5"], capture_output=True, text=True, env=env)
    assert run.returncode == 0, run.stderr
    assert "yours: visible" in run.stdout
    assert "the expected tables cannot be computed here" in run.stdout


@pytest.mark.parametrize("argv, message", [
    (["--mine"], "--mine needs a FUNCTION"),
    (["--mine", "nope", "1"], "no function 'nope' in the exercises; one of: project,"),
    (["--mine", "causal_visible"], "causal_visible takes n_query, n_key (1 required), got 0 argument(s)"),
    (["--mine", "causal_visible", "2", "x"], "cannot read 'x' as a number or True/False"),
    (["--mine", "softmax", "1,2;3"], "S: every row of '1,2;3' needs the same number of cells"),
    (["--mine", "additive_mask", "T,F", "float99"], "dtype: 'float99' is not a numpy dtype"),
    (["--mine", "causal_visible", "2", "5", "--folder", "x"], "put --folder before --mine"),
    (["--mine", "attention", "1,0", "1,0"], "attention takes Q, K, V, visible (3 required), got 2 argument(s)"),
    (["kv-cache", "--mine", "causal_visible", "2"], "--mine takes FUNCTION ARG… and no frame options"),
    (["--tq", "3", "--tk", "2"], "--tq (3) must be at most --tk (2)"),
    (["--tk", "3", "--pad", "1,0"], "--pad must be 3 values of 1 (real token) or 0 (padding), got '1,0'"),
    (["--tk", "3", "--pad", "1,2,1"], "--pad must be 3 values"),
    (["--tk", "3", "--tokens", "a", "b"], "--tokens names 2 positions; T_k is 3"),
    (["kv-cache", "--tq", "2"], "give a preset or --tq/--tk/--pad/--tokens, not both"),
    (["--tq", "0"], "give a preset, or --tq/--tk (positive sizes) or --tokens"),
    (["no-such-preset"], "invalid choice: 'no-such-preset'"),
])
def test_bad_arguments_give_a_usage_error(capsys, argv, message):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == ""
    assert "usage: attnkit show" in err and message in err


LESSON_LINK = re.compile(r"lessons/(en|zh)/(\w+)\.md#?([\w-]*)")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_presets_title_names_its_lessons_as_files_in_the_learners_language(preset, lang):
    """A preset's first line points at the lesson it draws as the path a learner opens
    (lessons/zh/ref_kv_cache.md#frame-past3-new2), in their language, its note included."""
    with speaking(lang):
        head = render(PRESETS[preset]).split("\n")[0]
    links = LESSON_LINK.findall(head)
    assert links and all(link_lang == lang for link_lang, _, _ in links), head
    for _, lesson, anchor in links:
        text = (LESSONS_DIR / lang / f"{lesson}.md").read_text(encoding="utf-8")
        assert not anchor or f'<a id="{anchor}"></a>' in text, (head, anchor)
    assert not re.search(r"\blessons [a-z]", head), head
    if lang == "zh":
        assert not re.search(r"[a-z]{3,} [a-z]{3,}", LESSON_LINK.sub("", head)), head  # no English words left
