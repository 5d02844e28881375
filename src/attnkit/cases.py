"""The case catalogue: every test of the kit, public or hidden, as data.

Two files per step: the public cases in the package (data/cases/<step>.yaml) and the hidden ones
on the instructor's side (autograder/cases/<step>.yaml, absent from an installed kit: then only
the public cases exist). A case names the function it calls, the arguments of one or more calls, and
what the result must be. The public tests, the grader, the nbgrader builder and the reports all
read cases through this module; see docs/CASES.md for the file format.
"""
import copy
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import yaml

from . import lessons, manifest
from .indexing import parse_index, parse_pick
from .paths import CASES_DIR, HIDDEN_CASES_DIR

DEFAULT_TOLERANCE = {"atol": 1e-8, "rtol": 1e-6}
_DTYPES = {"float32": np.float32, "float64": np.float64, "int64": np.int64, "int32": np.int32, "bool": bool}
_GENERATORS = ("array", "normal", "random_bool", "call")
_MODIFIERS = ("take", "plus", "times", "assign", "pad_to", "dtype", "seed", "scale", "p", "args")


@dataclass(frozen=True)
class Case:
    """One test. `calls` holds the raw argument specs; `build_calls()` makes the arrays."""

    name: str  # unique across the catalogue, e.g. "softmax_lesson002_three_scores"
    step: manifest.Step
    function: str
    visibility: str  # "public" or "hidden"
    concept: str  # what it checks, in a learner's words (shown in the ladder and reports)
    lesson: str  # where to read: a lesson reference, e.g. "step4_softmax#stability" (attnkit.lessons)
    calls: tuple  # of dict: argument name -> spec
    expect: dict  # see docs/CASES.md
    tolerance: dict  # {"atol": …, "rtol": …}
    weight: float  # share of the step's points (rubric.yaml) relative to the step's other cases
    hint: str  # extra teaching text shown when it fails ("" if none)

    @property
    def read(self):
        """Where to read, as the learner opens it: "lessons/en/step4_softmax.md#stability"."""
        return lessons.link(self.lesson)

    @property
    def public(self):
        return self.visibility == "public"

    @property
    def kind(self):
        """"value" (stored result), "reference" (the reference solution's result) or "property"."""
        return next(k for k in ("value", "reference", "property") if k in self.expect)

    @property
    def returns(self):
        return self.step.function(self.function).returns

    def build_calls(self):
        """Return a fresh list of keyword-argument dicts, one per call (arrays made anew each time).

        A key "*name" holds a list of values passed positionally (for `combine_visible(*visibles)`);
        `invoke` knows how to call with it.
        """
        return [{arg: [build_arg(s) for s in spec] if arg.startswith("*") else build_arg(spec)
                 for arg, spec in call.items()} for call in self.calls]

    def __str__(self):
        return self.name


def _as_array(value, dtype=None):
    if dtype is not None:
        return np.array(value, dtype=_DTYPES[dtype])
    arr = np.array(value)
    return arr if arr.dtype == bool else arr.astype(np.float64)


def build_arg(spec):
    """Turn one argument spec from a case file into the value passed to the function."""
    if isinstance(spec, list):
        return _as_array(spec)
    if not isinstance(spec, dict):
        return spec  # a plain number such as d_h, n_query
    generators = [key for key in _GENERATORS if key in spec]
    unknown = set(spec) - set(_GENERATORS) - set(_MODIFIERS)
    if len(generators) != 1 or unknown:
        raise ValueError(f"an argument spec needs exactly one of {_GENERATORS}, got keys {sorted(spec)}")
    kind = generators[0]
    if kind == "array":
        value = _as_array(spec["array"], spec.get("dtype"))
    elif kind == "normal":
        rng = np.random.default_rng(spec["seed"])
        value = (rng.standard_normal(spec["normal"]) * spec.get("scale", 1.0)).astype(_DTYPES[spec.get("dtype", "float64")])
    elif kind == "random_bool":
        value = np.random.default_rng(spec["seed"]).random(spec["random_bool"]) < spec.get("p", 0.5)
    else:
        value = _reference_call(spec["call"], spec.get("args", {}))
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


def _reference_call(target, args):
    from .reference import reference_function  # late: only cases that need it load the solutions

    module, function = target.split(".")
    fn = reference_function(module, function)
    result = fn(*[build_arg(a) for a in args]) if isinstance(args, list) else fn(**{k: build_arg(v) for k, v in args.items()})
    return result


