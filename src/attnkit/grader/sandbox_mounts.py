"""The zygote's own part of the barrier: /tmp and /dev/shm capped in bytes and inodes, then no capability.

bwrap's --tmpfs takes no inode limit, so the zygote (started by bwrap with CAP_SYS_ADMIN of its own
user namespace only) enters a mount namespace of its own, mounts the two capped tmpfs, and drops
every capability before anything else runs. Runs inside the sandbox's python (sandbox_child.main
calls `cap_private_tmp`): it may import only the standard library.
"""
import ctypes
import os

MS_NOSUID, MS_NODEV, MS_BIND, MS_REC = 2, 4, 4096, 16384
CLONE_NEWNS = 0x00020000
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522
PRIVATE_TMPFS = "size=64m,nr_inodes=4096,mode=1777"  # /tmp and /dev/shm: bytes and inodes both capped
FOLDERS = ("/tmp", "/dev/shm")

LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]


def _check(rc, what):
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def cap_private_tmp(expose):
    """Mount the capped tmpfs on FOLDERS, bind back the `expose`d folders that sat in them (python
    may live under /tmp), then drop every capability for good."""
    _check(LIBC.unshare(CLONE_NEWNS), "unshare(CLONE_NEWNS)")
    inside = [path for path in expose if any(path.startswith(folder + "/") for folder in FOLDERS)]
    kept = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in inside}
    for folder in FOLDERS:
        _check(LIBC.mount(b"tmpfs", folder.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, PRIVATE_TMPFS.encode()),
               f"mount {folder}")
    for path, fd in kept.items():
        os.makedirs(path, 0o755, exist_ok=True)
        _check(LIBC.mount(f"/proc/self/fd/{fd}".encode(), path.encode(), None, MS_BIND | MS_REC, None), f"bind {path}")
        os.close(fd)
    drop_capabilities()


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def drop_capabilities():
    """Empty the bounding, ambient, effective, permitted and inheritable sets; raise if any is left."""
    _check(LIBC.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0), "clear ambient capabilities")
    cap = 0
    while LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:  # EINVAL past the last capability this kernel has
        cap += 1
    _check(LIBC.capset(ctypes.byref(_CapHeader(LINUX_CAPABILITY_VERSION_3, 0)), (_CapData * 2)()), "capset")
    with open("/proc/self/status") as f:
        left = [line for line in f if line.startswith(("CapEff", "CapPrm", "CapBnd", "CapAmb", "CapInh"))]
    if any(int(line.split()[1], 16) for line in left):
        raise OSError(f"capabilities left after dropping them: {' '.join(left)}")
