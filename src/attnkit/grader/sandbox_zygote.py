"""The grader's handle on one zygote: a clean pre-started python (numpy imported, no kit) that
forks a sandboxed child per step of a submission (see sandbox_child.py for the other side).

Starting a zygote costs ~0.2 s; forking a child from it ~1 ms. A zygote serves one submission at a
time; `ZygotePool` keeps one per concurrent caller. With root rights and `unshare` the zygote is
PID 1 of private PID and mount namespaces and applies the barrier (a minimal root filesystem, an
unprivileged uid for learner code); otherwise it runs without one (docs/SECURITY.md).
"""
import json
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from .. import paths
from .sandbox_wire import encode, read_message

_HERE = Path(__file__).resolve().parent
_STARTUP_SECONDS = 30.0
_CONTROL_SECONDS = 10.0


class ZygoteError(Exception):
    """The zygote could not start or stopped answering: the grader's problem, not the learner's."""


_PRELUDE = "import json, sys\nsys.path.extend(json.loads(sys.argv[1])['path'])  # numpy's site folder\n"


def _program():
    return _PRELUDE + "\n".join((_HERE / name).read_text(encoding="utf-8")
                                 for name in ("sandbox_wire.py", "sandbox_barrier.py", "sandbox_child.py"))


def _outermost(folders):
    """The folders, minus any inside another of them."""
    folders = sorted(set(folders), key=len)
    return [f for f in folders if not any(f != o and f.startswith(o.rstrip("/") + "/") for o in folders)]


def _config(fd, barrier):
    numpy_site = str(Path(np.__file__).resolve().parents[1])
    expose = _outermost(os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, numpy_site))
    secret = [str(p) for p in (paths.ROOT, paths.PACKAGE_DIR, paths.SOLUTIONS_DIR, paths.DATA_DIR)]
    # a folder holding python itself (a virtualenv inside the repository) cannot be hidden whole
    hide = _outermost(s for s in secret if not any((e + "/").startswith(s.rstrip("/") + "/") for e in expose))
    # as root, learner code always runs as nobody: without the barrier (no CAP_SYS_ADMIN, as in
    # Gradescope's containers) the uid is what keeps root-only secrets and results out of its reach
    nobody = pwd.getpwnam("nobody") if os.geteuid() == 0 else None
    return {"fd": fd, "barrier": barrier, "expose": expose, "hide": hide, "path": [numpy_site],
            "uid": nobody.pw_uid if nobody else None, "gid": nobody.pw_gid if nobody else None}


ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": "/tmp",
       "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "NUMEXPR_NUM_THREADS": "1", "VECLIB_MAXIMUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}


def barrier_possible():
    """(True, "") when this process may set up the barrier, else (False, why not)."""
    if os.geteuid() != 0:
        return False, "the grader does not run as root"
    if shutil.which("unshare") is None:
        return False, "util-linux `unshare` is not installed"
    try:
        pwd.getpwnam("nobody")
    except KeyError:
        return False, "there is no user `nobody`"
    return True, ""


