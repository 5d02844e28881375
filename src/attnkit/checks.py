"""Judge a function's results against a case: shape first, then dtype, then NaN/inf, then values.

`evaluate` runs in the judging process only (the pytest process for public tests, the grader's own
process for hidden ones); it never calls learner code. Its message teaches: what was expected, what
came, where the difference is, and where in the lesson to look.
"""
from dataclasses import dataclass

import numpy as np

from .cases import _as_array, pick
from .reference import reference_outputs


@dataclass(frozen=True)
class Verdict:
    passed: bool
    problem: str  # "" when passed, else "result", "shape", "dtype", "nan", "values" or "property"
    message: str


PASSED = Verdict(True, "", "")


def show(value, precision=4, indent=11):
    """A short, readable text of an array or scalar; continuation lines indented by `indent`."""
    arr = np.asarray(value)
    if arr.dtype == bool:
        arr = arr.astype(int)
    return np.array2string(arr, precision=precision, threshold=24, edgeitems=3, suppress_small=True,
                           max_line_width=100, separator=", ").replace("\n", "\n" + " " * indent)


def describe_inputs(kwargs):
    """One line per argument: its shape and dtype, and its value when it is small."""
    lines = []
    for name, value in kwargs.items():
        if name.startswith("*"):  # positional arguments, e.g. combine_visible(*visibles)
            lines += describe_inputs({f"{name[1:]}[{k}]": v for k, v in enumerate(value)})
            continue
        arr = np.asarray(value)
        if arr.ndim == 0:
            lines.append(f"{name} = {value!r}")
        elif arr.size <= 16:
            lines.append(f"{name} = {show(arr, indent=0)}".replace("\n", " "))
        else:
            lines.append(f"{name}: shape {arr.shape}, {arr.dtype}")
    return lines


def check_form(shape, dtype, got, label):
    """None when `got` is an array of this shape and a dtype a right answer could have, else the
    Verdict naming the first difference (its type, then its shape, then its dtype)."""
    if not isinstance(got, (np.ndarray, np.generic, bool, int, float)):
        return Verdict(False, "result", f"{label}: expected a numpy array, got {type(got).__name__}")
    got = np.asarray(got)
    if got.shape != tuple(shape):
        return Verdict(False, "shape", f"{label}: expected shape {tuple(shape)}, got {got.shape}")
    if dtype == bool:
        if got.dtype != bool:
            return Verdict(False, "dtype", f"{label}: expected a boolean table, got dtype {got.dtype}")
        return None
    if not np.issubdtype(got.dtype, np.number) or got.dtype == bool:
        return Verdict(False, "dtype", f"{label}: expected numbers, got dtype {got.dtype}")
    if np.issubdtype(dtype, np.floating) and got.dtype != dtype:
        return Verdict(False, "dtype", f"{label}: expected dtype {dtype}, got {got.dtype} "
                                       "(float32 in must give float32 out: a float64 array or numpy float64 number met "
                                       "on the way turns the result into float64)")
    return None


def compare(expected, got, tolerance, label):
    """Compare one array with its expected value; return a Verdict naming the first problem."""
    expected = np.asarray(expected)
    wrong_form = check_form(expected.shape, expected.dtype, got, label)
    if wrong_form:
        return wrong_form
    got = np.asarray(got)
    if expected.dtype == bool:
        wrong = np.argwhere(got != expected)
        if len(wrong):
            cells = ", ".join(str(tuple(int(i) for i in w)) for w in wrong[:6])
            return Verdict(False, "values",
                           f"{label}: {len(wrong)} of {expected.size} cells differ (first at {cells})\n"
                           f"  expected {show(expected)}\n  got      {show(got)}")
        return PASSED
    bad_nan = np.isnan(got) & ~np.isnan(expected)
    bad_inf = np.isinf(got) & ~(np.isinf(expected) & (np.sign(got) == np.sign(expected)))
    if bad_nan.any() or bad_inf.any():
        where = np.argwhere(bad_nan | bad_inf)[0]
        return Verdict(False, "nan", f"{label}: {int(bad_nan.sum())} NaN and {int(bad_inf.sum())} inf values "
                                     f"where numbers were expected (first at {tuple(int(i) for i in where)})\n"
                                     f"  expected {show(expected)}\n  got      {show(got)}")
    atol, rtol = tolerance["atol"], tolerance["rtol"]
    close = np.isclose(got, expected, atol=atol, rtol=rtol, equal_nan=True)
    if close.all():
        return PASSED
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf where both are -inf (masked cells)
        diff = np.where(np.isfinite(expected) & np.isfinite(got), np.abs(got.astype(np.float64) - expected), np.inf)
        diff = np.where(close, 0.0, diff)
        worst = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
        rel = diff[worst] / max(abs(float(expected[worst])), 1e-300) if diff.ndim else 0.0
    return Verdict(False, "values",
                   f"{label}: {int((~close).sum())} of {close.size} values are off (atol {atol:g}, rtol {rtol:g});"
                   f" largest error {float(diff[worst]):.3g} (relative {float(rel):.3g}) at {tuple(int(i) for i in worst)}:"
                   f" expected {float(expected[worst]):.6g}, got {float(got[worst]):.6g}\n"
                   f"  expected {show(expected)}\n  got      {show(got)}")


