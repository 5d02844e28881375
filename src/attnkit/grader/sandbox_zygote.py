"""The grader's handle on one zygote: a clean pre-started python (numpy imported, no kit) that
forks a sandboxed child per step of a submission (see sandbox_child.py for the other side).

Starting a zygote costs ~0.2 s; forking a child from it ~1 ms. A zygote serves one submission at a
time; `ZygotePool` keeps one per concurrent caller. Tiers, each named in the isolation line:

  barrier     bubblewrap is installed and may build a user namespace (as root, root without
              CAP_SYS_ADMIN, or any user where unprivileged user namespaces are allowed): the zygote
              runs inside it (sandbox_barrier.py), uid 65534 and PID 1 of namespaces of its own
  none, root  the barrier cannot be built and `allow_no_barrier` was given; as root with CAP_SETUID,
              each zygote's learner code runs under a uid of its own (no two concurrent zygotes share
              one), so neighbours cannot signal, trace or read each other
  none        not root: learner code runs as the grader's own user
In every tier the seccomp filters (sandbox_seccomp.py) make a submission one process that signals
and traces no other; without libseccomp2 there is no barrier (docs/SECURITY.md).
"""
import json
import os
import pwd
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from contextlib import contextmanager
from functools import lru_cache, partial
from pathlib import Path

from attnkit_runtime import i18n
from ..messages import say
from . import sandbox_barrier, sandbox_seccomp
from .sandbox_types import ONE_BLAS_THREAD, Isolation
from .sandbox_wire import encode, read_message, stock_message

_HERE = Path(__file__).resolve().parent
_STARTUP_SECONDS = 30.0
_CONTROL_SECONDS = 10.0
_STOCK_SECONDS = 120.0  # to send a run's arguments (the extension's: ~150 MB)
LEARNER_UIDS = range(64000, 65000)  # without the barrier, as root: one per zygote (Debian's on-demand range)


class ZygoteError(Exception):
    """The zygote could not start or stopped answering: the grader's problem, not the learner's."""


class BarrierUnavailable(ZygoteError):
    """The barrier cannot be built here and running without it was not allowed; str() says why."""


# The zygote's whole command line: it reads its settings and code from the control socket (stdin),
# so /proc/1/cmdline inside the sandbox shows no setting and no path of the kit. The code is two
# packages of modules sent as sources: the learner runtime's harness (`attnkit_runtime`, learner-side
# code: no reference, no case) and the zygote's own (`sandbox`).
_BOOTSTRAP = """import json, socket, sys, types
ctl = socket.socket(fileno=0)
size = int(ctl.recv(16, socket.MSG_WAITALL))
config = json.loads(ctl.recv(size, socket.MSG_WAITALL))
sys.path[:0] = config.pop("path")
for top, sources in config.pop("packages"):
    package = sys.modules[top] = types.ModuleType(top)
    package.__path__ = []
    for name, source in sources:
        module = sys.modules[top + "." + name] = types.ModuleType(top + "." + name)
        module.__package__ = top
        exec(compile(source, "<" + top + " " + name + ">", "exec", dont_inherit=True), module.__dict__)
        setattr(package, name, module)
del top, sources, package, name, source, module
sys.modules["sandbox.sandbox_child"].main(ctl, config)
"""
_RUNTIME = Path(i18n.__file__).resolve().parent
# in import order
_RUNTIME_MODULES = ("i18n", "messages", "status", "inputs", "judge", "loader", "harness")
_CHILD_MODULES = ("sandbox_types", "sandbox_wire", "sandbox_mounts", "sandbox_seccomp", "sandbox_child")


@lru_cache(maxsize=None)
def _child_sources():
    """[(package, [(module, source)])] of the code the zygote runs, in import order."""
    return tuple((top, tuple((name, (folder / f"{name}.py").read_text(encoding="utf-8")) for name in names))
                 for top, folder, names in (("attnkit_runtime", _RUNTIME, _RUNTIME_MODULES),
                                            ("sandbox", _HERE, _CHILD_MODULES)))


@lru_cache(maxsize=None)
def seccomp_programs():
    """The filters as hex text ({"zygote", "child"}), or None when libseccomp2 cannot build them."""
    try:
        return {name: program.hex() for name, program in sandbox_seccomp.programs().items()}
    except OSError:
        return None


def _config(barrier, uid):
    expose = sandbox_barrier.allow_list()[0] if barrier else []
    return {"barrier": barrier, "expose": expose, "path": [sandbox_barrier.numpy_site()],
            "uid": uid, "gid": uid, "seccomp": seccomp_programs(), "packages": _child_sources()}


ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": "/tmp",
       **ONE_BLAS_THREAD, "PYTHONDONTWRITEBYTECODE": "1"}


