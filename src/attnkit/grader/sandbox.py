"""Run a learner's step functions in an isolated, unprivileged child and bring back plain arrays.

    run_submission(sources, jobs, limits=Limits(), allow_no_barrier=False, passed=None) -> SubmissionRun

`sources` maps file names to the learner's source ({"step4_softmax.py": "…"}; a missing step is
absent; a sandbox_types.Source names the notebook cells its lines come from, in tracebacks). Each Job
names a step, a function, the manifest's part names of its result and its
arguments. Every job gets a CallResult whose `ending` is the learner harness's (the child makes the
call with attnkit_runtime.harness.call_case) or the sandbox's own (sandbox_types.Stopped):

    returned     parts = {part name: ndarray} (numeric or bool dtype, validated here), or `unnamed`
                 saying why the result could not be taken (not a numpy array / number, a wrong tuple);
                 `modified` names the arguments it changed in place, `warnings` NumPy's warnings
    not_written  the function raised NotImplementedError (a stub)
    raised       any other exception (its type and text, with the learner's traceback lines)
    timeout      the call used up a limit of its own (exc_type a sandbox_types.Limit: cpu, idle, wall; the
                 child is killed)
    crashed      exit, os._exit, a signal, MemoryError, the memory cap, KeyboardInterrupt, SystemExit
    garbled      an answer that breaks the wire format or answers another request
    load_error   the file is missing, has a syntax error, or raised while being imported
    budget       not run (or cut short): the submission's time or result-byte budget was spent
                 (exc_type "time" or "bytes")

A step is judged with the *reference* versions of the steps it depends on (as attnkit_runtime.loader.load_step
does), but no reference code enters the sandbox: there the steps it imports are the kit's provided
code with proxies that the grader answers with the reference's results (sandbox_reference.py), and
the kit's provided definitions replace the learner's copies. With `passed(step, results)` (the
grader's judging), an earlier step that passed every one of its cases is the learner's own module
instead, and its calls cost no round trip. Children fork from a clean zygote (sandbox_zygote.py) that
never imports attnkit; the jobs' arguments are sent to each zygote once (its stock: every child it
forks inherits them, and a request names a job by its number); only JSON and raw array bytes cross
(sandbox_wire.py). The learner's
stdout/stderr (fds 1 and 2, so C-level writes too) come back capped, as text, never parsed.

Limits (sandbox_types.Limits): time is counted on the learner's process, not the clock
(sandbox_meter): call_cpu_seconds and submission_cpu_seconds (its CPU time per call or import, and in
all), call_idle_seconds and submission_idle_seconds (the time it sleeps), with call_seconds and
submission_seconds as wall-time backstops; reference_factor, reference_allowance and
call_floor_seconds scale the CPU limits to the reference's own CPU time on the jobs that carry it
(Job.reference_seconds: Plan's jobs do). memory_mb (RLIMIT_AS), output_bytes (stdout+stderr kept),
result_bytes (arrays one call may return), max_timeouts_per_function (after that many timeouts a
function's remaining jobs end "not_run" without running; None: run them all), submission_result_bytes
(the arrays of all its calls).

Fails closed: when the barrier cannot be built, BarrierUnavailable (a ZygoteError) is raised unless
`allow_no_barrier`. SubmissionRun.isolation says what isolated the run, SubmissionRun.tier in a word.

Thread-safe: each concurrent call takes its own zygote from a per-process pool (a process forked
from one that used the sandbox starts its own). See docs/SECURITY.md for what the barrier protects
and what stays open without it.
"""
import atexit

from .sandbox_runner import SubmissionRunner
from .sandbox_types import CallResult, Job, Limits, SubmissionRun  # noqa: F401 - the API
from .sandbox_zygote import BarrierUnavailable, ZygoteError, ZygotePool  # noqa: F401 - raised to callers

_POOL = ZygotePool()
atexit.register(_POOL.close)


def barrier_description(allow_no_barrier=False):
    """What isolates learner code on this machine, in one sentence (for reports).

    Raises BarrierUnavailable (saying why) when there is no barrier and `allow_no_barrier` is False."""
    with _POOL.zygote(allow_no_barrier) as holder:
        return holder[0].barrier


def run_submission(sources, jobs, limits=Limits(), allow_no_barrier=False, passed=None):
    """Run `jobs` on the learner's `sources`; never raises for anything the learner's code does.

    Raises ZygoteError only when the sandbox itself cannot run (the grader's problem), and
    BarrierUnavailable when it cannot isolate learner code and `allow_no_barrier` is False."""
    jobs = list(jobs)
    with _POOL.zygote(allow_no_barrier) as holder:
        runner = SubmissionRunner(holder, _POOL.replace, sources, limits)
        results = runner.run(jobs, passed)
        stdout, stderr = runner.finish()
        isolation, tier = holder[0].barrier, holder[0].tier
    return SubmissionRun({job.key: results[job.key] for job in jobs}, stdout, stderr, isolation, tier)
