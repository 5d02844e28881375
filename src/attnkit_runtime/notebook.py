"""What the notebook's test cells run: a step's cases on the learner's functions, judged in the kernel.

The course builder puts this package beside the notebook (source/<assignment>/attnkit_runtime/), and the
locked checks cell imports this module as `_ak`, so the notebook needs nothing but numpy and its messages
and verdicts are the kit's: every case is judged by the one harness (`harness`) on data in the one
stored case form (`stored`). The cell ends with `configure(assignment, digest)`: the course's steps, their points and
their public cases are read from data/<assignment>.json in this package's folder. A test cell is one
call, `check("step2_scores")`: it runs the step's public cases and, in the course folder at grading,
its hidden ones (`find_hidden`), prints the outcome and returns the points the cell earns: each case
its share of the step's points by weight, paid by the rule of `credit` (the one `attnkit grade` uses),
a case failed only on an earlier step it called that fails its own checks counted as passed (`attnkit
grade` runs the reference of that step: no double penalty). nbgrader reads a test cell's number as its
partial credit. A cell that earns nothing raises an error that IPython shows as the message alone
(nbgrader then gives it 0 points). The test cells are the same in the released notebook (no
hidden-tests block for nbgrader to strip, so a returned test cell keeps the checksum nbgrader recorded).
"""
import hashlib
import inspect
import json
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import credit, harness, notebook_namespace, stored
from .harness import Ending
from .judge import Verdict, portable_case, teaching_message
from .i18n import pick
from .messages import say
from .notebook_feedback import (MOST_MESSAGES, StepFailed, StepNotWritten, blocked_by, exception_text, progress_table, text,
                                their_frames)
from .status import Status

HIDDEN_DIR = "hidden_tests"  # in the course root, beside source/: nbgrader never copies it anywhere
COURSE_CONFIG = "nbgrader_config.py"  # in the course root: where the hidden cases must be found
_COURSE_MARKS = (COURSE_CONFIG, "gradebook.db", HIDDEN_DIR)  # any of them above: a course folder
DATA_DIR = Path(__file__).resolve().parent / "data"  # the course builder writes the public checks here


def public_checks_name(assignment):
    """The file of DATA_DIR holding `assignment`'s steps and public checks."""
    return f"{assignment}.json"


def find_hidden(assignment, digest, start=None):
    """The hidden cases, from <an ancestor of the working directory>/hidden_tests/<assignment>.json.

    nbgrader runs the notebook in its own folder (source/…, autograded/<student>/…), below the course
    root. A file whose SHA-256 is not `digest` (a copy a submission brought along) is passed over.
    None when no ancestor is a course folder (one holding a _COURSE_MARKS name): a student's own copy.
    FileNotFoundError in a course folder without the file, or only with changed ones (named), so
    grading never skips them silently.
    """
    here = Path(start or Path.cwd()).resolve()
    in_course, changed = False, []
    for folder in (here, *here.parents):
        path = folder / HIDDEN_DIR / f"{assignment}.json"
        if path.is_file():
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() == digest:
                return json.loads(data)
            changed.append(path)
        in_course = in_course or any((folder / mark).exists() for mark in _COURSE_MARKS)
    if not in_course:
        return None
    if changed:
        raise FileNotFoundError(text("hidden_changed", path=changed[-1], digest=digest[:12]))
    raise FileNotFoundError(text("hidden_missing", path=f"{HIDDEN_DIR}/{assignment}.json", digest=digest[:12],
                                 here=here))


