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

Without hidden cases (an installed kit without autograder/cases/) nothing can give evidence; then
every passed case pays, as `cases.public_only_notice` tells the instructor.
"""
import numpy as np

from attnkit_runtime.status import Status

_NUMBERS = "biufc"  # numpy dtype kinds compared within a tolerance


def hidden_value(case):
    """Whether `case` compares values on inputs the learner has not seen."""
    return not case.public and case.kind != "property"


def paid(planned, judged, results):
    """[bool] per case: whether it earns its points. `planned`: the plan's cases (`.case`, `.calls`, `.keys`);
    `judged`: their results (`.status`, `.diagnosis`), in the same order; `results`: the run's
    {job key: sandbox.CallResult}."""
    if all(p.case.public for p in planned):
        return [t.status is Status.PASSED for t in judged]
    right, mistaken = set(), set()
    for p, t in zip(planned, judged):
        function = _function(p.case)
        if not hidden_value(p.case) or function in right:
            continue  # one right result is all the evidence a function needs
        if t.status is Status.PASSED and any(_varied(value) for _, value in _parts(p, results)):
            right.add(function)
        elif t.status is Status.FAILED and t.diagnosis and function not in mistaken and any(
                _varied(value) and not _echo(p.case, value, call) for call, value in _parts(p, results)):
            mistaken.add(function)
    return [t.status is Status.PASSED and (_function(p.case) in right or _function(p.case) in mistaken and p.case.public
                                      and p.case.kind != "property") for p, t in zip(planned, judged)]


def _parts(planned, results):
    """(call's arguments, a part of its result) for every part of every call of a case."""
    return [(call, value) for call, key in zip(planned.calls, planned.keys) for value in results[key].parts.values()]


def _varied(value):
    """Whether a part of a result holds two different values (NaNs count as one value)."""
    return np.unique(np.asarray(value)).size > 1


def _echo(case, value, call):
    """Whether a part of a result is one of its call's arguments given back (within the case's tolerance)."""
    return any(_same(value, arg, case.tolerance) for arg in _arguments(call))


def _arguments(call):
    return [v for key, value in call.items() for v in (value if key.startswith("*") else [value])]


def _same(value, arg, tolerance):
    value, arg = np.asarray(value), np.asarray(arg)
    if value.shape != arg.shape:
        return False
    if value.dtype.kind in _NUMBERS and arg.dtype.kind in _NUMBERS:
        return bool(np.allclose(value, arg, equal_nan=True, **tolerance))
    return bool(np.array_equal(value, arg))


def _function(case):
    return case.step.module, case.function
