"""The class report: what a batch of grades says to the teacher — scores, steps, and who needs help.

Input is the grade objects `attnkit grade --json` prints (docs/CONTRACT.md's grade plus `student`, `name` and
`not_written`, the tests of steps not written yet). Each student is put where their lost points came
from: a known mistake (counted once per student who made it, ranked by that count, with the lesson
section its advice names), an error or a timeout the catalogue does not explain (a crash, an exception,
a hang), points lost with no known diagnosis (with the concepts of the failing tests, so the teacher
can tell what to look at; students who failed the same concepts of a step share one entry), or steps
not written yet. Every text the report words is in attnkit/messages.py, in the current language.
"""
import statistics
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath

from .. import cases, lessons, mistakes
from ..messages import say
from attnkit_runtime.i18n import pick
from attnkit_runtime.status import Status
from attnkit_runtime.text_wrap import columns
from .feedback import status_word
from .terminal import printable

BINS = 10  # score histogram: [0, 10), [10, 20), … [90, 100]
SPREAD = ("none", "under_half", "half_or_more", "full")  # the buckets of a step's points, per student
_BAR = 30  # characters of the longest text bar
_WIDTH = 100  # columns of a wrapped list of names
_CONCEPTS = 3  # concepts of failing tests named per step in the terminal (the page names them all)


@dataclass(frozen=True)
class RankedMistake:
    code: str
    students: int
    summary: str
    lesson: str  # the section to reteach, e.g. 'lessons/en/step2_scores.md#scale'
    who: tuple = ()  # the students who made it


@dataclass(frozen=True)
class Stopped:
    """A student whose code raised (or crashed the sandbox) or ran out of time where no known mistake explains it."""

    who: str
    score: float
    steps: tuple  # ((step module, {status word: tests}), …) in step order


@dataclass(frozen=True)
class Unexplained:
    """A student who lost points on wrong results that no known mistake matches."""

    who: str
    score: float
    concepts: tuple  # ((step module, (concept, …)), …): what the failing tests check, in step order


@dataclass(frozen=True)
class UnexplainedEntry:
    """The students who failed the same concepts of one step with no known diagnosis."""

    step: str
    concepts: tuple  # (concept, …) in test order
    who: tuple  # the students, lowest score first


@dataclass(frozen=True)
class StepSpread:
    step: str
    mean: float
    worth: float
    counts: tuple  # students per SPREAD bucket


@dataclass(frozen=True)
class ClassSummary:
    count: int
    max_score: float
    mean: float
    median: float
    histogram: list  # [(low, high, students)], BINS bins of max_score / BINS
    steps: list  # [StepSpread] in step order
    mistakes: list  # [RankedMistake], most students first
    stopped: list = ()  # [Stopped], lowest score first
    unexplained: list = ()  # [Unexplained], lowest score first
    not_written: list = ()  # [(student, (step module, …))]: steps left as stubs

    @property
    def groups(self):
        """[(label, students)]: how many students lost points to each kind of cause (one may be in several)."""
        known = {w for m in self.mistakes for w in m.who}
        counts = {"known": len(known), "stopped": len(self.stopped), "unexplained": len(self.unexplained),
                  "not_written": len(self.not_written)}
        return [(say(f"report.cause.{cause}"), n) for cause, n in counts.items()]

    @property
    def unexplained_entries(self):
        """[UnexplainedEntry]: one per (step, concepts) some student failed, most students first."""
        students = {}
        for u in self.unexplained:
            for step, concepts in u.concepts:
                students.setdefault((step, concepts), []).append(u.who)
        ranked = sorted(students.items(), key=lambda item: -len(item[1]))  # stable: lowest score first among equals
        return [UnexplainedEntry(step, concepts, tuple(who)) for (step, concepts), who in ranked]


def summarize(grades):
    """The ClassSummary of grade objects (docs/CONTRACT.md) (at least one)."""
    if not grades:
        raise ValueError("grades: a class report needs at least one graded submission, got none")
    top = max(g["max_score"] for g in grades)
    scores = [g["score"] for g in grades]
    width = top / BINS
    counts = [0] * BINS
    for s in scores:
        counts[min(int(s / width), BINS - 1) if width else 0] += 1
    histogram = [(k * width, (k + 1) * width, n) for k, n in enumerate(counts)]
    by_score = sorted(grades, key=lambda g: (g["score"], who(g)))
    return ClassSummary(len(grades), top, statistics.fmean(scores), statistics.median(scores), histogram,
                        _step_spreads(grades), _ranked_mistakes(grades),
                        [s for s in map(_stopped, by_score) if s], [u for u in map(_unexplained, by_score) if u],
                        [(who(g), steps) for g in by_score if (steps := _steps_not_written(g))])


def who(grade):
    """How the report names a student: the roster's name, else the student id, else the submission's folder."""
    return grade.get("name") or grade.get("student") or PurePath(grade["submission"]).name or grade["submission"]


def _step_spreads(grades):
    earned, worth = [], {}  # earned: {step: points} per grade
    for g in grades:
        mine = {}
        for t in g["tests"]:
            mine[t["step"]] = mine.get(t["step"], 0.0) + t["score"]
            worth.setdefault(t["step"], {})[t["name"]] = t["max_score"]
        earned.append(mine)
    spreads = []
    for step, tests in worth.items():
        full, points = sum(tests.values()), [mine.get(step, 0.0) for mine in earned]
        buckets = [0] * len(SPREAD)
        for value in points:
            buckets[_bucket(value, full)] += 1
        spreads.append(StepSpread(step, sum(points) / len(grades), full, tuple(buckets)))
    return spreads


