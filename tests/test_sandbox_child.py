"""The sandbox's child side as modules this process imports (the zygote runs the same files): how
results are named and checked, how arguments are unpacked, how scratch folders are emptied, and the
seccomp filter that denies user namespaces (tried in a forked process: it cannot be undone)."""
import ctypes
import os

import numpy as np
import pytest

from attnkit.grader import sandbox_child, sandbox_seccomp, sandbox_wire

CLONE_NEWUSER = 0x10000000


def test_a_result_part_is_sent_as_a_plain_array_when_it_is_an_array_or_a_number():
    arr = np.ones(2)
    assert sandbox_child._sendable(arr, "P") is arr
    assert sandbox_child._sendable(1.0, "O").shape == () and sandbox_child._sendable(np.float32(2), "O").dtype == np.float32


@pytest.mark.parametrize("value, says", [([1.0], "P: expected a numpy array, got list"),
                                         ("text", "P: expected a numpy array, got str")])
def test_a_result_part_that_is_no_array_is_refused_in_the_checkouts_words(value, says):
    with pytest.raises(sandbox_child.ResultRefused, match=says):
        sandbox_child._sendable(value, "P")


def test_arguments_are_unpacked_as_the_grader_packed_them():
    arrays = {"a0": (np.ones(2), False), "a1": (np.array(3.0), True)}
    packed = {"$list": [{"$array": "a0"}, {"$tuple": [{"$array": "a1"}, 2]}, {"$dict": {"k": None}}]}
    value = sandbox_wire.unpack(packed, arrays)
    assert isinstance(value, list) and value[0] is arrays["a0"][0]
    assert value[1] == (np.float64(3.0), 2) and isinstance(value[1][0], np.float64) and value[2] == {"k": None}


def test_arrays_cross_the_wire_as_writable_arrays_of_their_shape_and_dtype_back_to_back():
    sent = [("s", np.float32(2.5), True), ("e", np.zeros((0, 3)), False), ("m", np.arange(6, dtype="<i2").reshape(2, 3), False),
            ("b", np.array([True, False]), False), ("t", np.arange(24.0).reshape(2, 3, 4)[:, ::2], False)]
    data = sandbox_wire.encode({"nonce": 1}, sent)
    header, arrays = sandbox_wire.read_message(_reader(data), 1 << 20, 1 << 20)
    assert header["nonce"] == 1 and list(arrays) == [name for name, _, _ in sent]
    for name, value, scalar in sent:
        got, got_scalar = arrays[name]
        assert got_scalar is scalar and got.dtype == value.dtype and got.shape == np.shape(value)
        assert np.array_equal(got, value) and got.flags.writeable and got.flags.c_contiguous
    arrays["m"][0][0, 0] = 7  # the learner's function may write into its inputs
    assert arrays["m"][0][0, 0] == 7 and arrays["b"][0].tolist() == [True, False]


def _reader(data):
    view = memoryview(data)

    def exact(n):
        nonlocal view
        chunk, view = view[:n], view[n:]
        return bytes(chunk)
    return exact


def test_emptying_a_scratch_folder_keeps_the_exposed_folders_inside_it(tmp_path):
    kept = tmp_path / "venv" / "lib"
    kept.mkdir(parents=True)
    (kept / "numpy.py").write_text("x")
    (tmp_path / "venv" / "left.txt").write_text("x")
    (tmp_path / "sub" / "deep").mkdir(parents=True)
    (tmp_path / "file").write_text("x")
    sandbox_child._empty(str(tmp_path), [str(kept)])
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == \
        ["venv", "venv/lib", "venv/lib/numpy.py"]


def _in_a_forked_process(check):
    """Run check() in a fork (a seccomp filter cannot be removed); return its exit code."""
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(check())
        finally:
            os._exit(99)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def _started_a_thread():
    import threading
    done = []
    thread = threading.Thread(target=done.append, args=(1,))  # clone3 -> ENOSYS -> clone with CLONE_THREAD
    thread.start()
    thread.join()
    return done == [1]


@pytest.fixture(scope="module")
def programs():
    try:
        return sandbox_seccomp.programs()
    except OSError:
        pytest.skip("libseccomp.so.2 is not installed here")


def test_the_zygote_filter_denies_user_namespaces_and_nothing_else(programs):
    def check():
        libc = ctypes.CDLL(None, use_errno=True)
        sandbox_seccomp.load(programs["zygote"])
        if libc.unshare(CLONE_NEWUSER) != -1 or ctypes.get_errno() != 1:  # EPERM
            return 1
        pid = os.fork()  # clone without the flag still works
        if pid == 0:
            os._exit(0)
        if os.waitpid(pid, 0)[1] != 0:
            return 2
        return 0 if _started_a_thread() else 3

    assert _in_a_forked_process(check) == 0


def test_the_child_filter_denies_processes_signals_tracing_and_memory_outside_the_address_space(programs):
    def check():
        libc = ctypes.CDLL(None, use_errno=True)
        sandbox_seccomp.load(programs["zygote"])
        sandbox_seccomp.load(programs["child"])
        denied = [libc.shmget(0, 1 << 20, 0o1600), libc.memfd_create(b"x", 0), libc.kill(os.getppid(), 0),
                  libc.ptrace(16, os.getppid(), 0, 0), libc.syscall(57)]  # 57: fork
        if denied != [-1] * 5 or ctypes.get_errno() != 1:
            return 1
        try:
            os.fork()
            return 2
        except PermissionError:
            pass
        return 0 if _started_a_thread() else 3

    assert _in_a_forked_process(check) == 0
