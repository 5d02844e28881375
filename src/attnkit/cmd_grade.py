"""`attnkit grade PATH…`: grade submissions (folders shaped like exercises/, or .ipynb notebooks)."""
import json
import os
import sys
import time
from pathlib import Path

from . import manifest
from .cli import add_lang_option
from .messages import say as words

# one more than the CPUs: a submission's grader thread judges while its child waits and the other way round,
# so one submission per CPU leaves the CPUs idle part of the time; each job holds a zygote (docs/GRADING.md)
DEFAULT_JOBS = (os.cpu_count() or 1) + 1


def register(sub):
    from .grader.sandbox_types import Limits

    p = sub.add_parser("grade", help="grade submissions with every case, public and hidden, in a sandbox")
    p.add_argument("paths", nargs="+", metavar="PATH", help="a folder shaped like exercises/, or an .ipynb")
    p.add_argument("--track", default=manifest.DEFAULT_TRACK, choices=manifest.tracks(),
                   help="the assignment to grade, each worth 100 points: " + ", ".join(
                       f"{track} (steps {manifest.steps(track)[0].number}–{manifest.steps(track)[-1].number})"
                       for track in manifest.tracks()) + f"; default {manifest.DEFAULT_TRACK}")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object per submission per line (docs/CONTRACT.md)")
    p.add_argument("--csv", metavar="FILE", help="write a gradebook: a row per student (with --roster, every roster "
                                                 "student), a column per step")
    p.add_argument("--gradescope", metavar="FILE",
                   help="write Gradescope's results.json (FILE/results.json when FILE ends with / or is a folder; "
                        "with several PATHs, FILE is a folder of one file each)")
    p.add_argument("--roster", metavar="FILE.csv",
                   help="the class, e.g. an LMS export: CSV columns student_id and optionally name, email, folder; "
                        "submissions are matched to rows by folder, id, email or name (docs/GRADING.md)")
    p.add_argument("--feedback", metavar="DIR",
                   help="write each student's feedback here as <student>-<digest>.md and .html (docs/GRADING.md)")
    p.add_argument("--reveal-hidden", action="store_true",
                   help="let feedback and Gradescope output show hidden tests' inputs and expected values")
    p.add_argument("--jobs", type=int, default=DEFAULT_JOBS,
                   help=f"submissions graded at once (default: the CPUs + 1, {DEFAULT_JOBS} here)")
    p.add_argument("--out", metavar="DIR", help="keep the results store here (default: beside --csv or --gradescope); "
                                                "a rerun skips submissions already graded and unchanged")
    p.add_argument("--force", action="store_true", help="regrade submissions already in the results store")
    limits = Limits()
    p.add_argument("--call-cpu-seconds", type=float, default=limits.call_cpu_seconds,
                   help="CPU time one call of the learner's code may use, at most (a call may use --reference-factor "
                        f"times the reference's time on it, at least {limits.call_floor_seconds:g} s; "
                        f"default {limits.call_cpu_seconds:g}); a call that sleeps is stopped after "
                        f"{limits.call_idle_seconds:g} s asleep")
    p.add_argument("--submission-cpu-seconds", type=float, default=limits.submission_cpu_seconds,
                   help="CPU time a whole submission, imports and calls, may use at most (and "
                        f"{limits.reference_allowance:g} s + room for one hang + --reference-factor times the reference's "
                        f"on the calls made so far); then its remaining tests are not run and score 0 (default {limits.submission_cpu_seconds:g})")
    p.add_argument("--reference-factor", type=float, default=limits.reference_factor,
                   help="scale both CPU limits to the reference's own CPU time on the same calls, measured when the "
                        f"run starts (default {limits.reference_factor:g}; 0: off, only the two limits above)")
    p.add_argument("--call-seconds", type=float, default=limits.call_seconds,
                   help="wall time of one call or import, at most: a backstop, the grader's answers to its calls of "
                        f"earlier steps not counted (default {limits.call_seconds:g})")
    p.add_argument("--submission-seconds", type=float, default=limits.submission_seconds,
                   help=f"wall time of a whole submission, at most: a backstop (default {limits.submission_seconds:g})")
    p.add_argument("--submission-result-bytes", type=int, default=limits.submission_result_bytes,
                   help="budget of array bytes a submission's calls may return in all; then its remaining tests "
                        f"are not run and score 0 (default {limits.submission_result_bytes})")
    p.add_argument("--allow-no-barrier", action="store_true",
                   help="grade even where learner code cannot be isolated (no bubblewrap, user namespaces "
                        "denied): it could then read the hidden cases and solutions")
    p.add_argument("--progress", action="store_true", help="show progress on stderr even when it is not a terminal")
    add_lang_option(p, "the learner's feedback (--feedback, --gradescope output, the tests' messages)")
    p.set_defaults(func=run)


