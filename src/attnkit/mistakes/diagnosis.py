"""Name the known mistake behind a failing test.

For each case, once per process, every mistake that can affect the case's function is run on the
case's calls (in the judging process: it is our code, not the learner's). A mistake whose outputs
equal the reference's cannot be told apart on this case and is dropped; one that raises is kept
for `diagnose_exception`. After that, a diagnosis is a few array comparisons, most of them stopped
by one number: the learner's value at the first cell where the mistake departs from the reference.
On a case that measures the calls' memory (`judge.measures_peak`) a mistake is also kept when only its
memory peak fails the case (the reference's values, computed holding too much at once).
"""
import copy
import math
import warnings
from dataclasses import dataclass

import numpy as np

from attnkit_runtime.harness import peak_of_call
from attnkit_runtime.judge import agrees, departure, equally_near, evaluate, invoke, measures_peak, named_outputs

from ..reference import reference_function
from .catalogue import catalogue
from .worlds import variants


@dataclass(frozen=True)
class Outcome:
    outputs: tuple  # one {part: value} per call; () when a call raised
    error: tuple  # (exception type name, message) of the first call that raised, or ()
    peaks: tuple = ()  # the memory peak of each call, on a case that measures it (judge.measures_peak)


@dataclass(frozen=True)
class _Explanation:
    code: str
    outputs: tuple  # the mistake's {part: value} per call
    probe: tuple | None  # (call, part, flat index) of the first cell where it departs from the reference;
    # None for a mistake whose outputs are the reference's, kept for its memory peak


@dataclass(frozen=True)
class _Table:
    explains: tuple  # of _Explanation, in diagnosis order
    raises: tuple  # of (code, (type name, message)), in diagnosis order


_TABLES = {}


