"""Grade one submission: run its calls through a runner, judge each case here, add up the points.

The runner (the sandbox for learner code, `runners.InProcessRunner` for trusted callables) only
makes the calls; the verdicts, diagnoses and points are computed in this process. Each step is
graded on its own: its cases run with the reference versions of the earlier steps it imports, so a
mistake costs points only in the step that made it (an earlier step that passed every one of its
cases serves as its own reference: the runner asks `passed`, judged here step by step). Which passed
cases pay is attnkit.credit's rule: a function's public and property cases only once it passes a
hidden value case.
"""
import threading
import time
from dataclasses import dataclass, field, replace

import numpy as np

from .. import credit, mistakes
from attnkit_runtime import judge
from attnkit_runtime.i18n import LANGUAGES, pick
from attnkit_runtime.messages import MESSAGES, say

_DIAGNOSIS_LOCK = threading.Lock()  # diagnosis builds its tables lazily, loading modules (not thread-safe)


@dataclass(frozen=True)
class TestResult:
    name: str
    step: str
    score: float
    max_score: float
    status: str  # passed / failed / error / timeout (SPEC)
    output: str
    diagnosis: str | None
    public: bool

    def as_spec(self):
        return {"name": self.name, "step": self.step, "score": self.score, "max_score": self.max_score,
                "status": self.status, "output": self.output, "diagnosis": self.diagnosis}


@dataclass
class Graded:
    """One submission's grade; `as_spec()` is the SPEC's JSON object."""

    submission: str
    score: float
    max_score: float
    tests: list
    steps: dict  # step module -> (score, max_score)
    stdout: str = ""
    stderr: str = ""
    seconds: dict = field(default_factory=dict)  # {"run": sandbox, "calls": learner's calls in it, "judge": here}
    isolation: str = ""  # what isolated the learner's code ("" when none of it ran)

    @property
    def diagnoses(self):
        return sorted({t.diagnosis for t in self.tests if t.diagnosis})

    def as_spec(self):
        return {"submission": self.submission, "score": self.score, "max_score": self.max_score,
                "tests": [t.as_spec() for t in self.tests], "diagnoses": self.diagnoses}

    def as_record(self):
        """as_spec() plus what the reports need besides it (kept in the batch journal)."""
        return {**self.as_spec(), "steps": {m: list(v) for m, v in self.steps.items()},
                "stdout": self.stdout, "stderr": self.stderr, "isolation": self.isolation}

    @classmethod
    def from_record(cls, record, public_names):
        tests = [TestResult(**t, public=t["name"] in public_names) for t in record["tests"]]
        return cls(record["submission"], record["score"], record["max_score"], tests,
                   {m: tuple(v) for m, v in record["steps"].items()}, record["stdout"], record["stderr"],
                   isolation=record.get("isolation", ""))


def grade_submission(plan, runner, sub):
    """Grade `sub`, a `submission.Submission` as read from disk."""
    return grade(plan, runner, sub.sources, sub.name, sub.problem, sub.unreadable)


def grade(plan, runner, sources, name, problem="", unreadable=None):
    """Grade the files `sources` ({filename: text}) as submission `name`.

    `problem`, when set, says why the submission could not be read; every test then fails with it.
    `unreadable` ({filename: why}) names step files that were refused: their step's tests are errors.
    """
    unreadable = unreadable or {}
    early = {}  # case name -> TestResult of the steps judged while later steps ran (see _passed_every_case)
    start = time.perf_counter()
    if problem:
        results, stdout, stderr, isolation = {}, "", "", ""
    else:
        run = runner(sources, plan.jobs, lambda step, results: _passed_every_case(plan, step, results, early))
        results, stdout, stderr, isolation = run.results, run.stdout, run.stderr, run.isolation
    ran = time.perf_counter()
    calls = sum(r.seconds for r in results.values())
    missing = set() if problem else {m for m in plan.steps if f"{m}.py" not in sources}
    judged = []
    for planned in plan.cases:
        why, gone = problem or unreadable.get(planned.case.step.filename, ""), planned.case.step.module in missing
        judged.append(early[planned.case.name] if planned.case.name in early and not (why or gone)
                      else _judge(plan, planned, results, why, gone))
    pays = credit.paid(plan.cases, judged, results)
    tests = [t if paying or t.status != "passed" else _unpaid(t, planned.case)
             for t, planned, paying in zip(judged, plan.cases, pays)]
    steps = {}
    for module in plan.steps:
        earned = sum(p.case.weight for p, paying in zip(plan.cases, pays) if paying and p.case.step.module == module)
        total = plan.step_weight[module]
        worth = plan.step_points[module]
        steps[module] = (float(worth) if earned == total else round(worth * earned / total, 6), float(worth))
    score = round(sum(s for s, _ in steps.values()), 6)
    return Graded(name, score, float(sum(plan.step_points.values())), tests, steps, stdout, stderr,
                  {"run": ran - start, "calls": calls, "judge": time.perf_counter() - ran}, isolation)