class StepChecks:
    """The checks of one step (`step`: the step's dict given to `configure`) on the functions in `namespace`."""

    def __init__(self, step, namespace, log=None, earlier_passes=None):
        """`log`: the CallLog whose wrappers the namespace holds for the earlier steps' functions;
        `earlier_passes(module)`: whether an earlier step passes its own checks (harness.judge_outcome)."""
        self.step = step
        self.module = step["module"]
        self.namespace = namespace
        self.log, self.earlier_passes = log, earlier_passes
        self.counts = {"public": [0, 0], "hidden": [0, 0]}  # [passed, run]
        self.failures = []  # (visibility, concept, text, the learner's raising frames or None)
        self.not_written = {}  # NotImplementedError message -> whether it is this step's own, once each
        self.blamed = {}  # the earlier steps (modules) failing cases called that fail their own checks
        self.blamed_failures = 0  # failures of cases that called one of them, told by one pointer to it
        self.judged = []  # (credit.Judged, weight) of every case run, for the points

    def run(self, spec, visibility="public"):
        """Run one case (in the stored form of `stored.py`, made by the course builder) on the learner's
        function and judge it with the harness."""
        case = portable_case(self.module, spec)  # its two-language texts are picked where they are shown
        calls = [stored.call(call) for call in spec["calls"]]
        self.counts[visibility][1] += 1
        judged = self._judge(case, spec, calls)
        # failed on a failing earlier step it called (not on a stub: this step's own code may be one too)
        blamed = judged.message is not None and judged.result is not None and bool(judged.result.blamed)
        self.judged.append((credit.Judged((self.module, case.function), visibility == "public",
                                          spec["expected"] is not None,
                                          Status.PASSED if blamed else judged.status,
                                          judged.result.diagnosis if judged.result else None, case.tolerance,
                                          None if blamed else judged.parts), spec.get("weight", 1.0)))
        if judged.message is None:
            return
        if not judged.message:
            self.counts[visibility][0] += 1
        elif blamed:  # it ran on a failing earlier step it called: the pointer to that step says it (report)
            self.blamed_failures += 1
        else:
            self.failures.append((visibility, pick(case.concept), judged.message, judged.raised_at))

    def _judge(self, case, spec, calls):
        """The case's _Judged: its teaching message ("" when it passed, None for a function not written
        yet), where the learner's code raised, its CaseResult (None for a function not defined)."""
        fn = self.namespace.get(case.function)
        if not callable(fn):
            return _Judged(teaching_message(case, calls, Verdict(False, "missing", text("not_defined", function=case.function))),
                           Status.FAILED)
        outcome = harness.call_case(fn, case, calls, self.log, seconds=0)  # nbgrader's cell timeout is the limit
        result = harness.judge_outcome(case, calls, outcome, lambda: stored.outputs(spec["expected"]), case.forms,
                                       stored.StoredMistakes({case.name: spec["mistakes"]}), self.earlier_passes)
        self.blamed.update(dict.fromkeys(result.blamed))

        def parts():
            return [(call, v) for call, out in zip(calls, outcome.results or ()) for v in out.values()]

        if outcome.ending == Ending.NOT_WRITTEN:
            stub = self.step if result.not_written else COURSE["steps"].get(outcome.earlier_stub)
            said = (harness.stub_text(stub["number"], stub["module"], stub["read"], outcome.exception)
                    if stub is not None else outcome.error)
            self.not_written.setdefault(said, result.not_written)
            return _Judged(None, result.status, result=result)
        if outcome.ending == Ending.RAISED:  # the message shows where in the learner's code it raised
            frames = their_frames(outcome.exception, cell_names(self.namespace))
            verdict = Verdict(False, "exception", exception_text(outcome.exception, frames))
            return _Judged(teaching_message(case, calls, verdict, result.diagnosis_text), result.status,
                           (outcome.error_type, *frames), result, parts)
        return _Judged(result.message, result.status, None, result, parts)

    def run_all(self, hidden):
        """The step's public cases, then its hidden ones (`hidden`: the hidden-cases file's data, or None)."""
        for spec in self.step["public"]:
            self.run(spec)
        for spec in hidden["steps"][self.module] if hidden else ():
            self.run(spec, "hidden")
        return self

    def score(self):
        """The points this step's cases earn (credit's rule, each case its weight's share of the step's)."""
        paying = credit.paid([j for j, _ in self.judged])
        return credit.step_score(self.step["points"], [w for _, w in self.judged], paying)

    @property
    def outcome(self):
        """"passed", "failed" or "not_started" (every failure a stub's NotImplementedError)."""
        if self.failures or self.blamed_failures:
            return "failed"
        return "not_started" if self.not_written else "passed"

    def _shown_and_rest(self):
        """The failures shown in full and the others: the first public and the first hidden one, then
        more up to MOST_MESSAGES, one per place where the learner's code raised."""
        chosen, places = set(), set()
        firsts = [next(k for k, f in enumerate(self.failures) if f[0] == v) for v in ("public", "hidden")
                  if any(f[0] == v for f in self.failures)]
        for k in [*firsts, *range(len(self.failures))]:
            raised_at = self.failures[k][3]
            if len(chosen) < MOST_MESSAGES and k not in chosen and (raised_at is None or raised_at not in places):
                chosen.add(k)
                places.add(raised_at)
        return ([f for k, f in enumerate(self.failures) if k in chosen],
                [f for k, f in enumerate(self.failures) if k not in chosen])

    def report(self, blockers=(), score=0.0):
        """Print the summary and messages of a step that earns `score` points; raise StepFailed /
        StepNotWritten instead when it earns none and not everything passed.

        `blockers`: earlier steps (dicts) that this step's failing cases called and that do not pass their
        own checks: they are named first, in place of the failures of the cases that called them; the
        other failures follow with their likely mistakes.
        """
        (public_ok, public_run), (hidden_ok, hidden_run) = self.counts["public"], self.counts["hidden"]
        lines = [text("summary", module=self.module, public_ok=public_ok, public_run=public_run)
                 + (text("summary_hidden", hidden_ok=hidden_ok, hidden_run=hidden_run) if hidden_run else "")]
        if self.outcome == "passed":
            concepts = pick(self.step["hidden_concepts"])
            if not hidden_run and concepts:
                lines.append(text("hidden_also", concepts=say("ladder.concept_separator").join(concepts)))
            if score != self.step["points"]:  # passed cases that the rule does not pay
                lines.append(text("earned", earned=score, points=self.step["points"]))
            print("\n".join(lines))
            return
        own = [t for t, mine in self.not_written.items() if mine] or ([] if blockers else list(self.not_written))
        pointers = [blocked_by(blockers)] if blockers else []
        if not self.failures and not self.blamed_failures and not score:  # only stubs' NotImplementedError
            raise StepNotWritten("\n\n".join([*own, *pointers]))
        lines += ["\n" + text("not_written", text=t) for t in own] + ["\n" + p for p in pointers]
        shown, rest = self._shown_and_rest()
        lines += ["\n" + text("failed_check", visibility=text(v), text=t) for v, _, t, _ in shown]
        if rest:
            concepts = say("ladder.concept_separator").join(dict.fromkeys(c for _, c, _, _ in rest))
            lines.append("\n" + text("more", count=len(rest), concepts=concepts))
        lines += ["", text("earned", earned=score, points=self.step["points"])]
        if not score:
            raise StepFailed("\n".join(lines))
        print("\n".join(lines))