def _run(function, case, calls):
    outputs, peaks, measure = [], [], measures_peak(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kwargs in calls:
            passed = copy.deepcopy(kwargs)  # before the peak is measured: the copies are not the call's
            try:
                if measure:  # once unmeasured first: what the kit loads on a first call is no part of the peak
                    invoke(function, copy.deepcopy(kwargs))
                value, peak = peak_of_call(invoke, function, passed) if measure else (invoke(function, passed), None)
                outputs.append(named_outputs(case.returns, value))
            except Exception as err:  # noqa: BLE001 — any error a mistake makes is a fact to match
                return Outcome((), (type(err).__name__, str(err)))
            peaks.append(peak)
    return Outcome(tuple(outputs), (), tuple(peaks) if measure else ())


def _first_departure(case, outputs, reference):
    """(call, part, flat index) of the first cell where `outputs` leave `reference`, or None."""
    for k, (out, ref) in enumerate(zip(outputs, reference)):
        for part in ref:
            if agrees(ref[part], out[part], case.tolerance):
                continue
            want, got = np.asarray(ref[part]), np.asarray(out[part])
            if want.shape != got.shape or want.dtype == bool or got.dtype == bool:
                return k, part, 0 if want.shape != got.shape else int(np.flatnonzero(want != got)[0])
            close = np.isclose(got, want, atol=case.tolerance["atol"], rtol=case.tolerance["rtol"], equal_nan=True)
            return k, part, int(np.flatnonzero(~close)[0]) if not close.all() else 0
    return None


def outcomes(case, calls):
    """[(code, Outcome)]: what each form of each catalogued mistake that can affect the case's
    function gives on these calls, in diagnosis order."""
    return [(code, _run(function, case, calls))
            for code in catalogue() for function in variants(code, case.step.module, case.function)]


def failing(case, calls, expected, forms):
    """[(code, Outcome)] of the mistakes that fail `case` on `calls` (judged against `expected`, or
    `forms` for a property case), in diagnosis order: the error a mistake raises, or its outputs, every
    part whole (as `diagnose` compares them: a stored mistake matches where the catalogue's does)."""
    found = []
    with np.errstate(all="ignore"):
        for code, outcome in outcomes(case, calls):
            if outcome.error:
                found.append((code, outcome))
            elif not evaluate(case, calls, list(outcome.outputs), expected, forms, outcome.peaks).passed:
                found.append((code, outcome))
    return found


def _build(case, calls):
    reference = _run(reference_function(case.step.module, case.function), case, calls)
    forms = [{part: (np.shape(value), np.asarray(value).dtype) for part, value in out.items()}
             for out in reference.outputs]
    explains, raises = [], []
    for code, outcome in outcomes(case, calls):
        if outcome.error:
            if outcome.error != reference.error:
                raises.append((code, outcome.error))
        elif reference.outputs and (probe := _first_departure(case, outcome.outputs, reference.outputs)):
            explains.append(_Explanation(code, outcome.outputs, probe))
        elif outcome.peaks and not evaluate(case, calls, list(outcome.outputs), None, forms, outcome.peaks).passed:
            explains.append(_Explanation(code, outcome.outputs, None))
    return _Table(tuple(explains), tuple(raises))


def prepare(case, calls):
    """Build the case's table of mistaken worlds now. A case that measures memory must be built while no
    other thread allocates: tracemalloc counts every thread's allocations, so a world measured while the
    grader judges other submissions in its threads could seem to hold more than it does."""
    _table(case, calls)


def _table(case, calls=None):
    # Calls are built from the case's specs deterministically, so the specs (not arrays) are the key.
    key = (case.name, case.step.module, case.function, repr(case.calls), repr(case.tolerance))
    if key not in _TABLES:
        with np.errstate(all="ignore"):
            _TABLES[key] = _build(case, case.build_calls() if calls is None else calls)
    return _TABLES[key]


def _close(want, got, tolerance):
    """One cell, as np.isclose(equal_nan=True) would judge it."""
    want, got = complex(want).real, complex(got).real  # bools, ints and floats alike
    if math.isnan(want) or math.isnan(got) or math.isinf(want) or math.isinf(got):
        return want == got or (math.isnan(want) and math.isnan(got))
    return abs(got - want) <= tolerance["atol"] + tolerance["rtol"] * abs(want)


def _matches(case, explanation, results):
    """Whether the learner's results are the mistake's: one cell first, then everything."""
    if explanation.probe is not None:
        call, part, index = explanation.probe
        want = np.asarray(explanation.outputs[call][part])
        got = results[call].get(part)
        if not isinstance(got, (np.ndarray, np.generic, bool, int, float)) or np.shape(got) != want.shape:
            return False
        if want.size and not _close(want.flat[index], np.asarray(got).flat[index], case.tolerance):
            return False
    pairs = [(out[part], got.get(part)) for out, got in zip(explanation.outputs, results) for part in out]
    return all(agrees(w, g, case.tolerance) for w, g in pairs)


def diagnose(case, calls, results):
    """The code of the known mistake whose outputs on `calls` match the learner's `results`, or None: the
    first of `diagnoses`."""
    return next(iter(diagnoses(case, calls, results)), None)


def diagnoses(case, calls, results):
    """The codes of the known mistakes whose outputs on `calls` match the learner's `results`, as a tuple.

    `calls` are the case's calls (`case.build_calls()`); `results` one {part name: value} per call,
    as `judge.evaluate` takes them. Only mistakes that change the reference's outputs on these
    calls are considered, every part of every call must match, and of several matches the nearest
    (`judge.equally_near`: a saturated softmax makes kq and kq / sqrt(T_k) alike) win, in catalogue order:
    more than one only where their outputs are as near, which the case cannot tell apart.
    """
    if len(results) != len(calls):
        return ()
    with np.errstate(all="ignore"):
        return equally_near([(explanation.code, departure(explanation.outputs, results))
                             for explanation in _table(case, calls).explains if _matches(case, explanation, results)])


def memory_diagnoses(case, calls):
    """The codes of the known mistakes that fail `case`, a memory case, by what they hold at once alone (their
    outputs are the reference's), in catalogue order: what a call that ran out of memory likely did."""
    return tuple(dict.fromkeys(explanation.code for explanation in _table(case, calls).explains
                               if explanation.probe is None))


def diagnose_exception(case, exc_type, message):
    """The code of the known mistake that raises this error on the case's calls, or None: the first of
    `exception_diagnoses`."""
    return next(iter(exception_diagnoses(case, exc_type, message)), None)


def exception_diagnoses(case, exc_type, message):
    """The codes of the known mistakes that raise this error on the case's calls, in catalogue order (a tuple).

    `exc_type` is the exception class or its name; `message` its text (str(exception)); the
    message may carry more around it (a traceback line), as long as the mistake's text is in it.
    """
    name = exc_type if isinstance(exc_type, str) else exc_type.__name__
    return tuple(dict.fromkeys(code for code, (error_type, error_message) in _table(case).raises
                               if error_type == name and error_message and error_message in str(message)))
