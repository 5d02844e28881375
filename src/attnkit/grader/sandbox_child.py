"""The sandboxed side of the grader: a zygote that forks one clean child per step of a submission.

Runs in a separate `python -I -S -B` that never imports attnkit: sandbox_zygote starts it with a
fixed bootstrap on its command line and sends, over the control socket (its stdin), its settings
and the source of this module and of the ones it imports (sandbox_types, sandbox_wire,
sandbox_mounts, sandbox_seccomp), which the bootstrap runs as the package `sandbox` whose only
modules they are, and the learner runtime's harness with what it imports (attnkit_runtime: harness,
inputs, judge, loader, messages, i18n, status; learner-side code), so that a call here is made as
every front end makes it (`harness.call_case`). No path of the kit is on its command line, its
sys.path or its modules' names. Tests import this module as attnkit.grader.sandbox_child.

The zygote (with the barrier: inside bubblewrap's allow-list root, uid 65534 and PID 1 of its own
namespaces) caps its private /tmp and /dev/shm and drops its last capabilities, makes itself
non-dumpable (no process of its uid may read or trace it), denies user namespaces (seccomp), warms
numpy up once, then serves the grader over the control socket:
  spawn  -> fork a submission child, send the grader its socket (SCM_RIGHTS) and {"pid"}
  reset  -> kill every process the submission started, reap them, say the CPU time they used
  finish -> reset, then send back the captured stdout/stderr (capped) and delete the scratch folder
  probe  -> the newest child's scheduler times (`probe`), which the grader's time limits read
  memory -> the newest child's resident memory and its peak (`memory`), which a memory case is judged on
A submission child, under rlimits (and without the barrier, as root, under the zygote's own uid),
loads the child filter (one process, no signal or trace of another, no memory beside RLIMIT_AS),
with fds 1 and 2 on capture files and its protocol socket on fd 3, then answers the grader's
"load" and "call" requests.
"""
import builtins
import gc
import io
import linecache
import marshal
import operator
import os
import resource
import shutil
import signal
import socket
import sys
import tempfile
import time
import traceback
import types
from collections import deque

import numpy as np

from attnkit_runtime.harness import Ending, call_case
from attnkit_runtime.inputs import watch
from attnkit_runtime.messages import say
from .sandbox_mounts import FOLDERS, LIBC, cap_private_tmp
from .sandbox_seccomp import load
from .sandbox_types import Stopped
from .sandbox_wire import Reader, WireError, encode, encode_arrays, frame, pack, plain_array, read_message, unpack

PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 4, 36, 38
PROTOCOL_FD = 3
MAX_TEXT = 4000
MAX_WARNINGS = 5  # per call, sent back with its result
HOLD_SECONDS = 0.005  # the longest an answer waits to go with the next ones (Submission.serve)
_MAX_STOCK_BYTES = 1 << 32  # the array bytes of one call of the stock (from the grader)
BASELINE = None  # numpy's and builtins' namespaces and numpy's error state, as the zygote left them


# ---------------------------------------------------------------- zygote

