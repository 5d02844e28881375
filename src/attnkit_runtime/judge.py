"""The portable judging core: build a case's arguments, call a function, name the parts of its
result, judge them, and word the teaching message. Standard library and numpy only.

The kit imports it (public tests, grader, diagnosis, nbgrader builder), the student release ships it
as a file of its runtime, and the nbgrader course puts it beside the notebook: one copy of the
"call, name the parts, judge" loop everywhere. It never imports the reference solutions: an argument
spec that calls one (`{"call": "step3_masks.causal_visible", ...}`) is resolved by the function the
caller passes (`build_arg(spec, call=...)`); the release and the notebook store such arguments as
arrays instead. Judging never calls learner code: the harness (harness.py) makes the calls, wherever
learner code may run, and judges what came back with this module.

A case here is anything with the attributes `name`, `step.module`, `function`, `returns`, `concept`,
`read` (where to read, as the learner sees it), `hint`, `tolerance` and `expect` (`attnkit.cases.Case`, or `portable_case` below).
`concept`, `read` and `hint` may be two-language texts: the messages pick the learner's language (attnkit_runtime.i18n).
"""
import copy
import re
import sys
import unicodedata
import warnings
from dataclasses import dataclass
from enum import Enum
from types import SimpleNamespace

import numpy as np

from .i18n import pick as in_language
from .messages import say

_PICK = re.compile(r"^\s*(\w+)?\s*(\[.*\])?\s*$")
_SLICE_PART = re.compile(r"^\s*(-?\d+)?\s*(?::\s*(-?\d+)?\s*(?::\s*(-?\d+)?\s*)?)?$")


def parse_index(text):
    """Return the numpy index for "[1, :3]" / "[..., -1]" (ints, slices and ... only)."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(f"an index must look like [1, :3], got {text!r}")
    parts = []
    for raw in text[1:-1].split(","):
        raw = raw.strip()
        if raw == "...":
            parts.append(Ellipsis)
            continue
        match = _SLICE_PART.match(raw)
        if not raw or not match:
            raise ValueError(f"cannot read index part {raw!r} in {text!r}")
        if ":" in raw:
            start, stop, step = (int(g) if g is not None else None for g in match.groups())
            parts.append(slice(start, stop, step))
        else:
            parts.append(int(match.group(1)))
    return tuple(parts)


def parse_pick(text):
    """Split "O[1, :3]" into ("O", index) and "P" into ("P", ()); the name may be omitted."""
    match = _PICK.match(text)
    if not match:
        raise ValueError(f"a pick must look like O[1, :3], got {text!r}")
    name, index = match.groups()
    return name, (parse_index(index) if index else ())


DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "bool": bool}
_GENERATORS = ("array", "normal", "random_bool", "call")
_MODIFIERS = ("take", "plus", "times", "assign", "pad_to", "dtype", "seed", "scale", "p", "args")


def as_array(value, dtype=None):
    if dtype is not None:
        return np.array(value, dtype=DTYPES[dtype])
    arr = np.array(value)
    return arr if arr.dtype == bool else arr.astype(np.float64)


def build_arg(spec, call=None):
    """Turn one argument spec from a case file into the value passed to the function.

    `call(target, args)` resolves a spec {"call": "module.function", "args": …}: it gets the raw
    specs of the arguments and returns the value (the kit runs the reference solution there).
    """
    if isinstance(spec, list):
        return as_array(spec)
    if not isinstance(spec, dict):
        return spec  # a plain number such as d_h, n_query
    generators = [key for key in _GENERATORS if key in spec]
    unknown = set(spec) - set(_GENERATORS) - set(_MODIFIERS)
    if len(generators) != 1 or unknown:
        raise ValueError(f"an argument spec needs exactly one of {_GENERATORS}, got keys {sorted(spec)}")
    kind = generators[0]
    if kind == "array":
        value = as_array(spec["array"], spec.get("dtype"))
    elif kind == "normal":
        rng = np.random.default_rng(spec["seed"])
        value = (rng.standard_normal(spec["normal"]) * spec.get("scale", 1.0)).astype(DTYPES[spec.get("dtype", "float64")])
    elif kind == "random_bool":
        value = np.random.default_rng(spec["seed"]).random(spec["random_bool"]) < spec.get("p", 0.5)
    else:
        if call is None:
            raise ValueError(f"the argument spec calls {spec['call']}: it must be stored as an array here")
        value = call(spec["call"], spec.get("args", {}))
    if "plus" in spec:
        value = value + np.asarray(spec["plus"], dtype=value.dtype)
    if "times" in spec:
        value = value * np.asarray(spec["times"], dtype=value.dtype)
    if "assign" in spec:
        value = value.copy()
        for item in spec["assign"] if isinstance(spec["assign"], list) else [spec["assign"]]:
            value[parse_index(item["index"])] = item["value"]
    if "take" in spec:
        value = np.ascontiguousarray(value[parse_index(spec["take"])])
    if "pad_to" in spec:
        value = np.pad(value, [(0, want - have) for have, want in zip(value.shape, spec["pad_to"])])
    return value


def invoke(fn, kwargs):
    """Call `fn` with one call's arguments; a "*name" key is spread as positional arguments."""
    __tracebackhide__ = True  # pytest shows the learner's frames, not this one
    args, named = [], {}
    for key, value in kwargs.items():  # one loop: two comprehensions (two frames) took ~1 us more per call
        if key.startswith("*"):
            args += value
        else:
            named[key] = value
    return fn(*args, **named)