@dataclass
class _Judged:
    """What StepChecks._judge found for one case (see there); `parts()` as credit.Judged's."""

    message: str | None
    status: Status
    raised_at: tuple | None = None
    result: harness.CaseResult | None = None
    parts: object = None


COURSE = {}  # set by configure(): "assignment", "digest", "steps" {module: step dict}
OUTCOMES = {}  # {module: (outcome, points earned)} of the test cells run in this kernel, for progress()


def configure(assignment, digest):
    """Called at the end of the checks cell: the assignment and the SHA-256 of its hidden-cases file. Its
    steps are read from DATA_DIR ([{module, number, title, points, read, depends_on, hidden_concepts, public}])."""
    steps = json.loads((DATA_DIR / public_checks_name(assignment)).read_text(encoding="utf-8"))
    COURSE.update(assignment=assignment, digest=digest, steps={s["module"]: s for s in steps})
    notebook_namespace.install(sys._getframe(1).f_globals)  # `from step3_masks import …` gives the notebook's names


def cell_names(namespace):
    """{file name of a cell, as Python compiled it: "the cell of step 3 (step3_masks)"} for the cells in
    `namespace` that define the course's steps' functions."""
    names = {}
    for module, step in COURSE.get("steps", {}).items():
        for name in _functions(module):
            code = getattr(inspect.unwrap(namespace[name]), "__code__", None) if callable(namespace.get(name)) else None
            if code is not None:
                names.setdefault(code.co_filename, text("cell_of", number=step["number"], module=module))
    return names


def _functions(module):
    """The functions of step `module` the checks call (its public cases name them)."""
    return list(dict.fromkeys(spec["function"] for spec in COURSE["steps"][module]["public"]))


@contextmanager
def earlier_steps_watched(module, namespace, hidden):
    """(log, earlier_passes) for StepChecks of step `module`: while the block runs, the earlier steps'
    functions in `namespace` are wrapped by the harness.CallLog `log`, and `earlier_passes(m)` runs step
    m's own checks (once), so an earlier step is named only when a failing case called it and it fails."""
    earlier = {m: _functions(m) for m in COURSE["steps"][module]["depends_on"]}
    kept = {name: namespace[name] for names in earlier.values() for name in names if name in namespace}
    log, passes = harness.CallLog(), {}

    def earlier_passes(m):
        if m not in passes:
            passes[m] = StepChecks(COURSE["steps"][m], namespace).run_all(hidden).outcome == "passed"
        return passes[m]

    log.wrap_namespace(namespace, earlier)
    try:
        yield log, earlier_passes
    finally:
        namespace.update(kept)  # the learner's own functions again, unwrapped


def check(module):
    """A test cell: run step `module`'s checks on the functions defined in the calling cell's namespace;
    return the points the cell earns (a float: nbgrader reads the cell's result as its partial credit)."""
    namespace = sys._getframe(1).f_globals
    hidden = find_hidden(COURSE["assignment"], COURSE["digest"])
    with earlier_steps_watched(module, namespace, hidden) as (log, earlier_passes):
        checks = StepChecks(COURSE["steps"][module], namespace, log, earlier_passes).run_all(hidden)
    score = checks.score()
    OUTCOMES[module] = (checks.outcome, score)
    checks.report([COURSE["steps"][m] for m in checks.blamed], score)
    return score


def progress():
    """The closing cell: a table of the steps whose test cells ran in this kernel, and the points so far."""
    hidden = find_hidden(COURSE["assignment"], COURSE["digest"])
    print(progress_table(list(COURSE["steps"].values()), OUTCOMES, hidden is not None))