def journal_path(args):
    if args.out:
        return Path(args.out) / "attnkit-results.jsonl"
    target = args.csv or args.gradescope
    return Path(f"{Path(target)}.journal.jsonl") if target else None  # beside it, even given as `out/`


def run(args):
    from .cases import public_only_notice
    from .grader import (batch, class_report, feedback, feedback_html, file_names, report_csv, report_gradescope,
                         report_text, students)
    from .grader.atomic import write_text
    from .grader.grade import points_split
    from .grader.journal import Journal
    from .grader.plan import Plan
    from .grader.runners import SandboxRunner
    from .grader.sandbox import BarrierUnavailable, Limits, ZygoteError, barrier_description
    from .grader.terminal import printable, say

    try:
        roster = students.read_roster(args.roster) if args.roster else None
    except (OSError, ValueError) as err:
        say(f"attnkit grade: {words('grade.roster_refused', error=err)}")
        return 2
    who_is = students.assign(args.paths, roster)
    try:
        gradescope_files = report_gradescope.files_for(args.paths, args.gradescope, roster) if args.gradescope else {}
        feedback_stems = file_names.stems(args.paths, roster) if args.feedback else {}
    except ValueError as err:
        say(f"attnkit grade: {words('grade.nothing_graded', error=err)}")
        return 2
    notice = public_only_notice()
    if notice:
        say(f"attnkit grade: {notice}")
    try:
        isolation = barrier_description(args.allow_no_barrier)
    except BarrierUnavailable as why:
        print(f"attnkit grade: {words('grade.no_isolation', why=why)}", file=sys.stderr)
        return 3
    except ZygoteError as err:
        say(f"attnkit grade: {words('grade.sandbox_failed', error=err)}")
        return 3
    limits = Limits(call_cpu_seconds=args.call_cpu_seconds, submission_cpu_seconds=args.submission_cpu_seconds,
                    call_seconds=args.call_seconds, submission_seconds=args.submission_seconds,
                    submission_result_bytes=args.submission_result_bytes,
                    reference_factor=args.reference_factor or None)
    plan = Plan(args.track)
    not_written = {}  # submission path: why one of its files could not be written
    path = journal_path(args)
    journal = Journal(path) if path else None
    show_progress = (args.progress or sys.stderr.isatty()) and len(args.paths) > 1
    progress = batch.Progress(len(args.paths)) if show_progress else None
    graded_so_far = {}
    rows = {}  # submission path: its --json object, which the class report reads too
    csv_written = [0.0]

    def write_csv(final=False):
        if args.csv and (final or time.monotonic() - csv_written[0] > 0.5):
            ordered = [graded_so_far[n] for n in args.paths if n in graded_so_far]
            report_csv.write(args.csv, ordered, plan.steps, roster, who_is)
            csv_written[0] = time.monotonic()

    def write_files(graded, who):
        """The student's own files; one that cannot be written is this student's error, reported at the end."""
        try:
            if args.gradescope:
                report_gradescope.write(gradescope_files[graded.submission], graded, plan.case_named,
                                        args.reveal_hidden)
            if args.feedback:
                stem = Path(args.feedback) / feedback_stems[graded.submission]
                for suffix, render in ((".md", feedback.markdown), (".html", feedback_html.page)):
                    write_text(f"{stem}{suffix}", render(graded, who, plan.case_named, args.reveal_hidden))
        except Exception as err:  # noqa: BLE001 - one student's files must not stop the batch
            not_written[graded.submission] = f"{type(err).__name__}: {str(err)[:200]}"

    def on_graded(graded, skipped):
        graded_so_far[graded.submission] = graded
        who = who_is[graded.submission]
        rows[graded.submission] = _row(graded, who, roster)
        if args.json:
            sys.stdout.write(json.dumps(rows[graded.submission]) + "\n")
        else:
            if skipped:
                print(words("grade.already_graded", submission=printable(graded.submission, keep="")))
            print(report_text.text(graded) + "\n")
        sys.stdout.flush()
        write_files(graded, who)
        write_csv()
        if progress:
            progress.step()

    try:
        if not args.json:
            print(f"{words('grade.isolation', isolation=isolation)}\n{points_split()}\n")
        runner = SandboxRunner(limits, args.allow_no_barrier)
        _, unreadable = batch.run(args.paths, plan, runner, args.jobs, journal, args.force, on_graded)
    except ZygoteError as err:
        write_csv(final=True)
        say(f"attnkit grade: {words('grade.sandbox_failed_later', error=err)}")
        return 3
    except KeyboardInterrupt:
        write_csv(final=True)
        kept = words("grade.interrupted_kept", path=path) if path else ""
        print(f"attnkit grade: {words('grade.interrupted', count=len(graded_so_far), kept=kept)}", file=sys.stderr)
        return 130
    write_csv(final=True)
    if progress:
        progress.finish(len(unreadable))
    for name, why in unreadable.items():
        say(f"attnkit grade: {words('grade.not_graded', why=why)}")
    for name, why in not_written.items():
        say(f"attnkit grade: {words('grade.files_not_written', submission=name, why=why)}")
    if roster is not None:
        _report_roster_gaps(roster, who_is)
    if not args.json and len(graded_so_far) >= 2:
        ordered = [rows[n] for n in args.paths if n in rows]
        print(class_report.text(class_report.summarize(ordered)))
    return 2 if unreadable or not_written else 0


