"""The sandbox's data types (re-exported by attnkit.grader.sandbox, where they are documented).

It also runs inside the sandbox (as `sandbox.sandbox_types`, see sandbox_zygote): standard library only.
"""
from dataclasses import dataclass
from enum import Enum

# numpy's BLAS and OpenMP on one thread, in every process that computes for a grade (the sandbox's, the reference worker)
ONE_BLAS_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                          "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}


@dataclass(frozen=True)
class Limits:
    call_seconds: float = 2.0  # wall time per call (and for importing a step's module): at most; see below
    memory_mb: int = 1024  # the submission's memory: RLIMIT_AS of its one process (seccomp denies it a second)
    output_bytes: int = 20_000  # cap on captured stdout+stderr kept per submission
    result_bytes: int = 16_000_000  # cap on the array bytes one call may return
    max_timeouts_per_function: int | None = 2  # then that function's remaining jobs are not run
    submission_seconds: float = 30.0  # wall time of the whole submission: imports and calls (at most; see below)
    # with jobs whose reference time is known (Plan measures it), both limits follow the reference's own time
    # (None, the default: no scaling; --reference-factor F turns it on): a call may take reference_factor x the reference's time on it, at least
    # call_floor_seconds (what an honest solution with Python loops needs for a small call, with room for a busy
    # machine) and at most call_seconds; the submission, reference_allowance + reference_factor x the
    # reference's time on all its calls, at most submission_seconds (call_limit, submission_budget)
    reference_factor: float | None = None  # opt-in: wall time, so a loaded machine or a call that waits on the
    # reference worker (a stub's later step runs on the reference's earlier steps) can exceed a scaled limit
    reference_allowance: float = 1.0
    call_floor_seconds: float = 0.25
    submission_result_bytes: int = 32_000_000  # array bytes all its calls together may return


@dataclass(frozen=True, eq=False)  # equal only to itself: hashable by identity, whatever its kwargs hold
class Job:
    key: str  # caller's id, e.g. "softmax_fully_masked_row_is_zero#0"
    step: str  # step module, e.g. "step6_head"
    function: str  # e.g. "attention"
    returns: tuple  # part names from the manifest, e.g. ("O", "P")
    kwargs: dict  # argument name -> array, numpy scalar, JSON-able value; "*name" -> list spread positionally
    reference_seconds: float | None = None  # what the reference takes on this call here (Plan measures it), if known
    measure_peak: bool = False  # measure the call's memory peak (a largest_intermediate case: judge.measures_peak)


class Stopped:
    """How a call ended that the learner harness has no word for (`attnkit_runtime.harness.Ending` has
    returned, not_written, raised and timeout): the sandbox's own endings, which the grader words."""

    CRASHED = "crashed"  # the process died (exit, a fatal signal), or ran out of memory
    GARBLED = "garbled"  # its answer broke the wire format, or answered some other request
    NOT_RUN = "not_run"  # not made: the function had already timed out too often
    LOAD_ERROR = "load_error"  # its step's file is missing or could not be imported
    BUDGET = "budget"  # not made, or cut short: the submission's time or result bytes were spent


def call_limit(limits, job):
    """The wall seconds one call of `job` may take: `limits.call_seconds`, or less when the job's reference
    time is known (Limits.reference_factor), never under `limits.call_floor_seconds`: a function that never
    returns spends a small part of the submission's budget on its timeouts, not all of it."""
    if limits.reference_factor is None or job.reference_seconds is None:
        return limits.call_seconds
    scaled = max(limits.call_floor_seconds, limits.reference_factor * job.reference_seconds)
    return min(limits.call_seconds, scaled)


def submission_budget(limits, jobs):
    """The wall seconds a submission of these jobs may take: `limits.submission_seconds`, or less when every
    job's reference time is known (Limits.reference_factor): a submission tens of times slower than the
    reference on the same calls is stopped there, not after half a minute."""
    known = [job.reference_seconds for job in jobs]
    if limits.reference_factor is None or not known or None in known:
        return limits.submission_seconds
    return min(limits.submission_seconds, limits.reference_allowance + limits.reference_factor * sum(known))


@dataclass(frozen=True)
class CallResult:
    ending: str  # a harness.Ending (returned, not_written, raised, timeout) or a Stopped
    parts: dict | None  # part name -> np.ndarray (numeric or bool) when it returned a result that was named
    error: str  # "" or the exception's message and the learner-file lines of its traceback, or why it stopped
    exc_type: str  # "" or the exception class name, e.g. "ValueError" ("time"/"bytes" for a budget)
    seconds: float
    warnings: tuple = ()  # texts of the RuntimeWarnings (NumPy's NaN/inf) a call that returned emitted
    modified: tuple = ()  # the arguments the call changed in place (harness.Outcome.modified)
    unnamed: str = ""  # why the result that came back could not be taken (harness.Outcome.unnamed)
    peaks: tuple = ()  # (its memory peak in bytes, or None where the call hid it) when measured (harness.Outcome.peaks)


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


def result(ending, error="", exc_type="", seconds=0.0, parts=None, warnings=(), modified=(), unnamed="", peaks=()):
    return CallResult(ending, parts, error, exc_type, seconds, tuple(warnings), tuple(modified), unnamed, tuple(peaks))