class Zygote:
    """`settings`: "uid"/"gid" of learner code (None: stay), "barrier" (bool), "expose" (python's folders),
    "child" (the child's seccomp filter, or None)."""

    def __init__(self, ctl, settings):
        self.ctl, self.settings = ctl, settings
        self.scratch = None  # per-submission folder: out, err, work/
        self.children, self.newest = set(), None
        self.stock, self.stock_bytes = [], 0  # the run's calls (Stocked), see take_stock

    def recv_exact(self, n):
        return _recv_exact(self.ctl, n)

    def reply(self, header, arrays=()):
        self.ctl.sendall(encode(header, arrays))

    def serve(self):
        while True:
            try:
                header, arrays = read_message(self.recv_exact, 1 << 20, _MAX_STOCK_BYTES)
            except EOFError:
                self.reset()
                return
            op = header["op"]
            if op == "stock":
                self.take_stock(header, arrays)
            elif op == "spawn":
                self.spawn(header["limits"])
            elif op == "reset":
                before = _reaped_cpu()
                ended = self.reset(header.get("grace", 0.0))
                self.reply({"op": "reset", "ended": ended, "cpu": _reaped_cpu() - before})
            elif op == "finish":
                self.reply(*self.finish(header["output_bytes"]))
            elif op == "probe":
                self.reply({"op": "probe", **probe(self.newest)})
            elif op == "memory":
                found = memory(self.newest, header.get("room"))
                if not self.peak_is_kept(self.newest):
                    found.pop("hwm", None)
                self.reply({"op": "memory", **found})

    def peak_is_kept(self, pid):
        """Whether child `pid`'s peak resident memory is the kernel's alone: the child filter denies it
        PR_SET_DUMPABLE and its /proc/PID/clear_refs, which resets the peak ("5"), is not writable to it, which
        the zygote sees as it is the child's user (not where the child runs as another user, or either as
        root; nor as root of the host behind bubblewrap's user namespace, where the file's owner is ours)."""
        return (self.settings["child"] is not None and self.settings["uid"] in (None, os.getuid())
                and not os.access(f"/proc/{pid}/clear_refs", os.W_OK))

    def take_stock(self, header, arrays):
        """Keep call number header["index"] (its module, function, result's part names, packed arguments
        and the fingerprints of its large ones) with its arrays, made ready (Stocked); number 0 starts a new
        stock. A child forked later finds it in its own memory (copy-on-write): its arguments never cross the
        socket again. `stock_bytes` (which a child's RLIMIT_AS adds) counts the arrays and their kept copies."""
        if header["index"] == 0:
            self.stock, self.stock_bytes = [], 0
        self.stock.append(Stocked.of(header, arrays))
        self.stock_bytes += sum(arr.nbytes for arr, _ in arrays.values()) + self.stock[-1].kept_bytes
        gc.freeze()  # as the zygote's own objects: no child's garbage collection walks (and so copies) the stock

    def _scratch(self):
        if self.scratch is None:
            self.scratch = tempfile.mkdtemp(prefix="sub-")
            os.chmod(self.scratch, 0o711)
            work = os.path.join(self.scratch, "work")
            os.mkdir(work, 0o700)
            if self.settings["uid"] is not None:
                os.chown(work, self.settings["uid"], self.settings["gid"])
        return self.scratch

    def spawn(self, limits):
        scratch = self._scratch()
        out, err = (os.open(os.path.join(scratch, name), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
                    for name in ("out", "err"))
        mine, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                mine.close()
                become_submission(self.ctl, theirs, out, err, os.path.join(scratch, "work"),
                                  {**limits, "stock_bytes": self.stock_bytes}, self.settings, self.stock)
            finally:
                os._exit(70)
        self.children.add(pid)
        self.newest = pid
        theirs.close()
        os.close(out)
        os.close(err)
        socket.send_fds(self.ctl, [b"F"], [mine.fileno()])
        mine.close()
        self.reply({"op": "spawned", "pid": pid})

    def reset(self, grace=0.0):
        """Kill everything the submission started, however it detached itself, and reap it.

        Returns how the submission children that had already ended by themselves (waiting up to
        `grace` seconds for them) ended, e.g. "exit code 3" or "signal SIGSEGV".
        """
        ended, deadline = [], time.monotonic() + grace
        for pid in sorted(self.children):
            while True:
                try:
                    done, status = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    break
                if done:
                    self.children.discard(pid)
                    ended.append(_how_ended(status))
                    break
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.001)
        for _ in range(50):
            if os.getpid() == 1:
                _kill(-1)  # from PID 1 of the namespace: every other process in it
            else:
                for pid in list(self.children) + _children_of(os.getpid()):
                    _kill(-pid)
                    _kill(pid)
            _reap(self.children)
            if os.getpid() == 1 or not (self.children or _children_of(os.getpid())):
                break
            time.sleep(0.002)
        self.children.clear()
        return "; ".join(ended)

    def finish(self, output_bytes):
        self.reset()
        texts, totals = [], {}
        for name in ("out", "err"):
            path = os.path.join(self.scratch or "/nonexistent", name)
            try:
                with open(path, "rb") as f:
                    totals[name] = os.fstat(f.fileno()).st_size
                    texts.append((name, _bytes(f.read(output_bytes)), False))
            except FileNotFoundError:
                totals[name] = 0
                texts.append((name, _bytes(b""), False))
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.scratch = None
        if self.settings["barrier"]:  # the private /tmp and /dev/shm: nothing passes to the next submission
            for folder in FOLDERS:  # (System V IPC, POSIX queues and memfd are denied to children: no leftovers)
                _empty(folder, self.settings["expose"])
        return {"op": "finished", "totals": totals}, texts


