"""`attnkit show --mine FUNCTION ARG…`: the learner's own result beside the expected one.

The learner's step is imported from exercises/ as the public tests import it (with the reference
versions of the steps it imports). Arguments are written as on a command line: `2`, a vector `1,1,0`,
a table `T,F;T,T` or `0,-inf;1,2` (rows split by `;`).
"""
import inspect
import traceback
from dataclasses import dataclass

import numpy as np

from . import manifest
from .judge import named_outputs
from .loader import StepLoadError, load_step
from .paths import SOLUTIONS_DIR
from .show import CORNER, MARK, beside, grid
from .show_frames import NoReference, reference

QUERY_BY_KEY = ("visible", "M", "mask", "P", "kq", "kq_soft_max")  # parts whose rows are queries, columns keys
TABLE_ARGUMENTS = ("visible", "visibles")  # parameters that take a boolean table: 0/1 become False/True
BOOLS = {"t": True, "true": True, "f": False, "false": False}


class UsageError(ValueError):
    """The command line cannot be turned into a call; the message says what to write."""


class LearnerError(Exception):
    """The learner's code could not be loaded or raised; the message is for them, without the kit's frames."""


@dataclass(frozen=True)
class Shown:
    text: str
    differs: int  # cells that differ from the expected result (0 when it matches or cannot be compared)


def step_of(function):
    """The step module that defines `function`, or UsageError naming the functions there are."""
    for step in manifest.steps():
        if any(fn.name == function for fn in step.functions):
            return step.module
    names = ", ".join(fn.name for step in manifest.steps() for fn in step.functions)
    raise UsageError(f"no function {function!r} in the exercises; one of: {names}")


def _cell(text):
    word = text.strip().lower()
    if word in BOOLS:
        return BOOLS[word]
    try:
        return int(word)
    except ValueError:
        pass
    try:
        return float(word)
    except ValueError:
        raise UsageError(f"cannot read {text!r} as a number or True/False") from None


def parse_argument(text, name):
    """One command-line argument for parameter `name`: an int, a dtype, or an array written `a,b;c,d`."""
    if name == "dtype":
        try:
            return np.dtype(text)
        except TypeError:
            raise UsageError(f"dtype: {text!r} is not a numpy dtype (e.g. float32)") from None
    if "," not in text and ";" not in text:
        value = _cell(text)
        return np.array(value) if isinstance(value, float) else value
    rows = [[_cell(c) for c in row.split(",")] for row in text.split(";")]
    if len({len(r) for r in rows}) != 1:
        raise UsageError(f"{name}: every row of {text!r} needs the same number of cells")
    arr = np.array(rows if ";" in text else rows[0])
    if name in TABLE_ARGUMENTS and arr.dtype != bool and np.isin(arr, (0, 1)).all():
        arr = arr.astype(bool)
    return arr


def build_call(function, texts, signature):
    """(positional args, their text) for `function` from the command-line `texts`."""
    params = list(signature.parameters.values())
    if params and params[0].kind is inspect.Parameter.VAR_POSITIONAL:
        return [parse_argument(t, params[0].name) for t in texts]
    named = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    needed = [p.name for p in named if p.default is inspect.Parameter.empty]
    if not len(needed) <= len(texts) <= len(named):
        raise UsageError(f"{function} takes {', '.join(p.name for p in named)}"
                         f" ({len(needed)} required), got {len(texts)} argument(s)")
    return [parse_argument(t, p.name) for t, p in zip(texts, named)]


def learner_function(module, function, folder):
    """The learner's `module.function` from `folder`, loaded as the public tests load it."""
    deps = SOLUTIONS_DIR if SOLUTIONS_DIR.is_dir() else folder
    try:
        loaded = load_step(module, folder, deps_folder=deps)
    except StepLoadError as err:
        raise LearnerError(str(err)) from None
    fn = getattr(loaded, function, None)
    if not callable(fn):
        raise LearnerError(f"{folder / (module + '.py')} has no function {function}(): keep the stub's name")
    return fn


def call_learner(fn, args, path):
    try:
        return fn(*args)
    except NotImplementedError as err:
        raise LearnerError(f"not written yet: {err}") from None
    except KeyboardInterrupt:
        raise LearnerError("stopped (Ctrl-C) while your code ran: an endless loop?") from None
    except Exception as err:  # noqa: BLE001 - the learner's error, shown plainly
        lines = [f"{type(err).__name__}: {err}"]
        lines += [f"  {f.filename}, line {f.lineno}: {f.line}" for f in traceback.extract_tb(err.__traceback__)
                  if f.filename == str(path)]
        raise LearnerError("your code raised " + "\n".join(lines)) from None


def _differs(expected, got):
    """Bool cells where `got` differs from `expected`, or None when their shapes do not match."""
    if expected.shape != got.shape:
        return None
    if expected.dtype == bool or got.dtype == bool:
        return expected != got
    with np.errstate(invalid="ignore"):
        return ~np.isclose(got.astype(np.float64), expected.astype(np.float64), atol=1e-6, equal_nan=True)


def _parts(returns, result, call):
    """{part name: array} of a result, named as the manifest names them; LearnerError if it cannot be."""
    try:
        parts = named_outputs(returns, result)
    except ValueError as err:
        raise LearnerError(f"your {call} returned something else: {err}") from None
    for name, value in parts.items():
        if not isinstance(value, (np.ndarray, np.generic, bool, int, float)):
            raise LearnerError(f"your {call} returned a {type(value).__name__} for {name}; expected a numpy array")
    return {name: np.asarray(value) for name, value in parts.items()}


def _compared(name, got, expected):
    """(text, number of differences) of one part of the learner's result beside the expected one."""
    differs = _differs(expected, got)
    corner = CORNER if name in QUERY_BY_KEY else "row ↓ / column →"
    text = beside(grid(got, title=f"yours: {name}", differs=differs, corner=corner),
                  grid(expected, title=f"expected: {name}", corner=corner))
    if differs is None:
        return f"{text}\n\n{name}: shape differs: expected {expected.shape}, got {got.shape}", got.size or 1
    notes = [f"{name}: {int(differs.sum())} of {differs.size} cells differ (marked {MARK})" if differs.any()
             else f"{name}: matches the expected one"]
    if got.dtype != expected.dtype:
        notes.append(f"{name}: dtype differs: expected {expected.dtype}, got {got.dtype}")
    return f"{text}\n\n" + "\n".join(notes), int(differs.sum()) + (got.dtype != expected.dtype)


def show_mine(function, texts, folder):
    """The Shown of the learner's `function(*texts)` from `folder`, each part beside the reference's."""
    module = step_of(function)
    returns = manifest.step(module).function(function).returns
    fn = learner_function(module, function, folder)
    args = build_call(function, texts, inspect.signature(fn))
    call = f"{function}({', '.join(texts)})"
    got = _parts(returns, call_learner(fn, args, folder / f"{module}.py"), call)
    try:
        expected = named_outputs(returns, reference(module, function)(*args))
    except NoReference as err:
        mine = [grid(value, title=f"yours: {name}") for name, value in got.items()]
        return Shown("\n\n".join([call, *mine, str(err)]), 0)
    compared = [_compared(name, got[name], np.asarray(expected[name])) for name in returns]
    return Shown("\n\n".join([call] + [text for text, _ in compared]), sum(n for _, n in compared))
