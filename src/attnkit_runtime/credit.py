"""Which passed cases earn their points: points follow work on inputs the learner has not seen.

A public case's arguments and expected values are in the student's hands, and a property case
(`same_across_calls`, `rows_sum_to_one_or_zero`) holds for a constant of the right shape, so passing
either shows nothing about whether the function computes. What does is its result on a hidden value
case (a hidden case that compares values: `value:` or `reference:`) that is not one value repeated
(zeros, all True: a constant can be right by chance). The rule, per function (step module and name):

- every passed case of the function pays once its result on a hidden value case is right;
- a passed public case that compares values also pays once its result on a hidden value case is what
  a known mistake gives (the mistake is named: a wrong computation, but a computation), unless that
  result is an argument given back unchanged (a missing scale gives `kq` back: no computation);
- nothing else pays: a property case never pays a function whose results fail every hidden value case.

Without hidden cases (an installed kit without autograder/cases/, a student's own notebook) nothing can
give evidence; then every passed case pays. `attnkit grade` (attnkit.credit) and the notebook's test
cells (notebook.py) both use this rule, so they give the same code the same points.
"""
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .status import Status

_NUMBERS = "biufc"  # numpy dtype kinds compared within a tolerance


@dataclass(frozen=True)
class Judged:
    """One judged case as the rule reads it. `function`: (step module, function name); `parts()`: the
    (call's arguments, a part of its result) of every call, asked only when the rule needs them; None
    for a case judged on another step's behalf (the notebook's blamed cases: passed as `attnkit grade`,
    running the reference of that step, would find them), trusted without looking."""

    function: tuple
    public: bool
    value: bool  # compares values (not a property case)
    status: Status
    diagnosis: str | None
    tolerance: dict
    parts: Callable[[], list] | None

    @property
    def hidden_value(self):
        """Whether it compares values on inputs the learner has not seen."""
        return not self.public and self.value


def paid(judged):
    """[bool] per Judged case (in order): whether it earns its points."""
    if all(j.public for j in judged):
        return [j.status is Status.PASSED for j in judged]
    right, mistaken = set(), set()
    for j in judged:
        if not j.hidden_value or j.function in right:
            continue  # one right result is all the evidence a function needs
        if j.status is Status.PASSED and (j.parts is None or any(_varied(value) for _, value in j.parts())):
            right.add(j.function)
        elif j.status is Status.FAILED and j.diagnosis and j.function not in mistaken and j.parts is not None and any(
                _varied(value) and not _echo(j, value, call) for call, value in j.parts()):
            mistaken.add(j.function)
    return [j.status is Status.PASSED and (j.function in right or j.function in mistaken and j.public and j.value)
            for j in judged]


def step_score(points, weights, paying):
    """A step's points earned: `points` × the paid cases' weight / all its cases' weight (6 decimals)."""
    total = sum(weights)
    earned = sum(w for w, pays in zip(weights, paying) if pays)
    return float(points) if earned == total else round(points * earned / total, 6)


def _varied(value):
    """Whether a part of a result holds two different values (NaNs count as one value), or is a single
    number other than 0 (a count such as kv_cache_bytes': no constant is right by chance on unseen inputs)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        return arr.dtype.kind in "iuf" and bool(arr != 0)
    return np.unique(arr).size > 1


def _echo(judged, value, call):
    """Whether a part of a result is one of its call's arguments given back (within the case's tolerance)."""
    return any(_same(value, arg, judged.tolerance) for arg in _arguments(call))


def _arguments(call):
    return [v for key, value in call.items() for v in (value if key.startswith("*") else [value])]


def _same(value, arg, tolerance):
    value, arg = np.asarray(value), np.asarray(arg)
    if value.shape != arg.shape:
        return False
    if value.dtype.kind in _NUMBERS and arg.dtype.kind in _NUMBERS:
        return bool(np.allclose(value, arg, equal_nan=True, **tolerance))
    return bool(np.array_equal(value, arg))