def _reaped_cpu():
    """CPU seconds of the processes this one has reaped, and of those they reaped."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def probe(pid):
    """{"at": now (time.monotonic, the same clock as the grader's), "cpu": CPU seconds of all its threads,
    "ran": and "queued": seconds its main thread has run and waited for a CPU, "stolen": seconds the host
    has taken the machine's CPUs away (steal time, on a VM)} of process `pid`, from the scheduler's counters
    (/proc/PID/task/TID/schedstat, /proc/stat); {} once it has ended. The grader counts the time its main
    thread neither ran, waited for a CPU nor had its CPU stolen as time it slept (sandbox_meter.Meter)."""
    at, tasks = time.monotonic(), {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            fields = _read(f"/proc/{pid}/task/{tid}/schedstat").split()
            if len(fields) >= 2:
                tasks[tid] = int(fields[0]) / 1e9, int(fields[1]) / 1e9
    except OSError:
        return {}
    main = tasks.get(str(pid))
    if main is None:
        return {}
    return {"at": at, "cpu": sum(ran for ran, _ in tasks.values()), "ran": main[0], "queued": main[1],
            "stolen": _stolen()}


_TICKS = os.sysconf("SC_CLK_TCK")


def _stolen():
    """Seconds of steal time of all the machine's CPUs since it booted (/proc/stat), 0.0 where it does not say."""
    fields = _read("/proc/stat").split("\n", 1)[0].split()
    return int(fields[8]) / _TICKS if len(fields) > 8 and fields[8].isdigit() else 0.0


def memory(pid, room=None):
    """{"rss": resident bytes now, "hwm": the most it has been resident since it started} of process `pid`, from
    the kernel (/proc/PID/status: VmRSS, VmHWM); {} once it has ended or where the kernel does not say. With
    `room` (bytes), its address space is first capped at what it maps now plus `room` (RLIMIT_AS, which it
    cannot raise again): a call then cannot allocate more than that, whatever it does to any counter."""
    fields = dict(line.split(":", 1) for line in _read(f"/proc/{pid}/status").splitlines() if ":" in line)
    try:
        found = {key: int(fields[name].split()[0]) * 1024 for key, name in
                 (("rss", "VmRSS"), ("hwm", "VmHWM"), ("mapped", "VmSize"))}
        if room is not None:
            cap = found["mapped"] + int(room)
            resource.prlimit(pid, resource.RLIMIT_AS, (cap, cap))
    except (KeyError, IndexError, ValueError, OSError):
        return {}
    return found


def _empty(folder, expose):
    """Delete what `folder` holds, except the `expose`d folders bound into it and the folders leading to them."""
    for entry in os.scandir(folder):
        keep = [e for e in expose if (e + "/").startswith(entry.path + "/")]
        if keep and entry.is_dir(follow_symlinks=False):
            if entry.path not in keep:
                _empty(entry.path, expose)
        elif entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            os.unlink(entry.path)


def _bytes(data):
    return np.frombuffer(data, dtype=np.uint8)


def _how_ended(status):
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            return f"signal {signal.Signals(sig).name}"
        except ValueError:
            return f"signal {sig}"
    return f"exit code {os.WEXITSTATUS(status)}"


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _children_of(parent, everyone=False):
    """Live processes whose parent is `parent`; with `everyone` (in a PID namespace of our own),
    every live process of the namespace but PID 1 and `parent` itself. Without `everyone` only the
    kernel's list of `parent`'s children is read (where it keeps one), not every process of the machine."""
    if not everyone and os.path.exists(f"/proc/{parent}/task/{parent}/children"):
        pids = {pid for task in os.listdir(f"/proc/{parent}/task")
                for pid in _read(f"/proc/{parent}/task/{task}/children").split()}
    else:
        pids = [entry for entry in os.listdir("/proc") if entry.isdigit() and entry not in ("1", str(parent))]
    found = []
    for pid in pids:
        fields = _stat(pid)
        if fields and fields[0] != "Z" and (everyone or fields[1] == str(parent)):
            found.append(int(pid))
    return found


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:  # it ended meanwhile
        return ""


def _stat(pid):
    """The fields of /proc/PID/stat after the command's name (state, parent, …); [] once it is gone."""
    return _read(f"/proc/{pid}/stat").rpartition(")")[2].split()


def _reap(children):
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG if os.getpid() != 1 else 0)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)