def invoke_watched(fn, kwargs):
    """(`invoke(fn, kwargs)`, [each RuntimeWarning the call emitted, as text with its file and line]).

    numpy's usual error state applies (division by zero, overflow and invalid values warn), so a
    result reached through NaN or inf is seen even when the learner's code cleaned it up afterwards.
    """
    __tracebackhide__ = True
    with warnings.catch_warnings(record=True) as caught, np.errstate(divide="warn", over="warn", invalid="warn"):
        warnings.simplefilter("always")
        value = invoke(fn, kwargs)
    return value, [f"{w.category.__name__}: {w.message} ({w.filename}, line {w.lineno})"
                   for w in caught if issubclass(w.category, RuntimeWarning)]


def call_named(fn, returns, kwargs):
    """Call `fn` on a copy of one call's arguments and name the parts of its result."""
    __tracebackhide__ = True
    return named_outputs(returns, invoke(fn, copy.deepcopy(kwargs)))


def pick(outputs, text):
    """Select part of a named result: pick({"O": …, "P": …}, "O[1, :3]")."""
    name, index = parse_pick(text)
    if name is None:
        if len(outputs) != 1:
            raise ValueError(f"pick {text!r} names no part, but the result has parts {list(outputs)}")
        name = next(iter(outputs))
    return outputs[name][index] if index else outputs[name]


def named_outputs(returns, result):
    """Name the parts of a function's result after the manifest's `returns` list.

    A tuple/list result is matched in order; a result object with those attributes (HeadTrace) is
    read by attribute; anything else is the single part. Raises ValueError when the count is wrong.
    """
    if len(returns) > 1 and all(hasattr(result, name) for name in returns) and not isinstance(result, (tuple, list)):
        return {name: getattr(result, name) for name in returns}
    if len(returns) > 1:
        if not isinstance(result, (tuple, list)):
            raise ValueError(say("result.single", names=", ".join(returns), got=type(result).__name__))
        if len(result) != len(returns):
            raise ValueError(say("result.count", count=len(returns), names=", ".join(returns), got=len(result)))
        return dict(zip(returns, result))
    return {returns[0]: result}


@dataclass(frozen=True)
class Verdict:
    passed: bool
    problem: str  # "" when passed, else "result", "shape", "dtype", "nan", "values", "property" or "warning"
    message: str
    detail: str = ""  # the whole arrays, when `message` shows only a slice of them (pytest -vv shows it)


PASSED = Verdict(True, "", "")


def show(value, precision=4, indent=11, whole=False):
    """A short, readable text of an array or scalar (every cell when `whole`); continuation lines
    indented by `indent`."""
    arr = np.asarray(value)
    if arr.dtype == bool:
        arr = arr.astype(int)
    return np.array2string(arr, precision=precision, threshold=sys.maxsize if whole else 24, edgeitems=3,
                           suppress_small=True, max_line_width=100,
                           separator=", ").replace("\n", "\n" + " " * indent)


def _columns(text):
    """Terminal columns of `text`: a CJK character takes two."""
    return len(text) + sum(unicodedata.east_asian_width(ch) in "WF" for ch in text)


