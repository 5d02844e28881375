"""Run a learner's step functions in an isolated, unprivileged child and bring back plain arrays.

`run_submission(sources, jobs)` calls each Job's function on its arguments in a sandboxed child
process and returns one CallResult per job. Each step runs in its own child, forked from a clean
zygote (sandbox_zygote.py), holding the learner's module for that step and the *reference* modules
it imports (never the reference of the step itself). Only JSON and raw array bytes come back
(sandbox_wire.py), validated here. A crash, hang, exit or memory bomb costs the call that did it:
the child is killed with everything it started, and a fresh one takes the remaining jobs.

Thread-safe: each concurrent call takes its own zygote from a per-process pool.
See docs/SECURITY.md for what the barrier protects and what stays open without root.
"""
import atexit
import secrets
import time
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .. import manifest
from ..paths import SOLUTIONS_DIR
from .sandbox_wire import WireError, encode, read_message
from .sandbox_zygote import ZygoteError, ZygotePool, recv_exact

_MAX_HEADER = 1 << 20


@dataclass(frozen=True)
class Limits:
    call_seconds: float = 2.0  # wall time per call (and for importing a step's module)
    memory_mb: int = 1024  # address-space cap of the child (RLIMIT_AS)
    output_bytes: int = 20_000  # cap on captured stdout+stderr kept per submission
    result_bytes: int = 16_000_000  # cap on the array bytes one call may return
    max_timeouts_per_function: int | None = 2  # then that function's remaining jobs are not run


@dataclass(frozen=True)
class Job:
    key: str  # caller's id, e.g. "softmax_fully_masked_row_is_zero#0"
    step: str  # step module, e.g. "step6_head"
    function: str  # e.g. "attention"
    returns: tuple  # part names from the manifest, e.g. ("O", "P")
    kwargs: dict  # argument name -> numpy array, numpy scalar or JSON-able Python value


@dataclass(frozen=True)
class CallResult:
    status: str  # "ok" | "not_done" | "error" | "timeout" | "crashed" | "load_error"
    parts: dict | None  # part name -> np.ndarray (numeric or bool) when status == "ok", else None
    error: str  # "" or exception type + message + the learner-file lines of the traceback
    exc_type: str  # "" or the exception class name, e.g. "ValueError"
    seconds: float


@dataclass(frozen=True)
class SubmissionRun:
    results: dict  # job key -> CallResult, one per job
    stdout: str  # the learner's captured stdout (capped), never parsed
    stderr: str


_POOL = ZygotePool()
atexit.register(_POOL.close)


def barrier_description():
    """What isolates learner code on this machine, in one sentence (for reports)."""
    if _POOL.description is None:
        with _POOL.zygote():
            pass
    return _POOL.description


def run_submission(sources, jobs, limits=Limits()):
    """Run `jobs` on the learner's `sources` ({"step4_softmax.py": text, …}); never raises for
    anything the learner's code does. Raises ZygoteError only when the sandbox itself cannot run."""
    by_step = {}
    for job in jobs:
        by_step.setdefault(job.step, []).append(job)
    results = {}
    with _POOL.zygote() as holder:
        runner = _Runner(holder, sources, limits)
        for step, step_jobs in by_step.items():
            runner.run_step(step, step_jobs, results)
        stdout, stderr = runner.finish()
    return SubmissionRun({job.key: results[job.key] for job in jobs}, stdout, stderr)


@lru_cache(maxsize=None)
def _reference_deps(step):
    """[(module, reference source)] the step imports: provided modules, then its dependencies
    (each after its own), never the step itself."""
    order = []

    def visit(module):
        for dep in manifest.step(module).depends_on:
            if dep not in order:
                visit(dep)
                order.append(dep)

    visit(step)
    names = [*manifest.provided_modules(), *order]
    return tuple((name, (SOLUTIONS_DIR / f"{name}.py").read_text(encoding="utf-8")) for name in names)


def _result(status, error="", exc_type="", seconds=0.0, parts=None):
    return CallResult(status, parts, error, exc_type, seconds)


