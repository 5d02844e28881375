"""The one stored form of a public or hidden case, as the release and the notebook keep it, and its reader.

A stored case is plain JSON data (`attnkit.portable_cases` writes it from the catalogue and the
reference): name, function, returns, concept, read, hint, tolerance, expect and forms (a property
case), calls (one {argument: value} per call), expected (one {part: value} per call, None for a
property case) and mistakes (the known mistakes that fail it, in diagnosis order: each {code, text,
outputs} or {code, text, error: [type name, text]}). A value is one of

- a catalogue recipe, as `judge.build_arg` takes it ({"normal": [3, 4], "seed": 7}, a list, a number);
- {"array": [...], "dtype": "float64"}: a small array written out;
- {"b64": "...", "dtype": "float32", "shape": [5, 768]}: an array's bytes in base64;
- {"stored": "<key>"}: a member of an .npz store beside the data (the release's snapshot.npz);
- for a known mistake's large output only, {"sample": {"shape", "dtype", "index", "values"}}: some of
  its cells (flat indices), where a smaller form is needed (the notebook's checks cell); a result is
  the mistake's when it has that shape and dtype and agrees with it there.

Every known mistake is kept whatever the size of its outputs: large outputs are b64, stored or sampled,
so a large case is diagnosed as well as a small one. `judge.portable_case(module, spec)` is the case itself.
"""
import base64

import numpy as np

from . import harness
from .i18n import pick
from .judge import build_arg, departure, equally_near, evaluate_safely, picked


def value(spec, store=None, build=build_arg):
    """The value a stored `spec` describes (a fresh array: the learner's code may change it).

    `store` maps a "stored" key to its array (an open .npz); None where nothing is stored aside. `build`
    makes a catalogue recipe (`judge.build_arg`, or the public tests' `kept_inputs.keep(build_arg)`).
    """
    if isinstance(spec, dict) and "b64" in spec:
        raw = base64.b64decode(spec["b64"])
        return np.frombuffer(raw, dtype=spec["dtype"]).reshape(spec["shape"]).copy()
    if isinstance(spec, dict) and "stored" in spec:
        if store is None:
            raise ValueError(f"the stored array {spec['stored']!r} needs its store (an .npz), and none was given")
        return np.array(store[spec["stored"]])
    return build(spec)


def call(spec, store=None, build=build_arg):
    """The keyword arguments of one stored call ("*name" holds positional arguments, as in the catalogue)."""
    return {arg: [value(s, store, build) for s in given] if arg.startswith("*") else value(given, store, build)
            for arg, given in spec.items()}


def outputs(spec, store=None):
    """Stored results, one {part: value} per call (None for a property case's expected values)."""
    return None if spec is None else [{part: value(v, store) for part, v in out.items()} for out in spec]


class StoredMistakes(harness.Diagnosis):
    """The known mistakes of stored cases: the nearest whose stored outputs the learner's results match,
    or those whose stored error (its type, and its text inside the learner's) the learner's code raised.

    `mistakes`: {case name: the case's stored mistakes}; `store` as `value` takes it.
    """

    def __init__(self, mistakes, store=None):
        self._mistakes, self._store = mistakes, store
        self._texts = {m["code"]: m["text"] for found in mistakes.values() for m in found}

    def mistakes_of_results(self, case, calls, results):
        """The nearest matching mistakes (`judge.equally_near`), as the catalogue's diagnosis names them."""
        matches = []
        for found in self._mistakes.get(case.name, ()):
            if "outputs" in found and len(found["outputs"]) == len(results):
                whole = self._whole(case, calls, results, found["outputs"])
                if whole is not None:
                    matches.append((found["code"], departure(whole, results)))
        return equally_near(matches)

    def _whole(self, case, calls, results, stored_outputs):
        """The stored outputs' whole parts when the learner's results match them (and their samples), else None."""
        for result, out in zip(results, stored_outputs):
            for part, spec in out.items():
                if "sample" in spec and not _agrees(picked(result, part)[0], spec["sample"], case.tolerance):
                    return None
        whole = [{part: value(spec, self._store) for part, spec in out.items() if "sample" not in spec}
                 for out in stored_outputs]
        return whole if evaluate_safely(case, calls, results, whole, None).passed else None

    def mistakes_of_error(self, case, error_type, error):
        return tuple(m["code"] for m in self._mistakes.get(case.name, ()) if "error" in m
                     and m["error"][0] == error_type and m["error"][1] and m["error"][1] in error)

    def describe(self, code):
        return pick(self._texts[code])


def _agrees(got, sample, tolerance):
    """Whether a learner's part `got` has the sampled output's shape and dtype and its values at its cells."""
    want = np.array(sample["values"], dtype=sample["dtype"])
    if not isinstance(got, np.ndarray) or list(got.shape) != sample["shape"] or (
            want.dtype.kind in "fb" and got.dtype != want.dtype):
        return False
    cells = got.reshape(-1)[sample["index"]]
    if want.dtype == bool:
        return bool(np.array_equal(cells, want))
    return bool(np.isclose(cells, want, atol=tolerance["atol"], rtol=tolerance["rtol"], equal_nan=True).all())