def _left(text, width):
    """`text` padded with spaces to `width` terminal columns."""
    return text + " " * max(width - _columns(text), 0)


def _beside(expected, got, width=100):
    """`expected` and `got` in two columns when they fit in `width`, else one under the other."""
    left, right = show(expected, indent=0).split("\n"), show(got, indent=0).split("\n")
    column = max(len(line) for line in left) + 3
    want, have = say("compare.expected"), say("compare.got")
    if len(left) == 1 or column + max(len(line) for line in right) > width:
        label = max(_columns(want), _columns(have)) + 1
        return (f"  {_left(want, label)}{show(expected, indent=label + 2)}\n"
                f"  {_left(have, label)}{show(got, indent=label + 2)}")
    rows = [_left(want, column) + have] + [f"{a:<{column}}{b}" for a, b in zip(left, right)]
    rows += [" " * column + b for b in right[len(left):]]
    return "\n".join("  " + row.rstrip() for row in rows)


def _side_by_side(expected, got, where):
    """(message lines, detail) showing `expected` and `got`, which differ at the cell `where`.

    Up to 2-D both are shown (summarised past 24 cells) and there is no detail; a larger array is
    shown by its shape and the 2-D slice holding `where`, with the whole arrays as the detail.
    """
    if expected.ndim <= 2:
        return _beside(expected, got), ""
    lead = tuple(int(i) for i in where[:-2])
    index = ", ".join(map(str, lead)) + ", :, :"
    want, have = say("compare.expected_whole"), say("compare.got_whole")
    label = max(_columns(want), _columns(have)) + 1
    return (f"  {say('compare.first_slice', shape=expected.shape, index=index)}\n"
            f"{_beside(expected[lead], got[lead])}",
            f"  {_left(want, label)}{show(expected, indent=label + 2, whole=True)}\n"
            f"  {_left(have, label)}{show(got, indent=label + 2, whole=True)}")


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
            lines.append(say("teach.input_shape", name=name, shape=arr.shape, dtype=arr.dtype))
    return lines


def check_form(shape, dtype, got, label):
    """None when `got` is an array of this shape and a dtype a right answer could have, else the
    Verdict naming the first difference (its type, then its shape, then its dtype)."""
    if not isinstance(got, (np.ndarray, np.generic, bool, int, float)):
        return Verdict(False, "result", say("form.not_array", label=label, got=type(got).__name__))
    got = np.asarray(got)
    if got.shape != tuple(shape):
        return Verdict(False, "shape", say("form.shape", label=label, want=tuple(shape), got=got.shape))
    if dtype == bool:
        if got.dtype != bool:
            return Verdict(False, "dtype", say("form.not_bool", label=label, got=got.dtype))
        return None
    if not np.issubdtype(got.dtype, np.number) or got.dtype == bool:
        return Verdict(False, "dtype", say("form.not_numbers", label=label, got=got.dtype))
    if np.issubdtype(dtype, np.integer) and not np.issubdtype(got.dtype, np.integer):  # a count or an index
        return Verdict(False, "dtype", say("form.not_int", label=label, got=got.dtype))
    if np.issubdtype(dtype, np.floating) and got.dtype != dtype:
        narrowed = np.issubdtype(got.dtype, np.floating) and got.dtype.itemsize < np.dtype(dtype).itemsize
        return Verdict(False, "dtype", say("form.dtype_narrowed" if narrowed else "form.dtype", label=label,
                                           want=np.dtype(dtype), got=got.dtype))
    return None


def agrees(expected, got, tolerance):
    """Whether `compare` would pass `got`, without the message a failure is given (for callers that only
    ask, such as a diagnosis comparing many mistaken worlds)."""
    expected = np.asarray(expected)
    if check_form(expected.shape, expected.dtype, got, "") is not None:
        return False
    if expected.dtype == bool:
        return bool(np.array_equal(np.asarray(got), expected))
    # NaN or an infinity where `expected` has none (or the other sign) is never close: the same cells fail here
    return bool(np.isclose(got, expected, atol=tolerance["atol"], rtol=tolerance["rtol"], equal_nan=True).all())