class _Runner:
    """Runs one submission's jobs, step by step, on the zygote in holder[0]."""

    def __init__(self, holder, sources, limits):
        self.holder, self.sources, self.limits = holder, sources, limits
        self.child_limits = {"memory_mb": limits.memory_mb, "cpu_seconds": 120}

    @property
    def zygote(self):
        return self.holder[0]

    def _spawn(self):
        try:
            return self.zygote.spawn(self.child_limits)
        except ZygoteError:
            _POOL.replace(self.holder)  # once: a second failure is the grader's, and raises
            return self.zygote.spawn(self.child_limits)

    def _kill(self, sock, grace=0.0):
        """Close the child's socket, kill it and all it started; say how the child ended."""
        sock.close()
        return self.zygote.reset(grace)

    def run_step(self, step, jobs, results):
        filename = f"{step}.py"
        source = self.sources.get(filename)
        if source is None:
            for job in jobs:
                results[job.key] = _result("load_error", f"{filename} is missing")
            return
        sock, failed, timeouts = None, None, Counter()
        cap = self.limits.max_timeouts_per_function
        for job in jobs:
            if failed is not None:
                results[job.key] = failed
                continue
            if cap is not None and timeouts[job.function] >= cap:
                results[job.key] = _result("timeout", f"not run: {job.function}() already ran out of time "
                                                      f"{timeouts[job.function]} times")
                continue
            if sock is None:
                sock = self._spawn()
                failed = self._load(sock, step, filename, source)
                if failed is not None:
                    self._kill(sock)
                    sock = None
                    results[job.key] = failed
                    continue
            result, healthy = self._call(sock, job)
            if not healthy:
                ended = self._kill(sock, 0.05 if result.status == "crashed" else 0.0)
                sock = None
                if result.status == "crashed" and ended:
                    result = _result("crashed", f"{result.error} ({ended})", result.exc_type, result.seconds)
            timeouts[job.function] += result.status == "timeout"
            results[job.key] = result
        if sock is not None:
            self._kill(sock)

    def _exchange(self, sock, header, arrays=(), max_payload=0):
        """Send one request, wait for its answer; returns (header, arrays, seconds)."""
        nonce = secrets.token_hex(8)
        sock.setblocking(False)
        try:  # drop anything the learner's code wrote to the protocol socket between requests
            while sock.recv(1 << 16):
                pass
        except (BlockingIOError, OSError):
            pass
        start = time.monotonic()
        sock.settimeout(self.limits.call_seconds)
        sock.sendall(encode({**header, "nonce": nonce}, arrays))
        deadline = start + self.limits.call_seconds
        reply, parts = read_message(lambda n: recv_exact(sock, n, deadline), _MAX_HEADER, max_payload)
        if reply.get("nonce") != nonce:
            raise WireError("an answer to some other request")
        return reply, parts, time.monotonic() - start

    def _load(self, sock, step, filename, source):
        """Import the step in the child; None when it worked, else the CallResult for every job."""
        start = time.monotonic()
        header = {"op": "load", "deps": _reference_deps(step), "module": step, "filename": filename,
                  "source": source}
        try:
            reply, _, seconds = self._exchange(sock, header)
        except TimeoutError:
            return _result("timeout", f"{filename} did not finish being imported within "
                                      f"{self.limits.call_seconds:g} s", "", time.monotonic() - start)
        except (EOFError, OSError):
            return _result("crashed", f"{filename} ended its process while being imported "
                                      "(exit, os._exit or a fatal signal)", "", time.monotonic() - start)
        except WireError as err:
            return _result("error", f"garbled answer while importing {filename}: {err}", "ProtocolError")
        if reply.get("status") == "ok":
            return None
        return _result("load_error", str(reply.get("error", ""))[:4000], str(reply.get("exc_type", ""))[:200],
                       seconds)

    def _call(self, sock, job):
        """(CallResult, child still usable)."""
        arrays, scalars = [], {}
        for name, value in job.kwargs.items():
            if isinstance(value, (np.ndarray, np.generic)):
                arrays.append((name, value, isinstance(value, np.generic)))
            else:
                scalars[name] = value
        header = {"op": "call", "function": job.function, "returns": list(job.returns), "scalars": scalars,
                  "max_bytes": self.limits.result_bytes}
        start = time.monotonic()
        try:
            reply, parts, seconds = self._exchange(sock, header, arrays, self.limits.result_bytes)
        except TimeoutError:
            return _result("timeout", f"{job.function}() did not return within {self.limits.call_seconds:g} s",
                           "", time.monotonic() - start), False
        except (EOFError, OSError):
            return _result("crashed", f"{job.function}() ended its process (exit, os._exit or a fatal signal)",
                           "", time.monotonic() - start), False
        except WireError as err:
            return _result("error", f"garbled answer from {job.function}(): {err}", "ProtocolError",
                           time.monotonic() - start), False
        status = reply.get("status")
        error, exc_type = str(reply.get("error", ""))[:4000], str(reply.get("exc_type", ""))[:200]
        if status == "ok":
            if set(parts) != set(job.returns):
                return _result("error", f"garbled answer from {job.function}(): parts {sorted(parts)}",
                               "ProtocolError", seconds), False
            return _result("ok", seconds=seconds, parts={name: parts[name][0] for name in job.returns}), True
        if status in ("not_done", "error"):
            return _result(status, error, exc_type, seconds), True
        if status == "crashed":
            return _result("crashed", error, exc_type, seconds), False
        return _result("error", f"garbled answer from {job.function}(): status {status!r}", "ProtocolError",
                       seconds), False

    def finish(self):
        """Kill what is left; return the captured (stdout, stderr), capped together."""
        out, err, totals = self.zygote.finish(self.limits.output_bytes)
        cap = self.limits.output_bytes
        keep_out = min(len(out), max(cap // 2, cap - len(err)))
        keep_err = min(len(err), cap - keep_out)
        return _text(out[:keep_out], totals["out"]), _text(err[:keep_err], totals["err"])


def _text(data, total):
    text = data.decode("utf-8", errors="replace")
    return text + (f"\n[… {total - len(data)} more bytes not kept]" if total > len(data) else "")
