"""The harness's diagnosis in the kit (the checkout's public tests, the grader): the mistake catalogue.

The catalogue is imported at the first failure (it takes a second to load; a passing run never pays
it), and its tables, built lazily, are built under one lock (the grader judges in threads).
"""
import threading

from attnkit_runtime import harness


class CatalogueDiagnosis(harness.Diagnosis):
    """The catalogue's own mistakes, run on the case's calls and compared with the learner's results or error."""

    _lock = threading.Lock()

    @staticmethod
    def _mistakes():
        from . import mistakes
        return mistakes

    def mistakes_of_results(self, case, calls, results):
        with self._lock:
            return self._mistakes().diagnoses(case, calls, results)

    def mistakes_of_error(self, case, error_type, error):
        with self._lock:
            return self._mistakes().exception_diagnoses(case, error_type, error)

    def mistakes_of_memory(self, case, calls):
        with self._lock:
            return self._mistakes().memory_diagnoses(case, calls)

    def prepare(self, case, calls):
        """Build `case`'s table of mistaken worlds now, before threads judge (mistakes.prepare says why)."""
        with self._lock:
            self._mistakes().prepare(case, calls)

    def describe(self, code):
        return self._mistakes().describe(code)


CATALOGUE = CatalogueDiagnosis()