def expected_outputs(case, calls):
    """What each call must give: a list of {part name: array}, or None for a property case."""
    expect = case.expect
    if "value" in expect:
        label = expect.get("pick", case.returns[0])
        return [{label: _as_array(expect["value"], expect.get("dtype"))}]
    if "reference" in expect:
        outputs = reference_outputs(case, calls)
        if "pick" in expect:
            return [{expect["pick"]: pick(out, expect["pick"])} for out in outputs]
        return outputs
    return None


def expected_forms(case, calls):
    """For a property case, what each call's results must look like: a list of {part: (shape, dtype)},
    those of the reference's results on the same calls (their values are never compared); else None."""
    if "property" not in case.expect:
        return None
    return [{part: (np.shape(value), np.asarray(value).dtype) for part, value in out.items()}
            for out in reference_outputs(case, calls)]


def _picked(result, text):
    """(the part `text` of a learner's result, None), or (None, a Verdict) when it cannot be taken."""
    try:
        return pick(result, text), None
    except (IndexError, TypeError, KeyError) as err:
        name = text.split("[")[0]
        shape = np.shape(result.get(name)) if name in result else "missing"
        return None, Verdict(False, "shape", f"{text}: cannot be taken from the result ({name} has shape {shape}: {err})")


def _check_property(case, results):
    prop = case.expect["property"]
    if prop == "same_across_calls":
        (first, bad1), (second, bad2) = (_picked(res, p) for res, p in zip(results, case.expect["picks"]))
        if bad1 or bad2:
            return bad1 or bad2
        verdict = compare(first, second, case.tolerance, f"{case.expect['picks'][1]} (call 2)")
        if verdict.passed:
            return PASSED
        return Verdict(False, "property", f"{case.expect['explain']}\n{verdict.message}")
    if prop == "rows_sum_to_one_or_zero":
        for k, res in enumerate(results, start=1):
            P, bad = _picked(res, case.expect["pick"])
            if bad:
                return bad
            P = np.asarray(P, dtype=np.float64)
            sums = P.sum(axis=-1)
            ok = (np.isclose(sums, 1.0, atol=1e-6) | np.isclose(sums, 0.0, atol=1e-12)) & (P >= 0).all(axis=-1)
            if not ok.all():
                row = tuple(int(i) for i in np.argwhere(~ok)[0])
                return Verdict(False, "property", f"call {k}: every row of P must sum to 1 (or be all 0 when no key "
                                                  f"is visible) with no negative weight; row {row} sums to "
                                                  f"{float(sums[row]):.6g}: {show(P[row])}")
        return PASSED
    raise ValueError(f"case {case.name}: unknown property {prop!r}")


_COMPUTE = object()


def _label(part, k, calls):
    return part if len(calls) == 1 else f"{part} (call {k + 1})"


def evaluate(case, calls, results, expected=_COMPUTE, forms=_COMPUTE):
    """Return the Verdict for `results` (one {part name: value} dict per call) on `case`.

    `calls` are the arguments that were passed (as built by `case.build_calls()`). `expected` and
    `forms`, when given, are `expected_outputs(case, calls)` and `expected_forms(case, calls)`
    computed beforehand (the grader reuses them across submissions instead of running the reference
    again for each one); `forms=None` skips checking a property case's shapes and dtypes.
    """
    if expected is _COMPUTE:
        expected = expected_outputs(case, calls)
    if forms is _COMPUTE:
        forms = expected_forms(case, calls)
    for k, (kwargs, result) in enumerate(zip(calls, results)):
        for part, (shape, dtype) in (forms[k] if forms else {}).items():  # a constant is of the wrong form
            got, bad = _picked(result, part)
            bad = bad or check_form(shape, dtype, got, _label(part, k, calls))
            if bad:
                return bad
        reference = expected[k] if expected is not None else None
        for part, value in (reference or result).items():
            got, bad = _picked(result, part) if reference is not None else (value, None)
            if bad:
                return bad
            want = value if reference is not None else got
            if reference is None and np.asarray(got).dtype != bool:
                finite = np.isfinite(np.asarray(got, dtype=np.float64)) | np.isneginf(np.asarray(got, dtype=np.float64))
                if not finite.all():
                    return Verdict(False, "nan", f"{part} (call {k + 1}): holds NaN or +inf: {show(got)}")
                continue
            verdict = compare(want, got, case.tolerance, _label(part, k, calls))
            if not verdict.passed:
                return verdict
    return _check_property(case, results) if expected is None else PASSED


def warning_verdict(function, warned):
    """The Verdict of results that were right but came with NumPy warnings (`warned`, their texts)."""
    more = f" (and {len(warned) - 1} more)" if len(warned) > 1 else ""
    return Verdict(False, "warning", f"{function}() gave the right values but emitted a warning on the way: "
                                     f"{warned[0]}{more}\n  NaN or inf was computed and then hidden; a right "
                                     "answer keeps every intermediate value finite (no NaN, no warning)")


def teaching_message(case, calls, verdict, diagnosis_text=""):
    """The full text a learner sees when `case` fails."""
    lines = [f"{case.step.module}.{case.function} — {case.concept}"]
    for k, kwargs in enumerate(calls):
        prefix = "input" if len(calls) == 1 else f"input of call {k + 1}"
        lines += [f"  {prefix}: {line}" for line in describe_inputs(kwargs)]
    lines += ["  " + line for line in verdict.message.split("\n")]  # not splitlines: a learner's \r is no line break
    if diagnosis_text:
        lines.append(f"  likely mistake: {diagnosis_text}")
    if case.hint:
        lines.append(f"  hint: {case.hint}")
    lines.append(f"  read: {case.read}")
    return "\n".join(lines)
