"""Cases of the catalogue as plain data for `runtime.StepChecks.run` (JSON in the checks cell, or the hidden file).

Argument specs stay as the catalogue writes them (the kernel builds them with the kit's own
`judge.build_arg`), except specs that call the reference solution: those, and every expected value, are
computed here and stored as arrays, so the notebook never needs the solutions.
"""
import base64

import numpy as np

from .. import checks, lessons, mistakes
from ..cases import build_arg
from attnkit_runtime.judge import DTYPES, encode_forms

SMALL = 64  # arrays up to this many values are written out as lists; larger ones as base64 bytes


def encode_array(value):
    arr = np.asarray(value)
    if arr.dtype.hasobject:
        raise ValueError(f"cannot store an array of Python objects in the notebook: {arr!r:.80}")
    if arr.size <= SMALL and str(arr.dtype) in DTYPES:  # the dtypes build_arg reads back
        return {"array": arr.tolist(), "dtype": str(arr.dtype)}
    return {"b64": base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode("ascii"),
            "dtype": str(arr.dtype), "shape": list(arr.shape)}


def _encode_arg(name, spec):
    if name.startswith("*"):
        return [_encode_arg("", s) for s in spec]
    if isinstance(spec, dict) and "call" in spec:
        return encode_array(build_arg(spec))
    return spec


def known_mistakes(case, calls, expected, forms):
    """The catalogued mistakes that fail `case`, in diagnosis order, with what each one returns or raises.

    The notebook names the first one whose results the learner's match (`runtime.StepChecks`), as
    `attnkit.mistakes.diagnose` does for the public tests and the grader.
    """
    return [{"code": code, "text": mistakes.descriptions(code), "error": list(outcome.error)} if outcome.error
            else {"code": code, "text": mistakes.descriptions(code),
                  "outputs": [{p: encode_array(v) for p, v in r.items()} for r in outcome.outputs]}
            for code, outcome in mistakes.failing(case, calls, expected, forms)]


def encode_case(case, small=False):
    """The dict `StepChecks.run` takes for `case` (expected values computed by the reference now).

    `small` keeps only the mistakes whose outputs are short enough to be written out as lists: the
    public checks of the released notebook then stay readable, and the big cases go undiagnosed there.
    """
    calls = case.build_calls()
    expected = checks.expected_outputs(case, calls)
    forms = checks.expected_forms(case, calls)
    spec = {
        "name": case.name,
        "function": case.function,
        "concept": case.concept,
        "read": lessons.links(case.lesson),
        "returns": list(case.returns),
        "tolerance": case.tolerance,
        "calls": [{arg: _encode_arg(arg, s) for arg, s in call.items()} for call in case.calls],
        "expected": None if expected is None else [{part: encode_array(v) for part, v in out.items()} for out in expected],
    }
    if case.hint:
        spec["hint"] = case.hint
    if case.kind == "property":
        spec["expect"] = case.expect
        spec["forms"] = encode_forms(forms)
    found = known_mistakes(case, calls, expected, forms)
    spec["mistakes"] = [m for m in found if not small or "b64" not in repr(m)]
    return spec
