"""Issue 7 class 4: the barrier's gaps. System V IPC is denied (and its namespace and the host name
are private), the private tmpfs mounts cap inodes as well as bytes, nothing of a submission stays on
the host, user namespaces are denied, and /proc shows neither the sandbox's configuration nor a path
of the kit.

These need the barrier (root with CAP_SYS_ADMIN); without it the grader refuses to run learner code
(test_sandbox_fail_closed.py covers that side).
"""
import ast
import os

from attnkit.grader.sandbox import Limits, run_submission
from attnkit.paths import PACKAGE_DIR, ROOT
from test_sandbox import JOBS, ROOT_ONLY, assert_correct, with_code

pytestmark = ROOT_ONLY

SHM_KEY = 0x4A7E5
SOFTMAX = JOBS[5:7]


def _softmax_doing(code):
    """The reference submission whose softmax first runs `code` (which prints what it found)."""
    body = "\n".join("    " + line for line in code.strip().splitlines())
    return with_code("step4_softmax", f"_reference_softmax = softmax\ndef softmax(S):\n{body}\n"
                                      "    return _reference_softmax(S)")


def _printed(run, tag):
    """The Python value the submission printed after `tag`."""
    line = next(line for line in run.stdout.splitlines() if line.startswith(tag + " "))
    return ast.literal_eval(line[len(tag) + 1:])


def _host_shm_keys():
    with open("/proc/sysvipc/shm") as f:
        return {int(line.split()[0]) for line in f.readlines()[1:]}


SHM_CREATE = f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
shmid = libc.shmget({SHM_KEY}, 1 << 20, 0o1666)  # IPC_CREAT | 0666
if shmid >= 0:
    ctypes.memmove(libc.shmat(shmid, None, 0), b"SECRET-OF-A", 11)
open("left-in-work", "w").write("x")
open("/tmp/left-in-tmp", "w").write("x")
open("/dev/shm/left-in-shm", "w").write("x")
print("CREATED", shmid)
"""
SHM_LOOK = f"""
import ctypes
print("FOUND", ctypes.CDLL(None).shmget({SHM_KEY}, 0, 0))
"""


def test_system_v_shared_memory_reaches_neither_the_next_submission_nor_the_host():
    created = run_submission(_softmax_doing(SHM_CREATE), SOFTMAX)
    assert _printed(created, "CREATED") == -1, created.stdout  # denied: it would hold memory beside RLIMIT_AS
    looked = run_submission(_softmax_doing(SHM_LOOK), SOFTMAX)
    assert _printed(looked, "FOUND") == -1
    assert SHM_KEY not in _host_shm_keys()


def test_nothing_a_submission_writes_stays_on_the_host():
    run_submission(_softmax_doing(SHM_CREATE), SOFTMAX)
    left = [os.path.join(folder, name) for top in ("/tmp", "/dev/shm") for folder, _, files in os.walk(top)
            for name in files if name.startswith("left-in-")]
    assert left == []


def test_ipc_and_uts_namespaces_are_the_sandboxs_own():
    code = 'import os\nprint("NS", {n: os.readlink(f"/proc/self/ns/{n}") for n in ("ipc", "uts", "user")})'
    run = run_submission(_softmax_doing(code), SOFTMAX)
    theirs = _printed(run, "NS")
    assert theirs["ipc"] != os.readlink("/proc/self/ns/ipc")
    assert theirs["uts"] != os.readlink("/proc/self/ns/uts")


def test_the_private_tmpfs_mounts_cap_inodes_not_only_bytes():
    code = """
import os
made = {}
for folder in ("/tmp", "/dev/shm"):
    made[folder] = 0
    try:
        while made[folder] < 100_000:
            os.close(os.open(f"{folder}/empty{made[folder]}", os.O_CREAT | os.O_WRONLY, 0o600))
            made[folder] += 1
    except OSError as err:
        made[folder + " stopped by"] = err.strerror
print("MADE", made)
"""
    run = run_submission(_softmax_doing(code), SOFTMAX, Limits(call_seconds=20.0, call_cpu_seconds=20.0,
                                                               call_idle_seconds=20.0, submission_idle_seconds=20.0))
    made = _printed(run, "MADE")
    for folder in ("/tmp", "/dev/shm"):
        assert made[folder] < 20_000 and made[folder + " stopped by"] == "No space left on device", made
    assert_correct(run, {"softmax#0", "softmax#1"})


def test_user_namespaces_are_denied():
    code = """