def _recv_exact(sock, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            raise EOFError("the other side closed the socket")
        got += k
    return buf


# ---------------------------------------------------------------- submission child

def become_submission(ctl, sock, out, err, work, limits, settings, stock):
    """In the forked child: isolate, drop privileges, then serve the grader on fd 3. Never returns."""
    ctl.detach()  # its fd is closed below; the zygote keeps the socket
    os.setsid()
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out, 1)
    os.dup2(err, 2)
    os.dup2(sock.detach(), PROTOCOL_FD, inheritable=False)  # a program it execs must not hold it open
    os.closerange(PROTOCOL_FD + 1, 1 << 16)
    os.chdir(work)
    mb = 1 << 20
    for limit, value in ((resource.RLIMIT_AS, limits["memory_mb"] * mb + limits["stock_bytes"]), (resource.RLIMIT_CORE, 0),
                         (resource.RLIMIT_FSIZE, 32 * mb), (resource.RLIMIT_NPROC, 64),
                         (resource.RLIMIT_NOFILE, 256), (resource.RLIMIT_CPU, limits["cpu_seconds"])):
        resource.setrlimit(limit, (value, value))
    if settings["uid"] is not None:
        os.setgroups([])
        os.setresgid(settings["gid"], settings["gid"], settings["gid"])
        os.setresuid(settings["uid"], settings["uid"], settings["uid"])
    LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # its /proc/self is root's: no clear_refs to reset its peak (memory)
    LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _keep_freed_memory()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if settings["child"] is not None:
        load(settings["child"])
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="backslashreplace", write_through=True)
    sys.argv = [""]
    Submission(socket.socket(fileno=PROTOCOL_FD), settings["barrier"], stock, settings["child"] is not None).serve()
    os._exit(0)


