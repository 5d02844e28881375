"""The progress ladder printed at the end of `pytest exercises` and by `attnkit check`."""
import textwrap
from dataclasses import dataclass

from . import lessons, manifest
from .cases import cases_for


@dataclass
class StepTally:
    passed: int = 0
    failed: int = 0
    not_done: int = 0  # failed with NotImplementedError: the stub is untouched
    first_failure: str = ""  # "test id: first line of its message", for the step to work on next

    @property
    def total(self):
        return self.passed + self.failed

    @property
    def done(self):
        return self.total > 0 and self.failed == 0


def hidden_concepts(step_module):
    """Concepts only the hidden cases of a step check (in catalogue order, without repeats)."""
    public = {c.concept for c in cases_for(step_module, "public")}
    seen = []
    for c in cases_for(step_module, "hidden"):
        if c.concept not in public and c.concept not in seen:
            seen.append(c.concept)
    return seen


def render(tallies, exercises_label="exercises"):
    """The ladder text for {step module: StepTally} (steps that ran no test are left out; the
    extension's steps are shown once every core step that ran is done)."""
    ran = [s for s in manifest.steps() if s.module in tallies and tallies[s.module].total]
    if not ran:
        return "attnkit: no public test ran."
    core = [s for s in ran if s.track == manifest.DEFAULT_TRACK]
    waiting = [s for s in ran if s.track != manifest.DEFAULT_TRACK] if not all(tallies[s.module].done for s in core) else []
    ran = [s for s in ran if s not in waiting]
    lines = ["", "attnkit progress (public tests)"]
    next_step = next((s for s in ran if not tallies[s.module].done), None)
    for s in ran:
        t = tallies[s.module]
        mark = "done" if t.done else ("not started" if t.not_done == t.total else "in progress")
        pointer = "   <- next" if s is next_step else ""
        lines.append(f"  step {s.number}  {s.module:<18} {t.passed:>2}/{t.total:<2} {mark}{pointer}")
    if waiting:
        lines.append(f"  (the extension, steps {waiting[0].number}–{waiting[-1].number}, is shown once the core is done)")
    if next_step is not None:
        lines += ["", f"Next: {exercises_label}/{next_step.filename} — {next_step.title}.",
                  f"      First failure: {tallies[next_step.module].first_failure}",
                  f"      Read {lessons.link(next_step.lesson)}, then run: pytest {exercises_label}/test_{next_step.filename}"]
        return "\n".join(lines)
    passed = sum(tallies[s.module].passed for s in ran)
    lines += ["", f"All {passed} public tests of {len(ran)} steps pass. That is not full marks yet: the graded run "
                  "adds hidden tests, which also check:"]
    for s in ran:
        concepts = hidden_concepts(s.module)
        if concepts:
            lines += textwrap.wrap(f"step {s.number}: " + "; ".join(concepts) + ".", width=100,
                                   initial_indent="  ", subsequent_indent="          ")
    return "\n".join(lines)
