"""`attnkit show --mine FUNCTION ARG…`: the learner's own result beside the expected one.

The learner's step is imported from exercises/ as the public tests import it (with the reference
versions of the steps it imports). Arguments are written as on a command line (see show_call).
"""
import inspect

from . import manifest
from .portable_cases import as_base64, encode_array
from attnkit_runtime.judge import named_outputs
from attnkit_runtime.loader import StepLoader, StepLoadError, learner_function
from .reference import learner_step
from attnkit_runtime.messages import say
from attnkit_runtime.show_call import LearnerError, Shown, UsageError, build_call, compared, run_learner, yours
from .show_frames import NoReference, reference


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


def show_mine(function, texts, folder):
    """The Shown of the learner's `function(*texts)` from `folder`, each part beside the reference's."""
    module = step_of(function)
    returns = manifest.step(module).function(function).returns
    fn = _learner_function(module, function, folder)
    call, args, got = run_learner(fn, function, texts, returns, folder / f"{module}.py", manifest.steps())
    try:
        expected = named_outputs(returns, reference(module, function)(*args))
    except NoReference as err:
        return Shown(yours(call, got, str(err)), 0)
    return compared(call, got, expected)


# The calls the lessons, the READMEs and `attnkit show --help` name: the release stores their expected results
# (it has no reference to compute them), so that its attnkit-show puts them beside the learner's.
EXAMPLES = (
    ("causal_visible", ("2", "5")),
    ("causal_visible", ("3",)),
    ("padding_visible", ("1,1,0", "2")),
    ("combine_visible", ("T,F;T,T", "T,T;F,T")),
    ("additive_mask", ("T,F;T,T", "float32")),
    ("softmax", ("0,1,-inf;-inf,-inf,-inf",)),
    ("softmax", ("0,1,2",)),
    ("attention", ("1,0;0,1", "1,0;0,1", "1,2;3,4")),
)


def stored_examples():
    """[{function, args, expected}] of EXAMPLES: the reference's result of each, part by part, in the stored form."""
    found = []
    for function, texts in EXAMPLES:
        module = step_of(function)
        fn = reference(module, function)
        expected = named_outputs(manifest.step(module).function(function).returns,
                                 fn(*build_call(function, texts, inspect.signature(fn))))
        found.append({"function": function, "args": list(texts),
                      "expected": {part: encode_array(value, part, as_base64) for part, value in expected.items()}})
    return found
