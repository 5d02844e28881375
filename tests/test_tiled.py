"""Step 10, tiled attention with an online softmax, on the reference solutions: it is step 6's O to 1e-12 in
float64 for every block size and mask (hypothesis), a row that sees nothing gives zeros without a warning, the
lesson's worked example holds as printed (the known mistakes' rows too), and the largest array it holds is a few
blocks [T_q, block], where step 6's plain attention holds [T_q, T_k]: measured by the learner harness on the
public and the hidden case, in the checkout's harness, in the stored form the release and the notebook judge, and
through the grader's sandbox on a submission that walks all the keys as one block."""
import json
from pathlib import Path

import numpy as np
import pytest

from attnkit import cases, checks, mistakes
from attnkit.catalogue_diagnosis import CATALOGUE
from attnkit.portable_cases import case_spec
from attnkit.show_frames import PRESETS, render, running_maximum
from attnkit.grader import submission
from attnkit.grader.bench import copy_solutions
from attnkit.grader.grade import grade_submission
from attnkit.grader.plan import Plan
from attnkit.grader.runners import SandboxRunner
from attnkit.grader.sandbox import Limits, run_submission
from attnkit.grader.sandbox_types import Stopped
from attnkit.grader.sandbox_zygote import Zygote
from attnkit.paths import SOLUTIONS_DIR
from attnkit_runtime import harness, stored
from attnkit_runtime.judge import portable_case
from attnkit_runtime.status import Status
from grading_support import run_cli
from test_properties import SETTINGS, TOL, frames, no_warnings

pytest.importorskip("hypothesis", reason="hypothesis is not installed (pip install -e '.[dev]')")
from hypothesis import given, strategies as st  # noqa: E402

BLOCKS = ("one", "two", "uneven", "all", "more")  # block sizes as a share of T_k: 1, 2, T_k - 1, T_k, T_k + 3


def _block(kind, T_k):
    return {"one": 1, "two": 2, "uneven": max(T_k - 1, 1), "all": T_k, "more": T_k + 3}[kind]


def _mask(kind, rng, T_q, T_k):
    """None (causal, bottom-right), a random table, or a random table with its first row hidden and the last
    row's first key hidden (a row that sees nothing; a row whose first block may be all hidden)."""
    if kind == "causal":
        return None
    visible = rng.random((T_q, T_k)) < 0.6
    if kind == "empty_rows":
        visible[0] = False
        visible[-1, 0] = False
    return visible


@SETTINGS
@given(frames(), st.sampled_from(BLOCKS), st.sampled_from(["causal", "random", "empty_rows"]))
def test_tiled_is_step6_for_every_block_size_and_mask(ref, frame, block, mask):
    Q, K, V, rng = frame
    visible = _mask(mask, rng, Q.shape[0], K.shape[0])
    with no_warnings():
        O = ref.step10_tiled.attention_tiled(Q, K, V, visible, _block(block, K.shape[0]))
    with np.errstate(all="ignore"):
        plain = ref.step6_head.attention(Q, K, V, visible)[0]
    np.testing.assert_allclose(O, plain, **TOL)


def test_the_kv_cache_frame_reads_bottom_right_in_blocks(ref):
    """past = 3, new = 2, blocks of 2: equal scores average keys 0-3 for the first new token, 0-4 for the second."""
    V = np.arange(5.0)[:, None]
    O = ref.step10_tiled.attention_tiled(np.zeros((2, 2)), np.ones((5, 2)), V, block=2)
    np.testing.assert_allclose(O, [[1.5], [2.0]], **TOL)


def test_a_row_that_sees_nothing_gives_zeros_without_a_warning(ref):
    visible = np.array([[False] * 4, [False, False, True, True]])
    with no_warnings():
        O = ref.step10_tiled.attention_tiled(np.zeros((2, 3)), np.ones((4, 3)), np.arange(4.0)[:, None] + 1, visible, 2)
    np.testing.assert_array_equal(O, [[0.0], [3.5]])


# --- the lesson's worked example (lessons/en/step10_tiled.md#worked-example) ----------------------------
Q_EX, K_EX, V_EX = np.array([[2.0, 0, 0, 0]]), np.array([[1.0, 0, 0, 0], [3.0, 0, 0, 0]]), np.array([[1.0, 0], [0, 2]])
C = np.exp(-2.0)  # exp(1 - 3): the second block raises the maximum from 1 to 3


def _printed(got, want):
    np.testing.assert_allclose(got, want, rtol=0, atol=0.5e-4 + 1e-9)  # the lesson prints 4 decimals


def test_the_worked_example_step_by_step(ref):
    update = ref.step10_tiled.online_softmax_update
    m, l, acc = update(np.array([-np.inf]), np.zeros(1), np.zeros((1, 2)), np.array([[1.0]]), V_EX[:1])
    assert (m, l) == (1.0, 1.0) and acc.tolist() == [[1.0, 0.0]]
    m, l, acc = update(m, l, acc, np.array([[3.0]]), V_EX[1:])
    assert m == 3.0
    _printed(C, 0.1353)
    _printed(l, [1.1353])
    _printed(acc, [[0.1353, 2.0]])
    _printed(acc / l[:, None], [[0.1192, 1.7616]])
    O = ref.step10_tiled.attention_tiled(Q_EX, K_EX, V_EX, block=1)
    np.testing.assert_allclose(O, ref.step6_head.attention(Q_EX, K_EX, V_EX)[0], **TOL)
    _printed(O, [[0.1192, 1.7616]])


