"""What the release stores from the reference, computed at release time from the public cases only.

For each public case: its calls' arguments and the values its calls must give (written into the
test files, large arrays into `snapshot.npz`), and the known mistakes that fail it with their
outputs (into the snapshot) or errors (into `course.json`). Nothing here reads a hidden case.
"""
import math

import numpy as np

from .. import checks, manifest, mistakes
from ..cases import hidden_concepts

INLINE = 64  # arrays up to this many values are written into the test files; larger ones are stored


class Snapshot:
    """The arrays stored in snapshot.npz (`arrays`), and the Python text of every value a test shows."""

    def __init__(self):
        self.arrays = {}

    def literal(self, value, key):
        """`value` as Python source: an inline literal, or stored("<key>") for a large array."""
        if isinstance(value, (list, tuple)) and key.endswith("*"):
            return "[" + ", ".join(self.literal(v, f"{key[:-1]}{k}") for k, v in enumerate(value)) + "]"
        if not isinstance(value, (np.ndarray, np.generic)):
            return repr(value)
        arr = np.asarray(value)
        if arr.size > INLINE:
            self.arrays[key] = arr
            return f"stored({key!r})"
        dtype = "" if arr.dtype in (np.float64, np.bool_) else f", dtype=np.{arr.dtype}"
        return f"np.array({_numbers(arr.tolist())}{dtype})"


def _numbers(value):
    if isinstance(value, list):
        return "[" + ", ".join(_numbers(v) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return "np.nan" if math.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    return repr(value)


def public_case(case, snapshot):
    """(case fields, calls text, expected text, stored mistakes) of one public case."""
    calls = case.build_calls()
    expected = checks.expected_outputs(case, calls)
    fields = {"name": case.name, "function": case.function, "returns": list(case.returns), "concept": case.concept,
              "lesson": case.lesson, "tolerance": case.tolerance}
    if case.hint:
        fields["hint"] = case.hint
    if expected is None:  # a property: the rule is in `expect`
        fields["expect"] = case.expect
    calls_text = "[" + ", ".join(
        "{" + ", ".join(f"{arg!r}: {snapshot.literal(v, f'{case.name}/input/{k}/{arg}' + ('/*' if arg.startswith('*') else ''))}"
                        for arg, v in kwargs.items()) + "}" for k, kwargs in enumerate(calls)) + "]"
    expected_text = "None" if expected is None else "[" + ", ".join(
        "{" + ", ".join(f"{part!r}: {snapshot.literal(v, f'{case.name}/expected/{k}/{part}')}" for part, v in out.items())
        + "}" for k, out in enumerate(expected)) + "]"
    stored_mistakes = []
    for j, (code, outcome) in enumerate(mistakes.failing(case, calls, expected)):
        entry = {"code": code, "text": mistakes.describe(code)}
        if outcome.error:
            entry["error"] = list(outcome.error)
        else:
            entry["outputs"] = [list(out) for out in outcome.outputs]
            for k, out in enumerate(outcome.outputs):
                for part, value in out.items():
                    snapshot.arrays[f"{case.name}/mistake/{j}/{k}/{part}"] = np.asarray(value)
        stored_mistakes.append(entry)
    return fields, calls_text, expected_text, stored_mistakes


def course_data(mistakes_by_case):
    """course.json: the steps, the provided modules, what the hidden tests check, the known mistakes."""
    return {
        "provided": list(manifest.provided_modules()),
        "steps": [{"number": s.number, "module": s.module, "title": s.title, "lesson": s.lesson,
                   "depends_on": list(s.depends_on)} for s in manifest.steps()],
        "hidden_concepts": {s.module: hidden_concepts(s.module) for s in manifest.steps()},
        "mistakes": mistakes_by_case,
    }
