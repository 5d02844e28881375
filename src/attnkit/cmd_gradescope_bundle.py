"""`attnkit gradescope-bundle FILE.zip`: the autograder zip to upload to Gradescope (docs/GRADESCOPE.md)."""
import sys

from .cli import add_lang_option


def register(sub):
    p = sub.add_parser("gradescope-bundle", help="write the Gradescope autograder zip (setup.sh, run_autograder, "
                                                 "the kit, the hidden cases, the solutions)")
    p.add_argument("zip", metavar="FILE.zip", help="where to write the zip")
    add_lang_option(p, "the students' feedback, baked into run_autograder (default: Gradescope's locale, English)")
    p.set_defaults(func=run)


def run(args):
    from .grader.gradescope_bundle import build

    try:
        names = build(args.zip, args.lang)
    except (ValueError, RuntimeError) as err:
        print(f"attnkit gradescope-bundle: {err}", file=sys.stderr)
        return 2
    print(f"{args.zip}: {len(names)} files; upload it as the assignment's autograder (docs/GRADESCOPE.md)")
    return 0
