"""The sandbox's data types (re-exported by attnkit.grader.sandbox, where they are documented).

It also runs inside the sandbox (as `sandbox.sandbox_types`, see sandbox_zygote): standard library only.
"""
from dataclasses import dataclass
from enum import Enum

PROBE_SECONDS = 0.1  # how often the grader looks at a running call's times (sandbox_meter)

# numpy's BLAS and OpenMP on one thread, in every process that computes for a grade (the sandbox's, the reference worker)
ONE_BLAS_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                          "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}


@dataclass(frozen=True)
class Limits:
    """Time is limited on the learner's own process (sandbox_runner.Meter): its CPU time, and the time it
    sleeps (neither running nor waiting for a CPU nor for the grader), which a busy machine does not
    inflate; wall time is only a backstop, and none of them counts the grader's answers to its calls of
    earlier steps (the reference worker's time)."""

    call_cpu_seconds: float = 2.0  # CPU seconds of the learner's process per call, at most (see reference_factor)
    call_idle_seconds: float = 0.25  # seconds per call (or import) that the learner's process sleeps
    call_seconds: float = 10.0  # wall time per call, and per import of a step's module: a backstop
    memory_mb: int = 1024  # the submission's memory: RLIMIT_AS of its one process (seccomp denies it a second)
    output_bytes: int = 20_000  # cap on captured stdout+stderr kept per submission
    result_bytes: int = 16_000_000  # cap on the array bytes one call may return
    max_timeouts_per_function: int | None = 2  # timeouts, or calls that ended the process: then that function's
    # remaining jobs are not run
    max_restarts: int | None = 6  # times the submission's process may be ended by a crash or a garbled answer
    # and started afresh (a timeout's cost is bounded by the time budgets): then its remaining jobs are not run
    submission_cpu_seconds: float = 30.0  # CPU seconds of the whole submission: imports and calls, at most
    submission_idle_seconds: float = 1.0  # seconds the whole submission's process may sleep
    submission_seconds: float = 60.0  # wall time of the whole submission: a backstop
    # with jobs whose reference time is known (Plan measures it, in CPU time), the CPU limits follow it (None:
    # no scaling): a call may take reference_factor x the reference's time on it, at least call_floor_seconds
    # (what an honest solution with Python loops needs for a small call, with room to spare) and at most
    # call_cpu_seconds; the submission, reference_allowance + room for one hang + reference_factor x the reference's
    # time on the calls made so far, at most submission_cpu_seconds (call_limit, CpuBudget)
    # (the honest solution with Python loops takes ~10 ms of CPU on a small call and 0.1 to 0.2 s of it all
    # told, a hostile one the whole budget: hence a budget a few times the honest one's, not ten)
    reference_factor: float | None = 20.0
    reference_allowance: float = 0.5
    call_floor_seconds: float = 0.15
    submission_result_bytes: int = 32_000_000  # array bytes all its calls together may return


class Limit(str, Enum):
    """Which limit stopped a call (CallResult.exc_type of a timeout)."""

    CPU = "cpu"  # its CPU time: Limits.call_cpu_seconds, scaled (call_limit)
    IDLE = "idle"  # the time it slept: Limits.call_idle_seconds
    WALL = "wall"  # the backstop: Limits.call_seconds

    def __str__(self):
        return self.value


@dataclass(frozen=True, eq=False)  # equal only to itself: hashable by identity, whatever its kwargs hold
class Job:
    key: str  # caller's id, e.g. "softmax_fully_masked_row_is_zero#0"
    step: str  # step module, e.g. "step6_head"
    function: str  # e.g. "attention"
    returns: tuple  # part names from the manifest, e.g. ("O", "P")
    kwargs: dict  # argument name -> array, numpy scalar, JSON-able value; "*name" -> list spread positionally
    reference_seconds: float | None = None  # the reference's CPU time on this call here (Plan measures it), if known
    measure_peak: bool = False  # measure the call's memory peak (a largest_intermediate case: judge.measures_peak)


class Source(str):
    """A step module's text rebuilt from elsewhere (a notebook's cells), with `places`: where its lines come
    from, ((first module line, what the learner calls that place, its line there), …) in order, e.g.
    ((1, 'attention.ipynb, the cell under "Step 3"', 1),); lines before the first place are the kit's.
    The sandbox names those places, not the module's file, in what a learner reads."""

    def __new__(cls, text, places=()):
        made = super().__new__(cls, text)
        made.places = tuple(places)
        return made


class Stopped:
    """How a call ended that the learner harness has no word for (`attnkit_runtime.harness.Ending` has
    returned, not_written, raised and timeout): the sandbox's own endings, which the grader words."""

    CRASHED = "crashed"  # the process died (exit, a fatal signal), or ran out of memory
    GARBLED = "garbled"  # its answer broke the wire format, or answered some other request
    NOT_RUN = "not_run"  # not made: the function had timed out or ended its process too often, or the submission's
    # process had been ended too often (Limits.max_timeouts_per_function, max_restarts)
    LOAD_ERROR = "load_error"  # its step's file is missing or could not be imported
    BUDGET = "budget"  # not made, or cut short: the submission's time or result bytes were spent


