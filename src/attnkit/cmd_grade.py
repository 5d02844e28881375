"""`attnkit grade PATH…`: grade submissions (folders shaped like exercises/, or .ipynb notebooks)."""
import json
import os
import re
import sys
import time
from pathlib import Path


def register(sub):
    from .grader.sandbox_types import Limits

    p = sub.add_parser("grade", help="grade submissions with every case, public and hidden, in a sandbox")
    p.add_argument("paths", nargs="+", metavar="PATH", help="a folder shaped like exercises/, or an .ipynb")
    p.add_argument("--json", action="store_true", help="print one JSON object per submission per line (SPEC)")
    p.add_argument("--csv", metavar="FILE", help="write a gradebook: a row per submission, a column per step")
    p.add_argument("--gradescope", metavar="FILE",
                   help="write Gradescope's results.json (with several PATHs, FILE is a folder of one file each)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once (default: CPUs)")
    p.add_argument("--out", metavar="DIR", help="keep the results store here (default: beside --csv or --gradescope); "
                                                "a rerun skips submissions already graded and unchanged")
    p.add_argument("--force", action="store_true", help="regrade submissions already in the results store")
    limits = Limits()
    p.add_argument("--call-seconds", type=float, default=limits.call_seconds,
                   help=f"time limit of one call of the learner's code (default {limits.call_seconds:g})")
    p.add_argument("--submission-seconds", type=float, default=limits.submission_seconds,
                   help="time budget of a whole submission, imports and calls; then its remaining tests are "
                        f"not run and score 0 (default {limits.submission_seconds:g})")
    p.add_argument("--submission-result-bytes", type=int, default=limits.submission_result_bytes,
                   help="budget of array bytes a submission's calls may return in all; then its remaining tests "
                        f"are not run and score 0 (default {limits.submission_result_bytes})")
    p.add_argument("--allow-no-barrier", action="store_true",
                   help="grade even where learner code cannot be isolated (not root, no CAP_SYS_ADMIN, no "
                        "unshare): it could then read the hidden cases and solutions")
    p.add_argument("--progress", action="store_true", help="show progress on stderr even when it is not a terminal")
    p.set_defaults(func=run)


def journal_path(args):
    if args.out:
        return Path(args.out) / "attnkit-results.jsonl"
    target = args.csv or args.gradescope
    return Path(f"{target}.journal.jsonl") if target else None


def gradescope_path(args, name):
    if len(args.paths) == 1:
        return Path(args.gradescope)
    stem = re.sub(r"[^\w.-]+", "_", name.strip("/\\")).strip("._") or "submission"
    return Path(args.gradescope) / f"{stem}.json"


def run(args):
    from .grader import batch, report_csv, report_gradescope, report_text
    from .grader.grade import POINTS_SPLIT
    from .grader.journal import Journal
    from .grader.plan import Plan
    from .grader.runners import SandboxRunner
    from .grader.sandbox import BarrierUnavailable, Limits, ZygoteError, barrier_description

    try:
        isolation = barrier_description(args.allow_no_barrier)
    except BarrierUnavailable as why:
        print(f"attnkit grade: refusing to run learner code without isolation: {why}.\n"
              "  Run the grader as root with CAP_SYS_ADMIN and util-linux `unshare` and libseccomp2 installed "
              "(in Docker: --cap-add SYS_ADMIN, or a VM),\n  or pass --allow-no-barrier to grade anyway: learner "
              "code could then read the hidden cases and solutions.", file=sys.stderr)
        return 3
    except ZygoteError as err:
        print(f"attnkit grade: the sandbox could not run, nothing was graded: {err}", file=sys.stderr)
        return 3
    limits = Limits(call_seconds=args.call_seconds, submission_seconds=args.submission_seconds,
                    submission_result_bytes=args.submission_result_bytes)
    plan = Plan()
    path = journal_path(args)
    journal = Journal(path) if path else None
    show_progress = (args.progress or sys.stderr.isatty()) and len(args.paths) > 1
    progress = batch.Progress(len(args.paths)) if show_progress else None
    graded_so_far = {}
    csv_written = [0.0]

    def write_csv(final=False):
        if args.csv and (final or time.monotonic() - csv_written[0] > 0.5):
            ordered = [graded_so_far[n] for n in args.paths if n in graded_so_far]
            report_csv.write(args.csv, ordered, plan.steps)
            csv_written[0] = time.monotonic()

    def on_graded(graded, skipped):
        graded_so_far[graded.submission] = graded
        if args.json:
            sys.stdout.write(json.dumps({**graded.as_spec(), "isolation": graded.isolation}) + "\n")
        else:
            if skipped:
                print(f"{graded.submission}: already graded and unchanged since (--force to regrade)")
            print(report_text.text(graded) + "\n")
        sys.stdout.flush()
        if args.gradescope:
            report_gradescope.write(gradescope_path(args, graded.submission), graded)
        write_csv()
        if progress:
            progress.step()

    try:
        if not args.json:
            print(f"isolation: {isolation}\n{POINTS_SPLIT}\n")
        runner = SandboxRunner(limits, args.allow_no_barrier)
        _, unreadable = batch.run(args.paths, plan, runner, args.jobs, journal, args.force, on_graded)
    except ZygoteError as err:
        write_csv(final=True)
        print(f"attnkit grade: the sandbox could not run, nothing more was graded: {err}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        write_csv(final=True)
        kept = f"; they are in {path}" if path else ""
        print(f"attnkit grade: interrupted after {len(graded_so_far)} submissions{kept}", file=sys.stderr)
        return 130
    write_csv(final=True)
    for name, why in unreadable.items():
        print(f"attnkit grade: not graded: {why}", file=sys.stderr)
    return 2 if unreadable else 0
