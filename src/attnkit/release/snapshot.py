"""What the release stores from the reference, computed at release time from the public cases only.

For each public case: its calls' arguments and the values its calls must give (written into the
test files, large arrays into `snapshot.npz`), and the known mistakes that fail it with their
outputs (into the snapshot) or errors (into `course.json`). Nothing here reads a hidden case.
Texts a learner reads (concepts, hints, lesson links, titles, mistakes) are stored in every language,
as two-language texts: the release's runtime picks the learner's at run time (attnkit_runtime.i18n).
"""
import math

import numpy as np

from .. import checks, lessons, manifest, mistakes
from attnkit_runtime import judge
from ..cases import hidden_concepts

INLINE = 64  # arrays up to this many values are written into the test files; larger ones are stored


class Snapshot:
    """The arrays stored in snapshot.npz (`arrays`), and the Python text of every value a test shows."""

    def __init__(self):
        self.arrays = {}

    def literal(self, value, key, indent):
        """`value` as Python source: an inline literal (one line per row), or stored("<key>")."""
        if not isinstance(value, (np.ndarray, np.generic)):
            return repr(value)
        arr = np.asarray(value)
        if arr.size > INLINE:
            self.arrays[key] = arr
            return f"stored({key!r})"
        dtype = "" if arr.dtype in (np.float64, np.bool_) else f", dtype=np.{arr.dtype}"
        rows = arr.tolist()
        if arr.ndim >= 2 and len(_python(rows)) > 60:
            pad = " " * (indent + 10)
            return "np.array([" + f",\n{pad}".join(_python(row) for row in rows) + f"]{dtype})"
        return f"np.array({_python(rows)}{dtype})"

    def argument(self, spec, value, key, indent):
        """One argument: its recipe when the catalogue generates it (`recipe({...})`), else its value."""
        if isinstance(spec, dict) and "call" not in spec:
            return f"recipe({_python(spec)})"
        return self.literal(value, key, indent)


def _python(value):
    """Lists, dicts, numbers and strings as Python source, with inf and nan spelled np.inf / np.nan."""
    if isinstance(value, list):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_python(v)}" for k, v in value.items()) + "}"
    if isinstance(value, float) and not math.isfinite(value):
        return "np.nan" if math.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
    return repr(value)


def _dict_text(items, indent):
    """{key: text, …} laid out one entry per line when long."""
    one_line = "{" + ", ".join(f"{k!r}: {v}" for k, v in items) + "}"
    if len(one_line) <= 80 and "\n" not in one_line:
        return one_line
    pad = " " * (indent + 1)
    return "{" + f",\n{pad}".join(f"{k!r}: {v}" for k, v in items) + "}"


def public_case(case, snapshot):
    """(case fields, calls text, expected text, stored mistakes) of one public case."""
    calls = case.build_calls()
    expected, forms = checks.expected_outputs(case, calls), checks.expected_forms(case, calls)
    fields = {"name": case.name, "function": case.function, "returns": list(case.returns), "concept": case.concept,
              "read": lessons.links(case.lesson), "tolerance": case.tolerance}
    if case.hint:
        fields["hint"] = case.hint
    if expected is None:  # a property: the rule is in `expect`, the reference's result forms in `forms`
        fields["expect"] = case.expect
        fields["forms"] = judge.encode_forms(forms)
    calls_text = _calls_text(case, calls, snapshot)
    expected_text = "None" if expected is None else "[" + ",\n         ".join(_dict_text(
        [(part, snapshot.literal(v, f"{case.name}/expected/{k}/{part}", 9 + len(part) + 4)) for part, v in out.items()], 9)
        for k, out in enumerate(expected)) + "]"
    stored_mistakes = []
    for j, (code, outcome) in enumerate(mistakes.failing(case, calls, expected, forms)):
        entry = {"code": code, "text": mistakes.descriptions(code)}
        if outcome.error:
            entry["error"] = list(outcome.error)
        else:
            entry["outputs"] = [list(out) for out in outcome.outputs]
            for k, out in enumerate(outcome.outputs):
                for part, value in out.items():
                    snapshot.arrays[f"{case.name}/mistake/{j}/{k}/{part}"] = np.asarray(value)
        stored_mistakes.append(entry)
    return fields, calls_text, expected_text, stored_mistakes


def _calls_text(case, calls, snapshot):
    texts = []
    for k, (specs, kwargs) in enumerate(zip(case.calls, calls)):
        items = []
        for arg, value in kwargs.items():
            key, indent = f"{case.name}/input/{k}/{arg}", 9 + len(arg) + 4
            if arg.startswith("*"):
                text = "[" + ", ".join(snapshot.argument(s, v, f"{key}/{n}", indent)
                                       for n, (s, v) in enumerate(zip(specs[arg], value))) + "]"
            else:
                text = snapshot.argument(specs[arg], value, key, indent)
            items.append((arg, text))
        texts.append(_dict_text(items, 9))
    return "[" + ",\n         ".join(texts) + "]"


def course_data(mistakes_by_case):
    """course.json: the steps, the provided modules, what the hidden tests check, the known mistakes."""
    return {
        "provided": list(manifest.provided_modules()),
        "steps": [{"number": s.number, "module": s.module, "title": s.title, "track": s.track,
                   "read": lessons.links(s.lesson),
                   "depends_on": list(s.depends_on), "functions": {fn.name: list(fn.returns) for fn in s.functions}}
                  for s in manifest.steps()],
        "hidden_concepts": {s.module: hidden_concepts(s.module) for s in manifest.steps()},
        "mistakes": mistakes_by_case,
    }
