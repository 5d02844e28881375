"""What a call of the learner's code has used of its time limits: the CPU time of its process and the time
it slept, read from the kernel's scheduler (Zygote.probe) while the grader waits for the call's answer.

Neither grows when the machine is busy: a process waiting for a CPU is neither running nor asleep. A call
is probed PROBE_SECONDS after it started, then every PROBE_SECONDS until it answers, so a quicker call
costs no probe; what is counted runs from its first probe (a call gets those first PROBE_SECONDS free).
An interval between two probes is sleep when the process's main thread neither ran nor waited for a
CPU in it, counted only when the grader answered none of the process's requests in that interval and
none was waiting to be read: time spent waiting for the grader (the reference worker's answers to its
calls of earlier steps) is never the learner's. (A submission's CPU time is its processes' own, whole:
the live one's when probed, the ended ones' as the zygote reaped them; sandbox_runner.)
"""
import time

from .sandbox_types import PROBE_SECONDS


class OverLimit(TimeoutError):
    """A call, or the submission (limit None), used up a time limit (a sandbox_types.Limit)."""

    def __init__(self, limit=None):
        super().__init__(f"over its {limit or 'submission'} limit")
        self.limit = limit


class Meter:
    """One call's probes: `cpu` and `idle` seconds counted so far, `due` when to probe next."""

    def __init__(self, since):
        self.due = since + PROBE_SECONDS
        self.cpu = self.idle = 0.0
        self._last = None  # (the previous probe, how many requests the grader had answered by then)

    def add(self, sample, answered, waiting):
        """Count the interval since the previous probe up to `sample` (Zygote.probe's, {} once the process has
        ended); `answered`: the requests the grader has answered so far, `waiting`: whether something
        from the process waits to be read. Returns the seconds of sleep added."""
        self.due = time.monotonic() + PROBE_SECONDS
        last, self._last = self._last, ((sample, answered) if sample else None)
        if not sample or last is None:
            return 0.0
        before, answered_before = last
        cpu = max(sample["cpu"] - before["cpu"], 0.0)
        idle = 0.0
        if answered == answered_before and not waiting:
            busy = sample["ran"] - before["ran"] + sample["queued"] - before["queued"]
            idle = max(sample["at"] - before["at"] - busy, 0.0)
        self.cpu, self.idle = self.cpu + cpu, self.idle + idle
        return idle
