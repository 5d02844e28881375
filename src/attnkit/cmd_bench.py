"""`attnkit bench`: grade a made-up class of correct, buggy and hanging submissions and time it."""
from .cmd_grade import DEFAULT_JOBS


def register(sub):
    p = sub.add_parser("bench", help="time the grader on N generated submissions (correct, buggy, hanging)")
    p.add_argument("-n", type=int, default=100, help="correct + buggy submissions (half each; default 100)")
    p.add_argument("--hanging", type=int, default=2, help="hanging submissions, timed separately (default 2)")
    p.add_argument("--jobs", type=int, default=DEFAULT_JOBS,
                   help=f"submissions graded at once (default: as attnkit grade, the CPUs + 1, {DEFAULT_JOBS} here)")
    p.set_defaults(func=run)


def run(args):
    from .grader import bench

    return 0 if bench.run(max(args.n, 2), args.jobs, args.hanging) else 1
