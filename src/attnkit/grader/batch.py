"""Grade many submissions at once, reporting each as soon as it is graded.

Submissions run in parallel threads (each one's code runs in its own sandboxed child; the judging
here is light). Each finished grade goes to the journal first, then to the callback that prints it
and rewrites the report files, so a rerun finds it even if the grader is killed right after.
Whatever goes wrong while reading or grading one submission becomes an error row for that submission
alone; only a sandbox that cannot run at all stops the batch.
"""
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from attnkit_runtime.i18n import language
from ..messages import say
from . import submission as submissions
from .grade import Graded, grade, grade_submission
from .sandbox_zygote import ZygoteError


def run(names, plan, runner, jobs=1, journal=None, force=False, on_graded=None):
    """Grade the submissions at paths `names`; return ({name: Graded}, {name: reason not graded}).

    `on_graded(graded, skipped)` is called once per submission, in the order they finish.
    """
    public = {p.case.name for p in plan.cases if p.case.public}
    fingerprint = f"{plan.fingerprint}|{runner.settings}|{language()}"  # other limits or language: regraded
    done, unreadable, todo = {}, {}, []
    for name in names:
        try:
            sub = submissions.read(name)
        except FileNotFoundError as err:  # not a submission at all: the instructor's mistake
            unreadable[name] = str(err)
            continue
        except Exception as err:  # noqa: BLE001 - whatever reading it raised is this submission's problem
            sub = submissions.refused(name, f"{name} could not be read ({type(err).__name__}: {str(err)[:200]})")
        key = journal.key(sub, fingerprint) if journal else None
        stored = journal.get(key) if journal and not force else None
        if stored is not None:
            done[name] = Graded.from_record(stored, public)
            if on_graded:
                on_graded(done[name], True)
        else:
            todo.append((sub, key))

    def one(sub):
        """(Graded, whether to keep it in the journal): a grader failure is an error row, retried next run."""
        try:
            return grade_submission(plan, runner, sub), True
        except ZygoteError:
            raise  # the sandbox itself is gone: no later submission can be graded either
        except Exception as err:  # noqa: BLE001 - one submission's failure must not stop the batch
            why = f"the grader failed on this submission ({type(err).__name__}: {str(err)[:200]})"
            return grade(plan, None, {}, sub.name, why), False

    if jobs > 1 and len(todo) > 1:
        plan.prepare_for_threads()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(one, sub): (sub, key) for sub, key in todo}
        try:
            for future in as_completed(futures):
                sub, key = futures[future]
                graded, keep = future.result()
                if journal and keep:
                    journal.add(key, graded.as_record())
                done[sub.name] = graded
                if on_graded:
                    on_graded(graded, False)
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return done, unreadable


class Progress:
    """`[k/n] rate/s eta` on stderr: redrawn in place on a terminal, a line a second otherwise."""

    def __init__(self, total, stream=None):
        self.total, self.stream, self.count = total, stream or sys.stderr, 0
        self.start = self.last = time.monotonic()
        self.tty = self.stream.isatty()

    def step(self):
        self.count += 1
        now = time.monotonic()
        if now - self.last < (0.1 if self.tty else 1.0) and self.count < self.total:
            return
        self._draw(now)

    def finish(self, unreadable):
        """Count the `unreadable` paths (never graded, so never stepped) as done, and draw the last line."""
        if unreadable:
            self.count += unreadable
            self._draw(time.monotonic())

    def _draw(self, now):
        self.last = now
        rate = self.count / max(now - self.start, 1e-9)
        eta = (self.total - self.count) / rate if rate else 0.0
        text = say("grade.progress", count=self.count, total=self.total, rate=rate, eta=eta)
        self.stream.write(f"\r{text}\033[K" if self.tty else text + "\n")
        if self.tty and self.count >= self.total:
            self.stream.write("\n")
        self.stream.flush()
