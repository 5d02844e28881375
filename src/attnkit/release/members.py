"""What the leak check reads: every file of a release, and what is inside its archives and compressed files.

Symbolic links are refused, not followed: `zip -r`, `shutil.make_archive` and a copy store what a
link points at, which may be anywhere (`solutions/`, the hidden cases), so a link is reported as
such, whatever its target. Archives (zip, wheel, `.npz`, tar) and compressed streams (gzip, bzip2,
xz) are recognised by their first bytes, whatever their name, and opened, nested ones too, down to
MAX_DEPTH levels; at most MAX_EXPANDED bytes come out of one file's archives and streams together,
so a zip bomb is refused rather than read. What cannot be opened this way is reported, not passed.
"""
import bz2
import gzip
import io
import lzma
import os
import tarfile
import zipfile
from pathlib import Path

MAX_DEPTH = 6  # a wheel in a zip in a .tar.xz is 4 levels
MAX_EXPANDED = 64 << 20


class Unreadable(Exception):
    """A file or member the check cannot read whole: `why`, and the `path` where it stopped."""

    def __init__(self, why, path=None):
        super().__init__(why)
        self.why, self.path = why, path


def files(folder):
    """(relative path, Path) of every regular file and every symbolic link (to a file or a folder) below
    `folder`; a linked folder is not entered (links are not followed, see the module docstring)."""
    for root, dirs, names in os.walk(folder):
        for name in sorted(dirs + names):
            path = Path(root) / name
            if path.is_symlink() or (name in names and path.is_file()):
                yield str(path.relative_to(folder)), path


def _streams(data):
    """The `open` of the compressed stream (gzip, bzip2, xz) whose magic bytes `data` starts with, or None."""
    if data[:2] == b"\x1f\x8b":
        return gzip.open
    if data[:3] == b"BZh":
        return bz2.open
    if data[:6] == b"\xfd7zXZ\x00":
        return lzma.open
    return None


def _inside(path, data):
    """(name, open) of what the archive or compressed stream `data` holds: `open()` gives a readable
    file; [] when `data` is neither."""
    stream = _streams(data)
    if stream:
        return [(Path(path.rsplit("!", 1)[-1]).stem, lambda: stream(io.BytesIO(data)))]
    if zipfile.is_zipfile(io.BytesIO(data)):
        archive = zipfile.ZipFile(io.BytesIO(data))
        return [(info.filename, lambda info=info: archive.open(info)) for info in archive.infolist() if not info.is_dir()]
    if data[257:262] == b"ustar":
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
        return [(member.name, lambda member=member: archive.extractfile(member))
                for member in archive.getmembers() if member.isfile()]
    return []


class _Budget:
    def __init__(self):
        self.left = MAX_EXPANDED

    def read(self, opened):
        with opened() as member:
            data = member.read(self.left + 1)
        if len(data) > self.left:
            raise Unreadable(f"expands to more than {MAX_EXPANDED >> 20} MiB (a zip bomb?): not read")
        self.left -= len(data)
        return data


def members(path, data, budget=None, depth=0):
    """(path, bytes) of a file and, recursively, of every member of the archives and compressed streams it
    is ("path!member"); raises Unreadable where the check cannot go on."""
    budget = budget or _Budget()
    yield path, data
    try:
        inside = _inside(path, data)
        if inside and depth == MAX_DEPTH:
            raise Unreadable(f"archives nested more than {MAX_DEPTH} deep: not read")
        for name, opened in inside:
            yield from members(f"{path}!{name}", budget.read(opened), budget, depth + 1)
    except Unreadable as err:
        err.path = err.path or path
        raise
    except (OSError, EOFError, RuntimeError, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError) as err:
        raise Unreadable(f"a damaged or encrypted archive: not read ({err})", path) from err