@pytest.mark.parametrize("code, printed", [("online_not_rescaled", [[0.5, 1.0]]),
                                           ("online_output_not_rescaled", [[0.8808, 1.7616]]),
                                           ("tiled_division_missing", [[0.1353, 2.0]])])
def test_the_lessons_table_of_mistakes_is_what_each_mistake_gives(code, printed):
    (overrides,) = mistakes.slip_overrides(code)
    _printed(overrides[("step10_tiled", "attention_tiled")](Q_EX, K_EX, V_EX, block=1), printed)


# --- the largest array it holds ---------------------------------------------------------------------------
MEMORY_CASES = ("attention_tiled_holds_one_block", "attention_tiled_holds_one_block_causal")
MANY_KEYS = "attention_tiled_holds_one_block_of_many_keys"  # hidden, sized for the grader's outside measure


def _judged(fn, case):
    """The CaseResult of `fn` on `case`, called and judged by the learner harness as the public tests do."""
    calls = case.build_calls()
    outcome = harness.call_case(fn, case, calls)
    return harness.judge_outcome(case, calls, outcome, None, checks.expected_forms(case, calls), CATALOGUE)


@pytest.mark.parametrize("name", MEMORY_CASES)
def test_the_reference_holds_a_few_blocks_and_step6_holds_every_score(ref, name):
    case = cases.case(name)
    tiled = _judged(ref.step10_tiled.attention_tiled, case)
    assert tiled.status is Status.PASSED, tiled.message
    plain = _judged(_plain, case)
    assert plain.status is Status.FAILED and plain.problem == "property", plain.message
    assert plain.diagnosis == "tiled_holds_every_key"


def _plain(Q, K, V, visible=None, block=64):
    """Step 6's attention in place of the walk: every score [T_q, T_k] at once."""
    from attnkit.reference import reference_function
    return reference_function("step6_head", "attention")(Q, K, V, visible)[0]


@pytest.mark.parametrize("name", MEMORY_CASES)
def test_the_stored_case_of_the_release_and_the_notebook_measures_too(ref, name):
    spec = case_spec(cases.case(name))
    case = portable_case("step10_tiled", spec)
    calls = [stored.call(call) for call in spec["calls"]]
    found = stored.StoredMistakes({name: spec["mistakes"]})
    results = {fn: harness.judge_outcome(case, calls, harness.call_case(fn, case, calls), None, case.forms, found)
               for fn in (ref.step10_tiled.attention_tiled, _plain)}
    assert results[ref.step10_tiled.attention_tiled].status is Status.PASSED
    assert results[_plain].status is Status.FAILED and results[_plain].diagnosis == "tiled_holds_every_key"


def test_the_sandbox_measures_the_learners_call(tmp_path):
    """A submission that walks every key as one block gets every value right and loses the memory cases only,
    named: the peak is measured in the sandboxed child and judged by the grader."""
    sub = copy_solutions(tmp_path / "one_block", ("step10_tiled.py", "    for start in range(0, T_k, block):",
                                                  "    block = max(T_k, 1)\n    for start in range(0, T_k, block):"))
    graded = grade_submission(Plan("modern"), SandboxRunner(), submission.read(sub))
    lost = {t.name: t for t in graded.tests if t.status is not Status.PASSED}
    assert set(lost) == {*MEMORY_CASES, MANY_KEYS}, {n: t.output for n, t in lost.items()}
    assert {lost[name].diagnosis for name in (*MEMORY_CASES, MANY_KEYS)} == {"tiled_holds_every_key"}
    assert "held" in lost[MEMORY_CASES[1]].output
    many = lost[MANY_KEYS]  # its every key at once is past the capped address space: failed, as the others
    assert many.status is Status.FAILED, many.output
    assert "ran out of memory" in many.output and "Unable to allocate" in many.output, many.output
    assert "one block at a time" in many.output and "likely mistake" in many.output, many.output


def _out_of_memory(Q, K, V, visible=None, block=64):
    raise MemoryError("Unable to allocate 48.8 MiB for an array with shape (64, 100000) and data type float64")


def test_a_memory_case_whose_call_runs_out_of_memory_fails_its_property_and_names_the_mistake():
    """A memory case's call that runs out of memory (in the grader: the address space capped past what the call
    may hold) has held too much at once: the case fails as its property does, with the case's advice and the
    mistakes that fail it by memory alone, not as a crash with a bare MemoryError."""
    case = cases.case(MANY_KEYS)
    calls = case.build_calls()
    outcome = harness.call_case(_out_of_memory, case, calls)
    assert outcome.ending == harness.Ending.OUT_OF_MEMORY, outcome
    got = harness.judge_outcome(case, calls, outcome, None, checks.expected_forms(case, calls), CATALOGUE)
    assert (got.status, got.problem, got.diagnosis) == (Status.FAILED, "property", "tiled_holds_every_key"), got.message
    assert "ran out of memory" in got.message and "[64, 256]" in got.message, got.message


