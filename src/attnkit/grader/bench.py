"""`attnkit bench`: grade a made-up class (correct, buggy and hanging submissions) and time it.

Correct submissions are the solutions or equivalent rewrites of them; buggy ones are the solutions
with one small text edit each (the scale left out, the bias left out, …); hanging ones loop forever
inside softmax. All go through the real pipeline (sandbox,
judging, diagnosis) with `--jobs` workers. Hanging submissions are timed separately: their cost is
the per-call time limit, not the grader's.
"""
import os
import shutil
import tempfile
import time
from pathlib import Path

from .. import manifest
from ..paths import SOLUTIONS_DIR
from . import batch
from .plan import Plan
from .runners import InProcessRunner, SandboxRunner

# (file, text in the solution, replacement, the diagnosis it should get): one learner's slip each
EDITS = (
    ("step2_scores.py", "return kq / math.sqrt(d_h)", "return kq", "scale_missing"),
    ("step2_scores.py", "return kq / math.sqrt(d_h)", "return kq / d_h", "scale_by_d"),
    ("step1_projection.py", "return Z @ W + b", "return Z @ W", "bias_missing"),
    ("step1_projection.py", "return Z @ W + b", "return Z @ W.T + b", "projection_transposed"),  # mostly raises
    ("step3_masks.py", "return j <= past + i", "return j < past + i", "mask_diagonal_excluded"),
    ("step3_masks.py", "combined = combined & table", "combined = combined | table", "mask_combined_with_or"),
    ("step3_masks.py", "return ~visible  # True = blocked", "return visible.copy()", "torch_mha_polarity"),
    ("step4_softmax.py", "E = np.exp(S - row_max)", "E = np.exp(S)", "softmax_unstable"),
    ("step5_values.py", "return P @ V", "return P @ V * 1.01", None),  # no known mistake: numbers only
    ("step6_head.py", "S = scale_scores(kq, D_h) + M", "S = kq + M", "scale_missing"),
)
# correct rewrites: the same numbers up to rounding, so their results are judged afresh
REWRITES = (
    None,
    ("step2_scores.py", "return kq / math.sqrt(d_h)", "return kq * (1.0 / math.sqrt(d_h))"),
    ("step2_scores.py", "return Q @ np.swapaxes(K, -1, -2)", "return np.einsum('...qd,...kd->...qk', Q, K)"),
    ("step5_values.py", "return P @ V", "return __import__('numpy').einsum('...qk,...kd->...qd', P, V)"),
)
HANG = ("step4_softmax.py", "row_max = S.max(axis=-1, keepdims=True)",
        "while True:\n        pass\n    row_max = S.max(axis=-1, keepdims=True)")


# Python loops where the solutions use one numpy expression: right, and tens of times slower
SLOW = (
    ("step1_projection.py", "return Z @ W + b  # [T, D_h]",
     "np = __import__('numpy')\n    rows = Z.reshape(-1, Z.shape[-1])  # every token of every leading axis\n"
     "    return np.array([[np.dot(z, W[:, j]) for j in range(W.shape[1])] for z in rows],"
     " dtype=np.result_type(Z, W)).reshape(Z.shape[:-1] + W.shape[1:]) + b"),
    ("step2_scores.py", "return Q @ np.swapaxes(K, -1, -2)  # [..., T_q, T_k]",
     "kq = np.zeros(np.broadcast_shapes(Q.shape[:-2], K.shape[:-2]) + (Q.shape[-2], K.shape[-2]),"
     " dtype=np.result_type(Q, K))\n"
     "    for i in range(Q.shape[-2]):\n"
     "        for j in range(K.shape[-2]):\n"
     "            kq[..., i, j] = (Q[..., i, :] * K[..., j, :]).sum(axis=-1)\n"
     "    return kq"),
    ("step4_softmax.py", "return np.divide(E, total, out=np.zeros_like(E), where=total > 0)  # [..., T_q, T_k]",
     "P = np.zeros_like(E)\n"
     "    for i in range(E.shape[-2]):\n"
     "        for j in range(E.shape[-1]):\n"
     "            t = total[..., i, 0]\n"
     "            P[..., i, j] = np.divide(E[..., i, j], t, out=np.zeros_like(t), where=t > 0)\n"
     "    return P"),
    ("step5_values.py", "return P @ V  # [..., T_q, D_h]",
     "np = __import__('numpy')\n"
     "    O = np.zeros(np.broadcast_shapes(P.shape[:-2], V.shape[:-2]) + (P.shape[-2], V.shape[-1]),"
     " dtype=np.result_type(P, V))\n"
     "    for i in range(P.shape[-2]):\n"
     "        for j in range(P.shape[-1]):\n"
     "            O[..., i, :] += P[..., i, j, None] * V[..., j, :]\n"
     "    return O"),
)
# what each graded function of a hostile submission does instead of its work
HOSTILE = {"loop": "while True:\n        pass", "sleep": "__import__('time').sleep(3600)",
           "allocate": "return bytearray(1 << 40)"}


