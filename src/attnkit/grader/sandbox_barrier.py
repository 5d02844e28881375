"""The sandbox's filesystem barrier: the bubblewrap (`bwrap`) command the zygote starts under.

An allow-list, built by bwrap in new user, mount, PID, IPC, UTS, cgroup and (empty) network
namespaces: the new root holds only

    python's executable and standard library (not its site-packages), read-only
    numpy's package folder and its bundled libraries (numpy.libs), read-only
    the shared libraries those load (as `ldd` resolves them) and /etc/ld.so.cache, read-only
    a private /proc, a few /dev nodes, and /tmp and /dev/shm (capped by the zygote: sandbox_mounts.py)

so no checkout, .git, kit package, other submission, home folder or program (git) of the host is in
it, wherever the kit is installed. The zygote runs as uid 65534 inside, PID 1 of its namespace, and
keeps CAP_SYS_ADMIN of its own user namespace only until it has mounted the capped tmpfs. No
--die-with-parent: it would tie the sandbox to the grader's thread that started it (the kernel's
parent-death signal follows a thread), and batch workers end while their zygotes serve on; the
zygote ends instead when its control socket closes (the grader closed it or died), and its PID
namespace, every child in it, with it.
"""
import os
import shutil
import subprocess
import sys
import sysconfig
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..messages import say

SANDBOX_UID = 65534  # inside the sandbox's user namespace (bwrap maps it to the grader's own uid)


def bwrap():
    """The path of bubblewrap's `bwrap` on the PATH, or None."""
    return shutil.which("bwrap")


def numpy_site():
    """The folder holding numpy's package (what the zygote puts on sys.path)."""
    return str(Path(np.__file__).resolve().parents[1])


def _base_paths():
    return sysconfig.get_paths(vars={"base": sys.base_prefix, "platbase": sys.base_exec_prefix})


@lru_cache(maxsize=None)
def allow_list():
    """(folders, files, hidden): what is bound read-only, and the site-packages folders inside a bound
    standard library that are covered again (a python whose packages live in its own lib folder)."""
    paths = _base_paths()
    stdlib = sorted({os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib")})
    numpy_dir = os.path.dirname(os.path.realpath(np.__file__))
    folders = stdlib + [numpy_dir] + [p for p in (numpy_dir + ".libs",) if os.path.isdir(p)]
    packages = {os.path.realpath(paths[key]) for key in ("purelib", "platlib")}
    hidden = sorted(p for p in packages if os.path.isdir(p) and any(p.startswith(s + "/") for s in stdlib))
    python = os.path.realpath(sys.executable)
    dynload = [str(p) for folder in stdlib for p in Path(folder, "lib-dynload").glob("*.so")]
    binaries = [python, *dynload, *(str(p) for p in Path(numpy_dir).rglob("*.so"))]
    libraries = _libraries(python, binaries)
    files = [python, *(lib for lib in libraries if not any(lib.startswith(f + "/") for f in folders))]
    files += [p for p in ("/etc/ld.so.cache",) if os.path.isfile(p)]
    return folders, sorted(set(files)), hidden


# Loads each file given (as an extension module is loaded: lazily) and prints the path of every shared
# object in the process as the dynamic loader opened it (its link map: what `ldd` prints, ~7x faster).
_PROBE = """import ctypes, sys
for path in sys.argv[1:]:
    try:
        ctypes.CDLL(path, mode=1)  # RTLD_LAZY
    except OSError:
        pass
class LinkMap(ctypes.Structure):
    pass
LinkMap._fields_ = [("addr", ctypes.c_void_p), ("name", ctypes.c_char_p), ("ld", ctypes.c_void_p),
                    ("next", ctypes.POINTER(LinkMap)), ("prev", ctypes.POINTER(LinkMap))]
libc, entry = ctypes.CDLL(None), ctypes.POINTER(LinkMap)()
libc.dlinfo(ctypes.c_void_p(libc._handle), 2, ctypes.byref(entry))  # RTLD_DI_LINKMAP
while entry:
    print(entry.contents.name.decode())
    entry = entry.contents.next
"""


def _libraries(python, binaries):
    """The shared libraries `binaries` load, at the paths the dynamic loader finds them."""
    done = subprocess.run([python, "-I", "-S", "-c", _PROBE, *binaries], capture_output=True, text=True,
                          env={"LC_ALL": "C"}, check=True)
    return sorted({os.path.normpath(path) for path in done.stdout.splitlines() if path.startswith("/")})


def command(python_args):
    """The bwrap command that runs `python_args` (an absolute python and its arguments) behind the barrier."""
    folders, files, hidden = allow_list()
    args = [bwrap(), "--unshare-all", "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--hostname", "sandbox", "--as-pid-1", "--new-session",
            "--cap-add", "CAP_SYS_ADMIN", "--proc", "/proc", "--dev", "/dev", "--dir", "/tmp", "--dir", "/dev/shm"]
    inside = [p for p in folders + files if any(p.startswith(h + "/") for h in hidden)]  # numpy in python's lib
    for path in folders + files:
        if path not in inside:
            args += ["--ro-bind", path, path]
    for path in hidden:
        args += ["--tmpfs", path]
    for path in inside:  # its mount point is made in the tmpfs, which then goes read-only
        args += ["--ro-bind", path, path]
    for path in [*hidden, "/dev", "/"]:  # nothing but the zygote's capped /tmp and /dev/shm is writable
        args += ["--remount-ro", path]
    return [*args, "--chdir", "/", "--", *python_args]


def description():
    """What the barrier holds, for the isolation line, in the grader's language."""
    folders, _, hidden = allow_list()
    return say("isolation.barrier", without_site=say("isolation.without_site") if hidden else "",
               folders=", ".join(folders), uid=SANDBOX_UID)
