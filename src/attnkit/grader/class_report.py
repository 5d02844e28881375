"""The class report: what a batch of grades says to the teacher — scores, steps, mistakes to reteach.

Input is the grade objects of docs/CONTRACT.md (`attnkit grade --json` lines, or Graded.as_spec()). A mistake is
counted once per student who made it, and ranked by that count, with the lesson section its advice
names (mistakes.catalogue).
"""
import statistics
from dataclasses import dataclass

from .. import lessons, mistakes
from attnkit_runtime.i18n import pick

BINS = 10  # score histogram: [0, 10), [10, 20), … [90, 100]
_BAR = 30  # characters of the longest text bar


@dataclass(frozen=True)
class RankedMistake:
    code: str
    students: int
    summary: str
    lesson: str  # the section to reteach, e.g. 'lessons/en/step2_scores.md#scale'


@dataclass(frozen=True)
class ClassSummary:
    count: int
    max_score: float
    mean: float
    median: float
    histogram: list  # [(low, high, students)], BINS bins of max_score / BINS
    steps: list  # [(step module, mean points, points)] in step order
    mistakes: list  # [RankedMistake], most students first


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
    return ClassSummary(len(grades), top, statistics.fmean(scores), statistics.median(scores), histogram,
                        _step_means(grades), _ranked_mistakes(grades))


def _step_means(grades):
    points, worth = {}, {}
    for g in grades:
        for t in g["tests"]:
            points[t["step"]] = points.get(t["step"], 0.0) + t["score"]
            worth.setdefault(t["step"], {})[t["name"]] = t["max_score"]
    return [(step, points[step] / len(grades), sum(worth[step].values())) for step in points]


def _ranked_mistakes(grades):
    known = mistakes.catalogue()
    counts = {}
    for g in grades:
        for code in set(g["diagnoses"]):
            counts[code] = counts.get(code, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [RankedMistake(code, n, pick(known[code].summary) if code in known else "", _lesson(known.get(code)))
            for code, n in ranked]


def _lesson(mistake):
    return lessons.link(mistake.lesson) if mistake else ""


def _bar(n, most):
    return "#" * (round(_BAR * n / most) if most else 0)


def text(summary):
    """The summary for a terminal."""
    s = summary
    lines = [f"class report: {s.count} submissions, mean {s.mean:.1f}, median {s.median:.1f} (of {s.max_score:g})",
             "  scores:"]
    most = max(n for _, _, n in s.histogram)
    for k, (low, high, n) in enumerate(s.histogram):
        closing = "]" if k == len(s.histogram) - 1 else ")"
        lines.append(f"    [{low:>3g}, {high:>3g}{closing:<1} {n:>4}  {_bar(n, most)}")
    lines.append("  mean points per step:")
    lines += [f"    {step:<18} {mean:>6.2f} / {worth:g}" for step, mean, worth in s.steps]
    if s.mistakes:
        lines.append("  known mistakes, by how many students made them (reteach):")
        for m in s.mistakes:
            lines.append(f"    {m.students:>4}  {m.code:<24} {m.summary}" + (f" — {m.lesson}" if m.lesson else ""))
    else:
        lines.append("  no known mistake was made")
    return "\n".join(lines)