import ctypes, os, threading
libc = ctypes.CDLL(None, use_errno=True)
denied = {"unshare": (libc.unshare(0x10000000), os.strerror(ctypes.get_errno()))}  # CLONE_NEWUSER
worked = []
thread = threading.Thread(target=lambda: worked.append("thread"))
thread.start(); thread.join()
print("USERNS", {"denied": denied, "worked": worked})
"""
    run = run_submission(_softmax_doing(code), SOFTMAX)
    seen = _printed(run, "USERNS")
    assert seen["denied"]["unshare"] == (-1, "Operation not permitted"), seen
    assert seen["worked"] == ["thread"]  # threads still start (clone with CLONE_THREAD)
    assert_correct(run, {"softmax#0", "softmax#1"})


def test_proc_shows_no_configuration_and_no_path_of_the_kit():
    code = """
import os
seen = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as f:
                seen[f"{pid}/{name}"] = f.read(300).decode(errors="replace")
        except OSError:
            pass
print("PROC", seen)
"""
    run = run_submission(_softmax_doing(code), SOFTMAX)
    seen = _printed(run, "PROC")
    assert "1/cmdline" in seen, seen
    for where, text in seen.items():
        assert str(ROOT) not in text and "hide" not in text and "expose" not in text, (where, text)
    assert_correct(run, {"softmax#0", "softmax#1"})


def test_the_child_code_is_a_module_here_and_the_child_cannot_import_the_kit_or_see_its_files():
    from attnkit.grader import sandbox_child
    assert sandbox_child._sendable(1.0, "P") == 1.0  # importable, measurable
    code = f"""
import sys
names = {{}}
for name in ("attnkit", "attnkit.grader", "sandbox_child"):
    try:
        __import__(name)
        names[name] = "imported"
    except ImportError:
        names[name] = "no"
files = [str(getattr(m, "__file__", "")) for m in list(sys.modules.values())]
print("IMPORTS", {{"names": names, "kit files": [f for f in files if f.startswith({str(PACKAGE_DIR)!r})]}})
"""
    run = run_submission(_softmax_doing(code), SOFTMAX)
    seen = _printed(run, "IMPORTS")
    assert seen == {"names": {"attnkit": "no", "attnkit.grader": "no", "sandbox_child": "no"}, "kit files": []}


def test_the_hidden_paths_are_not_left_in_the_childs_memory_for_its_frames_to_find():
    code = """
import sys
frames, frame = [], sys._getframe()
while frame is not None:
    frames.append(repr(frame.f_locals))
    frame = frame.f_back
print("MEMORY", frames + [repr(vars(sys.modules["__main__"]))])
"""
    run = run_submission(_softmax_doing(code), SOFTMAX)
    seen = _printed(run, "MEMORY")
    assert len(seen) > 3
    for text in seen:
        assert str(PACKAGE_DIR) not in text and str(ROOT / "solutions") not in text, text[:2000]


def test_learner_code_has_no_capability_and_cannot_read_or_trace_the_zygote():
    code = """
import ctypes
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines() if ":" in line)
seen = {key: status[key].strip() for key in ("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp_filters")}
for name in ("mem", "environ", "maps"):
    try:
        open(f"/proc/1/{name}", "rb").read(1)
        seen[name] = "read"
    except OSError as err:
        seen[name] = err.strerror
seen["ptrace"] = ctypes.CDLL(None).ptrace(16, 1, 0, 0)  # PTRACE_ATTACH
print("SEEN", seen)
"""
    seen = _printed(run_submission(_softmax_doing(code), SOFTMAX), "SEEN")
    assert {seen[k] for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb")} == {"0000000000000000"}, seen
    assert seen["NoNewPrivs"] == "1" and seen["Seccomp_filters"] == "2", seen  # the zygote's and the child's
    assert {seen["mem"], seen["environ"], seen["maps"]} == {"Permission denied"} and seen["ptrace"] == -1, seen
