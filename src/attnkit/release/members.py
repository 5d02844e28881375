"""What the leak check reads: every file of a release, and what is inside its archives and compressed files.

Symbolic links are refused, not followed: `zip -r`, `shutil.make_archive` and a copy store what a
link points at, which may be anywhere (`solutions/`, the hidden cases), so a link is reported as
such, whatever its target. Archives (zip, wheel, `.npz`, tar) and compressed streams (gzip, bzip2,
xz) are recognised by their first bytes, whatever their name, and opened, nested ones too, down to
MAX_DEPTH levels; at most MAX_EXPANDED bytes come out of one file's archives and streams together,
so a zip bomb is refused rather than read. What cannot be opened this way is reported, not passed.
A member an archive holds as it is (uncompressed in a zip, any in a tar) is scanned as that member, and
not a second time as bytes of the archive (but the edges, where a pattern may cross into the archive's own bytes).
"""
import bz2
import gzip
import io
import lzma
import os
import struct
import tarfile
import zipfile
from pathlib import Path

MAX_DEPTH = 6  # a wheel in a zip in a .tar.xz is 4 levels
MAX_EXPANDED = 64 << 20
MARGIN = 256  # longer than any pattern the check looks for in one piece (a name, a solution line, a number's text)
NUMBER_BYTES = b"0123456789.eE+-"  # what the text of a number is made of (leaks._NUMBER)


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
    """(members, held) of the archive or compressed stream `data`: members are (name, open), `open()` giving
    a readable file; held are the (start, end) byte spans of `data` that a member holds as it is (an
    uncompressed zip member, a tar member); ([], []) when `data` is neither."""
    stream = _streams(data)
    if stream:
        return [(Path(path.rsplit("!", 1)[-1]).stem, lambda: stream(io.BytesIO(data)))], []
    if zipfile.is_zipfile(io.BytesIO(data)):
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = [info for info in archive.infolist() if not info.is_dir()]
        return [(info.filename, lambda info=info: archive.open(info)) for info in infos], _zip_held(data, infos)
    if data[257:262] == b"ustar":
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:")
        files = [member for member in archive.getmembers() if member.isfile()]
        return ([(member.name, lambda member=member: archive.extractfile(member)) for member in files],
                [(m.offset_data, m.offset_data + m.size) for m in files if not m.issparse()])
    return [], []


def _zip_held(data, infos):
    """The byte spans of `data`, a zip, of its stored (uncompressed, unencrypted) members `infos`: their
    bytes, after their local header (30 bytes, the name, the extra field)."""
    held = []
    for info in infos:
        header = info.header_offset
        if info.compress_type == zipfile.ZIP_STORED and not info.flag_bits & 1 and \
                data[header:header + 4] == b"PK\x03\x04":
            start = header + 30 + sum(struct.unpack("<HH", data[header + 26:header + 30]))
            held.append((start, start + info.compress_size))
    return held


def _outside(data, held):
    """The pieces (bytes) of `data` outside what its members hold as they are (the spans `held`), since each
    member is scanned on its own: each span but its first and last MARGIN bytes is cut out, so a pattern
    crossing a span's edge stays whole; a cut does not split a number's text (_NUMBER_BYTES). The pieces are
    scanned one by one: joined, they would make byte sequences the file does not hold."""
    cuts = sorted(cut for cut in ((_edge(data, start + MARGIN, 1), _edge(data, end - MARGIN, -1))
                                  for start, end in held) if cut[0] < cut[1])
    pieces, at = [], 0
    for start, end in cuts:
        if start > at:
            pieces.append(data[at:start])
        at = max(at, end)
    return [*pieces, data[at:]]


def _edge(data, at, step):
    """`at`, moved by `step` (1 or -1) past the number bytes it falls among."""
    while 0 < at < len(data) and data[at - (step < 0)] in NUMBER_BYTES:
        at += step
    return at


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


_DAMAGED = (OSError, EOFError, RuntimeError, zipfile.BadZipFile, tarfile.TarError, lzma.LZMAError)


def _damaged(err, path):
    return Unreadable(f"a damaged or encrypted archive: not read ({err})", path)


def members(path, data, budget=None, depth=0):
    """(path, bytes) of a file and, recursively, of every member of the archives and compressed streams it
    is ("path!member"); a file's bytes come without what its members hold as they are, in pieces (_outside); raises
    Unreadable where the check cannot go on."""
    budget = budget or _Budget()
    try:
        inside, held = _inside(path, data)
    except _DAMAGED as err:
        yield path, data
        raise _damaged(err, path) from err
    for piece in _outside(data, held):
        yield path, piece
    try:
        if inside and depth == MAX_DEPTH:
            raise Unreadable(f"archives nested more than {MAX_DEPTH} deep: not read")
        for name, opened in inside:
            yield from members(f"{path}!{name}", budget.read(opened), budget, depth + 1)
    except Unreadable as err:
        err.path = err.path or path
        raise
    except _DAMAGED as err:
        raise _damaged(err, path) from err
