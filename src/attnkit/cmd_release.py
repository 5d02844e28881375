"""`attnkit release OUT`: write the student hand-out; `attnkit release --check OUT`: scan it for leaks."""
import os
import sys

from attnkit_runtime.i18n import LANGUAGES


def register(sub):
    p = sub.add_parser("release", help="write the student hand-out (stubs, public tests, runtime), or check one",
                       description="Write OUT: exercises/ (stubs and readable public tests), a runtime installable "
                                   "with `pip install .`, READMEs in English and Chinese (--lang: one language). "
                                   "With --check, scan an existing OUT (every file, archives and compressed files "
                                   "opened, symbolic links refused) for hidden cases and solution code. See "
                                   "docs/RELEASE.md.")
    p.add_argument("directory", metavar="OUT", help="the release folder (created if needed)")
    p.add_argument("--check", action="store_true",
                   help="only scan OUT for leaks; exit 1 if any is found, 2 if OUT is not a folder or the kit has no "
                        "hidden case to look for")
    p.add_argument("--force", action="store_true", help="write into OUT even if it is not empty")
    p.add_argument("--lang", choices=LANGUAGES, default=None, dest="handout_lang",  # not the CLI's own --lang
                   help="make the hand-out in one language: README.md in it, and the messages in it whatever the "
                        "student's locale (ATTNKIT_LANG or `pytest --lang` still switch). Default: both languages "
                        "side by side (README.md and README.zh.md), the messages following the locale")
    p.set_defaults(func=run)


def run(args):
    from . import release
    from .release import leaks

    if args.check:
        if not os.path.isdir(args.directory):
            print(f"attnkit release --check: {args.directory} is not a folder: nothing was checked", file=sys.stderr)
            return 2
        try:
            found = leaks.scan(args.directory)
        except ValueError as err:
            print(f"attnkit release --check: {err}", file=sys.stderr)
            return 2
        for finding in found:
            print(finding)
        print(f"attnkit release --check: {len(found)} leak(s) in {args.directory}" if found
              else f"attnkit release --check: no hidden case and no solution code in {args.directory}")
        print(f"(every file read as bytes, archives and compressed files opened; {leaks.LINKS_REFUSED})")
        return 1 if found else 0
    try:
        written = release.write(args.directory, force=args.force, lang=args.handout_lang)
    except FileExistsError as err:
        print(f"attnkit release: {err}", file=sys.stderr)
        return 1
    except FileNotFoundError as err:
        print(f"attnkit release: {err}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} files into {args.directory}")
    print(f"next: attnkit release --check {args.directory}, then hand it out (git init; students run the README)")
    return 0
