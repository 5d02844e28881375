"""Deny user namespaces to the zygote and everything it forks: a seccomp filter built by libseccomp.

Loaded by the zygote (sandbox_child.main) once its barrier is up: `unshare` and `clone` with
CLONE_NEWUSER fail with EPERM; `clone3` (whose flags sit in memory a filter cannot read) fails with
ENOSYS, so the C library falls back to `clone` for threads and processes. Every other call is
allowed. The filter is inherited across fork and exec and cannot be removed.

libseccomp2 (the system library behind systemd, Docker and bubblewrap's filters) is reached through
ctypes; this module may import only the standard library (it runs inside the sandbox's python).
"""
import ctypes
import errno

CLONE_NEWUSER = 0x10000000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7
LIBRARY = "libseccomp.so.2"


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
    lib.seccomp_load.argtypes = lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def deny_user_namespaces():
    """Load the filter into this process (and so into all it forks). Raises OSError when libseccomp
    is missing or refuses; with no_new_privs unset and no CAP_SYS_ADMIN, libseccomp sets it itself."""
    try:
        lib = _library()
    except OSError as err:
        raise OSError(f"{LIBRARY} (Debian/Ubuntu package libseccomp2) cannot be loaded: {err}") from None
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise OSError("seccomp_init failed")
    new_user = (_ArgCmp * 1)(_ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER))  # flags are argument 0
    rules = (("unshare", errno.EPERM, new_user), ("clone", errno.EPERM, new_user), ("clone3", errno.ENOSYS, None))
    try:
        for name, code, compare in rules:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            rc = lib.seccomp_rule_add_array(ctx, _act_errno(code), number, len(compare or ()), compare)
            if rc < 0:
                raise OSError(-rc, f"seccomp rule for {name}: {errno.errorcode.get(-rc, rc)}")
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, f"seccomp_load: {errno.errorcode.get(-rc, rc)}")
    finally:
        lib.seccomp_release(ctx)