def compare(expected, got, tolerance, label):
    """Compare one array with its expected value; return a Verdict naming the first problem."""
    if agrees(expected, got, tolerance):
        return PASSED
    expected = np.asarray(expected)
    wrong_form = check_form(expected.shape, expected.dtype, got, label)
    if wrong_form:
        return wrong_form
    got = np.asarray(got)
    if expected.dtype == bool:
        wrong = np.argwhere(got != expected)
        cells = ", ".join(str(tuple(int(i) for i in w)) for w in wrong[:3]) + (", …" if len(wrong) > 3 else "")
        arrays, detail = _side_by_side(expected, got, wrong[0])
        return Verdict(False, "values", say("compare.cells_differ", label=label, count=len(wrong),
                                            size=expected.size, cells=cells) + f"\n{arrays}", detail)
    bad_nan = np.isnan(got) & ~np.isnan(expected)
    bad_inf = np.isinf(got) & ~(np.isinf(expected) & (np.sign(got) == np.sign(expected)))
    if bad_nan.any() or bad_inf.any():
        where = np.argwhere(bad_nan | bad_inf)[0]
        arrays, detail = _side_by_side(expected, got, where)
        counts = say("compare.and").join(say(key, count=int(bad.sum())) for key, bad in
                                        (("compare.nan_count", bad_nan), ("compare.inf_count", bad_inf)) if bad.any())
        return Verdict(False, "nan", say("compare.nan", label=label, counts=counts,
                                         where=tuple(int(i) for i in where)) + f"\n{arrays}", detail)
    atol, rtol = tolerance["atol"], tolerance["rtol"]
    close = np.isclose(got, expected, atol=atol, rtol=rtol, equal_nan=True)
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf where both are -inf (masked cells)
        diff = np.where(np.isfinite(expected) & np.isfinite(got), np.abs(got.astype(np.float64) - expected), np.inf)
        diff = np.where(close, 0.0, diff)
    worst = np.unravel_index(int(np.argmax(diff)), diff.shape)
    arrays, detail = _side_by_side(expected, got, np.argwhere(~close)[0] if close.ndim else ())
    return Verdict(False, "values", say(_largest_error(float(expected[worst])), label=label, count=int((~close).sum()),
                                        size=close.size, atol=f"{atol:g}", rtol=f"{rtol:g}",
                                        error=f"{float(diff[worst]):.3g}",
                                        relative=f"{float(diff[worst]) / abs(float(expected[worst])):.3g}"
                                        if np.isfinite(expected[worst]) and expected[worst] else "",
                                        where=tuple(int(i) for i in worst), want=f"{float(expected[worst]):.6g}",
                                        got=f"{float(got[worst]):.6g}") + f"\n{arrays}", detail)


def _largest_error(want):
    """The message naming the worst cell: its relative error only where the expected value `want` has one (not 0,
    not ±inf, where no error is a number worth reading)."""
    if not np.isfinite(want):
        return "compare.values_off_infinite"
    return "compare.values_off" if want else "compare.values_off_absolute"


def picked(result, text):
    """(the part `text` of a learner's result, None), or (None, a Verdict) when it cannot be taken."""
    try:
        return pick(result, text), None
    except (IndexError, TypeError, KeyError) as err:
        name = text.split("[")[0]
        shape = np.shape(result.get(name)) if name in result else say("pick.missing")
        return None, Verdict(False, "shape", say("pick.cannot", part=text, name=name, shape=shape, error=err))


def _label(part, k, calls):
    return part if len(calls) == 1 else say("part.of_call", part=part, call=k + 1)


class Property(str, Enum):
    """The properties a case can check (`expect: {property: …}`; docs/CASES.md says what each means)."""

    SAME_ACROSS_CALLS = "same_across_calls"
    ROWS_SUM_TO_ONE_OR_ZERO = "rows_sum_to_one_or_zero"
    SAME_DOT_PRODUCTS_ACROSS_CALLS = "same_dot_products_across_calls"
    LARGEST_INTERMEDIATE = "largest_intermediate"  # judged on the calls' memory peaks, not their results


PROPERTIES = tuple(p.value for p in Property)


def measures_peak(case):
    """Whether the calls of `case` must have their memory peak measured (`harness.peak_of_call`): a
    `largest_intermediate` property case. A case-like without `expect` (the grader's sandbox child, which
    never sees one) says so by its `measure_peak` attribute."""
    expect = getattr(case, "expect", None)
    if expect is None:
        return bool(getattr(case, "measure_peak", False))
    return expect.get("property") == Property.LARGEST_INTERMEDIATE


