"""What a call of the learner's code has used of its time limits: the CPU time of its process and the time
it slept, read from the kernel's scheduler (Zygote.probe) while the grader waits for the call's answer.

Neither grows when the machine is busy: a process waiting for a CPU is neither running nor asleep, nor is one
whose CPU the host took away (a VM's steal time, which the guest counts as neither: the machine's, a bound of
the process's, is taken off its sleep). A call
is probed PROBE_SECONDS after it started, then every PROBE_SECONDS until it answers, so a quicker call
costs no probe; what is counted runs from its first probe (a call gets those first PROBE_SECONDS free).
The sleep of an interval between two probes is the time the process's main thread neither ran nor waited
for a CPU in it, less the time the grader spent on the process's requests in it (`Grader.waited`: from
its waking to read each request to its answer sent, and the time the grader itself waited for a CPU),
and none when something from the process was waiting to be read: time spent waiting for the grader (the
reference worker's answers to its calls of earlier steps) is never the learner's, and a sleep between
such calls is, however often it makes them. (A submission's CPU time is its processes' own, whole:
the live one's when probed, the ended ones' as the zygote reaped them; sandbox_runner.)
"""
import threading
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
        self._last = None  # (the previous probe, the seconds the grader had spent on requests by then)

    def add(self, sample, waited, waiting):
        """Count the interval since the previous probe up to `sample` (Zygote.probe's, {} once the process has
        ended); `waited`: the seconds the grader has spent on the process's requests so far (`Grader.waited`),
        `waiting`: whether something from the process waits to be read. Returns the seconds of sleep added."""
        self.due = time.monotonic() + PROBE_SECONDS
        last, self._last = self._last, ((sample, waited) if sample else None)
        if not sample or last is None:
            return 0.0
        before, waited_before = last
        cpu = max(sample["cpu"] - before["cpu"], 0.0)
        idle = 0.0
        if not waiting:
            busy = sum(sample.get(key, 0.0) - before.get(key, 0.0) for key in ("ran", "queued", "stolen"))
            idle = max(sample["at"] - before["at"] - busy - (waited - waited_before), 0.0)
        self.cpu, self.idle = self.cpu + cpu, self.idle + idle
        return idle


class Grader:
    """The time the grader's thread has spent on one process's requests (`waited`, seconds): each from its
    waking to read the request to its answer sent (`answered`), with the time this thread waited for a CPU
    since it was last counted (`seen`), which is how late it woke to the request on a busy machine."""

    def __init__(self):
        self.waited = 0.0
        self._delay = _queued()

    def seen(self):
        """Count no earlier wait for a CPU in the next request's time (at a probe: no request was pending)."""
        self._delay = _queued()

    def answered(self, woke):
        """The request read after `woke` (time.monotonic) has been answered."""
        delay = _queued()
        self.waited += time.monotonic() - woke + max(delay - self._delay, 0.0)
        self._delay = delay


def _queued():
    """Seconds this thread has waited for a CPU (its scheduler's run delay), 0.0 where the kernel does not say."""
    try:
        with open(f"/proc/self/task/{threading.get_native_id()}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0
