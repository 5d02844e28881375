"""The leak check of a student release: no hidden case and no solution code anywhere in it.

Every file is scanned as bytes, and so is every member of an archive inside it (wheels, zips,
`.npz`, tarballs), for: a hidden case's name; a hidden case's inputs or expected values, as the
text of a number or as raw float bytes; a line of a `### BEGIN/END SOLUTION` block. The hidden
cases come from the kit's API (`cases_for(visibility="hidden")`), wherever the kit keeps them.
A hidden value that a public case also holds (the same lesson numbers in float32, say) is public.
"""
import io
import re
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import checks, manifest
from ..cases import cases_for
from ..paths import SOLUTIONS_DIR
from ..stubs import solution_lines, strip_solutions

MIN_LINE = 12  # shorter solution lines ("return P", "else:") are everyday code, not a solution
MIN_DIGITS = 6  # a value with fewer significant digits (0.5, 0.378) says nothing about its case
MIN_MANTISSA_BITS = 16  # nor does a short binary fraction (-9/512): arithmetic on other data hits those too
_NUMBER = re.compile(rb"-?\d+\.\d+(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Finding:
    path: str  # the file, and "!member" for a member of an archive in it
    kind: str  # "hidden case name", "hidden value", "hidden value bytes" or "solution line"
    what: str

    def __str__(self):
        return f"{self.path}: {self.kind}: {self.what}"


@dataclass(frozen=True)
class Secrets:
    names: frozenset  # of bytes
    numbers: frozenset  # of bytes, the texts a hidden value is written as
    raw: np.ndarray  # uint64: 8 bytes of a hidden float64 value, or of two neighbouring float32 values
    lines: frozenset  # of str


def _arrays(case):
    """Every float array a case's calls take or give."""
    calls = case.build_calls()
    values = [v for kwargs in calls for arg, v in kwargs.items() for v in (v if arg.startswith("*") else [v])]
    values += [v for out in checks.expected_outputs(case, calls) or [] for v in out.values()]
    return [a for a in map(np.asarray, values) if a.dtype in (np.float32, np.float64) and a.size]


def _distinctive(values):
    """The values (float64) that need at least MIN_DIGITS significant digits and more than
    MIN_MANTISSA_BITS binary digits, without repeats."""
    x = np.unique(values[np.isfinite(values) & (values != 0)].astype(np.float64))
    scaled = x / 10.0 ** (np.floor(np.log10(np.abs(x))) - (MIN_DIGITS - 2))  # MIN_DIGITS - 1 digits before the point
    short_binary = np.ldexp(np.frexp(x)[0], MIN_MANTISSA_BITS) % 1 == 0
    return x[(np.abs(scaled - np.rint(scaled)) > 1e-9 * np.abs(scaled)) & ~short_binary]


def _number_texts(arr):
    texts = set()
    for x in _distinctive(arr.ravel()).tolist():
        texts.add(repr(x).encode())
        if arr.dtype == np.float32:
            texts.add(str(np.float32(x)).encode())
    return texts


def _raw_patterns(arr):
    flat = np.ascontiguousarray(arr.ravel())
    patterns = set(_distinctive(flat).view(np.uint64).tolist())
    if arr.dtype == np.float32 and flat.size >= 2:
        pairs = np.lib.stride_tricks.sliding_window_view(flat, 2)
        keep = np.isin(flat.astype(np.float64), _distinctive(flat))
        pairs = pairs[keep[:-1] & keep[1:]]
        patterns |= set(np.ascontiguousarray(pairs).view(np.uint64).ravel().tolist())
    return patterns


def secrets(solutions_dir=SOLUTIONS_DIR):
    """What must never reach a student, from the hidden cases and the solution blocks."""
    public_numbers, public_raw, numbers, raw = set(), set(), set(), set()
    for case in cases_for(visibility="public"):
        for arr in _arrays(case):
            public_numbers |= _number_texts(arr)
            public_raw |= _raw_patterns(arr)
    hidden = cases_for(visibility="hidden")
    if not hidden:
        raise ValueError("no hidden case to look for: this kit holds none (run the check from the kit's "
                         "checkout, where the hidden cases are)")
    for case in hidden:
        for arr in _arrays(case):
            numbers |= _number_texts(arr)
            raw |= _raw_patterns(arr)
    lines = set()
    for step in manifest.steps():
        source = (Path(solutions_dir) / step.filename).read_text(encoding="utf-8")
        stub = strip_solutions(source, step)  # a line the stub also holds (a docstring's formula) is taught
        lines |= {line for line in solution_lines(source)
                  if len(line) >= MIN_LINE and not line.startswith("#") and line not in stub}
    return Secrets(frozenset(c.name.encode() for c in hidden), frozenset(numbers - public_numbers),
                   np.array(sorted(raw - public_raw), dtype=np.uint64), frozenset(lines))


def _members(path, data):
    """(path, bytes) of a file and, recursively, of every member of the archives it is."""
    yield path, data
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for name in archive.namelist():
                yield from _members(f"{path}!{name}", archive.read(name))
    elif path.endswith((".tar", ".tar.gz", ".tgz")):
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            for member in archive.getmembers():
                if member.isfile():
                    yield from _members(f"{path}!{member.name}", archive.extractfile(member).read())


def _raw_hits(data, raw):
    """The hidden 8-byte patterns found in `data`, at any byte offset."""
    if not raw.size or len(data) < 8:
        return []
    hits = set()
    for offset in range(8):
        usable = (len(data) - offset) // 8 * 8
        words = np.frombuffer(data, dtype=np.uint64, count=usable // 8, offset=offset)
        at = np.minimum(np.searchsorted(raw, words), raw.size - 1)  # `raw` is sorted
        hits |= set(words[raw[at] == words].tolist())
    return sorted(hits)


def scan_bytes(path, data, found):
    """Add a Finding to `found` for each secret in `data` (the bytes of the file or member `path`)."""
    for name in sorted(found.secrets.names):
        if name in data:
            found.add(path, "hidden case name", name.decode())
    numbers = {m.group() for m in _NUMBER.finditer(data)} & found.secrets.numbers
    for number in sorted(numbers)[:5]:
        found.add(path, "hidden value", number.decode())
    for word in _raw_hits(data, found.secrets.raw)[:5]:
        found.add(path, "hidden value bytes", f"{np.array([word], dtype=np.uint64).tobytes().hex()} "
                                              f"(as float64 {np.array([word], dtype=np.uint64).view(np.float64)[0]!r})")
    text = data.decode("utf-8", errors="ignore")
    for line in sorted(found.secrets.lines):
        if line in text:
            found.add(path, "solution line", line)


class _Found(list):
    def __init__(self, secrets):
        super().__init__()
        self.secrets = secrets

    def add(self, path, kind, what):
        self.append(Finding(path, kind, what))


def scan(folder, secrets_=None):
    """[Finding] for every leak in the files below `folder` (an empty list: the release is clean)."""
    folder = Path(folder)
    found = _Found(secrets_ or secrets())
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()):
        for name, data in _members(str(path.relative_to(folder)), path.read_bytes()):
            scan_bytes(name, data, found)
    return list(found)