class Zygote:
    def __init__(self, barrier, cpu=None):
        self.cpu = cpu
        self.ctl, theirs = socket.socketpair()
        config = json.dumps({**_config(theirs.fileno(), barrier), "cpu": cpu})
        python = [sys.executable, "-I", "-S", "-B", "-c", _program(), config]
        prefix = ["unshare", "--mount", "--pid", "--net", "--fork", "--kill-child", "--propagation", "private",
                  "--mount-proc"] if barrier else []
        self._log = tempfile.TemporaryFile()
        try:
            self.proc = subprocess.Popen(prefix + python, pass_fds=[theirs.fileno()], env=ENV, cwd="/",
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log,
                                         start_new_session=True)
        except OSError as err:
            self.ctl.close()
            raise ZygoteError(f"cannot start the sandbox zygote: {err}") from None
        finally:
            theirs.close()
        try:
            header, _ = self._read(_STARTUP_SECONDS)
        except ZygoteError:
            self.close()
            raise
        if header.get("op") != "ready":
            self.close()
            raise ZygoteError(f"the sandbox zygote failed to start: {header.get('error')}")
        self.barrier = header["barrier"]

    def _startup_log(self):
        self._log.seek(0)
        return self._log.read()[-2000:].decode("utf-8", "replace")

    def _read(self, seconds):
        deadline = time.monotonic() + seconds
        try:
            return read_message(lambda n: recv_exact(self.ctl, n, deadline), 1 << 20, 1 << 26)
        except Exception as err:
            raise ZygoteError(f"the sandbox zygote stopped answering ({type(err).__name__}: {err}) "
                              f"{self._startup_log()}") from None

    def _request(self, header):
        try:
            self.ctl.sendall(encode(header))
        except OSError as err:
            raise ZygoteError(f"the sandbox zygote is gone: {err}") from None

    def spawn(self, limits):
        """A new sandboxed child for one step: returns its protocol socket."""
        self._request({"op": "spawn", "limits": limits})
        try:
            self.ctl.settimeout(_CONTROL_SECONDS)
            _, fds, _, _ = socket.recv_fds(self.ctl, 1, 1)
        except OSError as err:
            raise ZygoteError(f"the sandbox zygote did not fork: {err}") from None
        if len(fds) != 1:
            raise ZygoteError("the sandbox zygote sent no socket")
        self._read(_CONTROL_SECONDS)
        return socket.socket(fileno=fds[0])

    def reset(self, grace=0.0):
        """Kill every process of the current submission; say how children that had ended by
        themselves ended ("exit code 3", "signal SIGSEGV"), waiting up to `grace` s for them."""
        self._request({"op": "reset", "grace": grace})
        header, _ = self._read(_CONTROL_SECONDS)
        return str(header.get("ended", ""))

    def finish(self, output_bytes):
        """Kill everything, return (stdout bytes, stderr bytes, {"out": total, "err": total})."""
        self._request({"op": "finish", "output_bytes": output_bytes})
        header, arrays = self._read(_CONTROL_SECONDS)
        return arrays["out"][0].tobytes(), arrays["err"][0].tobytes(), header["totals"]

    def alive(self):
        return self.proc.poll() is None

    def close(self):
        self.ctl.close()
        if self.proc.poll() is None:
            self.proc.kill()  # unshare --kill-child takes the namespace down with it
        self.proc.wait()
        self._log.close()


def recv_exact(sock, n, deadline):
    """Exactly n bytes from `sock` before `deadline` (time.monotonic); TimeoutError / EOFError."""
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("no answer in time")
        sock.settimeout(remaining)
        try:
            k = sock.recv_into(view[got:], n - got)
        except socket.timeout:
            raise TimeoutError("no answer in time") from None
        if k == 0:
            raise EOFError("the sandboxed process closed its socket")
        got += k
    return buf


@contextmanager
def _pinned(cpu):
    """Run the calling thread on `cpu` (its zygote's) meanwhile: a wake-up on the same CPU costs a
    fraction of one across CPUs, and a submission makes a few hundred of them."""
    allowed = os.sched_getaffinity(0)
    if cpu is None or cpu not in allowed or len(allowed) == 1:
        yield
        return
    os.sched_setaffinity(0, {cpu})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


class ZygotePool:
    """Idle zygotes, one taken per running submission: safe to use from many threads at once.

    A process forked from one that had a pool starts with an empty pool of its own.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._idle, self._pid = [], os.getpid()
        # zygotes take the CPUs in turn; grader processes (each with its own pool) start apart
        self._cpus, self._started = sorted(os.sched_getaffinity(0)), os.getpid()
        self.description = None

    def _start(self, cpu=None):
        if cpu is None:
            with self._lock:
                cpu, self._started = self._cpus[self._started % len(self._cpus)], self._started + 1
        possible, why = barrier_possible()
        if possible:
            try:
                return Zygote(barrier=True, cpu=cpu)
            except ZygoteError as err:
                why = f"setting it up failed ({str(err)[:300]})"
        zygote = Zygote(barrier=False, cpu=cpu)
        zygote.barrier = f"none: {why}; only a clean environment, sys.path and working folder"
        return zygote

    @contextmanager
    def zygote(self):
        with self._lock:
            if self._pid != os.getpid():
                self._idle, self._pid, self._started = [], os.getpid(), os.getpid()
            zygote = self._idle.pop() if self._idle else None
        if zygote is None or not zygote.alive():
            zygote = self._start()
        self.description = zygote.barrier
        holder = [zygote]
        try:
            with _pinned(zygote.cpu):
                yield holder  # the user may swap in a fresh zygote when this one dies
        except BaseException:
            holder[0].close()
            raise
        with self._lock:
            self._idle.append(holder[0])

    def replace(self, holder):
        holder[0].close()
        holder[0] = self._start(holder[0].cpu)

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for zygote in idle:
            zygote.close()