RESIDENT_SLACK_BYTES = 16 << 20  # what a process's resident memory may grow by beyond the budget (allocator, pages)


def _largest_intermediate(case, results, peaks, resident=()):
    """The Verdict of the calls' memory peaks (bytes, one per call of `results`; None where it was hidden)
    against the case's budget: `arrays` float64 arrays of `shape` held at once. `resident`: where the grader
    measured it outside the learner's process, how much each call's process grew its peak resident memory
    (bytes), which may pass the budget by RESIDENT_SLACK_BYTES at most."""
    shape, budget = _memory_budget(case)
    for k in range(1, len(results) + 1):
        peak = peaks[k - 1] if k <= len(peaks) else None
        if peak is None:
            return Verdict(False, "property", say("property.peak_hidden", call=k, function=case.function))
        if peak > budget:
            return Verdict(False, "property", f"{in_language(case.expect['explain'])}\n" + say(
                "property.peak", call=k, function=case.function, peak=_kib(peak), budget=_kib(budget),
                arrays=case.expect["arrays"], shape=list(shape)))
    for k, peak in enumerate(resident, 1):
        if peak > budget + RESIDENT_SLACK_BYTES:
            return Verdict(False, "property", f"{in_language(case.expect['explain'])}\n" + say(
                "property.peak_resident", call=k, function=case.function, peak=_kib(peak), budget=_kib(budget),
                arrays=case.expect["arrays"], shape=list(shape)))
    return PASSED


def out_of_memory_verdict(case, error):
    """The Verdict of a memory case whose call ran out of memory, raising `error` (its text): it held far more than
    its budget (in the grader, its address space is capped a little past the budget)."""
    shape, budget = _memory_budget(case)
    return Verdict(False, "property", f"{in_language(case.expect['explain'])}\n" + say(
        "property.out_of_memory", function=case.function, error=error, budget=_kib(budget),
        arrays=case.expect["arrays"], shape=list(shape)))


def _memory_budget(case):
    """(the shape of a memory case's arrays, its budget in bytes: `arrays` float64 arrays of that shape)."""
    shape = tuple(case.expect["shape"])
    return shape, int(case.expect["arrays"]) * int(np.prod(shape)) * 8


def _kib(n_bytes):
    return f"{n_bytes / 1024:.1f} KiB"


def check_property(case, results, forms, peaks=(), resident=()):
    """The Verdict of a property case on `results` (one {part: value} per call).

    Each result must first have the form of the reference's (`forms`: one {part: (shape, dtype)}
    per call, computed by the kit or stored), so a constant earns nothing; then hold no NaN or +inf;
    then have the property. `peaks`: the calls' memory peaks (`harness.Outcome.peaks`), which a
    `largest_intermediate` case judges, with `resident` (`harness.Outcome.resident`) where there is one.
    """
    if forms is None or len(forms) != len(results):
        raise ValueError(f"case {case.name}: a property case is judged with its results' forms, one per call")
    for k, (result, form) in enumerate(zip(results, forms)):
        for part, (shape, dtype) in form.items():
            got, bad = picked(result, part)
            bad = bad or check_form(shape, dtype, got, _label(part, k, results))
            if bad:
                return bad
        for part, got in result.items():
            if np.asarray(got).dtype != bool:
                got = np.asarray(got, dtype=np.float64)
                finite = np.isfinite(got) | np.isneginf(got)
                if not finite.all():
                    where = tuple(int(i) for i in np.argwhere(~finite)[0])
                    return Verdict(False, "nan", say("property.not_finite", part=part, call=k + 1, where=where,
                                                     values=show(got[where[:-2]] if got.ndim > 2 else got)))
    prop = case.expect["property"]
    if prop == Property.SAME_ACROSS_CALLS:
        return _same_across_calls(case, results)
    if prop == Property.ROWS_SUM_TO_ONE_OR_ZERO:
        return _rows_sum_to_one_or_zero(case, results)
    if prop == Property.SAME_DOT_PRODUCTS_ACROSS_CALLS:
        return _same_dot_products(case, results)
    if prop == Property.LARGEST_INTERMEDIATE:
        return _largest_intermediate(case, results, peaks, resident)
    raise ValueError(f"case {case.name}: unknown property {prop!r}")


