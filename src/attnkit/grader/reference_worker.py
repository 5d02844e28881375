"""Reference calls computed in a worker process under a memory limit, never in the grader.

A learner's code chooses the arguments of the reference calls its step makes (sandbox_reference),
and some results grow faster than their inputs (`raw_scores` of two [T, 1] arrays is [T, T]):
computed in the grader, one such call could take the grader's memory, and its neighbours' grades
with it. A worker is a python of its own that loads the kit's reference and runs only it, on plain
arrays, under RLIMIT_AS of a learner's own call (Limits.memory_mb) and on one BLAS thread: a call
past that limit answers MemoryError. A worker that has not answered by the call's deadline is
killed (the call times out) and replaced at the next request. No learner code runs in a worker.
A worker says when it has loaded the reference (one byte): the time it takes to start is the grader's,
so a call's deadline begins when the worker is ready, not before.

    python -m attnkit.grader.reference_worker MEMORY_MB   (its stdin is the request socket)
"""
import atexit
import os
import resource
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

from .sandbox_types import ONE_BLAS_THREAD
from .sandbox_wire import Reader, read_kept, read_message

_MAX_HEADER = 1 << 20
_MAX_PAYLOAD = 1 << 34
_READY = b"R"
_START_SECONDS = 60.0  # a python loading numpy and the reference: seconds on a loaded machine, never a minute


class WorkerFailed(Exception):
    """The worker ended, or answered something unreadable, before answering a request."""


class Worker:
    """One worker process and its socket; serves one request at a time."""

    def __init__(self, memory_mb):
        self.memory_mb = memory_mb
        self.sock, theirs = socket.socketpair()
        try:
            self.proc = subprocess.Popen([sys.executable, "-m", __name__, str(memory_mb)], stdin=theirs.fileno(),
                                         env={**os.environ, **ONE_BLAS_THREAD}, stdout=subprocess.DEVNULL)
        finally:
            theirs.close()
        self.reader, self.ready = Reader(self.sock), False

    def ask(self, request, deadline):
        """The bytes of the worker's answer to `request` (the bytes of one message), by `deadline`
        (time.monotonic). TimeoutError past it, WorkerFailed if the worker ended or broke the format."""
        if not self.ready:
            deadline += self._await_start()
        try:
            self.sock.settimeout(None)
            self.sock.sendall(request)
            *_, raw = read_kept(lambda n: self.reader.exact(n, deadline), _MAX_HEADER, _MAX_PAYLOAD)
        except TimeoutError:
            raise
        except Exception as err:  # noqa: BLE001 - EOF, a broken pipe or a garbled answer: the worker is gone
            raise WorkerFailed(f"{type(err).__name__}: {err}") from None
        return b"".join(raw)

    def _await_start(self):
        """The seconds waited for the worker to load the reference. WorkerFailed if it never did."""
        since = time.monotonic()
        try:
            said = self.reader.exact(1, since + _START_SECONDS)
        except Exception as err:  # noqa: BLE001 - EOF, a timeout: it did not start
            raise WorkerFailed(f"the worker did not start ({type(err).__name__})") from None
        if said != _READY:
            raise WorkerFailed("the worker did not start")
        self.ready = True
        return time.monotonic() - since

    def close(self):
        self.sock.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


class Workers:
    """Idle workers, one taken per request: safe from many threads; a forked process starts its own."""

    def __init__(self):
        self._lock, self._idle, self._pid = threading.Lock(), [], os.getpid()

    @contextmanager
    def worker(self, memory_mb):
        with self._lock:
            if self._pid != os.getpid():
                self._idle, self._pid = [], os.getpid()
            mine = next((w for w in self._idle if w.memory_mb == memory_mb and w.proc.poll() is None), None)
            if mine is not None:
                self._idle.remove(mine)
        mine = mine or Worker(memory_mb)
        try:
            yield mine
        except BaseException:
            mine.close()  # it may still be computing, or be gone: never hand it out again
            raise
        with self._lock:
            self._idle.append(mine)

    def start(self, memory_mb):
        """Start a worker now, unless one is idle: it loads the reference while the first submission's
        early steps run, so a learner's first call that needs it does not wait for python to start."""
        with self._lock:
            if self._pid != os.getpid():
                self._idle, self._pid = [], os.getpid()
            if not any(w.memory_mb == memory_mb and w.proc.poll() is None for w in self._idle):
                self._idle.append(Worker(memory_mb))

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


WORKERS = Workers()
atexit.register(WORKERS.close)


def serve(sock, memory_mb):
    """Answer requests on `sock` until it closes (see sandbox_reference.compute)."""
    resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    from .sandbox_reference import compute  # after the limit: what it loads counts too
    from ..reference import reference_module
    from .. import manifest
    for step in manifest.steps():  # before the first request, not during a learner's call
        reference_module(step.module)
    reader = Reader(sock)
    try:
        sock.sendall(_READY)
        while True:
            header, arrays = read_message(reader.exact, _MAX_HEADER, _MAX_PAYLOAD)
            sock.sendall(compute(header, arrays))
    except (EOFError, OSError):  # the grader closed its end (it ended, or never asked this worker anything)
        return


if __name__ == "__main__":
    serve(socket.socket(fileno=os.dup(0)), int(sys.argv[1]))
