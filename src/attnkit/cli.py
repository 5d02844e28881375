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

COMMAND_MODULES = (
    "attnkit.cmd_check",
    "attnkit.cmd_stubs",
    "attnkit.cmd_grade",
    "attnkit.cmd_verify",
    "attnkit.cmd_bench",
    "attnkit.cmd_nbgrader",
    "attnkit.cmd_release",
    "attnkit.cmd_gradescope_bundle",
    "attnkit.cmd_report",
    "attnkit.cmd_show",
    "attnkit.cmd_gguf",
)


def add_lang_option(parser, what="the messages", default="$ATTNKIT_LANG, else the locale"):
    """--lang en|zh on a subcommand: the language of `what`; `main` applies it before the command runs."""
    parser.add_argument("--lang", choices=i18n.LANGUAGES, help=f"the language of {what}: en or zh (default: {default})")


def build_parser():
    parser = argparse.ArgumentParser(prog="attnkit", description=__import__("attnkit").__doc__)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    if getattr(args, "lang", None):
        i18n.set_language(args.lang)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader went away (`attnkit grade … | head`): stop quietly
        reader_gone()
        return 0


if __name__ == "__main__":
    sys.exit(main())