def _same_across_calls(case, results):
    """Whether part `picks[0]` of call 1 equals part `picks[1]` of call 2."""
    (first, bad1), (second, bad2) = (picked(res, p) for res, p in zip(results, case.expect["picks"]))
    if bad1 or bad2:
        return bad1 or bad2
    verdict = compare(first, second, case.tolerance, say("part.of_call", part=case.expect["picks"][1], call=2))
    if verdict.passed:
        return PASSED
    return Verdict(False, "property", f"{in_language(case.expect['explain'])}\n{verdict.message}")


def _rows_sum_to_one_or_zero(case, results):
    """Whether every row of part `pick` sums to 1, or is all 0, with no negative weight, in every call."""
    for k, res in enumerate(results, start=1):
        P, bad = picked(res, case.expect["pick"])
        if bad:
            return bad
        P = np.asarray(P, dtype=np.float64)
        sums = P.sum(axis=-1)
        ok = (np.isclose(sums, 1.0, atol=1e-6) | np.isclose(sums, 0.0, atol=1e-12)) & (P >= 0).all(axis=-1)
        if not ok.all():
            row = tuple(int(i) for i in np.argwhere(~ok)[0])
            return Verdict(False, "property", say("property.rows_sum", call=k, row=row,
                                                  total=f"{float(sums[row]):.6g}", values=show(P[row])))
    return PASSED


def _same_dot_products(case, results):
    """Whether the dot products of the rows of `picks[0]` with the rows of `picks[1]` ([..., T_a, T_b],
    over the last axis) are, in every call, those of call 1 (RoPE: shifting every position by the same
    amount leaves q_i · k_j unchanged)."""
    queries, keys = case.expect["picks"]
    first = None
    for k, res in enumerate(results, start=1):
        (rows_a, bad_a), (rows_b, bad_b) = picked(res, queries), picked(res, keys)
        if bad_a or bad_b:
            return bad_a or bad_b
        dots = np.asarray(rows_a, dtype=np.float64) @ np.swapaxes(np.asarray(rows_b, dtype=np.float64), -1, -2)
        if first is None:
            first = dots
            continue
        verdict = compare(first, dots, case.tolerance, say("property.dot_products", queries=queries, keys=keys, call=k))
        if not verdict.passed:
            return Verdict(False, "property", f"{in_language(case.expect['explain'])}\n{verdict.message}")
    return PASSED


def evaluate(case, calls, results, expected, forms, peaks=(), resident=()):
    """Return the Verdict for `results` (one {part name: value} dict per call) on `case`.

    `calls` are the arguments that were passed; `expected` what each call must give (one
    {part: array} per call, the reference's or stored), or None for a property case, which is
    judged by `check_property` with `forms` (None for the other cases), `peaks` and `resident`.
    """
    if expected is None:
        return check_property(case, results, forms, peaks, resident)
    for k, (result, reference) in enumerate(zip(results, expected)):
        for part, want in reference.items():
            got, bad = picked(result, part)
            verdict = bad or compare(want, got, case.tolerance, _label(part, k, calls))
            if not verdict.passed:
                return verdict
    return PASSED


def departure(outputs, results):
    """How far `results` are from a known mistake's `outputs` (each one {part: value} per call, parts of the same
    shapes): the largest absolute difference of a cell (NaN beside NaN and equal infinities count 0, a differing
    bool 1). When several known mistakes match a result within the tolerance, the nearest is the one made."""
    worst = 0.0
    for out, got in zip(outputs, results):
        for part, want in out.items():
            want, have = np.asarray(want), np.asarray(got[part])
            if want.dtype == bool or have.dtype == bool:
                worst = max(worst, float(np.any(want != have)))
                continue
            with np.errstate(invalid="ignore", over="ignore"):
                same = (want == have) | (np.isnan(want) & np.isnan(have))
                diff = np.where(same, 0.0, np.abs(have.astype(np.float64) - want))
            worst = max(worst, float(diff.max(initial=0.0)))
    return worst


def equally_near(matches):
    """The codes of the nearest of `matches`, [(code, departure)] in diagnosis order, as a tuple in that order:
    more than one where mistakes are as near as each other (their outputs alike on the case, which cannot tell
    them apart)."""
    best = min((distance for _, distance in matches), default=None)
    return tuple(dict.fromkeys(code for code, distance in matches if distance == best))


