"""`attnkit show --mine FUNCTION ARG…`: the learner's own result beside the expected one.

The learner's step is imported from exercises/ as the public tests import it (with the reference
versions of the steps it imports). Arguments are written as on a command line (see show_call).
"""
from dataclasses import dataclass

import numpy as np

from . import manifest
from attnkit_runtime.judge import named_outputs
from attnkit_runtime.loader import StepLoader, StepLoadError, learner_function
from .reference import learner_step
from attnkit_runtime.messages import say
from attnkit_runtime.show import MARK, beside, grid
from attnkit_runtime.show_call import LearnerError, UsageError, run_learner, yours
from .show_frames import NoReference, reference

QUERY_BY_KEY = ("visible", "M", "mask", "P", "kq", "kq_soft_max")  # parts whose rows are queries, columns keys


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
    raise UsageError(say("show.no_such_function", function=repr(function), names=names))


def _learner_function(module, function, folder):
    """The learner's `module.function` from `folder`, loaded as the public tests load it (under their time limit)."""
    try:
        return learner_function(StepLoader(learner_step), module, folder, function)
    except StepLoadError as err:
        raise LearnerError(str(err)) from None


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
    corner = say("show.corner_query_key" if name in QUERY_BY_KEY else "show.corner_row_column")
    text = beside(grid(got, title=say("show.yours", name=name), differs=differs, corner=corner),
                  grid(expected, title=say("show.expected", name=name), corner=corner))
    if differs is None:
        return f"{text}\n\n" + say("show.shape_differs", name=name, want=expected.shape, got=got.shape), got.size or 1
    notes = [say("show.cells_differ", name=name, count=int(differs.sum()), size=differs.size, mark=MARK)
             if differs.any() else say("show.matches", name=name)]
    if got.dtype != expected.dtype:
        notes.append(say("show.dtype_differs", name=name, want=expected.dtype, got=got.dtype))
    return f"{text}\n\n" + "\n".join(notes), int(differs.sum()) + (got.dtype != expected.dtype)


def show_mine(function, texts, folder):
    """The Shown of the learner's `function(*texts)` from `folder`, each part beside the reference's."""
    module = step_of(function)
    returns = manifest.step(module).function(function).returns
    fn = _learner_function(module, function, folder)
    call, args, got = run_learner(fn, function, texts, returns, folder / f"{module}.py")
    try:
        expected = named_outputs(returns, reference(module, function)(*args))
    except NoReference as err:
        return Shown(yours(call, got, str(err)), 0)
    compared = [_compared(name, got[name], np.asarray(expected[name])) for name in returns]
    return Shown("\n\n".join([call] + [text for text, _ in compared]), sum(n for _, n in compared))
