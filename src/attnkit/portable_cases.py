"""The one stored form of a case, written from the catalogue and the reference (`attnkit_runtime.stored` reads it).

The release stores its public cases in it (course.json, large arrays in snapshot.npz), the nbgrader
notebook its public cases (the checks cell) and its hidden ones (hidden_tests/<assignment>.json, large
arrays as base64). Argument recipes stay as the catalogue writes them; an argument that calls the
reference, every expected value and every known mistake's outputs are computed here and stored as
arrays, so neither front end needs the solutions. Every mistake that fails a case is kept, whatever
the size of its outputs (`mistakes.failing` is their source, in diagnosis order).
"""
import base64

import numpy as np

from . import checks, lessons, mistakes
from .cases import build_arg
from attnkit_runtime.judge import DTYPES, encode_forms

INLINE = 64  # arrays up to this many values are written out as lists; larger ones are set aside
SAMPLED = 8  # cells kept of a large mistake output where it is sampled (the notebook's checks cell)


def as_base64(key, arr):
    """A large array's stored value inside the JSON itself: its bytes in base64 (`key` is not needed)."""
    return {"b64": base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii"),
            "dtype": str(arr.dtype), "shape": list(arr.shape)}


class NpzStore:
    """Large arrays set aside as members of one .npz (`arrays`, {key: array}), stored as {"stored": key}."""

    def __init__(self):
        self.arrays = {}

    def __call__(self, key, arr):
        self.arrays[key] = arr
        return {"stored": key}


def encode_array(value, key, aside):
    """`value` as a stored value: written out when small, else `aside(key, array)` (as_base64, an NpzStore)."""
    arr = np.asarray(value)
    if arr.dtype.hasobject:
        raise ValueError(f"cannot store an array of Python objects: {arr!r:.80}")
    if arr.size <= INLINE and str(arr.dtype) in DTYPES:  # the dtypes build_arg reads back
        return {"array": arr.tolist(), "dtype": str(arr.dtype)}
    return aside(key, arr)


def _argument(spec, key, aside):
    if isinstance(spec, dict) and "call" in spec:
        return encode_array(build_arg(spec), key, aside)
    return spec  # a recipe, a list or a number: the runtime's build_arg makes it


def sample(value, expected=None):
    """A large mistake output as SAMPLED of its cells: {"sample": {shape, dtype, index, values}}.

    Half the cells are where it departs from `expected` (the case's expected part, None for a
    property case), spread over them, the rest spread over the whole array: a learner's result is
    the mistake's when it agrees there (`stored.StoredMistakes`).
    """
    arr = np.asarray(value)
    flat = arr.reshape(-1)
    spread = np.linspace(0, flat.size - 1, SAMPLED // 2).astype(int)
    departs = np.array([], dtype=int)
    if expected is not None and np.shape(expected) == arr.shape:
        with np.errstate(all="ignore"):
            departs = np.flatnonzero(~np.isclose(flat, np.asarray(expected).reshape(-1), equal_nan=True)
                                     if arr.dtype != bool else flat != np.asarray(expected).reshape(-1))
        departs = departs[np.linspace(0, departs.size - 1, min(departs.size, SAMPLED // 2)).astype(int)]
    index = np.unique(np.concatenate([departs, spread]))
    return {"sample": {"shape": list(arr.shape), "dtype": str(arr.dtype), "index": index.tolist(),
                       "values": flat[index].tolist()}}


def _outputs(results, key, aside, expected=None):
    """Results as stored values; with `expected` (the notebook's checks cell), large ones as a `sample`."""
    if expected is not None:
        return [{part: sample(v, want.get(part) if want else None) if np.size(v) > INLINE
                 else encode_array(v, f"{key}/{k}/{part}", aside) for part, v in out.items()}
                for k, (out, want) in enumerate(zip(results, expected))]
    return [{part: encode_array(v, f"{key}/{k}/{part}", aside) for part, v in out.items()}
            for k, out in enumerate(results)]


def case_spec(case, aside=as_base64, sampled=False):
    """The stored form of `case` (a catalogue case), large arrays set aside by `aside`.

    `sampled`: the known mistakes' large outputs are kept as a `sample` of their cells, not whole: the
    notebook's checks cell holds every public case, and a notebook whose code passes 1 MB is refused
    by the grader (a 12-head case's mistakes alone are 4 MB whole).
    """
    calls = case.build_calls()
    expected, forms = checks.expected_outputs(case, calls), checks.expected_forms(case, calls)
    spec = {
        "name": case.name,
        "function": case.function,
        "returns": list(case.returns),
        "concept": case.concept,
        "read": lessons.links(case.lesson),
        "tolerance": case.tolerance,
        "calls": [{arg: [_argument(s, f"{case.name}/input/{k}/{arg}/{n}", aside) for n, s in enumerate(given)]
                   if arg.startswith("*") else _argument(given, f"{case.name}/input/{k}/{arg}", aside)
                   for arg, given in call.items()} for k, call in enumerate(case.calls)],
        "expected": None if expected is None else _outputs(expected, f"{case.name}/expected", aside),
    }
    if case.hint:
        spec["hint"] = case.hint
    if expected is None:  # a property: the rule is in `expect`, the reference's result forms in `forms`
        spec["expect"] = case.expect
        spec["forms"] = encode_forms(forms)
    spec["mistakes"] = [
        {"code": code, "text": mistakes.descriptions(code), "error": list(outcome.error)} if outcome.error else
        {"code": code, "text": mistakes.descriptions(code),
         "outputs": _outputs(outcome.outputs, f"{case.name}/mistake/{j}", aside,
                             (expected or [{}] * len(outcome.outputs)) if sampled else None)}
        for j, (code, outcome) in enumerate(mistakes.failing(case, calls, expected, forms))]
    return spec
