"""The grader's self-check, per track: the reference scores 100, the stubs 0, every known mistake is
caught and named.

The solutions and the stubs go through the real sandbox. Each mistake of the catalogue, in each of
its forms (slips), is graded with its wrong functions standing in for the reference ones (in this
process: they are the kit's own code), and must fail at least one test whose diagnosis is its own
code. The public/hidden gap
lists the mistakes that pass every public test and only hidden tests catch.
"""
from dataclasses import dataclass

from .. import mistakes
from ..paths import EXERCISES_DIR, SOLUTIONS_DIR
from attnkit_runtime.status import Status
from . import submission
from .grade import grade, grade_submission
from .runners import InProcessRunner, SandboxRunner


@dataclass(frozen=True)
class Check:
    label: str
    ok: bool
    detail: str


def mistake_overrides(code, variant=0):
    """{(step module, function): the mistaken callable} for every function slip `variant` of `code` replaces."""
    return mistakes.slip_overrides(code)[variant]


def reference_checks(plan):
    """The solutions score 100 and the stubs 0, both through the sandbox."""
    checks = []
    for folder, want in ((SOLUTIONS_DIR, plan_max(plan)), (EXERCISES_DIR, 0.0)):
        sub = submission.read(str(folder))
        graded = grade_submission(plan, SandboxRunner(allow_no_barrier=True), sub)  # the kit's own files
        bad = [t for t in graded.tests if (t.status is Status.PASSED) != (want > 0)]
        detail = f"{graded.score:g} / {graded.max_score:g}"
        if bad:
            last_line = bad[0].output.splitlines()[-1] if bad[0].output else ""
            detail += f"; unexpected: {bad[0].name} {bad[0].status}: {last_line}"
        checks.append(Check(f"{folder.name}/ scores {want:g}", graded.score == want and not bad, detail))
    return checks


def plan_max(plan):
    return float(sum(plan.step_points.values()))


def mistake_grades(plan):
    """(label, code, Graded) for each way of making each catalogue mistake in a step of the plan's track,
    graded with its wrong functions standing in for the reference; Graded is None for a mistake that has
    no wrong implementation in the catalogue."""
    files = submission.read(str(SOLUTIONS_DIR)).sources  # every file present: only the overrides differ
    for code in mistakes.catalogue():
        slips = mistakes.slip_overrides(code)
        if not slips:
            yield code, code, None
        for k, overrides in enumerate(slips):
            if mistakes.slip_step(code, k) not in plan.steps:
                continue  # made in the other track's steps: checked with that track's plan
            label = code if len(slips) == 1 else f"{code} ({k + 1}/{len(slips)})"
            yield label, code, grade(plan, InProcessRunner(overrides), files, label)


def mistake_checks(plan):
    """(checks, gap): one check per way of making each catalogue mistake in a step of the plan's track;
    gap = {code: hidden tests that alone catch it}."""
    checks, gap = [], {}
    for label, code, graded in mistake_grades(plan):
        if graded is None:
            checks.append(Check(code, False, "no wrong implementation in the catalogue"))
            continue
        failed = [t for t in graded.tests if t.status is not Status.PASSED]
        named = [t for t in failed if t.diagnosis == code]
        others = sorted({t.diagnosis or "no diagnosis" for t in failed} - {code})
        public = sum(t.public for t in failed)
        detail = (f"fails {len(failed)} tests ({public} public), named in {len(named)}, "
                  f"-{plan_max(plan) - graded.score:.4g} points"
                  + (f"; other failures named {', '.join(others)}" if others else ""))
        checks.append(Check(label, bool(named), detail if failed else "no test fails: not caught"))
        if failed and not public:
            gap[label] = [t.name for t in failed]
    return checks, gap


def report(plan):
    """(text, ok) of the self-check of the plan's track."""
    ref = reference_checks(plan)
    found, gap = mistake_checks(plan)
    lines = [f"track {plan.track} ({', '.join(plan.steps)}):", "reference:"] + [_line(c) for c in ref]
    lines += [f"known mistakes ({len(found)}), each must fail and be named:"] + [_line(c) for c in found]
    lines.append("public/hidden gap (mistakes that pass every public test; only hidden tests catch them):")
    lines += [f"  {code}: {', '.join(names)}" for code, names in gap.items()] or ["  none"]
    failed = [c for c in ref + found if not c.ok]
    lines.append(f"verify {plan.track}: {len(ref) + len(found) - len(failed)} of {len(ref) + len(found)} checks passed"
                 + (f"; failed: {', '.join(c.label for c in failed)}" if failed else ""))
    return "\n".join(lines), not failed


def _line(check):
    return f"  {'ok  ' if check.ok else 'FAIL'} {check.label:<30} {check.detail}"
