"""What the points rule costs honest partial work: each buggy submission's score before and after.

The buggy submissions are every known mistake of the catalogue, in each of its forms (graded as
`attnkit verify` grades them: its wrong functions standing in for the reference), and each buggy edit
of `attnkit bench` (a solution file with one small text edit, graded in the sandbox), each in the track
of the step it is made in.
"before" is what the submission scores when every passed test pays; "after" is its score, where a
function's public and property tests pay only once it passes a hidden value test (docs/GRADING.md).
The judging itself is the same, so every diagnosis stays: `named` says the mistake is still named.

    python tools/points_rule.py
"""
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from attnkit import manifest
from attnkit.grader import submission
from attnkit.grader.bench import EDITS, copy_solutions
from attnkit.grader.grade import grade_submission
from attnkit.grader.plan import Plan
from attnkit.grader.runners import SandboxRunner
from attnkit.grader.verify import mistake_grades


@dataclass(frozen=True)
class Row:
    submission: str
    track: str
    before: float  # every passed test paid
    after: float  # the score
    named: bool  # the mistake is still named (an unnamed edit: no diagnosis at all)
    diagnoses: tuple


def every_pass_paid(graded):
    """The score when every passed test pays its points."""
    return sum(t.max_score for t in graded.tests if t.status == "passed")


def _row(label, track, graded, named):
    return Row(label, track, round(every_pass_paid(graded), 4), round(graded.score, 4), named, tuple(graded.diagnoses))


def rows():
    """One Row per buggy submission and track."""
    out = []
    runner = SandboxRunner(allow_no_barrier=True)  # the submissions are the kit's own solutions, edited
    with tempfile.TemporaryDirectory(prefix="attnkit-points-") as folder:
        edited = [(edit, submission.read(copy_solutions(Path(folder) / f"edit{k}", edit)))
                  for k, edit in enumerate(EDITS)]
        for track in manifest.tracks():
            plan = Plan(track)
            for label, code, graded in mistake_grades(plan):
                if graded is not None:
                    out.append(_row(label, track, graded, any(t.diagnosis == code for t in graded.tests)))
            for (file, _, new, code), sub in edited:
                if file[:-3] not in plan.steps:
                    continue  # a step of the other track: this track grades it with the reference
                graded = grade_submission(plan, runner, sub)
                named = code in graded.diagnoses if code else not graded.diagnoses
                out.append(_row(f"bench: {file} -> {new.splitlines()[0][:34]}", track, graded, named))
    return out


def main():
    table = rows()
    print(f"{'buggy submission':<56} {'track':<9} {'before':>8} {'after':>8} {'change':>7}  named  diagnoses")
    for r in table:
        print(f"{r.submission:<56} {r.track:<9} {r.before:>8.2f} {r.after:>8.2f} {r.after - r.before:>+7.2f}  "
              f"{'yes' if r.named else 'NO':<5}  {' '.join(r.diagnoses)}")
    worst = max(table, key=lambda r: abs(r.after - r.before))
    print(f"{len(table)} buggy submissions; largest change {worst.after - worst.before:+.2f} ({worst.submission}, "
          f"{worst.track}); every mistake named: {all(r.named for r in table)}")
    return 0 if all(r.named and abs(r.after - r.before) <= 5 for r in table) else 1


if __name__ == "__main__":
    sys.exit(main())