def _bucket(value, full):
    """The SPREAD bucket of `value` points out of `full`."""
    if value >= full - 1e-9:
        return 3
    return 0 if value <= 1e-9 else 1 if value < full / 2 else 2


def _ranked_mistakes(grades):
    known = mistakes.catalogue()
    students = {}
    for g in grades:
        for code in set(g["diagnoses"]):
            students.setdefault(code, []).append(who(g))
    ranked = sorted(students.items(), key=lambda item: (-len(item[1]), item[0]))
    return [RankedMistake(code, len(names), pick(known[code].summary) if code in known else "",
                          _lesson(known.get(code)), tuple(sorted(names))) for code, names in ranked]


def _lesson(mistake):
    return lessons.link(mistake.lesson) if mistake else ""


def _lost(grade):
    """The tests of `grade` that lost points for a reason of their own: not passed, not a known mistake,
    not a step left unwritten."""
    unwritten = set(grade.get("not_written", ()))
    return [t for t in grade["tests"]
            if t["status"] != Status.PASSED and not t["diagnosis"] and t["name"] not in unwritten]


def _stopped(grade):
    steps = {}
    for t in _lost(grade):
        if t["status"] in (Status.ERROR, Status.TIMEOUT):
            tally = steps.setdefault(t["step"], {})
            tally[t["status"]] = tally.get(t["status"], 0) + 1
    return Stopped(who(grade), grade["score"], tuple(steps.items())) if steps else None


def _unexplained(grade):
    steps = {}
    for t in _lost(grade):
        if t["status"] == Status.FAILED:
            steps.setdefault(t["step"], {})[_concept(t["name"])] = None
    return Unexplained(who(grade), grade["score"], tuple((s, tuple(c)) for s, c in steps.items())) if steps else None


def _steps_not_written(grade):
    unwritten = set(grade.get("not_written", ()))
    return tuple(dict.fromkeys(t["step"] for t in grade["tests"] if t["name"] in unwritten))


@lru_cache(maxsize=1)
def _concepts():
    return {c.name: c.concept for c in cases.all_cases()}  # in both languages: picked when a report is made


def _concept(name):
    """What the test `name` checks, in the current language (its name, for a test this kit does not know)."""
    return pick(_concepts().get(name, name))


def _bar(n, most):
    return "#" * (round(_BAR * n / most) if most else 0)


def _names(names, indent="      "):
    """Wrapped, terminal-safe lines of students' names (learner text)."""
    return textwrap.wrap(", ".join(printable(n, keep="") for n in names), _WIDTH,
                         initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False)


def spread_words():
    """The SPREAD buckets' names in the current language."""
    return tuple(say(f"report.spread.{bucket}") for bucket in SPREAD)


def tally_text(tally):
    """'2 error, 1 timeout' of {status: tests}."""
    return say("report.comma").join(say("report.tally", count=n, status=status_word(status)) for status, n in tally.items())


def _left(label, width):
    """`label` padded to `width` terminal columns (a Chinese character takes two)."""
    return label + " " * max(width - columns(label), 0)


def _concepts_text(concepts):
    """The first _CONCEPTS of `concepts`, and how many more there are."""
    more = [say("report.more_concepts", count=len(concepts) - _CONCEPTS)] if len(concepts) > _CONCEPTS else []
    return say("report.semicolon").join(list(concepts[:_CONCEPTS]) + more)


def text(summary):
    """The summary for a terminal; students' names are escaped (terminal.printable)."""
    s = summary
    lines = [say("report.head", count=s.count, mean=s.mean, median=s.median, top=s.max_score), "  " + say("report.scores")]
    most = max(n for _, _, n in s.histogram)
    for k, (low, high, n) in enumerate(s.histogram):
        closing = "]" if k == len(s.histogram) - 1 else ")"
        lines.append(f"    [{low:>3g}, {high:>3g}{closing:<1} {n:>4}  {_bar(n, most)}")
    lines.append("  " + say("report.steps", spread=" / ".join(spread_words())))
    lines += [f"    {p.step:<18} {p.mean:>6.2f} / {p.worth:<3g} " + " / ".join(f"{n:>3}" for n in p.counts)
              for p in s.steps]
    lines.append("  " + say("report.groups"))
    widest = max(n for _, n in s.groups) or 1
    lines += [f"    {_left(label, 20)} {n:>4}  {_bar(n, widest)}" for label, n in s.groups]
    if s.mistakes:
        lines.append("  " + say("report.mistakes"))
        top = s.mistakes[0].students
        for m in s.mistakes:
            lines.append(f"    {m.students:>4}  {m.code:<24} {_bar(m.students, top):<{_BAR}}  {m.summary}"
                         + (f" — {m.lesson}" if m.lesson else ""))
            lines += _names(m.who)
    else:
        lines.append("  " + say("report.no_mistake"))
    if s.stopped:
        lines.append("  " + say("report.stopped", count=len(s.stopped)))
        for st in s.stopped:
            where = say("report.semicolon").join(f"{step} {tally_text(tally)}" for step, tally in st.steps)
            lines.append(f"    {printable(st.who, keep='')} ({st.score:.4g}): {where}")
    if s.unexplained:
        lines.append("  " + say("report.unexplained", count=len(s.unexplained)))
        for entry in s.unexplained_entries:
            lines.append(f"    {len(entry.who):>4}  {entry.step}: {_concepts_text(entry.concepts)}")
            lines += _names(entry.who)
    if s.not_written:
        lines.append("  " + say("report.not_written", count=len(s.not_written)))
        lines += [f"    {printable(name, keep='')}: {', '.join(steps)}" for name, steps in s.not_written]
    return "\n".join(lines)