class Submission:
    """The learner's modules of a submission's steps, beside the kit's modules they import.

    Those are the provided modules (shape_checks) and, for each earlier step a graded step imports,
    the learner's own module of it when the grader says so (that step passed every case), else that
    step's provided code with each of its graded functions a proxy: it sends the call to the
    grader ("ref") and returns the reference's result the grader answers (`ask`). No reference code
    is ever in this process. After the learner's module runs, the kit's provided code of that step
    runs again in its namespace, so grading uses the kit's provided definitions, not the learner's.
    """

    def __init__(self, sock, own_pid_namespace, stock, filtered=False):
        self.sock, self.own_pid_namespace, self.stock = sock, own_pid_namespace, stock
        self.filtered = filtered  # under the child filter, which denies it every new process (sandbox_seccomp)
        self.modules, self.filenames, self.classes = {}, set(), {}
        self.places = {}  # filename -> ((first line, place, its line there), …): see sandbox_types.Source
        self.streams = (sys.stdout, sys.stderr)
        self.reader, self.pending = Reader(sock), deque()  # requests read while waiting for an answer
        self.inputs = {}  # id -> (name, array, fingerprint) of the running call's large arguments
        self.held, self.held_since = [], 0.0  # answers not sent yet, and since when (see serve)

    def serve(self):
        """Answer the grader's requests in order. An answer whose next request has already arrived is held
        and sent with the next ones, in one system call: a window of quick calls wakes the grader once, not
        once per call. Nothing is held longer than HOLD_SECONDS: a timer sends it when a call runs on."""
        ops = {"load": self.load, "call": self.call}
        signal.signal(signal.SIGALRM, lambda *_: self._send_held())
        while True:
            try:
                header, arrays = self.pending.popleft() if self.pending else self._read()
            except EOFError:
                return
            if self.held:
                left = self.held_since + HOLD_SECONDS - time.monotonic()
                if left > 0:
                    signal.setitimer(signal.ITIMER_REAL, left)
                else:
                    self._send_held()
            reply = ops[header["op"]](header, arrays)
            signal.setitimer(signal.ITIMER_REAL, 0)
            if not self.held:
                self.held_since = time.monotonic()
            self.held.append(reply)
            if not (self.pending or self.reader.buf):
                self._send_held()

    def _send_held(self, request=b""):
        """Send the answers held (see serve), then `request` (a message of ours) if any, in one system call; from
        the timer's signal too, in the middle of a call. C-level printf output reaches the capture file first
        (once per send, not per call): the output of every call whose answer the grader has is in the file."""
        held, self.held = self.held, []
        LIBC.fflush(None)
        try:
            self.sock.sendall(b"".join(held) + request)
        except OSError:
            pass  # the grader is gone: the next read ends this process

    def _read(self):
        return read_message(self.reader.exact, 1 << 30, 1 << 34)

    def load(self, header, arrays):
        """Import a step. Once a step's code has run here, the reply may instead say that this process
        is no longer as clean as it started (`tidy`): then nothing is loaded, the grader starts a fresh child."""
        if self.modules and not self.tidy():
            return encode({"nonce": header["nonce"], "clean": False})
        for spec in header["kit"]:  # the kit's modules this step imports, in dependency order
            module = sys.modules[spec["module"]] = types.ModuleType(spec["module"])
            exec(marshal.loads(arrays[f"kit:{spec['module']}"][0].tobytes()), module.__dict__)
            for function in spec["proxies"]:
                setattr(module, function, self._proxy(spec["module"], function))
            self.classes.update((k, v) for k, v in vars(module).items()  # what an earlier step may return
                                if isinstance(v, type) and v.__module__ == spec["module"])
        for own in header["own"]:  # earlier steps of this submission that passed every case
            sys.modules[own] = self.modules[own]
        name, source, filename = header["module"], header["source"], header["filename"]
        self.filenames.add(filename)
        self.places[filename] = sorted((int(first), str(place), int(line)) for first, place, line in header["places"])
        shown = self._place(filename)[0]
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        module = types.ModuleType(name)
        module.__file__ = filename
        try:
            code = compile(source, filename, "exec", dont_inherit=True)
        except (RecursionError, MemoryError) as err:  # e.g. 100k-deep attribute access or `not not …`
            return _reply(header, Stopped.LOAD_ERROR, f"{shown} is nested too deeply to compile "
                                                      f"({type(err).__name__}): split the long expression", "SyntaxError")
        except (SyntaxError, ValueError) as err:
            where, lineno = self._place(filename, getattr(err, "lineno", None))
            line = f" on line {lineno}" if lineno else ""
            return _reply(header, Stopped.LOAD_ERROR,
                          f"{where} has a syntax error{line}: {getattr(err, 'msg', err)}", "SyntaxError")
        sys.modules[name] = module  # only while it runs (a dataclass looks its module up), as loader does
        try:
            exec(code, module.__dict__)
            self._provide(module, arrays)
        except BaseException as err:  # noqa: BLE001 - whatever the import raised is the learner's
            return _reply(header, Stopped.LOAD_ERROR, f"{shown} failed while being imported: "
                          + self._describe(err, named=True), type(err).__name__)
        finally:
            sys.modules.pop(name, None)
        self.modules[name] = module
        return _reply(header, Ending.RETURNED)

    @staticmethod
    def _provide(module, arrays):
        """The kit's provided definitions of the step (classes, functions outside the solution blocks) in
        place of the learner's; the names they need (imports) only where the learner's module has none."""
        names = {"__name__": module.__name__}
        exec(marshal.loads(arrays["provided:names"][0].tobytes()), names)
        for name, value in names.items():
            if not name.startswith("__"):
                module.__dict__.setdefault(name, value)
        exec(marshal.loads(arrays["provided:definitions"][0].tobytes()), module.__dict__)

    def _proxy(self, module, function):
        def proxy(*args, **kwargs):
            return self.ask(module, function, args, kwargs)
        proxy.__name__ = proxy.__qualname__ = function
        proxy.__module__ = module
        proxy.__doc__ = f"{module}.{function}: the grader computes it (the kit's own version)"
        return proxy

    def ask(self, module, function, args, kwargs):
        """What the kit's `module.function(*args, **kwargs)` returns, or raises, as the grader answers it."""
        arrays = []
        request = {"op": "ref", "module": module, "function": function,
                   "args": pack(list(args), arrays, self.inputs), "kwargs": pack(kwargs, arrays, self.inputs)}
        signal.setitimer(signal.ITIMER_REAL, 0)  # what is held goes first, with the request
        self._send_held(frame(request, *encode_arrays(arrays)))
        while True:
            header, parts = self._read()
            if header.get("op") == "ref_answer":
                break
            self.pending.append((header, parts))  # a request the grader sent ahead: served after this call
        if header["status"] == "ok":
            return unpack(header["result"], parts, self.classes)
        kind = getattr(builtins, header["exc_type"], None)
        raise (kind if isinstance(kind, type) and issubclass(kind, Exception) else RuntimeError)(header["error"])

    def call(self, header, _):
        """Make call number header["job"] of the stock as `harness.call_case` makes it and send back its
        Outcome: the result's parts (arrays and numbers only), the warnings, the arguments it changed, or
        its exception. Its arguments are the stock's own arrays, which no other call uses, and this
        process's copy of them (copy-on-write): what the call does to them stays in this process."""
        stocked = self.stock[header["job"]]
        self.inputs, kwargs, case = stocked.inputs, stocked.kwargs, stocked.case
        module, function = case.step.module, case.function
        fn = getattr(self.modules[module], function, None)
        if not callable(fn):
            return _reply(header, Ending.RAISED, f"{module}.py has no function {function}()", "AttributeError")
        returned = []  # once the function has returned, what is raised comes from its result, being named

        def made(*args, **kwargs):
            value = fn(*args, **kwargs)
            returned.append(True)
            return value
        try:  # the wire's arrays are this call's own: handed over uncopied, so a proxy may name them ({"$input"})
            outcome = call_case(made, case, [kwargs], seconds=0, copied=True, watched=[stocked.watched])
        except BaseException as err:  # noqa: BLE001 - KeyboardInterrupt, SystemExit, or a result that raised
            if not returned:
                return _reply(header, Stopped.CRASHED, self._describe(err, named=True), type(err).__name__)
            return _reply(header, Ending.RAISED, f"{function}() returned a value that could not be read: "
                                                 + self._describe(err, named=True), type(err).__name__)
        if isinstance(outcome.exception, MemoryError):  # out of memory on a memory case: judged as held too much
            ending = outcome.ending if outcome.ending == Ending.OUT_OF_MEMORY else Stopped.CRASHED
            return _reply(header, ending, self._describe(outcome.exception, named=True), outcome.error_type)
        if outcome.ending == Ending.NOT_WRITTEN:
            return _reply(header, outcome.ending, self._describe(outcome.exception), outcome.error_type,
                          earlier_stub=self._stub_of(outcome.exception, module))
        if outcome.ending != Ending.RETURNED:
            return _reply(header, outcome.ending, self._describe(outcome.exception), outcome.error_type)
        watched = {"warnings": [text[:300] for text in outcome.warnings[:MAX_WARNINGS]],
                   "modified": [name[:200] for name in outcome.modified[:MAX_WARNINGS]]}
        if outcome.results is None:
            return _reply(header, Ending.RETURNED, unnamed=outcome.unnamed, **watched)
        try:
            payload = [(name, _sendable(value, name), False) for name, value in outcome.results[0].items()]
        except (ResultRefused, WireError) as err:
            return _reply(header, Ending.RETURNED, unnamed=str(err), **watched)
        except BaseException as err:  # noqa: BLE001 - the learner's result raised while being read
            return _reply(header, Ending.RAISED, f"{function}() returned a value that could not be read: "
                                                 + self._describe(err, named=True), type(err).__name__)
        size = sum(arr.nbytes for _, arr, _ in payload)
        if size > header["max_bytes"]:
            return _reply(header, Ending.RETURNED, unnamed=f"{function}() returned {size} bytes of arrays "
                                                           f"(at most {header['max_bytes']})", **watched)
        return encode({"nonce": header["nonce"], "ending": Ending.RETURNED, **watched, "peaks": list(outcome.peaks)},
                      payload)

    def tidy(self):
        """Is this process as clean as it started? No extra thread, process or timer, and numpy,
        builtins and sys.stdout/stderr unpatched (new attributes, e.g. a lazy numpy submodule, are fine).
        Under the child filter no process can have been started: /proc is not searched for one (~0.2 ms a load)."""
        np_dict, builtins_dict, err = BASELINE
        return (len(os.listdir("/proc/self/task")) == 1
                and (self.filtered or not _children_of(os.getpid(), everyone=self.own_pid_namespace))
                and not any(signal.getitimer(t)[0] for t in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL,
                                                            signal.ITIMER_PROF))
                and all(map(operator.is_, map(np.__dict__.get, np_dict), np_dict.values()))
                and all(map(operator.is_, map(builtins.__dict__.get, builtins_dict), builtins_dict.values()))
                and np.geterr() == err and (sys.stdout, sys.stderr) == self.streams)

    def _describe(self, err, named=False):
        """The exception's message (after its type when `named`; else the type is sent beside it), then
        the lines of the learner's files in its traceback."""
        text = traceback.format_exception_only(type(err), err)[-1].strip() if named else str(err)
        return (text + self._frames(err))[:MAX_TEXT]

    def _frames(self, err):
        frames = [f for f in traceback.extract_tb(err.__traceback__) if f.filename in self.filenames]
        return "".join("\n  {}, line {}, in {}".format(*self._place(f.filename, f.lineno), f.name)
                       + (f": {f.line}" if f.line else "") for f in frames[-6:])

    def _stub_of(self, err, module):
        """The earlier step (module) in whose file `err` was raised (the innermost of the learner's files in its
        traceback), "" when it was `module`'s own: the earlier steps here are modules of their own, not a
        CallLog's wrapped functions (harness.Outcome.earlier_stub)."""
        files = {m.__file__: name for name, m in self.modules.items()}
        raised_in = [files[frame.f_code.co_filename] for frame, _ in traceback.walk_tb(err.__traceback__)
                     if frame.f_code.co_filename in files]
        innermost = raised_in[-1] if raised_in else module
        return "" if innermost == module else innermost

    def _place(self, filename, lineno=None):
        """(where, line) a learner knows line `lineno` of `filename` by: the place it came from (a notebook's
        cell) and its line there; the file and the line themselves when it came from no other place.
        With no line: (where the module's first place is, None)."""
        places = self.places.get(filename, ())
        if lineno is None:
            return (places[0][1] if places else filename), None
        before = [place for place in places if place[0] <= lineno]
        if not before:
            return filename, lineno
        first, where, line = before[-1]
        return where, lineno - first + line


