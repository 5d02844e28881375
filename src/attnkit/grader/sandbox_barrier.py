"""The sandbox's filesystem barrier, applied by the zygote while it is still root.

Runs inside the sandbox's python (sandbox_child.main calls `apply_barrier`): it may import only the
standard library.
"""
import ctypes
import os
import socket

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_MOVE, MS_REC, MS_PRIVATE = 32, 4096, 8192, 16384, 1 << 18


LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
PRIVATE_TMPFS = "size=64m,nr_inodes=4096,mode=1777"  # /tmp and /dev/shm: bytes and inodes both capped


def _mount(source, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    if LIBC.mount(enc(source), enc(target), enc(fstype), flags, enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
DEVICES = ("null", "zero", "full", "random", "urandom")
ROOT_HOSTS = ("/mnt", "/media", "/srv", "/run", "/opt", "/tmp")  # where the new root may be built


def _root_host(expose):
    """An existing folder that no exposed folder sits in: the new root's tmpfs is mounted on it, which
    must not hide python (a virtualenv may live in /tmp, e.g. inside a clone of the repository)."""
    for host in ROOT_HOSTS:
        if os.path.isdir(host) and not any((e + "/").startswith(host + "/") for e in expose):
            return host
    raise RuntimeError(f"no folder among {ROOT_HOSTS} to build the sandbox's root in")


def _bind(source, target, read_only=True):
    _mount(source, target, None, MS_BIND | MS_REC)
    if read_only:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _tmpfs(target, options, flags=MS_NOSUID | MS_NODEV):
    os.makedirs(target, 0o755, exist_ok=True)
    _mount("tmpfs", target, "tmpfs", flags, options)


def apply_barrier(expose, hide, uid):
    """Make this mount namespace's root a new, minimal one: the system folders (SYSTEM) and
    `expose` (python, numpy) bound read-only, a few /dev nodes, a fresh /proc of the PID
    namespace, private /tmp and /dev/shm. Nothing else of the disk (the kit, /work, /home, /root …)
    is in it; `hide` is also covered should it sit inside a bound folder. Returns a description."""
    if os.getpid() != 1:
        raise RuntimeError("the zygote is not PID 1 of its own PID namespace")
    socket.sethostname("sandbox")  # its own UTS namespace: the host's name stays the host's
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    new_root = _root_host(expose)
    _tmpfs(new_root, "size=16m,mode=0755")
    system = []
    for path in SYSTEM:
        if os.path.islink(path):
            os.symlink(os.readlink(path), new_root + path)
        elif os.path.isdir(path):
            os.makedirs(new_root + path)
            _bind(path, new_root + path)
            system.append(path)
    _tmpfs(new_root + "/dev", "size=64k,mode=0755", MS_NOSUID)
    for name in DEVICES:
        open(f"{new_root}/dev/{name}", "w").close()
        _bind(f"/dev/{name}", f"{new_root}/dev/{name}", read_only=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{new_root}/dev/{name}")
    _tmpfs(new_root + "/dev/shm", PRIVATE_TMPFS)
    _tmpfs(new_root + "/tmp", PRIVATE_TMPFS)
    os.makedirs(new_root + "/proc")
    _mount("proc", new_root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for path in expose:  # last: python may live under /tmp (a virtualenv in a clone)
        if not any((path + "/").startswith(os.path.realpath(s) + "/") for s in system):
            os.makedirs(new_root + path, 0o755, exist_ok=True)
            _bind(path, new_root + path)
    os.chdir(new_root)
    _mount(new_root, "/", None, MS_MOVE)  # as switch_root does: the old root is gone from view
    os.chroot(".")
    os.chdir("/")
    hidden = []
    for path in hide:
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")
            hidden.append(path)
    return ("private root filesystem (only " + ", ".join(system + expose) + " read-only, "
            + "a few /dev nodes, private /proc, /tmp and /dev/shm of 64 MB and 4096 inodes each; "
            + (f"{', '.join(hidden)} covered by empty tmpfs" if hidden else "the kit's folders absent")
            + "), private PID, IPC, UTS and (empty) network namespaces, "
            + f"submission code runs as uid {uid} with no capabilities and no_new_privs")