def barrier_possible():
    """(True, "") when the barrier may be tried here, else (False, why not)."""
    if sandbox_barrier.bwrap() is None:
        return False, "bubblewrap (`bwrap`, Debian package bubblewrap) is not installed"
    if seccomp_programs() is None:
        return False, f"{sandbox_seccomp.LIBRARY} (Debian package libseccomp2) cannot be loaded"
    return True, ""


def _can_change_user():
    """Root with CAP_SETUID and CAP_SETGID (a default Docker container keeps both)."""
    if os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/status") as f:
            effective = int(next(line.split()[1] for line in f if line.startswith("CapEff:")), 16)
    except (OSError, StopIteration, ValueError):
        return False
    return all(effective >> bit & 1 for bit in (6, 7))  # CAP_SETGID, CAP_SETUID


def _claim_uid():
    """(uid, lock): a uid of LEARNER_UIDS that no user owns and no other zygote on this machine holds;
    held while `lock` (a socket bound to a name of its own) stays open."""
    for uid in LEARNER_UIDS:
        try:
            pwd.getpwuid(uid)
            continue
        except KeyError:
            pass
        lock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            lock.bind(f"\0attnkit-sandbox-uid-{uid}")  # abstract: gone with the process that holds it
        except OSError:
            lock.close()
            continue
        return uid, lock
    raise ZygoteError(f"every uid of {LEARNER_UIDS.start}-{LEARNER_UIDS.stop - 1} is taken")


def _open_to_others(folder):
    """Can a user other than the owner list `folder` and reach it (every parent searchable by others)?"""
    path = Path(os.path.realpath(folder))
    modes = [p.stat().st_mode for p in (path, *path.parents)]
    return bool(modes[0] & 0o004) and all(mode & 0o001 for mode in modes)


def _seccomp_words():
    return say("isolation.no_seccomp" if seccomp_programs() is None else "isolation.seccomp")


def _with_barrier():
    """What isolates learner code behind the barrier, in the grader's language."""
    return sandbox_barrier.description() + _seccomp_words()


def _without_barrier(why, uid):
    """What isolates learner code when the barrier could not be built (`why`: a text, or a function that words it
    in the grader's language; `uid`: learner code's, or None), in the grader's language."""
    if uid is not None:
        who = say("isolation.own_uid", first=LEARNER_UIDS.start)
        closed = [p for p in (sys.base_prefix, sys.prefix) if not _open_to_others(p)]
        if closed:
            who += say("isolation.closed", folders=", ".join(closed))
    else:
        who = say("isolation.grader_uid", uid=os.geteuid())
    return say("isolation.none", why=why() if callable(why) else why, who=who, seccomp=_seccomp_words())