def invoke(fn, kwargs):
    """Call `fn` with one call's arguments; a "*name" key is spread as positional arguments."""
    __tracebackhide__ = True  # pytest shows the learner's frames, not this one
    args = [value for key, values in kwargs.items() if key.startswith("*") for value in values]
    return fn(*args, **{key: value for key, value in kwargs.items() if not key.startswith("*")})


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
            raise ValueError(f"expected a tuple ({', '.join(returns)}), got a single {type(result).__name__}")
        if len(result) != len(returns):
            raise ValueError(f"expected a tuple of {len(returns)} ({', '.join(returns)}), got {len(result)} values")
        return dict(zip(returns, result))
    return {returns[0]: result}


def _parse_case(step, raw, defaults, side):
    known = {"name", "function", "visibility", "concept", "lesson", "args", "calls", "expect",
             "tolerance", "weight", "hint"}
    if set(raw) - known:
        raise ValueError(f"case {raw.get('name')!r}: unknown keys {sorted(set(raw) - known)}")
    if ("args" in raw) == ("calls" in raw):
        raise ValueError(f"case {raw.get('name')!r}: give either args (one call) or calls (several)")
    step.function(raw["function"])  # KeyError for a function the step does not have
    expect = raw["expect"]
    if sum(k in expect for k in ("value", "reference", "property")) != 1:
        raise ValueError(f"case {raw['name']!r}: expect needs exactly one of value / reference / property")
    visibility = raw.get("visibility", side)
    if visibility != side:
        raise ValueError(f"case {raw['name']!r}: visibility {visibility!r} in a file of {side} cases "
                         "(public cases go in src/attnkit/data/cases/, hidden ones in autograder/cases/)")
    try:
        lessons.parse(raw.get("lesson", step.lesson))  # now, not when a failure message is written
    except ValueError as err:
        raise ValueError(f"case {raw['name']!r}: {err}") from None
    return Case(
        name=raw["name"],
        step=step,
        function=raw["function"],
        visibility=visibility,
        concept=raw["concept"],
        lesson=raw.get("lesson", step.lesson),
        calls=tuple(copy.deepcopy(raw["calls"] if "calls" in raw else [raw["args"]])),
        expect=copy.deepcopy(expect),
        tolerance={**DEFAULT_TOLERANCE, **defaults.get("tolerance", {}), **raw.get("tolerance", {})},
        weight=float(raw.get("weight", 1.0)),
        hint=raw.get("hint", "").strip(),
    )


def hidden_cases_available():
    """True when the hidden cases are on disk (a checkout, or ATTNKIT_ROOT holding autograder/)."""
    return HIDDEN_CASES_DIR.is_dir()


def public_only_notice():
    """What a command that grades or builds tests says when the hidden cases are missing, else None."""
    if hidden_cases_available():
        return None
    return (f"the hidden cases are not here ({HIDDEN_CASES_DIR} is missing), so only the PUBLIC cases "
            "are used and each step's points are shared by them alone. Run from a checkout of the "
            "kit, or set ATTNKIT_ROOT to a folder that holds autograder/cases/.")


def _case_files(step):
    """(path, visibility) of the files holding a step's cases: public, then hidden when present."""
    files = [(CASES_DIR / f"{step.module}.yaml", "public")]
    if hidden_cases_available():
        files.append((HIDDEN_CASES_DIR / f"{step.module}.yaml", "hidden"))
    return files


@lru_cache(maxsize=None)
def all_cases():
    """Every case, in manifest step order, public before hidden, then file order."""
    cases, seen = [], set()
    for step in manifest.steps():
        for path, side in _case_files(step):
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
            cases += _parse_file(step, data, side, seen)
    return tuple(cases)


def _parse_file(step, data, side, seen):
    cases = []
    for raw in data["cases"]:
        case = _parse_case(step, raw, data.get("defaults", {}), side)
        if case.name in seen:
            raise ValueError(f"case name {case.name!r} is used twice")
        seen.add(case.name)
        cases.append(case)
    return cases


def cases_for(step_module=None, visibility=None, function=None):
    """The cases of one step (and optionally one visibility, one function)."""
    return [c for c in all_cases()
            if (step_module is None or c.step.module == step_module)
            and (visibility is None or c.visibility == visibility)
            and (function is None or c.function == function)]


def case(name):
    """The case called `name`."""
    for c in all_cases():
        if c.name == name:
            return c
    raise KeyError(f"no case named {name!r}")