def warning_verdict(function, warned):
    """The Verdict of results that were right but came with NumPy warnings (`warned`, their texts)."""
    more = say("verdict.warning_more", count=len(warned) - 1) if len(warned) > 1 else ""
    return Verdict(False, "warning", say("verdict.warning", function=function, warning=warned[0], more=more))


def title(case):
    """The first line of every message about `case`: its function and what it checks."""
    return f"{case.step.module}.{case.function} — {in_language(case.concept)}"


def teaching_message(case, calls, verdict, diagnosis_text="", full_arrays=None):
    """The text a learner sees when `case` fails.

    `full_arrays` (public tests only): True adds the whole arrays a verdict shows only a slice of
    (pytest -vv), False says how to see them; None (the grader, the notebook) does neither.
    """
    lines = [title(case)]
    for k, kwargs in enumerate(calls):
        prefix = say("teach.input") if len(calls) == 1 else say("teach.input_of_call", call=k + 1)
        lines += ["  " + say("teach.labelled", label=prefix, text=line) for line in describe_inputs(kwargs)]
    lines += ["  " + line for line in verdict.message.split("\n")]  # not splitlines: a learner's \r is no line break
    if verdict.detail and full_arrays is not None:
        lines += ["  " + line for line in verdict.detail.split("\n")] if full_arrays else \
                 ["  " + say("teach.whole_arrays")]
    lines += ["  " + line for line in closing_lines(case, diagnosis_text).values()]
    return "\n".join(lines)


def closing_lines(case, diagnosis_text=""):
    """{kind: line} of the lines a teaching message ends with, in order: "likely_mistake" (when
    `diagnosis_text`), "hint" (when the case has one), "read" (the feedback shows each once per step)."""
    lines = {"likely_mistake": say("teach.likely_mistake", text=diagnosis_text)} if diagnosis_text else {}
    if case.hint:
        lines["hint"] = say("teach.hint", text=in_language(case.hint))
    return {**lines, "read": say("teach.read", where=in_language(case.read))}


def exception_note(case, calls, diagnosis_text=""):
    """What a public test adds under a learner's exception: the case, the input shapes, the likely mistake."""
    inputs = " | ".join("; ".join(f"{name} {np.shape(value)}" if np.ndim(value) else f"{name} = {value!r}"
                                  for name, value in kwargs.items() if not name.startswith("*")) for kwargs in calls)
    lines = [say("teach.public_test", name=case.name, concept=in_language(case.concept)),
             say("teach.inputs", inputs=inputs)]
    if diagnosis_text:
        lines.append(say("teach.likely_mistake", text=diagnosis_text))
    lines.append(say("teach.read", where=in_language(case.read)))
    return "\n".join(lines)


def evaluate_safely(case, calls, results, expected, forms, peaks=(), resident=()):
    """evaluate(), with anything it cannot judge in a learner's result reported as a failure, not a crash."""
    try:
        return evaluate(case, calls, results, expected, forms, peaks, resident)
    except (IndexError, TypeError, ValueError) as err:
        shapes = ", ".join(f"{part} {np.shape(value)}" for result in results for part, value in result.items())
        return Verdict(False, "shape", say("verdict.not_compared", error=f"{type(err).__name__}: {err}", shapes=shapes))


def encode_forms(forms):
    """Result forms (one {part: (shape, dtype)} per call) as plain data to store: [{part: [shape, dtype name]}]."""
    return [{part: [list(shape), str(np.dtype(dtype))] for part, (shape, dtype) in call.items()} for call in forms]


def decode_forms(data):
    """The result forms of a property case stored by `encode_forms` (None for the other cases)."""
    return None if data is None else [{part: (tuple(shape), np.dtype(dtype)) for part, (shape, dtype) in call.items()}
                                      for call in data]


def portable_case(module, spec):
    """A case from plain data (the release's test files, the notebook's cells): a namespace with
    the attributes judging and the teaching messages read, and `forms`, the stored result forms of a
    property case (None for the others)."""
    return SimpleNamespace(step=SimpleNamespace(module=module), name=spec["name"], function=spec["function"],
                           concept=spec["concept"], read=spec["read"], hint=spec.get("hint", ""),
                           returns=tuple(spec["returns"]), tolerance=spec["tolerance"], expect=spec.get("expect", {}),
                           forms=decode_forms(spec.get("forms")))