class Zygote:
    """A zygote behind the barrier (`barrier`) or not; `uid`: learner code's uid without it (None: the
    grader's), held by `uid_lock` until close(). `barrier` (the attribute) is the isolation line."""

    def __init__(self, barrier, uid=None, uid_lock=None):
        self.ctl, theirs = socket.socketpair()
        python = [os.path.realpath(sys.executable), "-I", "-S", "-B", "-c", _BOOTSTRAP]  # not a venv's path
        self._log, self._uid_lock = tempfile.TemporaryFile(), uid_lock
        try:
            env = {**ENV, i18n.ENVIRONMENT: i18n.language()}  # the provided checks word their errors in it
            command = sandbox_barrier.command(python) if barrier else python
            self.proc = subprocess.Popen(command, env=env, cwd="/", stdin=theirs.fileno(),
                                         stdout=subprocess.DEVNULL, stderr=self._log, start_new_session=True)
        except OSError as err:
            self.ctl.close()
            if uid_lock is not None:
                uid_lock.close()
            raise ZygoteError(f"cannot start the sandbox zygote: {err}") from None
        finally:
            theirs.close()
        try:
            config = json.dumps(_config(barrier, uid)).encode("utf-8")
            self.ctl.sendall(b"%016d" % len(config) + config)  # its size first: read at once, not byte by byte
            header, _ = self._read(_STARTUP_SECONDS)
        except (OSError, ZygoteError) as err:
            try:
                self.proc.wait(1.0)  # it is ending: what it wrote says why
            except subprocess.TimeoutExpired:
                pass
            told = self._startup_log().strip() or str(err)
            self.close()
            raise ZygoteError(f"the sandbox zygote did not start ({told})") from None
        if header.get("op") != "ready":
            self.close()
            raise ZygoteError(f"the sandbox zygote failed to start: {header.get('error')}")
        self.isolated = barrier
        self._described = _with_barrier if barrier else partial(str, "none")  # the pool words a zygote without it
        self.tier = Isolation.BARRIER if barrier else Isolation.NONE if uid is None else Isolation.OWN_UID
        self._stocked = []  # weak references to the jobs it holds the arguments of, in order

    @property
    def barrier(self):
        """What isolates learner code here, in the grader's language (as it is when asked)."""
        return self._described()

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

    def stock(self, jobs):
        """Make sure it holds the arguments of `jobs` (Jobs), the n-th as call number n: every child forked
        after takes a call's arguments from there (a request names only the number), so they cross once
        per zygote, not once per submission. Other jobs than it holds replace them."""
        if len(self._stocked) == len(jobs) and all(ref() is job for ref, job in zip(self._stocked, jobs)):
            return
        self._stocked = []
        try:
            self.ctl.settimeout(_STOCK_SECONDS)
            for index, job in enumerate(jobs):
                self.ctl.sendall(stock_message(job, index))  # one call's arrays at a time: no copy of them all
        except OSError as err:
            raise ZygoteError(f"the sandbox zygote is gone: {err}") from None
        self._stocked = [weakref.ref(job) for job in jobs]

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
        """Kill every process of the current submission: (how children that had ended by themselves
        ended, "exit code 3", "signal SIGSEGV", waiting up to `grace` s for them; the CPU seconds they used)."""
        self._request({"op": "reset", "grace": grace})
        header, _ = self._read(_CONTROL_SECONDS)
        return str(header.get("ended", "")), float(header.get("cpu", 0.0))

    def probe(self):
        """The newest child's scheduler times (sandbox_child.probe: "at", "cpu", "ran", "queued", "stolen"), {} once
        it has ended."""
        self._request({"op": "probe"})
        header, _ = self._read(_CONTROL_SECONDS)
        return {key: float(header[key]) for key in ("at", "cpu", "ran", "queued", "stolen") if key in header}

    def memory(self, room=None):
        """The newest child's memory (sandbox_child.memory: "rss", "hwm", "mapped", bytes; with `room`, its address
        space capped at `room` bytes more than it maps), without "hwm" where the zygote cannot vouch for that peak
        (sandbox_child.Zygote.peak_is_kept), {} once it has ended or where it could not be capped."""
        self._request({"op": "memory", "room": room})
        header, _ = self._read(_CONTROL_SECONDS)
        return {key: int(header[key]) for key in ("rss", "hwm", "mapped") if key in header}

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
            self.proc.kill()  # bwrap; the zygote reads the end of its control socket and ends, its PID namespace with it
        self.proc.wait()
        self._log.close()
        if self._uid_lock is not None:
            self._uid_lock.close()


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


class ZygotePool:
    """Idle zygotes, one taken per running submission: safe to use from many threads at once.

    A process forked from one that had a pool starts with an empty pool of its own.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._idle, self._pid = [], os.getpid()

    def _start(self, allow_no_barrier):
        possible, why = barrier_possible()
        if possible:
            try:
                return Zygote(barrier=True)
            except ZygoteError as err:
                why = partial(say, "isolation.bwrap_failed", error=str(err)[:300].strip())
        if not allow_no_barrier:
            raise BarrierUnavailable(why() if callable(why) else why)
        uid, lock = _claim_uid() if _can_change_user() else (None, None)
        zygote = Zygote(barrier=False, uid=uid, uid_lock=lock)
        zygote._described = partial(_without_barrier, why, uid)
        return zygote

    @contextmanager
    def zygote(self, allow_no_barrier=False):
        """A zygote for one submission; one without the barrier only when `allow_no_barrier`."""
        with self._lock:
            if self._pid != os.getpid():
                self._idle, self._pid = [], os.getpid()
            usable = [z for z in self._idle if z.isolated or allow_no_barrier]
            zygote = usable[-1] if usable else None
            if zygote is not None:
                self._idle.remove(zygote)
        if zygote is not None and not zygote.alive():
            zygote.close()
            zygote = None
        if zygote is None:
            zygote = self._start(allow_no_barrier)
        holder = [zygote]
        try:
            yield holder  # the user may swap in a fresh zygote when this one dies
        except BaseException:
            holder[0].close()
            raise
        with self._lock:
            self._idle.append(holder[0])

    def replace(self, holder):
        holder[0].close()
        holder[0] = self._start(allow_no_barrier=not holder[0].isolated)

    def close(self):
        with self._lock:
            idle, self._idle = self._idle, []
        for zygote in idle:
            zygote.close()
