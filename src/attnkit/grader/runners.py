"""Runners make a submission's calls: `runner(sources, jobs, passed) -> SubmissionRun`.

`passed(step, results)` says whether a step passed every one of its cases (the grader's judging):
the sandbox then lets the learner's own module of it serve the later steps that import it.

`SandboxRunner` runs learner code in the sandbox's isolated child. `InProcessRunner` runs trusted
callables here (the reference, with known mistakes standing in for some functions): `attnkit
verify` uses it to check that every mistake of the catalogue is caught and named.
"""
import time
import warnings

import numpy as np

from attnkit_runtime.judge import call_named
from ..reference import reference_function
from .sandbox import CallResult, Limits, SubmissionRun, run_submission


class SandboxRunner:
    """`allow_no_barrier`: run learner code even where the barrier cannot be built (else it refuses)."""

    def __init__(self, limits=None, allow_no_barrier=False):
        self.limits, self.allow_no_barrier = limits or Limits(), allow_no_barrier

    @property
    def settings(self):
        """What, besides the cases and the submission, a grade depends on (part of the results store's key)."""
        return repr(self.limits)

    def __call__(self, sources, jobs, passed=None):
        return run_submission(sources, list(jobs), self.limits, self.allow_no_barrier, passed)


class InProcessRunner:
    """Calls overrides[(step module, function)] where given, else the reference; sources are ignored."""

    settings = "in-process"

    def __init__(self, overrides=None):
        self.overrides = dict(overrides or {})

    def __call__(self, sources, jobs, passed=None):
        return SubmissionRun({job.key: self._call(job) for job in jobs}, "", "", "in-process (the kit's own code)")

    def _call(self, job):
        fn = self.overrides.get((job.step, job.function)) or reference_function(job.step, job.function)
        start = time.perf_counter()
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = call_named(fn, job.returns, job.kwargs)
            parts = {name: np.asarray(value) for name, value in result.items()}
            return CallResult("ok", parts, "", "", time.perf_counter() - start)
        except NotImplementedError as err:
            return CallResult("not_done", None, str(err), "NotImplementedError", time.perf_counter() - start)
        except Exception as err:  # a mistake may raise, as a learner's code would
            name = type(err).__name__
            return CallResult("error", None, f"{name}: {err}", name, time.perf_counter() - start)
