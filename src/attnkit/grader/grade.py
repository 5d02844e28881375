"""Grade one submission: run its calls through a runner, judge each case here, add up the points.

The runner (the sandbox for learner code, `runners.InProcessRunner` for trusted callables) only
makes the calls, as the learner harness makes them (attnkit_runtime.harness.call_case, one call at a
time); the verdicts, diagnoses and points are computed in this process, by the harness's
`judge_outcome` with the mistake catalogue, so a case gets the status and words it gets in the
checkout (a function that changes its arguments in place fails). The sandbox's own endings (a crash,
a spent budget, a file that does not import, a garbled answer, a call not made) are worded here. Each step is
graded on its own: its cases run with the reference versions of the earlier steps it imports, so a
mistake costs points only in the step that made it (an earlier step that passed every one of its
cases serves as its own reference: the runner asks `passed`, judged here step by step). Which passed
cases pay is attnkit.credit's rule: a function's public and property cases only once it passes a
hidden value case.
"""
import functools
import time
from dataclasses import dataclass, field, replace

from .. import credit
from ..catalogue_diagnosis import CATALOGUE
from attnkit_runtime import harness, judge
from attnkit_runtime.harness import Ending
from attnkit_runtime.i18n import pick
from attnkit_runtime.messages import say
from attnkit_runtime.status import Status
from . import feedback_grids
from .sandbox_types import Stopped


@dataclass(frozen=True)
class TestResult:
    name: str
    step: str
    score: float
    max_score: float
    status: Status  # its JSON is the word: passed / failed / error / timeout (docs/CONTRACT.md)
    output: str
    diagnosis: str | None
    public: bool
    not_written: bool = False  # its step is not written yet (a stub's NotImplementedError, or no file)
    grid: dict | None = None  # a failed public test's expected and got cells (feedback_grids), for the feedback
    alike: tuple = ()  # the known mistakes the test cannot tell apart, `diagnosis` first (harness.CaseResult.diagnoses)

    def as_spec(self):
        return {"name": self.name, "step": self.step, "score": self.score, "max_score": self.max_score,
                "status": self.status, "output": self.output, "diagnosis": self.diagnosis}


@dataclass
class Graded:
    """One submission's grade; `as_spec()` is the grading JSON's object (docs/CONTRACT.md)."""

    submission: str
    score: float
    max_score: float
    tests: list
    steps: dict  # step module -> (score, max_score)
    stdout: str = ""
    stderr: str = ""
    seconds: dict = field(default_factory=dict)  # {"run": sandbox, "calls": learner's calls in it, "judge": here}
    isolation: str = ""  # what isolated the learner's code, a sandbox_types.Isolation word ("" when none of it ran)
    found_in: str = ""  # where in the folder given its step files were ("": at its top)
    problem: str = ""  # why it was not graded at all ("" when it was): every test is then an error saying so

    @property
    def diagnoses(self):
        return sorted({t.diagnosis for t in self.tests if t.diagnosis})

    def as_spec(self):
        return {"submission": self.submission, "score": self.score, "max_score": self.max_score,
                "tests": [t.as_spec() for t in self.tests], "diagnoses": self.diagnoses}

    def as_record(self):
        """as_spec() plus what the reports need besides it (kept in the batch journal)."""
        return {**self.as_spec(),
                "tests": [{**t.as_spec(), "not_written": t.not_written, "grid": t.grid, "alike": list(t.alike)}
                          for t in self.tests],
                "steps": {m: list(v) for m, v in self.steps.items()},
                "stdout": self.stdout, "stderr": self.stderr, "isolation": self.isolation, "found_in": self.found_in,
                "problem": self.problem}

    @classmethod
    def from_record(cls, record, public_names):
        tests = [TestResult(**{**t, "status": Status(t["status"]), "alike": tuple(t.get("alike", ()))},
                            public=t["name"] in public_names)
                 for t in record["tests"]]
        return cls(record["submission"], record["score"], record["max_score"], tests,
                   {m: tuple(v) for m, v in record["steps"].items()}, record["stdout"], record["stderr"],
                   **{key: record.get(key, "") for key in ("isolation", "found_in", "problem")})


def grade_submission(plan, runner, sub):
    """Grade `sub`, a `submission.Submission` as read from disk."""
    graded = grade(plan, runner, sub.sources, sub.name, sub.problem, sub.unreadable)
    return replace(graded, found_in=sub.found_in)


