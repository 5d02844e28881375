"""`attnkit verify`: the grader's self-check (solutions 100, stubs 0, every known mistake named)."""


def register(sub):
    p = sub.add_parser("verify", help="check the grader: solutions 100, stubs 0, every known mistake caught and named")
    p.set_defaults(func=run)


def run(args):
    from .grader.plan import Plan
    from .grader.verify import report

    text, ok = report(Plan())
    print(text)
    return 0 if ok else 1