def copy_slow(target):
    """Copy solutions/ to `target` with every SLOW edit applied; return its path."""
    path = copy_solutions(target)
    for edit in SLOW:
        _apply(path, edit)
    return path


def copy_hostile(target, kind, track=manifest.DEFAULT_TRACK):
    """Copy solutions/ to `target` with every graded function of `track` replaced by HOSTILE[kind]; return its path."""
    path = Path(copy_solutions(target))
    for step in manifest.steps(track):
        lines = [f"\n\ndef _{fn.name}(*args, **kwargs):\n    {HOSTILE[kind]}\n\n\n{fn.name} = _{fn.name}\n"
                 for fn in step.functions]
        with open(path / step.filename, "a", encoding="utf-8") as f:
            f.write("".join(lines))
    return str(path)


def copy_solutions(target, edit=None):
    """Copy solutions/ to `target`, with one (file, old text, new text, …) edit applied; return its path."""
    shutil.copytree(SOLUTIONS_DIR, target, ignore=shutil.ignore_patterns("__pycache__"))
    if edit:
        _apply(target, edit)
    return str(target)


def _apply(folder, edit):
    file, old, new = edit[:3]
    path = Path(folder) / file
    text = path.read_text(encoding="utf-8")
    if old not in text:
        raise ValueError(f"solutions/{file} no longer holds {old!r}")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def make_class(folder, n_correct, n_buggy, n_hanging):
    """Write the submissions under `folder`; return {"correct"|"buggy"|"hanging": [paths]}."""
    order = [("correct", REWRITES[k % len(REWRITES)]) for k in range(n_correct)]
    order += [("buggy", EDITS[k % len(EDITS)]) for k in range(n_buggy)]
    order += [("hanging", HANG)] * n_hanging
    kinds = {"correct": [], "buggy": [], "hanging": []}
    for k, (kind, edit) in enumerate(order):
        kinds[kind].append(copy_solutions(Path(folder) / f"{kind}{k:04d}", edit))
    return kinds


def sandbox_cpu():
    """CPU seconds used so far by this process's descendants (the sandbox), reaped ones included (Linux)."""
    return sum(sandbox_split().values())


def sandbox_split():
    """sandbox_cpu() by kind of process (Linux): {"children": the learner's code (one process per submission,
    reaped by its zygote), "zygotes": the zygotes and the bubblewrap processes above them, "reference": the
    reference workers (the earlier steps' reference for a step whose own earlier step failed), "other"}."""
    table = {}  # pid -> (parent, cmdline, own ticks, reaped children's ticks)
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        table[int(entry)] = (int(fields[1]), cmdline, int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14]))
    children = {}
    for pid, (parent, *_) in table.items():
        children.setdefault(parent, []).append(pid)
    split, todo = dict.fromkeys(("children", "zygotes", "reference", "other"), 0), list(children.get(os.getpid(), []))
    while todo:
        pid = todo.pop()
        parent, cmdline, own, reaped = table[pid]
        todo += children.get(pid, [])
        if _is_bwrap(cmdline):  # bubblewrap, whose command line holds the zygote's
            split["zygotes"] += own + reaped
        elif _ZYGOTE_MARK in cmdline:  # a zygote, or a child it forked (which carries its command line)
            above = table.get(parent, (0, b""))[1]
            split["children" if _ZYGOTE_MARK in above and not _is_bwrap(above) else "zygotes"] += own
            split["children"] += reaped
        elif b"reference_worker" in cmdline:
            split["reference"] += own + reaped
        else:
            split["other"] += own + reaped
    return {kind: ticks / os.sysconf("SC_CLK_TCK") for kind, ticks in split.items()}


_ZYGOTE_MARK = b"sandbox.sandbox_child"  # in the zygote's command line (sandbox_zygote._BOOTSTRAP)


def _is_bwrap(cmdline):
    return os.path.basename(cmdline.split(b"\0")[0]) == b"bwrap"


def _machine_busy():
    """CPU seconds the whole machine has been busy so far, every process counted (Linux)."""
    try:
        with open("/proc/stat") as f:
            ticks = list(map(int, f.readline().split()[1:]))
    except OSError:
        return 0.0
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # all but idle and iowait


def _timed(names, plan, runner, jobs):
    """({name: Graded}, {"wall", "grader", "machine", "sandbox" and each kind of sandbox_split}: seconds
    spent while grading them)."""
    clocks = {"wall": time.perf_counter, "grader": time.process_time, "machine": _machine_busy}
    before = {name: clock() for name, clock in clocks.items()}
    split = sandbox_split()
    done, _ = batch.run(names, plan, runner, jobs)
    spent = {name: clock() - before[name] for name, clock in clocks.items()}
    spent.update((kind, seconds - split[kind]) for kind, seconds in sandbox_split().items())
    spent["sandbox"] = sum(spent[kind] for kind in split)
    return done, spent


