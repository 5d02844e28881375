"""The sandbox's seccomp filters: built in the grader by libseccomp, loaded in the sandbox as BPF.

Two programs (`programs()`, in the grader's process, where libseccomp2 is; nothing of it need be
inside the barrier):

    zygote  loaded by the zygote, inherited by everything it forks: `unshare` and `clone` with
            CLONE_NEWUSER fail with EPERM; `clone3` (whose flags sit in memory a filter cannot read)
            fails with ENOSYS, so the C library falls back to `clone` for threads and processes.
    child   loaded by each submission child on top: no new process (fork, vfork, clone without
            CLONE_THREAD; threads still start), so a submission is one process and RLIMIT_AS bounds
            all it holds; no memory beside its address space (System V shared memory, semaphores and
            message queues, POSIX message queues, memfd); no signal to another process and no
            tracing (kill, tkill, tgkill, sigqueue, pidfd, ptrace, process_vm_*), so neighbours are
            safe even when they share a uid; no prctl(PR_SET_DUMPABLE), so its /proc/self stays root's
            and it cannot reset the peak resident memory a memory case is judged on. All fail with EPERM.

Filters are inherited across fork and exec and cannot be removed. `load` runs inside the sandbox's
python: this module imports only the standard library.
"""
import ctypes
import errno
import tempfile

CLONE_NEWUSER, CLONE_THREAD = 0x10000000, 0x00010000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ, SCMP_CMP_MASKED_EQ = 4, 7
PR_SET_DUMPABLE = 4
LIBRARY = "libseccomp.so.2"
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2

_DENIED_TO_CHILDREN = ("fork", "vfork", "shmget", "semget", "msgget", "mq_open", "memfd_create", "kill", "tkill",
                       "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open", "pidfd_send_signal",
                       "pidfd_getfd", "ptrace", "process_vm_readv", "process_vm_writev")


def _act_errno(code):
    return 0x00050000 | (code & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    """libseccomp's struct scmp_arg_cmp."""
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def _library():
    lib = ctypes.CDLL(LIBRARY)
    lib.seccomp_init.restype, lib.seccomp_init.argtypes = ctypes.c_void_p, [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(_ArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def _flag_is(flag, value):
    """The rule's condition: argument 0 (clone's and unshare's flags) has `flag` set to `value`."""
    return (_ArgCmp * 1)(_ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, value))


def _program(lib, rules):
    """The BPF program (bytes) allowing every call but `rules`: ((name, errno, condition or None), …)."""
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise OSError("seccomp_init failed")
    try:
        for name, code, compare in rules:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            rc = lib.seccomp_rule_add_array(ctx, _act_errno(code), number, len(compare or ()), compare)
            if rc < 0:
                raise OSError(-rc, f"seccomp rule for {name}: {errno.errorcode.get(-rc, rc)}")
        with tempfile.TemporaryFile() as f:
            rc = lib.seccomp_export_bpf(ctx, f.fileno())
            if rc < 0:
                raise OSError(-rc, f"seccomp_export_bpf: {errno.errorcode.get(-rc, rc)}")
            f.seek(0)
            return f.read()
    finally:
        lib.seccomp_release(ctx)


def programs():
    """{"zygote": bytes, "child": bytes}. Raises OSError when libseccomp is missing or refuses."""
    try:
        lib = _library()
    except OSError as err:
        raise OSError(f"{LIBRARY} (Debian/Ubuntu package libseccomp2) cannot be loaded: {err}") from None
    new_user = _flag_is(CLONE_NEWUSER, CLONE_NEWUSER)
    zygote = (("unshare", errno.EPERM, new_user), ("clone", errno.EPERM, new_user), ("clone3", errno.ENOSYS, None))
    child = (("clone", errno.EPERM, _flag_is(CLONE_THREAD, 0)),
             ("prctl", errno.EPERM, (_ArgCmp * 1)(_ArgCmp(0, SCMP_CMP_EQ, PR_SET_DUMPABLE, 0))),
             *((name, errno.EPERM, None) for name in _DENIED_TO_CHILDREN))
    return {"zygote": _program(lib, zygote), "child": _program(lib, child)}


class _Program(ctypes.Structure):
    """The kernel's struct sock_fprog: `len` instructions of 8 bytes each."""
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_char_p)]


_LIBC = ctypes.CDLL(None, use_errno=True)  # once, in the zygote: a forked child then only calls prctl (~0.4 ms less)


def load(program):
    """Load a BPF `program` from programs() into this process (and all it forks), no_new_privs first."""
    for args in ((PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), (PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                                                     ctypes.byref(_Program(len(program) // 8, program)), 0, 0)):
        if _LIBC.prctl(*args) != 0:
            code = ctypes.get_errno()
            raise OSError(code, f"loading the seccomp filter: {errno.errorcode.get(code, code)}")
