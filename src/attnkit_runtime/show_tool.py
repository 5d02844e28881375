"""`attnkit-show`, the student release's `attnkit show`: the lessons' frames, and the learner's own result beside
the expected one.

    attnkit-show [--lang zh] [PRESET]               a frame of the lessons (default how-are-you): its visibility
                                                    table, M and weights, as `attnkit show PRESET` prints them
    attnkit-show [--lang zh] [--mine] FUNCTION ARG…  the learner's FUNCTION from ./exercises/ on these arguments
                                                    (written as show_call reads them), each part as a labelled grid;
                                                    beside it the expected grid, its differing cells marked, when
                                                    it is stored for these arguments

The release holds no reference code: the presets' text and the expected results of the examples the lessons and
READMEs name are stored in data/course.json ("show") when the release is built. Exit 0; 1 when the learner's code
failed or its result differs from the stored one; 2 on a wrong command.
"""
import inspect
import sys
from pathlib import Path

import numpy as np

from . import stored
from .exercise import LAYOUT, course, learner_module
from .i18n import LANGUAGES, pick, set_language
from .loader import StepLoadError, learner_function
from .messages import say
from .quiet_pipe import reader_gone
from .show_call import LearnerError, UsageError, build_call, compared, run_learner, yours

DEFAULT_PRESET = "how-are-you"


def _same_argument(a, b):
    if isinstance(a, np.dtype) or isinstance(b, np.dtype):
        return a == b
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and (a.dtype == bool) == (b.dtype == bool) and bool(np.array_equal(a, b))


def stored_expected(function, fn, args):
    """{part: array} stored for `function` called with `args` (as the learner's `fn` reads them), or None."""
    for example in course()["show"]["examples"]:
        if example["function"] != function:
            continue
        try:
            theirs = build_call(function, example["args"], inspect.signature(fn))
        except UsageError:  # the learner changed the signature
            continue
        if len(theirs) == len(args) and all(_same_argument(a, b) for a, b in zip(theirs, args)):
            return {part: stored.value(spec) for part, spec in example["expected"].items()}
    return None


def _stored_calls(function):
    """The note under a result whose expected one is not stored: the stored calls of `function`, or of every
    function when it has none."""
    examples = course()["show"]["examples"]
    mine = [e for e in examples if e["function"] == function]
    calls = say("ladder.concept_separator").join(f"attnkit-show --mine {e['function']} {' '.join(e['args'])}"
                                                 for e in mine or examples)
    return say("show.no_stored_expected" if mine else "show.nothing_stored_for", function=function, examples=calls)


def _mine(function, texts, functions):
    """(text, exit code) of the learner's `function(*texts)`, beside the stored expected result when there is one."""
    step, returns = functions[function]
    folder = Path.cwd() / "exercises"
    try:
        fn = learner_function(learner_module, step.module, folder, function)
    except StepLoadError as err:
        raise LearnerError(str(err)) from None
    call, args, parts = run_learner(fn, function, texts, returns, folder / step.filename, LAYOUT.steps())
    expected = stored_expected(function, fn, args)
    if expected is None:
        return yours(call, parts, _stored_calls(function)), 0
    shown = compared(call, parts, expected)
    return shown.text, 1 if shown.differs else 0


def main(argv=None):
    """The command; see the module's docstring. Its output's reader going away (`| head -3`) ends it quietly."""
    try:
        code = _command(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # here, where a reader gone is caught, not at exit
        return code
    except BrokenPipeError:
        reader_gone()
        return 0


def _command(argv):
    functions = {name: (step, returns) for step in LAYOUT.steps() for name, returns in step.functions.items()}
    presets = course()["show"]["presets"]
    try:
        if argv[:1] == ["--lang"]:
            if len(argv) < 2 or argv[1] not in LANGUAGES:
                raise UsageError(say("show.lang", choices=", ".join(LANGUAGES)))
            set_language(argv[1])
            argv = argv[2:]
        if argv[:1] in (["-h"], ["--help"]):
            print(say("show.usage_tool", presets=", ".join(presets), names=", ".join(functions)))
            return 0
        mine = argv[:1] == ["--mine"]
        argv = argv[1:] if mine else argv
        if not mine and len(argv) <= 1 and (argv or [DEFAULT_PRESET])[0] in presets:
            print(pick(presets[(argv or [DEFAULT_PRESET])[0]]))
            return 0
        if not argv or argv[0] not in functions:
            raise UsageError(say("show.usage_tool", presets=", ".join(presets), names=", ".join(functions)))
        text, code = _mine(argv[0], argv[1:], functions)
    except (UsageError, LearnerError) as err:
        print(f"attnkit-show: {err}", file=sys.stderr)
        return 2 if isinstance(err, UsageError) else 1
    print(text)
    return code
