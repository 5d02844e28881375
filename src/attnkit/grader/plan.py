"""What one grading run checks, built once and shared by every submission of the run.

For each case of the catalogue (public and hidden): the arguments of its calls, the outputs they
must give or, for a property case, their shapes and dtypes (the reference runs here, once), its points and the runner jobs that make its calls,
each with the time the reference takes on it here (a submission's time budget is scaled to it).
Judging reuses all of it, and remembers verdicts by the bytes of the learner's results, so a
result already seen (the reference's own, or a common mistake's) is judged once per run.
"""
import copy
import hashlib
import threading
import time
from dataclasses import dataclass

import numpy as np

from .. import cases as catalogue
from .. import checks, manifest, reference, rubric
from ..catalogue_diagnosis import CATALOGUE
from ..fingerprint import kit_fingerprint
from .sandbox import Job
from attnkit_runtime.judge import invoke, measures_peak

_MEMO_LIMIT = 10_000  # results remembered per run (a few kB each); past that the memo starts again


@dataclass(frozen=True)
class PlannedCase:
    case: catalogue.Case
    calls: list  # keyword arguments of each call, built once (never handed to learner code itself)
    expected: object  # checks.expected_outputs(case, calls), computed once
    forms: object  # checks.expected_forms(case, calls), computed once
    keys: tuple  # the job key of each call
    points: float
    value: bool  # it compares values (not a property case), as credit's rule reads it for every submission


class Plan:
    """The cases of one track (a separate 100-point assignment), their jobs and their points;
    `remembered` memoises what judging a result gave."""

    def __init__(self, track=manifest.DEFAULT_TRACK):
        self.track = track
        self.steps = [s.module for s in manifest.steps(track)]
        for module in self.steps:  # load them now: loading swaps sys.modules, unsafe once threads judge
            reference.reference_module(module)
        points = rubric.case_points(track)
        self.step_points = rubric.step_points(track)
        self.cases = []
        jobs = []
        for case in (c for c in catalogue.all_cases() if c.step.module in self.steps):
            calls = case.build_calls()
            keys = tuple(f"{case.name}#{k}" for k in range(len(calls)))
            jobs += [Job(key, case.step.module, case.function, case.returns, kwargs, seconds, measures_peak(case))
                     for key, kwargs, seconds in zip(keys, calls, _reference_seconds(case, calls))]
            self.cases.append(PlannedCase(case, calls, checks.expected_outputs(case, calls),
                                          checks.expected_forms(case, calls), keys, points[case.name],
                                          case.kind != "property"))
        self.jobs = tuple(jobs)
        self.case_named = {p.case.name: p.case for p in self.cases}
        self.fingerprint = kit_fingerprint(track)  # what a grade depends on besides the submission
        self._memo = {}
        self._lock = threading.Lock()

    def prepare_for_threads(self):
        """Build now the diagnoses that measure memory in this process (mistakes.prepare says why),
        before several threads judge; a run that judges one submission at a time builds them only if needed."""
        for planned in self.cases:
            if measures_peak(planned.case):
                CATALOGUE.prepare(planned.case, planned.calls)

    def remembered(self, planned, results, compute):
        """compute() for these results of this case, or what it gave for identical results before."""
        key = _results_key(planned.case.name, results)
        if key is None:
            return compute()
        with self._lock:
            if key in self._memo:
                return self._memo[key]
        value = compute()
        with self._lock:
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            self._memo[key] = value
        return value


def _reference_seconds(case, calls):
    """The CPU seconds the reference takes on each call of `case` in this thread, now (the least of two
    tries): what a submission's CPU budget is scaled to (sandbox_types.submission_budget); CPU time, as the
    learner's is counted, so a machine busier now than later does not change it."""
    fn = reference.reference_function(case.step.module, case.function)
    seconds = []
    for kwargs in calls:
        tries = []
        for _ in range(2):
            passed = copy.deepcopy(kwargs)
            start = time.thread_time()
            try:
                with np.errstate(all="ignore"):
                    invoke(fn, passed)
            except Exception:  # noqa: BLE001 - a case may expect the reference to raise
                pass
            tries.append(time.thread_time() - start)
        seconds.append(min(tries))
    return seconds


def _results_key(name, results):
    digest = hashlib.blake2b(name.encode(), digest_size=20)
    for parts in results:
        for part, value in parts.items():
            arr = np.asarray(value)
            if arr.dtype.hasobject:
                return None
            digest.update(f"|{part}|{arr.dtype.str}|{arr.shape}|".encode())
            digest.update(np.ascontiguousarray(arr))  # its buffer, not a copy
    return digest.digest()