def _judge(plan, planned, results, problem, missing):
    case = planned.case
    calls = [results.get(key) for key in planned.keys]
    failed = [r for r in calls if r is None or r.status != "ok"]
    if missing and not problem:  # SPEC: a missing file counts as not done
        return _result(planned, "failed", _not_written(case, say("grade.file_missing", file=case.step.filename)), None)
    if problem or failed:
        status, output, code = _not_run(planned, None if problem else failed[0], problem)
    else:
        parts = [r.parts for r in calls]
        status, output, code = plan.remembered(planned, parts, lambda: _verdict(planned, parts))
        warned = [text for r in calls for text in r.warnings]
        if status == "passed" and warned:  # after the memo: the same values without warnings pass
            status, output = "failed", judge.teaching_message(case, planned.calls,
                                                              judge.warning_verdict(case.function, warned))
    return _result(planned, status, output, code)


def _passed_every_case(plan, step, results, early):
    """Whether the results so far ({job key: CallResult}) pass every case of `step`, a step whose file
    was read and imported; its TestResults go to `early` ({case name: TestResult}), judged once."""
    judged = {p.case.name: _judge(plan, p, results, "", False) for p in plan.cases if p.case.step.module == step}
    early.update(judged)
    return all(t.status == "passed" for t in judged.values())


def _unpaid(test, case):
    """A passed test whose function passed no hidden value test (attnkit.credit): 0 points, and why."""
    return replace(test, score=0.0, output=f"{judge.title(case)}\n  {say('grade.unpaid', function=case.function)}")


def _verdict(planned, parts):
    """(status, output, diagnosis) of results that came back."""
    with np.errstate(all="ignore"):  # the learner's NaN and inf are reported, not warned about
        verdict = judge.evaluate(planned.case, planned.calls, parts, planned.expected, planned.forms)
    if verdict.passed:
        return "passed", "", None
    with _DIAGNOSIS_LOCK:
        code = mistakes.diagnose(planned.case, planned.calls, parts)
    text = mistakes.describe(code) if code else ""
    return "failed", judge.teaching_message(planned.case, planned.calls, verdict, text), code


def _result(planned, status, output, code):
    case = planned.case
    return TestResult(case.name, case.step.module, planned.points if status == "passed" else 0.0,
                      planned.points, status, output, code, case.public)


def _not_run(planned, result, problem):
    """(status, output, diagnosis) of a case whose calls did not all come back with a result."""
    case = planned.case
    where = judge.title(case)
    if problem:
        return "error", f"{where}\n  {say('grade.not_graded', problem=problem)}", None
    if result is None:
        return "error", f"{where}\n  {say('grade.no_result')}", None
    if result.status == "not_done":
        return "failed", _not_written(case, say("grade.replace_raise")), None
    if result.status == "not_run":  # SPEC's `timeout` is for a call that ran out of time, not one never made
        return "error", f"{where}\n  {say('grade.not_run', error=result.error)}", None
    if result.status == "timeout":
        return ("timeout", f"{where}\n  {say('grade.timeout', error=result.error)}\n"
                           f"  {say('teach.read', where=pick(case.read))}", None)
    if result.status == "crashed":
        return "error", f"{where}\n  {say('grade.crashed', error=result.error)}", None
    if result.status == "budget":
        return "timeout" if result.exc_type == "time" else "error", f"{where}\n  {result.error}", None
    if result.status == "load_error":
        return "error", f"{where}\n  {say('grade.load_error', error=result.error)}", None
    with _DIAGNOSIS_LOCK:
        code = mistakes.diagnose_exception(case, result.exc_type, result.error)
    verdict = judge.Verdict(False, "exception", say("teach.raised", error=result.error) if result.exc_type else result.error)
    return "error", judge.teaching_message(case, planned.calls, verdict, mistakes.describe(code) if code else ""), code


def points_split():
    """How the points of a submission are shared out, in the learner's language."""
    return say("grade.points_split")


def _not_written(case, what):
    line = say("grade.not_written", step=case.step.number, name=f"{case.step.module}.{case.function}",
               mark=say("grade.not_written_mark"), what=what)
    return f"{judge.title(case)}\n  {line}\n  {say('teach.read', where=pick(case.read))}"


def not_written(output):
    """Whether a test's `output` says that its step is not written yet (in either language)."""
    return any(pick(MESSAGES["grade.not_written_mark"], lang) in output for lang in LANGUAGES)
