"""One submission's jobs on one zygote: which child runs which step, and what each answer means.

A submission's steps share one child, which holds no reference code. An earlier step a step
imports is the learner's own module of it when that step passed every one of its cases (the grader
judges each step as soon as its jobs are done: `run(jobs, passed)`) and is loaded in the same child;
else it is the kit's provided code with proxies whose calls the child sends here while a call runs
("ref"), which sandbox_reference answers with the reference's results, and only for the steps the
step being run imports. The child makes each call as every front end does
(attnkit_runtime.harness.call_case) and sends back what it did; the grader judges it. The child is
replaced before the next step whenever the previous one left something behind (a thread, a process,
a timer, a patched numpy or builtins: its answer to the next "load" says so), and after any crash,
timeout, garbled answer or failed import.

Time is counted on the learner's process, not the clock (sandbox_meter: its CPU time and the time it
sleeps, per call and per submission, which a busy machine does not inflate), with wall-time backstops
(Limits.call_seconds, submission_seconds); the grader's answers to its "ref" requests count in none.
A submission has budgets (sandbox_types.CpuBudget, Limits.submission_*): once one is spent,
the call running is cut short and every remaining job ends "budget", without running. A
result that would take the bytes past the budget is dropped, so a submission holds at most its
budget plus one call's cap of arrays here.
"""
import dataclasses
import itertools
import secrets
import select
import time
from collections import Counter, deque
from functools import lru_cache

import numpy as np

from attnkit_runtime.harness import Ending
from attnkit_runtime.messages import say
from .sandbox_meter import Grader, Meter, OverLimit
from .sandbox_reference import answer, kit_modules, provided_code
from .sandbox_types import CpuBudget, Limit, Source, Stopped, call_limit, result
from .sandbox_wire import Reader, WireError, encode_arrays, frame, large_inputs, packed_call, read_kept
from .sandbox_zygote import ZygoteError

_MAX_HEADER = 1 << 20
_MAX_TEXT = 4000
_MAX_WARNINGS = 5  # kept per call (the child sends no more)
_WINDOW_CALLS = 32  # requests in flight (each ~100 bytes: the socket buffer holds ~200 kB)


@lru_cache(maxsize=None)
def _code(step, kit):
    """The arrays (sandbox_wire.encode_arrays) of a "load" of `step`: the provided code of the kit modules
    `kit` (names), then the step's provided names and definitions; encoded once per process, not per load."""
    code = [(f"kit:{name}", provided_code(name)) for name in kit]
    code += [(f"provided:{part}", provided_code(step, part)) for part in ("names", "definitions")]
    return encode_arrays([(name, np.frombuffer(data, dtype=np.uint8), False) for name, data in code])


@lru_cache(maxsize=1024)
def _large_inputs(job):
    """{name: array} of the call's large arguments, which the child may name ({"$input"}) when its code
    passes them on to an earlier step (references to the job's own arrays, not copies)."""
    return large_inputs(packed_call(job)[1])


