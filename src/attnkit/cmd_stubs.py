"""`attnkit stubs`: (re)generate exercises/ from solutions/, or check that they are in sync."""
from . import stubs


def register(sub):
    p = sub.add_parser("stubs", help="generate the learner's stubs in exercises/ from solutions/")
    p.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")
    p.set_defaults(func=run)


def run(args):
    if args.check:
        stale = stubs.drift()
        for name in stale:
            print(f"exercises/{name} differs from what `attnkit stubs` generates")
        return 1 if stale else 0
    for name in stubs.write():
        print(f"wrote exercises/{name}")
    return 0