class Stocked:
    """One call of the stock, made ready in the zygote once so that no child redoes it: `kwargs` (its arguments
    unpacked: the stock's own arrays), `case` (what `harness.call_case` reads of a case), `inputs`
    ({id: (name, array, fingerprint)} of its large arguments, see sandbox_wire.pack) and `watched` (the
    arguments as they came, `inputs.watch`: what the call's arguments are compared with after it). A child
    gets its own copy of all of it at the fork (copy-on-write), and makes each call at most once."""

    __slots__ = ("kwargs", "case", "inputs", "watched")

    def __init__(self, kwargs, case, inputs):
        self.kwargs, self.case, self.inputs = kwargs, case, inputs
        self.watched = watch(kwargs)

    @property
    def kept_bytes(self):
        """The bytes `watched` keeps of the small arguments (a copy of each)."""
        return sum(len(data) for _, _, (_, _, data) in self.watched if isinstance(data, bytes))

    @classmethod
    def of(cls, header, arrays):
        """From a "stock" message (see Zygote.take_stock)."""
        case = types.SimpleNamespace(step=types.SimpleNamespace(module=header["module"]), function=header["function"],
                                     returns=tuple(header["returns"]), measure_peak=header.get("measure_peak", False))
        inputs = {id(arrays[name][0]): (name, arrays[name][0], fp) for name, fp in header["inputs"].items()}
        return cls({name: unpack(value, arrays) for name, value in header["kwargs"].items()}, case, inputs)


