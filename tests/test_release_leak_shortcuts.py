"""The leak check's shortcuts lose no leak: a stored archive member is scanned once (as the member, the
archive's own bytes without it but its edges), a float .npy's values are looked for only as float bytes at
each value's start (its header as text), the modules' import statements are read back from the cache."""
import io
import zipfile

import numpy as np
import pytest

from attnkit import fingerprint
from attnkit.release import leaks, members
from test_release import _hidden_array, _hidden_float32_input, _hidden_run

NAME, VALUE, BYTES = leaks.Kind.NAME, leaks.Kind.VALUE, leaks.Kind.BYTES


@pytest.fixture(scope="module")
def secrets():
    return leaks.secrets()


def _hidden_name():
    return sorted(name.decode() for name in leaks.secrets().names)[0]


def _stored_zip(files, comment=b""):
    """A zip holding `files` {name: bytes} uncompressed (as np.savez writes an .npz)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.comment = comment
    return out.getvalue()


def _npz(**arrays):
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def _npy(array, comment=""):
    """`array` as an .npy file, with `comment` after its header's dict (a Python comment: numpy reads it)."""
    out = io.BytesIO()
    np.save(out, array)
    data = out.getvalue()
    start = 10 + int.from_bytes(data[8:10], "little")
    header = data[10:start].rstrip(b" \n") + f" # {comment}".encode()
    header += b" " * (-(10 + len(header) + 1) % 64) + b"\n"
    return data[:8] + len(header).to_bytes(2, "little") + header + data[start:]


def _padding():
    return b"-" * (4 * members.MARGIN)


PLANTS = {
    "raw float64 bytes in a stored .npz": (lambda: _npz(a=_hidden_array()[1]), BYTES),
    "raw float32 bytes in a stored .npz": (lambda: _npz(a=_hidden_float32_input()), BYTES),
    "a name as a stored member's file name": (lambda: _stored_zip({f"{_hidden_name()}.txt": _padding()}), NAME),
    "a name in a stored zip's comment": (lambda: _stored_zip({"a.txt": _padding()}, _hidden_name().encode()), NAME),
    "a name from a member's file name into its stored bytes": (lambda: _stored_zip(
        {_hidden_name()[:5]: _hidden_name()[5:].encode() + _padding()}), NAME),
    "printed values in a stored member": (lambda: _stored_zip(
        {"out.txt": _padding() + str(_hidden_run(leaks.secrets(), _hidden_array()[1])).encode() + _padding()}), VALUE),
    "a name in a float .npy's header": (lambda: _npy(np.zeros(3), _hidden_name()), NAME),
    "a name in a float .npy's header, in a stored .npz": (lambda: _stored_zip(
        {"a.npy": _npy(np.zeros(300), _hidden_name())}), NAME),
    "printed values in a uint8 .npy": (lambda: _npy(np.frombuffer(
        str(_hidden_run(leaks.secrets(), _hidden_array()[1])).encode(), dtype=np.uint8)), VALUE),
    "a name in a bytes .npy": (lambda: _npy(np.array([_hidden_name().encode()])), NAME),
    "printed values after a float .npy's values": (lambda: _npy(np.zeros(3)) + str(
        _hidden_run(leaks.secrets(), _hidden_array()[1])).encode(), VALUE),
}


@pytest.mark.parametrize("kind", PLANTS)
def test_a_leak_the_shortcuts_could_miss_is_found(kind, secrets, tmp_path):
    plant, expected = PLANTS[kind]
    (tmp_path / "blob").write_bytes(plant())
    found = leaks.scan(tmp_path, secrets)
    assert found and {f.kind for f in found} == {expected}, [str(f) for f in found]


def test_a_float_npy_header_with_a_comment_is_read_as_numpy_reads_it():
    """The planted header above is one numpy loads (so the shortcut, not the whole-file scan, reads it)."""
    data = _npy(np.arange(3.0), "step1_anything")
    assert leaks._float_npy(data) is not None
    assert np.array_equal(np.load(io.BytesIO(data)), np.arange(3.0))


def test_an_archive_is_scanned_without_its_stored_members_but_their_edges():
    inside = b"a" * 1000
    data = _stored_zip({"m.txt": inside})
    pieces = [piece for path, piece in members.members("z.zip", data) if path == "z.zip"]
    assert sum(map(len, pieces)) == len(data) - (len(inside) - 2 * members.MARGIN)


def test_the_release_snapshot_is_stored_so_scanned_once(secrets, tmp_path):
    from attnkit.release import release_files
    snapshot = release_files()["runtime/attnkit_runtime/data/snapshot.npz"]
    infos = zipfile.ZipFile(io.BytesIO(snapshot)).infolist()
    assert infos and all(info.compress_type == zipfile.ZIP_STORED for info in infos)
    own = [piece for path, piece in members.members("s.npz", snapshot) if "!" not in path]
    assert sum(map(len, own)) < len(snapshot) / 10


def test_import_statements_read_back_give_the_walk_its_files(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fresh = fingerprint.module_files(leaks.__name__)
    assert fingerprint._kept_statements()
    assert fingerprint.module_files(leaks.__name__) == fresh


def test_statements_are_kept_by_the_modules_text(tmp_path, monkeypatch):
    """Kept statements are used for the module whose text has that hash, and no other."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    fresh = fingerprint.module_files(leaks.__name__)
    kept = fingerprint._kept_statements()
    monkeypatch.setattr(fingerprint, "_kept_statements", lambda: {digest: [] for digest in kept})
    assert fingerprint.module_files(leaks.__name__) == {
        fingerprint._source(name)[0] for name in ("attnkit.release", leaks.__name__)}
    monkeypatch.setattr(fingerprint, "_kept_statements", lambda: {digest[::-1]: [] for digest in kept})
    assert fingerprint.module_files(leaks.__name__) == fresh