def test_a_memory_error_outside_a_memory_case_is_the_learners_error_as_before():
    case = cases.case(MEMORY_CASES[0].replace("holds_one_block", "worked_example"))
    outcome = harness.call_case(_out_of_memory, case, case.build_calls())
    assert (outcome.ending, outcome.error_type) == (harness.Ending.RAISED, "MemoryError"), outcome


FORGED_PEAK = """

import ctypes as _ctypes
import tracemalloc as _tracemalloc

_right_attention_tiled = attention_tiled


def attention_tiled(Q, K, V, visible=None, block=64):
    scores = Q @ K.T  # every key at once: [T_q, T_k]
    scores = scores + 1.0
    O = _right_attention_tiled(Q, K, V, visible, block)
    del scores
    _tracemalloc.reset_peak()  # what tracemalloc saw is forgotten
    try:  # and the kernel's high-water mark of the process, if it may
        _ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return O
"""


def test_a_call_that_hides_its_peak_from_tracemalloc_still_loses_the_memory_case_in_the_grader(tmp_path):
    """The grader judges a memory case on the kernel's peak resident memory of a process that makes only that
    call, read outside it, beside the peak tracemalloc saw in it: the whole [T_q, T_k] scores of the large
    hidden case show there whatever the call did to tracemalloc or its own counters."""
    sub = copy_solutions(tmp_path / "forged")
    with open(f"{sub}/step10_tiled.py", "a", encoding="utf-8") as f:
        f.write(FORGED_PEAK)
    graded = grade_submission(Plan("modern"), SandboxRunner(), submission.read(sub))
    lost = {t.name: t for t in graded.tests if t.status is not Status.PASSED}
    assert MANY_KEYS in lost, sorted(lost)
    assert set(lost) <= {*MEMORY_CASES, MANY_KEYS}
    assert "Unable to allocate" in lost[MANY_KEYS].output, lost[MANY_KEYS].output  # past its capped address space
    assert lost[MANY_KEYS].status is Status.FAILED and lost[MANY_KEYS].diagnosis == "tiled_holds_every_key"


def test_where_the_memory_case_cannot_be_held_outside_it_is_not_run_saying_why(monkeypatch):
    monkeypatch.setattr(Zygote, "memory", lambda self, room=None: {})  # as where /proc/PID/status or prlimit fails
    jobs = [job for job in Plan("modern").jobs if job.step == "step10_tiled"]
    sources = {p.name: p.read_text(encoding="utf-8") for p in SOLUTIONS_DIR.glob("*.py")}
    results = run_submission(sources, jobs, Limits()).results
    for job in jobs:
        got = results[job.key]
        if job.measure_peak:
            assert got.ending == Stopped.NOT_RUN and "cannot limit or measure the memory" in got.error, got
        else:
            assert got.ending == "returned", got


# --- attnkit show tiled -----------------------------------------------------------------------------------
def test_the_show_frame_gives_each_rows_running_maximum_per_block():
    """Rows queries, columns blocks: the maximum of every key seen so far, for the frame past = 3, new = 2."""
    frame = PRESETS["tiled"]
    S, m = running_maximum(frame)
    block_max = np.stack([S[:, start:stop].max(axis=1) for start, stop in frame.blocks()], axis=1)
    np.testing.assert_array_equal(m, np.maximum.accumulate(block_max, axis=1))
    np.testing.assert_array_equal(m, [[1.0, 2.0, 2.0], [1.0, 1.5, 3.0]])  # as the lesson tells it
    text = render(frame)
    assert "keys 0–1  keys 2–3   key 4" in text and "1.0000    1.5000  3.0000" in text


def test_a_batch_names_the_memory_mistake_whatever_was_graded_before_it(tmp_path):
    """The grader judges in threads while tracemalloc counts every thread's allocations: a mistaken world's
    peak measured while other submissions are judged was inflated, so a mistake that holds no more than
    the reference (a NaN on unseen rows) was named for a submission that holds every key."""
    edits = {"a_nan": ("step10_tiled.py", "shift = np.where(np.isneginf(m_new), 0.0, m_new)", "shift = m_new"),
             "b_hog": ("step10_tiled.py", "    for start in range(0, T_k, block):",
                     "    block = max(T_k, 1)\n    for start in range(0, T_k, block):")}
    folders = [copy_solutions(tmp_path / f"{name}{k}", edit) for name, edit in edits.items() for k in range(3)]
    graded = run_cli("grade", "--track", "modern", "--json", *map(str, folders))
    rows = {Path(row["submission"]).name: row for row in map(json.loads, graded.stdout.splitlines())}
    named = {(folder, t["name"]): t["diagnosis"] for folder in ("b_hog0", "b_hog1", "b_hog2")
             for t in rows[folder]["tests"] if t["name"].startswith("attention_tiled_holds") and t["status"] == Status.FAILED}
    assert named and set(named.values()) == {"tiled_holds_every_key"}, named
