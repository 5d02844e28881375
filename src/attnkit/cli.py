"""The `attnkit` command. Each subcommand lives in its own module with a `register(subparsers)`."""
import argparse
import importlib
import os
import sys

from attnkit_runtime import i18n
from attnkit_runtime.quiet_pipe import reader_gone
from .grader.sandbox_types import ONE_BLAS_THREAD

# One BLAS thread here too, set before numpy loads: the grader judges while its sandboxes compute, and
# OpenBLAS's default threads (one per core, spinning between calls) took the cores from them under load.
for _name, _value in ONE_BLAS_THREAD.items():
    os.environ.setdefault(_name, _value)

COMMANDS = {  # each subcommand and its module, imported only when it is the one asked for (or for the help)
    "check": "attnkit.cmd_check",
    "stubs": "attnkit.cmd_stubs",
    "grade": "attnkit.cmd_grade",
    "verify": "attnkit.cmd_verify",
    "bench": "attnkit.cmd_bench",
    "nbgrader-course": "attnkit.cmd_nbgrader",
    "release": "attnkit.cmd_release",
    "gradescope-bundle": "attnkit.cmd_gradescope_bundle",
    "report": "attnkit.cmd_report",
    "show": "attnkit.cmd_show",
    "gguf": "attnkit.cmd_gguf",
}


def add_lang_option(parser, what="the messages", default="$ATTNKIT_LANG, else the locale"):
    """--lang en|zh on a subcommand: the language of `what`; `main` applies it before the command runs."""
    parser.add_argument("--lang", choices=i18n.LANGUAGES, help=f"the language of {what}: en or zh (default: {default})")


def build_parser(argv=None):
    """The parser of `argv`'s subcommand alone when it names one (its module's imports cost the others
    nothing: `attnkit release --check` no longer loads pytest and the grader); else of every subcommand."""
    parser = argparse.ArgumentParser(prog="attnkit", description=__import__("attnkit").__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    asked = next((word for word in (sys.argv[1:] if argv is None else argv) if not word.startswith("-")), None)
    for name, module in COMMANDS.items():
        if asked not in COMMANDS or name == asked:
            importlib.import_module(module).register(sub)
    return parser


def main(argv=None):
    args = build_parser(argv).parse_args(argv)
    if getattr(args, "lang", None):
        i18n.set_language(args.lang)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (`attnkit grade … | head`): stop quietly
        reader_gone()
        return 0


if __name__ == "__main__":
    sys.exit(main())