def _reply(header, ending, error="", exc_type="", unnamed="", warnings=(), modified=(), earlier_stub=""):
    return encode({"nonce": header["nonce"], "ending": ending, "error": error[:MAX_TEXT], "exc_type": exc_type,
                   "unnamed": unnamed[:MAX_TEXT], "warnings": list(warnings), "modified": list(modified),
                   "earlier_stub": earlier_stub})


class ResultRefused(Exception):
    """A part of a result that is no array or number; the message says what came instead."""


def _sendable(value, name):
    """A part of a learner's result as an array to send: an array or a number, as judge.check_form
    takes (else ResultRefused, in its words), of a dtype that may cross (else WireError)."""
    if not isinstance(value, (np.ndarray, np.generic, bool, int, float)):
        raise ResultRefused(say("form.not_array", label=name, got=type(value).__name__))
    return plain_array(value)


# ---------------------------------------------------------------- start

def _warm_up():
    """Import what the steps use and run numpy's common paths once, here, so that every child
    starts with them ready (shared copy-on-write) instead of paying for them itself."""
    import dataclasses, math, numbers  # noqa: E401,F401
    a, b = np.ones((4, 8)), np.ones((3, 2), dtype=np.float32)
    with np.errstate(all="ignore"):
        for x in (a, b):
            y = x @ np.swapaxes(x, -1, -2) / math.sqrt(2.0)
            e = np.exp(y - np.where(np.isfinite(y), y, 0).max(axis=-1, keepdims=True))
            np.divide(e, e.sum(axis=-1, keepdims=True), out=np.zeros_like(e), where=e > 0)
            np.einsum("ij,kj->ik", x, x), np.isnan(x).any(), np.isposinf(x).any(), x.astype(np.float64)
        np.repeat(np.tril(np.ones((3, 3), dtype=bool))[None], 2, axis=0) & ~np.zeros((3, 3), dtype=bool)
    dataclasses.dataclass(frozen=True)(type("Warm", (), {"__annotations__": {"x": int}}))


