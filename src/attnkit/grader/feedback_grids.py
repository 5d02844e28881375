"""The picture of a failed public test: expected and got over the same 2-D window, and the cells that differ.

Built when the test is judged (grade.py), for public cases only: their inputs and expected values are
in the student's hand-out already, while a hidden case's expected values must not leave the grader
(docs/SECURITY.md). It is plain data (JSON, kept in the results store with the grade) that the HTML
feedback draws as two tables (feedback_html). A window is at most MAX × MAX cells around the first
difference, of the 2-D slice that holds it.
"""
import numpy as np

from attnkit_runtime import judge

MAX = 12  # rows and columns of a window
HEAT_PARTS = frozenset({"P", "kq_soft_max"})  # attention weights, drawn as a heat map


def grid(case, calls, results, expected):
    """The picture of the first part of `results` (one {part: value} per call) that differs from `expected`
    where both are arrays of one shape (wrong values, NaN or inf); None when there is none (a property
    case, a wrong shape or dtype, a scalar)."""
    if expected is None or not case.public:
        return None
    for k, (result, reference) in enumerate(zip(results, expected)):
        for part, want in reference.items():
            got, bad = judge.picked(result, part)
            label = part if len(calls) == 1 else f"{part} #{k + 1}"
            verdict = bad or judge.compare(want, got, case.tolerance, label)
            if not verdict.passed:
                return _window(label, judge.parse_pick(part)[0], np.asarray(want), np.asarray(got), case.tolerance) \
                    if verdict.problem in ("values", "nan") else None
    return None


def _differ(want, got, tolerance):
    if want.dtype == bool:
        return want != got
    with np.errstate(all="ignore"):
        return ~np.isclose(got.astype(np.float64), want.astype(np.float64), atol=tolerance["atol"],
                           rtol=tolerance["rtol"], equal_nan=True)


def _window(label, name, want, got, tolerance):
    if want.ndim == 0 or want.shape != got.shape:
        return None
    differ = _differ(want, got, tolerance)
    first = tuple(int(i) for i in np.argwhere(differ)[0])
    lead = first[:-2] if want.ndim > 2 else ()
    plane = (lambda a: a[lead]) if lead else (lambda a: a.reshape(1, -1) if a.ndim == 1 else a)
    want2, got2, differ2 = plane(want), plane(got), plane(differ)
    row, col = (first[-2], first[-1]) if want.ndim >= 2 else (0, first[0])
    rows, cols = _span(row, want2.shape[0]), _span(col, want2.shape[1])
    index = [str(i) for i in lead]
    if want.ndim >= 2:
        index.append(_slice_text(rows, want2.shape[0]))
    index.append(_slice_text(cols, want2.shape[1]))
    where = "" if all(part == ":" for part in index) else "[" + ", ".join(index) + "]"
    cut = (slice(*rows), slice(*cols))
    return {"label": label, "where": where, "heat": name in HEAT_PARTS, "shape": list(want.shape),
            "expected": _cells(want2[cut]), "got": _cells(got2[cut]), "differ": differ2[cut].tolist()}


def _span(at, size):
    """(start, stop) of at most MAX indices of `size` around index `at`."""
    start = max(0, min(at - MAX // 2, size - MAX))
    return start, min(size, start + MAX)


def _slice_text(span, size):
    start, stop = span
    return ":" if (start, stop) == (0, size) else f"{start}:{stop}"


def _cells(block):
    """Rows of plain Python values (bool, or float, inf and NaN included) of a 2-D array."""
    return block.tolist() if block.dtype == bool else block.astype(np.float64).tolist()