def _own_work(plan):
    """CPU seconds the calls of one submission take in this process, without a sandbox: the work itself."""
    runner, spent = InProcessRunner(), []
    for _ in range(5):
        start = time.process_time()
        runner({}, plan.jobs)
        spent.append(time.process_time() - start)
    return min(spent)


def run(n, jobs, hanging, limits=None):
    """Print the figures; return True when correct ones got 100 and buggy ones less."""
    n_buggy = n // 2
    start = time.perf_counter()
    plan = Plan()
    setup = time.perf_counter() - start
    runner = SandboxRunner(limits, allow_no_barrier=True)  # the class is made from the kit's own solutions
    with tempfile.TemporaryDirectory(prefix="attnkit-bench-") as folder:
        kinds = make_class(folder, n - n_buggy, n_buggy, hanging)
        # warm-up, one of each kind: starts the sandbox and builds the diagnosis tables (once per run)
        warm = [copy_solutions(Path(folder) / f"warm{k}", edit) for k, edit in enumerate(EDITS)]
        batch.run(warm, plan, runner, jobs)
        timed = {kind: _timed(kinds[kind], plan, runner, jobs) for kind in ("correct", "buggy")}  # a batch each
        hung, hang_spent = _timed(kinds["hanging"], plan, runner, jobs) if hanging else ({}, {"wall": 0.0})
    graded = {name: g for done, _ in timed.values() for name, g in done.items()}
    spent = {key: sum(kind_spent[key] for _, kind_spent in timed.values()) for key in timed["correct"][1]}
    count, cores = len(graded), os.cpu_count() or 1
    ms = {key: 1000 * value / count for key, value in spent.items()}
    judge = 1000 * sum(g.seconds["judge"] for g in graded.values()) / count
    cpu = ms["grader"] + ms["sandbox"]
    work = 1000 * _own_work(plan)
    others = max(0.0, spent["machine"] - spent["grader"] - spent["sandbox"]) / spent["wall"]
    print(f"cases: {len(plan.cases)} ({len(plan.jobs)} calls per submission); plan built in {setup:.2f} s")
    print(f"graded {count} submissions ({n - n_buggy} correct, {n_buggy} buggy) with --jobs {jobs} in "
          f"{spent['wall']:.2f} s: {count / spent['wall']:.1f} submissions/s ({ms['wall']:.1f} ms each), "
          "the correct ones in a batch, then the buggy ones:")
    for kind, words in (("correct", "clean (correct: the solutions and rewrites of them; each must score 100)"),
                        ("buggy", "buggy (one slip each; each must score less)")):
        done, kind_spent = timed[kind]
        if done:
            print(f"  {words}: {len(done)} in {kind_spent['wall']:.2f} s, {len(done) / kind_spent['wall']:.1f} "
                  f"submissions/s, CPU {1000 * (kind_spent['grader'] + kind_spent['sandbox']) / len(done):.1f} ms each")
    print(f"CPU per submission: {cpu:.1f} ms = grader process {ms['grader']:.1f} ms (judging {judge:.1f} ms) "
          f"+ sandbox processes {ms['sandbox']:.1f} ms; the calls' own work is {work:.1f} ms (in-process), "
          f"so the per-submission overhead is {cpu - work:.1f} ms")
    print(f"sandbox processes: learner's children {ms['children']:.1f} ms, zygotes {ms['zygotes']:.1f} ms, "
          f"reference workers {ms['reference']:.1f} ms" + (f", other {ms['other']:.1f} ms" if ms["other"] else ""))
    print(f"capacity: {1000 * cores / cpu:.1f} submissions/s on {cores} idle cores; other processes kept "
          f"{others:.1f} of the {cores} cores busy during the run")
    if hanging:
        print(f"hanging: {len(hung)} submissions graded in {hang_spent['wall']:.2f} s with --jobs {jobs} (a hanging "
              f"call is stopped at its limit, at most {runner.limits.call_cpu_seconds:g} s of CPU; after {runner.limits.max_timeouts_per_function} "
              "timeouts a function is not called again)")
    wrong = [g.submission for name, g in graded.items() if (g.score == g.max_score) != (name in kinds["correct"])]
    wrong += [g.submission for g in hung.values() if g.score == g.max_score]
    buggy = [graded[name].score for name in kinds["buggy"]]
    if buggy:
        hung_text = f", hanging {max(g.score for g in hung.values()):g}" if hung else ""
        print(f"scores: correct {min(graded[name].score for name in kinds['correct']):g}, buggy "
              f"{min(buggy):g}–{max(buggy):g}{hung_text}")
    if wrong:
        print("unexpected scores: " + ", ".join(Path(w).name for w in wrong))
    return not wrong