def _row(graded, who, roster):
    """The --json object of a submission: the grade of docs/CONTRACT.md, its student (with a roster, their
    name, email and how they were matched), the isolation, where its step files were found when not at
    its top, and the tests of steps not written yet (the class report tells them from wrong answers)."""
    named = {"name": who.name, "email": who.email, "roster": who.match} if roster is not None else {}
    found = {"found_in": graded.found_in} if graded.found_in else {}
    return {**graded.as_spec(), "student": who.id, **named, "isolation": graded.isolation, **found,
            "not_written": [t.name for t in graded.tests if t.not_written]}


def _report_roster_gaps(roster, who_is):
    """On stderr: the submissions no roster row matched (or matched ambiguously), the rows two matched, the
    roster students without a submission."""
    from .grader.students import Match, folder_name
    from .grader.terminal import say

    def paths_with(match):
        return [path for path, who in who_is.items() if who.match is match]
    unrostered, ambiguous, duplicates = (paths_with(m) for m in (Match.UNROSTERED, Match.AMBIGUOUS, Match.DUPLICATE))
    if unrostered:
        say("attnkit grade: " + words("grade.roster_unrostered", count=len(unrostered),
                                      folders=", ".join(folder_name(p) for p in unrostered)))
    for path in ambiguous:
        rows = ", ".join(words("grade.roster_row", id=row.student_id, line=row.line) for row in who_is[path].candidates)
        say("attnkit grade: " + words("grade.roster_ambiguous", folder=folder_name(path), rows=rows))
    if duplicates:
        by_id = {}
        for path in duplicates:
            by_id.setdefault(who_is[path].id, []).append(path)
        for student_id, paths in by_id.items():
            say("attnkit grade: " + words("grade.roster_duplicate", id=student_id, count=len(paths), paths=", ".join(paths)))
    graded_ids = {who.id for who in who_is.values() if who.in_roster}
    missing = [row for row in roster.rows if row.student_id not in graded_ids]
    if missing:
        say("attnkit grade: " + words("grade.roster_missing", count=len(missing),
                                      ids=", ".join(row.student_id for row in missing)))
