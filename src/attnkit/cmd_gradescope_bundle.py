"""`attnkit gradescope-bundle FILE.zip`: the autograder zip to upload to Gradescope (docs/GRADESCOPE.md)."""
import os
import sys

from . import manifest
from .cli import add_lang_option


def register(sub):
    p = sub.add_parser("gradescope-bundle", help="write the Gradescope autograder zip (setup.sh, run_autograder, "
                                                 "the kit, the hidden cases, the solutions)")
    p.add_argument("zip", metavar="FILE.zip", help="where to write the zip")
    p.add_argument("--track", default=manifest.DEFAULT_TRACK, choices=manifest.tracks(),
                   help=f"the assignment the bundle grades, out of its own 100 points (default: {manifest.DEFAULT_TRACK}); "
                        "one Gradescope assignment per track")
    add_lang_option(p, "the students' feedback, written into run_autograder",
                    default="$ATTNKIT_LANG where the bundle is made, else the container's locale: "
                            "English on Gradescope")
    p.set_defaults(func=run)


def run(args):
    from attnkit_runtime.i18n import ENVIRONMENT
    from .grader.gradescope_bundle import build

    try:
        names = build(args.zip, args.lang or os.environ.get(ENVIRONMENT) or None, args.track)  # main set it from --lang
    except (ValueError, RuntimeError) as err:
        print(f"attnkit gradescope-bundle: {err}", file=sys.stderr)
        return 2
    print(f"{args.zip}: {len(names)} files; upload it as the assignment's autograder (docs/GRADESCOPE.md)")
    return 0
