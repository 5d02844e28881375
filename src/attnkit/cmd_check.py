"""`attnkit check`: run the public tests on your exercises/ and show the progress ladder."""
import pytest

from .cli import add_lang_option
from attnkit_runtime.messages import say
from .paths import EXERCISES_DIR
from .public import SOLUTIONS_OPTION


def register(sub):
    p = sub.add_parser("check", help="run the public tests on exercises/ and show your progress")
    p.add_argument("step", nargs="?", help="only this step, e.g. 4 or step4_softmax")
    p.add_argument(SOLUTIONS_OPTION, action="store_true", help="check the reference solutions/ instead")
    p.add_argument("-v", "--verbose", action="store_true", help="show each failure in full, not one line each")
    add_lang_option(p)
    p.set_defaults(func=run)


def _target(step):
    if step is None:
        return EXERCISES_DIR
    from . import manifest

    for s in manifest.steps():
        if step in (str(s.number), s.module, s.filename):
            return EXERCISES_DIR / f"test_{s.filename}"
    raise SystemExit(say("check.no_step", step=repr(step), last=len(manifest.steps())))


def run(args):
    detail = ["--tb=short"] if args.verbose else ["--tb=no", "-rN"]  # the ladder names the first failure
    argv = [str(_target(args.step)), "-q", "-p", "no:cacheprovider", *detail]
    if args.solutions:
        argv.append(SOLUTIONS_OPTION)
    return int(pytest.main(argv))
