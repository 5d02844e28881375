"""Call a learner's function with arguments written as on a command line, and name the parts of its result.

Shared by `attnkit show --mine` and the student release's `attnkit-show` (which ships this file as
`attnkit_runtime/show_call.py`): standard library, numpy and the portable `harness`, `judge`, `loader` and `show`
only.
Arguments: `2`, a vector `1,1,0`, a table `T,F;T,T` or `0,-inf;1,2` (rows split by `;`), a dtype `float32`.
"""
import inspect
import traceback
from dataclasses import dataclass

import numpy as np

from .harness import stub_text
from .judge import named_outputs
from .loader import TimeLimitExceeded, time_limit
from .messages import say
from .show import MARK, beside, corner, grid

TABLE_ARGUMENTS = ("visible", "visibles")  # parameters that take a boolean table: 0/1 become False/True
BOOLS = {"t": True, "true": True, "f": False, "false": False}


class UsageError(ValueError):
    """The command line cannot be turned into a call; the message says what to write."""


class LearnerError(Exception):
    """The learner's code could not be loaded or raised; the message is for them, without the kit's frames."""


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
        raise UsageError(say("show.not_number", text=repr(text))) from None


def parse_argument(text, name):
    """One command-line argument for parameter `name`: an int, a dtype, or an array written `a,b;c,d`."""
    if name == "dtype":
        try:
            return np.dtype(text)
        except TypeError:
            raise UsageError(say("show.not_dtype", text=repr(text))) from None
    if "," not in text and ";" not in text:
        value = _cell(text)
        return np.array(value) if isinstance(value, float) else value
    rows = [[_cell(c) for c in row.split(",")] for row in text.split(";")]
    if len({len(r) for r in rows}) != 1:
        raise UsageError(say("show.ragged", name=name, text=repr(text)))
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
        raise UsageError(say("show.arguments", function=function, names=", ".join(p.name for p in named),
                             required=len(needed), count=len(texts)))
    return [parse_argument(t, p.name) for t, p in zip(texts, named)]


def call_learner(fn, function, args, path, steps):
    """`fn(*args)` (the learner's `function`, from the file `path`) under the public tests' time limit; LearnerError
    with a plain message when it fails (`steps`: as `not_written` takes them)."""
    try:
        with time_limit(f"{function}()"):
            return fn(*args)
    except NotImplementedError as err:
        raise LearnerError(not_written(err, steps, path.parent)) from None
    except TimeLimitExceeded as err:
        raise LearnerError(str(err)) from None
    except KeyboardInterrupt:
        raise LearnerError(say("show.interrupted")) from None
    except Exception as err:  # noqa: BLE001 - the learner's error, shown plainly
        lines = [f"{type(err).__name__}: {err}"]
        lines += [say("show.at_line", file=f.filename, line=f.lineno, code=f.line)
                  for f in traceback.extract_tb(err.__traceback__) if f.filename == str(path)]
        raise LearnerError(say("show.raised", error="\n".join(lines))) from None


def not_written(err, steps, folder):
    """What the learner reads of the NotImplementedError `err`: when a function of a step file in `folder` raised
    it (a stub, of this step or of an earlier one it called; `steps` have number, module, filename and read), the
    stub's text in the learner's language only (the stub's raise holds every language), naming that step; else
    its own words."""
    files = {str(folder / step.filename): step for step in steps}
    frames = traceback.extract_tb(err.__traceback__)
    step = files.get(frames[-1].filename) if frames else None
    if step is None:
        return say("show.not_written", error=err)
    return stub_text(step.number, step.module, step.read, err)


def result_parts(returns, result, call):
    """{part name: array} of a result, named as the manifest names them; LearnerError if it cannot be."""
    try:
        parts = named_outputs(returns, result)
    except ValueError as err:
        raise LearnerError(say("show.returned_else", call=call, error=err)) from None
    for name, value in parts.items():
        if not isinstance(value, (np.ndarray, np.generic, bool, int, float)):
            raise LearnerError(say("show.returned_type", call=call, got=type(value).__name__, name=name))
    return {name: np.asarray(value) for name, value in parts.items()}


def run_learner(fn, function, texts, returns, path, steps):
    """(the call as text, its arguments, {part: array} of its result) of the learner's `fn` (from
    the file `path`) on the command-line `texts`; UsageError or LearnerError when it cannot be (`steps`: the
    course's steps, which name a stub that raised)."""
    args = build_call(function, texts, inspect.signature(fn))
    call = f"{function}({', '.join(texts)})"
    return call, args, result_parts(returns, call_learner(fn, function, args, path, steps), call)


def yours(call, parts, note=""):
    """The learner's result alone as text: the call, each part as a grid, then `note` if any."""
    return "\n\n".join([call, *(grid(value, title=say("show.yours", name=name), corner=corner(name))
                                for name, value in parts.items()), *([note] if note else [])])


@dataclass(frozen=True)
class Shown:
    text: str
    differs: int  # cells that differ from the expected result (0 when it matches or cannot be compared)


def _differs(expected, got):
    """Bool cells where `got` differs from `expected`, or None when their shapes do not match."""
    if expected.shape != got.shape:
        return None
    if expected.dtype == bool or got.dtype == bool:
        return expected != got
    with np.errstate(invalid="ignore"):
        return ~np.isclose(got.astype(np.float64), expected.astype(np.float64), atol=1e-6, equal_nan=True)


def _compared(name, got, expected):
    """(text, number of differences) of one part of the learner's result beside the expected one."""
    differs = _differs(expected, got)
    text = beside(grid(got, title=say("show.yours", name=name), differs=differs, corner=corner(name)),
                  grid(expected, title=say("show.expected", name=name), corner=corner(name)))
    if differs is None:
        return f"{text}\n\n" + say("show.shape_differs", name=name, want=expected.shape, got=got.shape), got.size or 1
    notes = [say("show.cells_differ", name=name, count=int(differs.sum()), size=differs.size, mark=MARK)
             if differs.any() else say("show.matches", name=name)]
    if got.dtype != expected.dtype:
        notes.append(say("show.dtype_differs", name=name, want=expected.dtype, got=got.dtype))
    return f"{text}\n\n" + "\n".join(notes), int(differs.sum()) + (got.dtype != expected.dtype)


def compared(call, got, expected):
    """The Shown of the learner's result `got` ({part: array}) beside `expected` ({part: array}), part by part."""
    parts = [_compared(name, got[name], np.asarray(want)) for name, want in expected.items()]
    return Shown("\n\n".join([call] + [text for text, _ in parts]), sum(n for _, n in parts))
