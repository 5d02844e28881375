"""Runners make a submission's calls: `runner(sources, jobs, passed) -> SubmissionRun`.

`passed(step, results)` says whether a step passed every one of its cases (the grader's judging):
the sandbox then lets the learner's own module of it serve the later steps that import it.

`SandboxRunner` runs learner code in the sandbox's isolated child. `InProcessRunner` runs trusted
callables here (the reference, with known mistakes standing in for some functions): `attnkit
verify` uses it to check that every mistake of the catalogue is caught and named.
"""
import time
from types import SimpleNamespace

import numpy as np

from attnkit_runtime.harness import call_case
from ..reference import reference_function
from .reference_worker import WORKERS
from .sandbox import Limits, SubmissionRun, run_submission
from .sandbox_types import Isolation, result


class SandboxRunner:
    """`allow_no_barrier`: run learner code even where the barrier cannot be built (else it refuses)."""

    def __init__(self, limits=None, allow_no_barrier=False):
        self.limits, self.allow_no_barrier = limits or Limits(), allow_no_barrier

    @property
    def settings(self):
        """What, besides the cases and the submission, a grade depends on (part of the results store's key)."""
        return repr(self.limits)

    def __call__(self, sources, jobs, passed=None):
        WORKERS.start(self.limits.memory_mb)  # the reference of earlier steps, ready before it is asked
        return run_submission(sources, list(jobs), self.limits, self.allow_no_barrier, passed)


class InProcessRunner:
    """Calls overrides[(step module, function)] where given, else the reference, as the harness calls
    learner code (`harness.call_case`); sources are ignored. The kit's mistakes are known by their
    numbers: the NumPy warnings on the way are dropped."""

    settings = "in-process"

    def __init__(self, overrides=None):
        self.overrides = dict(overrides or {})

    def __call__(self, sources, jobs, passed=None):
        return SubmissionRun({job.key: self._call(job) for job in jobs}, "", "", "in-process (the kit's own code)",
                             Isolation.IN_PROCESS)

    def _call(self, job):
        fn = self.overrides.get((job.step, job.function)) or reference_function(job.step, job.function)
        case = SimpleNamespace(step=SimpleNamespace(module=job.step), function=job.function, returns=job.returns,
                               measure_peak=job.measure_peak)
        start = time.perf_counter()
        outcome = call_case(fn, case, [job.kwargs], seconds=0)
        parts = None if outcome.results is None else {name: np.asarray(v) for name, v in outcome.results[0].items()}
        return result(outcome.ending, outcome.error, outcome.error_type, time.perf_counter() - start, parts,
                      modified=outcome.modified, unnamed=outcome.unnamed, peaks=outcome.peaks)
