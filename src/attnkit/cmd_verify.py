"""`attnkit verify`: the grader's self-check of every track (solutions 100, stubs 0, every known mistake named)."""


def register(sub):
    p = sub.add_parser("verify", help="check the grader: solutions 100, stubs 0, every known mistake caught and named")
    p.add_argument("--track", help="check only this track (default: every track), e.g. extension or modern")
    p.set_defaults(func=run)


def run(args):
    from . import manifest
    from .grader.plan import Plan
    from .grader.verify import report

    if args.track is not None and args.track not in manifest.tracks():
        raise SystemExit(f"attnkit verify: no track {args.track!r}; tracks are {', '.join(manifest.tracks())}")
    tracks = manifest.tracks() if args.track is None else [args.track]
    results = [report(Plan(track)) for track in tracks]
    print("\n\n".join(text for text, _ in results))
    return 0 if all(ok for _, ok in results) else 1