M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3  # glibc's mallopt parameters
MMAP_THRESHOLD_BYTES = 32 << 20  # glibc's own highest (its dynamic threshold stops there on 64-bit), trim twice it


def _keep_freed_memory():
    """Make malloc reuse what this submission child freed instead of handing it back to the kernel and mapping
    it anew.

    glibc starts every process mapping each allocation from 128 kB on afresh and unmapping it when freed: a
    child then took a page fault for every page of every large temporary (an array's bytes, a copy of an
    argument), call after call. It is set from the start as glibc's own dynamic threshold would end after
    such frees. Only in the child: what the zygote frees stays unmapped, so no child inherits it in the
    address space its RLIMIT_AS counts."""
    LIBC.mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
    LIBC.mallopt(M_TRIM_THRESHOLD, 2 * MMAP_THRESHOLD_BYTES)


def main(ctl, config):
    """Run the zygote: `ctl` is the control socket (fd 0 as started), `config` the grader's settings
    ("barrier", "expose", "uid", "gid", "seccomp"). Returns when the grader closes the socket."""
    ctl = socket.socket(fileno=os.dup(ctl.detach()))
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    settings = _prepare(ctl, config)
    config.clear()  # from this frame and the bootstrap's globals: learner code can walk both
    if settings is not None:
        Zygote(ctl, settings).serve()


def _prepare(ctl, config):
    """Capped /tmp, warm-up, seccomp; tell the grader "ready" or "failed" (why).
    Returns the settings the zygote keeps, or None when it failed."""
    try:
        if config["barrier"]:
            if os.getpid() != 1:
                raise RuntimeError("the zygote is not PID 1 of its own PID namespace")
            cap_private_tmp(config["expose"])
        else:
            LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # its children share its uid behind the barrier: no /proc/1/mem
        _warm_up()
        programs = config["seccomp"]
        if programs is not None:
            load(bytes.fromhex(programs["zygote"]))
        elif config["barrier"]:
            raise RuntimeError("no seccomp filter: a barrier without it is not the barrier the report describes")
    except BaseException as err:  # noqa: BLE001 - report why, then give up
        ctl.sendall(encode({"op": "failed", "error": f"{type(err).__name__}: {err}"}))
        return None
    global BASELINE
    BASELINE = (dict(np.__dict__), dict(builtins.__dict__), np.geterr())  # what Submission.tidy expects
    gc.freeze()  # children's garbage collections skip the zygote's objects: fewer copied pages
    ctl.sendall(encode({"op": "ready"}))
    child = bytes.fromhex(programs["child"]) if programs is not None else None
    return {**{key: config[key] for key in ("barrier", "expose", "uid", "gid")}, "child": child}