class SubmissionRunner:
    """Runs one submission's jobs on the zygote in holder[0] (`replace(holder)` swaps a dead one)."""

    def __init__(self, holder, replace, sources, limits):
        self.holder, self.replace, self.sources, self.limits = holder, replace, sources, limits
        self.child_limits = {"memory_mb": limits.memory_mb, "cpu_seconds": 120}
        self.sock, self.reader, self.present = None, None, set()  # the child, its answers, its modules
        self.jobs, self.numbers = [], {}  # the jobs of `run`, and each one's number in the zygote's stock
        self.alone = False  # once a child ended with calls in flight: one call in flight at a time
        self.restarts = 0  # times a child was ended after a crash or garbled answer (Limits.max_restarts)
        self.own = set()  # steps that passed every case: their module serves the steps importing them
        self._nonces = itertools.count()
        self._prefix = secrets.token_hex(4)  # answers carry their request's nonce: stale or forged ones show
        self.cpu_budget = CpuBudget(limits, ())  # see run: grows with the calls sent
        self.cpu_ended = self.cpu_live = 0.0  # CPU seconds of its ended children; of the live one when last probed
        self.idle_used = 0.0  # seconds its processes slept in calls and imports (sandbox_meter)
        self.grader = Grader()  # the time spent answering its "ref" requests, which is not the learner's (Meter.add)
        self.deadline = time.monotonic() + limits.submission_seconds
        self.bytes_left = limits.submission_result_bytes  # -1 once a result did not fit

    def _nonce(self):
        return f"{self._prefix}{next(self._nonces)}"

    @property
    def zygote(self):
        return self.holder[0]

    def run(self, jobs, passed=None):
        """{job key: CallResult} for every job; `passed(step, results)`, if given, says whether `step`
        passed every one of its cases with these results (see `_load`)."""
        self.jobs, self.numbers = jobs, {job: number for number, job in enumerate(jobs)}  # as the zygote stocks them
        self.cpu_budget = CpuBudget(self.limits, jobs)
        self.deadline = time.monotonic() + self.limits.submission_seconds
        by_step, results = {}, {}
        for job in jobs:
            by_step.setdefault(job.step, []).append(job)
        for step in by_step:
            self._run_step(step, by_step[step], results)
            start = time.monotonic()
            if passed is not None and step in self.present and passed(step, results):
                self.own.add(step)
            self.deadline += time.monotonic() - start  # judging is the grader's time, not the submission's
        return results

    def finish(self):
        """Kill what is left; return the captured (stdout, stderr), capped together."""
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        try:
            out, err, totals = self.zygote.finish(self.limits.output_bytes)
        except ZygoteError:
            self.replace(self.holder)
            return "", "[output lost: the sandbox had to be restarted]"
        cap = self.limits.output_bytes
        keep_out = min(len(out), max(cap // 2, cap - len(err)))
        keep_err = min(len(err), cap - keep_out)
        return _text(out[:keep_out], totals["out"]), _text(err[:keep_err], totals["err"])

    def _start_child(self):
        try:
            self.zygote.stock(self.jobs)
            self.sock = self.zygote.spawn(self.child_limits)
        except ZygoteError:
            self.replace(self.holder)  # once: a second failure is the grader's, and raises
            self.zygote.stock(self.jobs)
            self.sock = self.zygote.spawn(self.child_limits)
        self.reader, self.present = Reader(self.sock), set()

    def _end_child(self, grace=0.0):
        """Kill the child and all it started; say how it ended if it had ended by itself."""
        if self.sock is None:
            return ""
        self.sock.close()
        self.sock = None
        try:
            ended, cpu = self.zygote.reset(grace)
        except ZygoteError:  # the zygote died (its namespace, and every child, with it): start afresh
            self.replace(self.holder)
            return ""
        self.cpu_ended, self.cpu_live = self.cpu_ended + cpu, 0.0
        return ended

    def _spent(self):
        """The "budget" CallResult for jobs not run once a budget is spent, else None."""
        if self.bytes_left < 0:
            return result(Stopped.BUDGET, say("sandbox.budget_bytes", limit=self.limits.submission_result_bytes),
                          "bytes")
        if time.monotonic() >= self.deadline:
            return result(Stopped.BUDGET, say("sandbox.budget_time", seconds=self.limits.submission_seconds), "time")
        if self.cpu_ended + self.cpu_live >= self.cpu_budget.seconds:
            return result(Stopped.BUDGET, say("sandbox.budget_cpu", seconds=round(self.cpu_budget.seconds, 2)), "time")
        if self.idle_used >= self.limits.submission_idle_seconds:
            return result(Stopped.BUDGET, say("sandbox.budget_idle", seconds=self.limits.submission_idle_seconds),
                          "time")
        return None

    def _seconds_for(self, job, limit):
        """A call's (or with job None, an import's) limit of that Limit: CPU (`call_limit`; for an import
        `call_cpu_seconds`), idle or wall seconds."""
        if limit == Limit.CPU:
            return self.limits.call_cpu_seconds if job is None else call_limit(self.limits, job)
        return self.limits.call_idle_seconds if limit == Limit.IDLE else self.limits.call_seconds

    def _counted(self, res):
        """`res`, or the budget's result when its arrays do not fit in what is left of the byte budget."""
        if res.parts:
            size = sum(part.nbytes for part in res.parts.values())
            self.bytes_left = self.bytes_left - size if size <= self.bytes_left else -1
            if self.bytes_left < 0:
                return self._spent()
        return res

    def _run_step(self, step, jobs, results):
        filename = f"{step}.py"
        source = self.sources.get(filename)
        queue, stops = deque(jobs), Counter()
        while queue:
            spent = self._spent()
            if spent is not None:
                results.update((job.key, spent) for job in queue)
                return
            if source is None or self._skipped(queue[0], stops, results):
                if source is None:
                    results[queue[0].key] = result(Stopped.LOAD_ERROR, f"{filename} is missing")
                queue.popleft()
                continue
            if queue[0].measure_peak:
                self._measured(queue.popleft(), stops, results, filename, source)
                continue
            if self.sock is None:
                self._start_child()
            if step not in self.present:
                failed = self._load(step, filename, source)
                if failed is not None:
                    self._end_child()
                    results.update((job.key, failed) for job in queue)
                    return
            self._pipeline(queue, stops, results)

    def _skipped(self, job, stops, results):
        """Once crashes or garbled answers have ended the submission's child `max_restarts` times, no call is
        run; after `max_timeouts_per_function` timeouts, or calls that ended the child, a function's remaining
        calls are not run. `stops`: {(function, Ending.TIMEOUT or Stopped.CRASHED): count}."""
        cap, restarts = self.limits.max_timeouts_per_function, self.limits.max_restarts
        timeouts, crashes = stops[job.function, Ending.TIMEOUT], stops[job.function, Stopped.CRASHED]
        if restarts is not None and self.restarts >= restarts:
            words = say("sandbox.not_run_after_restarts", count=self.restarts)
        elif cap is not None and timeouts >= cap:
            words = say("sandbox.not_run_after_timeouts", function=job.function, count=timeouts)
        elif cap is not None and crashes >= cap:
            words = say("sandbox.not_run_after_crashes", function=job.function, count=crashes)
        else:
            return False
        results[job.key] = result(Stopped.NOT_RUN, words)
        return True

    def _pipeline(self, queue, stops, results, measured=False):
        """Run calls from the front of `queue` with several requests in flight (the child reads the
        next one as soon as it has answered), until the queue is empty or the child has to go.

        A call's time runs from its predecessor's answer (or its own sending), so each call still
        gets its limits (sandbox_meter). A request names only the call's number in the zygote's stock (its
        arguments are there already), so the requests in flight stay far under the socket buffer
        and sending never blocks. The child may hold an answer back to send it with the next ones
        (Submission.serve), so an answer that never came while later calls were in flight (the
        child crashed, hung or garbled) is no call's ending yet: those calls run again in a fresh
        child, one at a time. It stops before a memory case's call (`_measured`) unless `measured`.
        """
        inflight, since = deque(), time.monotonic()
        while queue or inflight:
            if len(inflight) <= _WINDOW_CALLS // 2:  # topped up half a window at a time: answered together
                chunks, was_empty = [], not inflight
                window = 1 if self.alone else _WINDOW_CALLS
                while queue and len(inflight) < window and self._spent() is None \
                        and (measured or not queue[0].measure_peak):
                    if self._skipped(queue[0], stops, results):
                        queue.popleft()
                        continue
                    nonce = self._nonce()
                    chunks.append(frame({"op": "call", "job": self.numbers[queue[0]], "nonce": nonce,
                                         "max_bytes": self.limits.result_bytes}))
                    self.cpu_budget.made(queue[0])
                    inflight.append((queue.popleft(), nonce))
                if not inflight:
                    return
                if was_empty:
                    since = time.monotonic()
                if chunks:
                    self._send(b"".join(chunks))
            job, nonce = inflight.popleft()
            res = self._counted(self._answer(job, nonce, since))
            since = time.monotonic()
            if res.ending in _CHILD_GONE:
                # a process that died may take a moment to be reaped, to say how it ended; one that answered
                # "crashed" (MemoryError, SystemExit: the exception's type) is alive, and is not waited for
                ended = self._end_child(0.05 if res.ending == Stopped.CRASHED and not res.exc_type else 0.0)
                self.restarts += res.ending in (Stopped.CRASHED, Stopped.GARBLED)  # a timeout's cost is in the budgets
                if inflight and res.ending != Stopped.BUDGET:
                    # its answer may have been held back behind a later call that never ended (Submission.serve):
                    # it and the rest run again, one at a time from now on, so each ending is its own call's
                    self.alone = True
                    queue.extendleft(reversed([job] + [j for j, _ in inflight]))
                    return
                if res.ending == Stopped.CRASHED and ended:
                    res = result(Stopped.CRASHED, f"{res.error} ({ended})", res.exc_type, res.seconds)
                queue.extendleft(reversed([j for j, _ in inflight]))  # lost with the child: run again
            stops[job.function, res.ending] += 1
            results[job.key] = res
            if self.sock is None:
                return

    def _measured(self, job, stops, results, filename, source):
        """Make a memory case's call (`job.measure_peak`) alone in a child of its own, and add to its result how
        much the child's peak resident memory grew past what it held before the call, as the kernel keeps it
        and the zygote reads it (CallResult.resident, where the zygote can vouch for it). Its address space is
        capped first at MEASURED_ROOM_BYTES past what it maps (RLIMIT_AS, set by the zygote): a call that builds
        far more than that, e.g. every key's scores at once, gets a MemoryError whatever it does to tracemalloc
        or its own counters. Where it cannot be capped, the call is not judged (not run, saying why)."""
        self._end_child()
        self._start_child()
        failed = self._load(job.step, filename, source)
        if failed is not None:
            self._end_child()
            results[job.key] = failed
            return
        before = self.zygote.memory(room=MEASURED_ROOM_BYTES)
        if not before:
            self._end_child()
            results[job.key] = result(Stopped.NOT_RUN, say("sandbox.peak_unmeasured", function=job.function))
            return
        self._pipeline(deque([job]), stops, results, measured=True)
        after = self.zygote.memory() if self.sock is not None else {}
        self._end_child()  # its peak is this call's: the next calls run in a fresh child
        res = results.setdefault(job.key, self._spent())  # not sent when a budget was spent meanwhile
        if res is not None and res.ending == Ending.RETURNED and "hwm" in after:
            results[job.key] = dataclasses.replace(res, resident=(max(after["hwm"] - before["rss"], 0),))

    def _exchange(self, header, step=None, encoded=((), b"")):
        """Send one request to the child and wait for its answer: (header, arrays, seconds); `step`
        is the step whose code it runs (whose imported steps the child may ask for), if any; `encoded`:
        the request's arrays (sandbox_wire.encode_arrays).

        Raises TimeoutError, EOFError/OSError (the child died) or WireError (garbled answer)."""
        nonce = self._nonce()
        start = time.monotonic()
        self.sock.settimeout(self.limits.call_seconds)
        self.sock.sendall(frame({**header, "nonce": nonce}, *encoded))
        reply, parts = self._reply_to(nonce, start, step)
        return reply, parts, time.monotonic() - start

    def _reply_to(self, nonce, since, step, job=None):
        """The child's answer to request `nonce` of the call (`job`, or an import) that started at `since`,
        within its limits and the submission's (_await); the reference requests ("ref") it sends first,
        while `step`'s code runs, are answered on the way: their time is neither the call's nor the
        submission's (both wall deadlines move on by it: computing the reference is the grader's work)."""
        meter, due = Meter(since), since + self.limits.call_seconds
        while True:
            self._await(meter, due, job)
            woke = time.monotonic()
            reply, parts, raw = read_kept(lambda n: self.reader.exact(n, min(due, self.deadline)), _MAX_HEADER,
                                          self.limits.result_bytes)
            if reply.get("op") != "ref":
                break
            start = time.monotonic()
            reply_bytes = answer(step, (reply, parts, raw), self.limits.result_bytes, job,
                                 _large_inputs(job) if job is not None else {}, self.limits.memory_mb,
                                 min(due, self.deadline))
            self.deadline, due = (moment + time.monotonic() - start for moment in (self.deadline, due))
            self.sock.settimeout(max(min(due, self.deadline) - time.monotonic(), 0.001))
            self.sock.sendall(reply_bytes)
            self.grader.answered(woke)
        if reply.get("nonce") != nonce:  # e.g. a message the learner's code wrote to the socket itself
            raise WireError("an answer to some other request")
        return reply, parts

    def _await(self, meter, due, job):
        """Return once the child's answer (or a request) can be read, or `due` or the deadline has come
        (the read then times out), probing the child's times meanwhile (sandbox_meter). Raises OverLimit
        once the call or the submission has used up its CPU or sleep limit."""
        while not self.reader.buf:
            now = time.monotonic()
            if now >= min(due, self.deadline):
                return
            if now < meter.due:
                if _readable(self.sock, min(due, self.deadline, meter.due) - now):
                    return
                continue
            try:
                sample = self.zygote.probe()
            except ZygoteError:
                sample = {}  # the zygote is gone: the child's socket says so
            waiting = _readable(self.sock, 0)
            self.idle_used += meter.add(sample, self.grader.waited, waiting)
            self.grader.seen()
            self.cpu_live = sample.get("cpu", self.cpu_live)
            if self._spent() is not None:
                raise OverLimit()
            for limit, used in ((Limit.CPU, meter.cpu), (Limit.IDLE, meter.idle)):
                if used > self._seconds_for(job, limit):
                    raise OverLimit(limit)

    def _failure(self, err, what, seconds, during="", job=None):
        """The CallResult for an exchange (a call of `job`, or an import) that did not get a well-formed answer."""
        limit = err.limit if isinstance(err, OverLimit) else Limit.WALL
        if isinstance(err, TimeoutError) and (limit is None or self._spent() is not None):
            return self._spent()
        if isinstance(err, TimeoutError):
            late = say(f"sandbox.over_{limit}", what=say("sandbox.the_import", file=what) if job is None else what,
                       seconds=round(self._seconds_for(job, limit), 2))
            words = "grade.timeout_asleep" if limit == Limit.IDLE else "grade.timeout"
            return result(Ending.TIMEOUT, say(words, error=late), str(limit), seconds)
        if isinstance(err, WireError):
            return _garbled(f"{what}{during}: {err}", seconds)
        return result(Stopped.CRASHED, f"{what} ended its process{during} (exit, os._exit or a fatal signal)", "",
                      seconds)

    def _load(self, step, filename, source):
        """Import the step in the child; None when it worked, else the CallResult for all its jobs.

        The earlier steps it imports that passed every case and are loaded in this child are the
        learner's own modules; the others, the kit's provided code with proxies. A child that an
        earlier step left unclean says so instead of loading: it is replaced, and the step loaded in a fresh one."""
        own = [name for name, _ in kit_modules(step) if name in self.own and name in self.present]
        kit = [(name, proxies) for name, proxies in kit_modules(step)
               if f"kit:{name}" not in self.present and name not in own]
        places = [list(place) for place in source.places] if isinstance(source, Source) else []
        header = {"op": "load", "module": step, "filename": filename, "source": source, "places": places,
                  "own": own, "kit": [{"module": name, "proxies": list(proxies)} for name, proxies in kit]}
        start = time.monotonic()
        try:
            reply, _, seconds = self._exchange(header, step, _code(step, tuple(name for name, _ in kit)))
        except (TimeoutError, EOFError, OSError, WireError) as err:
            return self._failure(err, filename, time.monotonic() - start, " while being imported")
        if reply.get("clean") is False and self.present:  # a fresh child has run no learner code: it is clean
            self._end_child()
            self._start_child()
            return self._load(step, filename, source)
        if reply.get("ending") != Ending.RETURNED:
            return result(Stopped.LOAD_ERROR, str(reply.get("error", ""))[:_MAX_TEXT],
                          str(reply.get("exc_type", ""))[:200], seconds)
        self.present |= {f"kit:{name}" for name, _ in kit} | {step}
        return None

    def _send(self, data):
        """Send requests, together in one system call."""
        try:
            self.sock.settimeout(self.limits.call_seconds)
            self.sock.sendall(data)
        except OSError:
            pass  # the child is gone or stuck: reading its answer says which

    def _answer(self, job, nonce, since):
        """The CallResult of `job` from the child's next answer, due its call limit after `since`."""
        try:
            reply, parts = self._reply_to(nonce, since, job.step, job)
        except (TimeoutError, EOFError, OSError, WireError) as err:
            return self._failure(err, f"{job.function}()", time.monotonic() - since, job=job)
        seconds = time.monotonic() - since
        ending, error, exc_type, unnamed = (reply.get(field, "") for field in ("ending", "error", "exc_type", "unnamed"))
        watched = [reply.get(field, []) for field in ("warnings", "modified")]
        if not (all(isinstance(value, str) for value in (ending, error, exc_type, unnamed))
                and all(isinstance(texts, list) and all(isinstance(text, str) for text in texts) for texts in watched)):
            return _garbled(f"{job.function}(): fields of the wrong type", seconds)
        warned, modified = ([text[:300] for text in texts[:_MAX_WARNINGS]] for texts in watched)
        error, exc_type, unnamed = error[:_MAX_TEXT], exc_type[:200], unnamed[:_MAX_TEXT]
        peaks = reply.get("peaks", [])
        if not (isinstance(peaks, list) and len(peaks) <= 1
                and all(peak is None or type(peak) is int and peak >= 0 for peak in peaks)):
            return _garbled(f"{job.function}(): a memory peak of the wrong type", seconds)
        if ending == Ending.RETURNED and (set(parts) == set(job.returns) and not unnamed or unnamed and not parts):
            return result(Ending.RETURNED, seconds=seconds, warnings=warned, modified=modified, unnamed=unnamed,
                          parts={name: parts[name][0] for name in job.returns} if not unnamed else None, peaks=peaks)
        earlier_stub = reply.get("earlier_stub", "")
        if not isinstance(earlier_stub, str):
            return _garbled(f"{job.function}(): an earlier step's stub of the wrong type", seconds)
        if ending in _ENDED_WITHOUT_RESULT + ((Ending.OUT_OF_MEMORY,) if job.measure_peak else ()) and not parts:
            return result(ending, error, exc_type, seconds, earlier_stub=earlier_stub[:200])
        return _garbled(f"{job.function}(): ending {ending!r}, parts {sorted(parts)}", seconds)


MEASURED_ROOM_BYTES = 32 << 20  # the address space a memory case's call may add (judge.RESIDENT_SLACK_BYTES beside)
_ENDED_WITHOUT_RESULT = (Ending.NOT_WRITTEN, Ending.RAISED, Stopped.CRASHED)  # out of memory too on a memory case
_CHILD_GONE = (Ending.TIMEOUT, Stopped.CRASHED, Stopped.BUDGET, Stopped.GARBLED)  # the child is ended after these


def _readable(sock, seconds):
    """Whether `sock` has something to read (or has been closed) within `seconds` (poll: no limit on fd numbers)."""
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(max(seconds, 0.0) * 1000))


def _garbled(what, seconds):
    return result(Stopped.GARBLED, f"garbled answer from {what}", "", seconds)


def _text(data, total):
    text = data.decode("utf-8", errors="replace")
    return text + (f"\n[… {total - len(data)} more bytes not kept]" if total > len(data) else "")
