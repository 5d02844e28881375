"""The status of one judged case, as every front end and the grading JSON spell it."""
from enum import Enum


class Status(str, Enum):
    """passed: right; failed: a wrong result (or not written yet); error: the learner's code raised, or
    could not be run; timeout: it ran out of time. A str, so JSON and CSV write its value as is."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"

    def __str__(self):
        return self.value