def call_limit(limits, job):
    """The CPU seconds one call of `job` may take: `limits.call_cpu_seconds`, or less when the job's reference
    time is known (Limits.reference_factor), never under `limits.call_floor_seconds`: a function that never
    returns spends a small part of the submission's budget on its timeouts, not all of it."""
    if limits.reference_factor is None or job.reference_seconds is None:
        return limits.call_cpu_seconds
    scaled = max(limits.call_floor_seconds, limits.reference_factor * job.reference_seconds)
    return min(limits.call_cpu_seconds, scaled)


def submission_budget(limits, jobs):
    """The CPU seconds a submission of these jobs may take once all its calls are made (CpuBudget)."""
    budget = CpuBudget(limits, jobs)
    for job in jobs:
        budget.made(job)
    return budget.seconds


class CpuBudget:
    """The CPU seconds a submission of `jobs` may have taken so far (`seconds`): `limits.submission_cpu_seconds`,
    or less when every job's reference time is known (Limits.reference_factor): reference_allowance, room for one
    function that never returns (`_one_hang`), and reference_factor x the reference's time on each call made so
    far (`made`). A submission tens of times slower than the reference on the same calls is stopped there, not
    after half a minute, and one that loops from its first calls is stopped before the budget of the later ones;
    one hang costs only its own tests, however little the rest leaves to spare."""

    def __init__(self, limits, jobs):
        known = [job.reference_seconds for job in jobs]
        self.factor = None if limits.reference_factor is None or not known or None in known else limits.reference_factor
        self.cap = limits.submission_cpu_seconds
        self.reference_made = 0.0
        self._made = set()
        self.start = self.cap if self.factor is None else limits.reference_allowance + _one_hang(limits, jobs)

    def made(self, job):
        """Count `job`'s call as made (once, however often it is run again)."""
        if self.factor is not None and job not in self._made:
            self._made.add(job)
            self.reference_made += job.reference_seconds

    @property
    def seconds(self):
        return self.cap if self.factor is None else min(self.cap, self.start + self.factor * self.reference_made)


def _one_hang(limits, jobs):
    """The CPU seconds one function that never returns may take: its max_timeouts_per_function calls (all, with no
    such cap) at its largest call limits, each counted from the meter's first look (PROBE_SECONDS free) and
    stopped when it next looks past the limit (up to PROBE_SECONDS more)."""
    costs = {}
    for job in jobs:
        costs.setdefault((job.step, job.function), []).append(call_limit(limits, job) + 2 * PROBE_SECONDS)
    return max(sum(sorted(each, reverse=True)[:limits.max_timeouts_per_function]) for each in costs.values())


@dataclass(frozen=True)
class CallResult:
    ending: str  # a harness.Ending (returned, not_written, raised, timeout) or a Stopped
    parts: dict | None  # part name -> np.ndarray (numeric or bool) when it returned a result that was named
    error: str  # "" or the exception's message and the learner-file lines of its traceback, or why it stopped
    exc_type: str  # "" or the exception class name, e.g. "ValueError" ("time"/"bytes" for a budget, a Limit for a timeout)
    seconds: float
    warnings: tuple = ()  # texts of the RuntimeWarnings (NumPy's NaN/inf) a call that returned emitted
    modified: tuple = ()  # the arguments the call changed in place (harness.Outcome.modified)
    unnamed: str = ""  # why the result that came back could not be taken (harness.Outcome.unnamed)
    peaks: tuple = ()  # (its memory peak in bytes, or None where the call hid it) when measured (harness.Outcome.peaks)
    resident: tuple = ()  # (its process's growth of peak resident bytes) when measured (harness.Outcome.resident)
    earlier_stub: str = ""  # the earlier step whose stub raised a not_written's NotImplementedError (harness.Outcome.earlier_stub)


@dataclass(frozen=True)
class SubmissionRun:
    results: dict  # job key -> CallResult, one per job
    stdout: str  # the learner's captured stdout (capped), never parsed
    stderr: str
    isolation: str = ""  # what isolated the learner's code (barrier_description's words)
    tier: str = ""  # the same as a word, an Isolation (the gradebook's column)


class Isolation(str, Enum):
    """What isolated a submission's code, as one word (the words of `SubmissionRun.isolation` say more)."""

    BARRIER = "barrier"  # bubblewrap's barrier (sandbox_barrier.py)
    OWN_UID = "own_uid"  # no barrier; as root, learner code ran under a uid of its own
    NONE = "none"  # no barrier; learner code ran as the grader's own user
    IN_PROCESS = "in_process"  # no learner code: the kit's own functions, called in the grader (attnkit verify)

    def __str__(self):
        return self.value


def result(ending, error="", exc_type="", seconds=0.0, parts=None, warnings=(), modified=(), unnamed="", peaks=(),
           resident=(), earlier_stub=""):
    return CallResult(ending, parts, error, exc_type, seconds, tuple(warnings), tuple(modified), unnamed, tuple(peaks),
                      tuple(resident), earlier_stub)