def grade(plan, runner, sources, name, problem="", unreadable=None):
    """Grade the files `sources` ({filename: text}) as submission `name`.

    `problem`, when set, says why the submission could not be read; every test then fails with it.
    `unreadable` ({filename: why}) names step files that were refused: their step's tests are errors.
    """
    unreadable = unreadable or {}
    early = {}  # case name -> TestResult of the steps judged while later steps ran (see _passed_every_case)
    judging = []  # the seconds each of those took (judging's, not the run's)

    def passed(step, results):
        begin = time.perf_counter()
        every = _passed_every_case(plan, step, results, early)
        judging.append(time.perf_counter() - begin)
        return every
    start = time.perf_counter()
    if problem:
        results, stdout, stderr, isolation = {}, "", "", ""
    else:
        run = runner(sources, plan.jobs, passed)
        results, stdout, stderr, isolation = run.results, run.stdout, run.stderr, str(run.tier)
    ran = time.perf_counter()
    calls = sum(r.seconds for r in results.values())
    missing = set() if problem else {m for m in plan.steps if f"{m}.py" not in sources}
    judged = []
    for planned in plan.cases:
        why, gone = problem or unreadable.get(planned.case.step.filename, ""), planned.case.step.module in missing
        judged.append(early[planned.case.name] if planned.case.name in early and not (why or gone)
                      else _judge(plan, planned, results, why, gone))
    pays = credit.paid(plan.cases, judged, results)
    tests = [t if paying or t.status is not Status.PASSED else _unpaid(t, planned.case)
             for t, planned, paying in zip(judged, plan.cases, pays)]
    steps = {}
    for module in plan.steps:
        mine = [(p.case.weight, paying) for p, paying in zip(plan.cases, pays) if p.case.step.module == module]
        worth = plan.step_points[module]
        steps[module] = (credit.step_score(worth, [w for w, _ in mine], [paying for _, paying in mine]), float(worth))
    score = round(sum(s for s, _ in steps.values()), 6)
    return Graded(name, score, float(sum(plan.step_points.values())), tests, steps, stdout, stderr,
                  {"run": ran - start - sum(judging), "calls": calls, "judge": time.perf_counter() - ran + sum(judging)},
                  isolation, problem=problem)


def _judge(plan, planned, results, problem, missing):
    case = planned.case
    calls = [results.get(key) for key in planned.keys]
    if missing and not problem:  # a missing file counts as not done (docs/CONTRACT.md)
        return _result(planned, Status.FAILED, _not_written(case, say("grade.file_missing", file=case.step.filename)),
                       None, True)
    if problem:
        return _result(planned, Status.ERROR, f"{judge.title(case)}\n  {say('grade.not_graded', problem=problem)}", None)
    if any(r is None for r in calls):
        return _result(planned, Status.ERROR, f"{judge.title(case)}\n  {say('grade.no_result')}", None)
    stopped = next((r for r in calls if r.ending != Ending.RETURNED), None)
    if stopped is not None and stopped.ending in _WORDS:  # `timeout`: a call that ran out of time (docs/CONTRACT.md)
        status = Status.TIMEOUT if stopped.ending == Stopped.BUDGET and stopped.exc_type == "time" else Status.ERROR
        words = _WORDS[stopped.ending]
        return _result(planned, status, f"{judge.title(case)}\n  "
                                        f"{say(words, error=stopped.error) if words else stopped.error}", None)
    judged = functools.partial(_verdict_and_grid, planned, calls)
    # warnings, changed arguments and memory peaks are judged beside the results: not memoised by them
    by_results = all(r.ending == Ending.RETURNED and r.parts is not None
                     and not (r.unnamed or r.warnings or r.modified or r.peaks) for r in calls)
    verdict, grid = plan.remembered(planned, [r.parts for r in calls], judged) if by_results else judged()
    output = _not_written(case, say("grade.replace_raise")) if verdict.not_written else verdict.message
    return _result(planned, verdict.status, output, verdict.diagnosis, verdict.not_written, grid, verdict.diagnoses)


def _verdict_and_grid(planned, calls):
    """(the harness's CaseResult, the feedback grid of a failed public case or None) of a case's calls (CallResults):
    both depend only on the case and the results, so Plan.remembered keeps them together (drawing the grid costs
    more than judging)."""
    case = planned.case
    outcome = harness.of_calls([harness.Outcome(r.ending, None if r.parts is None else [r.parts], r.unnamed,
                                                list(r.warnings), list(r.modified), (), r.exc_type, r.error,
                                                peaks=r.peaks, resident=r.resident, earlier_stub=r.earlier_stub)
                                for r in calls])
    verdict = harness.judge_outcome(case, planned.calls, outcome, planned.expected, planned.forms, CATALOGUE)
    grid = (feedback_grids.grid(case, planned.calls, outcome.results, planned.expected)
            if verdict.status is Status.FAILED and outcome.results is not None else None)
    return verdict, grid


# the message key that words the error of each of the sandbox's own endings (None: the error is worded)
_WORDS = {Stopped.NOT_RUN: None, Stopped.CRASHED: "grade.crashed", Stopped.GARBLED: "grade.garbled",
          Stopped.LOAD_ERROR: "grade.load_error", Stopped.BUDGET: None}


def _passed_every_case(plan, step, results, early):
    """Whether the results so far ({job key: CallResult}) pass every case of `step`, a step whose file
    was read and imported; its TestResults go to `early` ({case name: TestResult}), judged once."""
    judged = {p.case.name: _judge(plan, p, results, "", False) for p in plan.cases if p.case.step.module == step}
    early.update(judged)
    return all(t.status is Status.PASSED for t in judged.values())


def _unpaid(test, case):
    """A passed test whose function passed no hidden value test (attnkit.credit): 0 points, and why."""
    return replace(test, score=0.0, output=f"{judge.title(case)}\n  {say('grade.unpaid', function=case.function)}")


def _result(planned, status, output, code, not_written=False, grid=None, alike=()):
    case = planned.case
    return TestResult(case.name, case.step.module, planned.points if status is Status.PASSED else 0.0,
                      planned.points, status, output, code, case.public, not_written, grid, alike)


def points_split():
    """How the points of a submission are shared out, in the learner's language."""
    return say("grade.points_split")


def _not_written(case, what):
    line = say("grade.not_written", step=case.step.number, name=f"{case.step.module}.{case.function}",
               mark=say("grade.not_written_mark"), what=what)
    return f"{judge.title(case)}\n  {line}\n  {say('teach.read', where=pick(case.read))}"
