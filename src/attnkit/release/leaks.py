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


def _found_in(sorted_values, values):
    """Which of `values` (a bool array of their shape) the sorted numpy array `sorted_values` holds."""
    if not sorted_values.size:
        return np.zeros(np.shape(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_values, values), sorted_values.size - 1)
    return sorted_values[at] == values


def _holds(sorted_values, value):
    return bool(_found_in(sorted_values, value))


@dataclass(frozen=True)
class Spellings:
    """The texts some values are written as, kept as the values: a float64 as Python's repr
    ("0.12345678901234"), a float32 as numpy spells it ("0.12345679"). `bits` holds the float64 values'
    8 bytes as sorted uint64 (the raw patterns, which hold them anyway), `float32` the float32 values sorted."""

    bits: np.ndarray
    float32: np.ndarray

    def __contains__(self, text):
        """Whether `text` (bytes, a number as _NUMBER finds it) is the spelling of one of the values."""
        x = float(text)
        with np.errstate(over="ignore"):  # a float64 beyond float32's range is inf there, which no value spells
            x32 = np.float32(x)
        return (repr(x).encode() == text and _holds(self.bits, np.float64(x).view(np.uint64))) or \
            (str(x32).encode() == text and _holds(self.float32, x32))


@dataclass(frozen=True)
class Secrets:
    names: frozenset  # of bytes
    numbers: Spellings  # hidden values written as text
    public_numbers: Spellings  # public values: their texts are no secret, whatever hidden value they spell too
    lines: frozenset  # of str

    @property
    def raw(self):
        """uint64, sorted: 8 bytes of a hidden float64 value, or of two neighbouring float32 values."""
        return self.numbers.bits

    def hidden_number(self, text):
        """Whether the number `text` (bytes) spells a hidden value that no public value spells too."""
        return text in self.numbers and text not in self.public_numbers


def _arrays(case):
    """Every float array a case's calls take or give."""
    calls = case.build_calls()
    values = [v for kwargs in calls for arg, v in kwargs.items() for v in (v if arg.startswith("*") else [v])]
    values += [v for out in checks.expected_outputs(case, calls) or [] for v in out.values()]
    return [a for a in map(np.asarray, values) if a.dtype in (np.float32, np.float64) and a.size]


def _distinctive(flat):
    """Which of the values `flat` need at least MIN_DIGITS significant digits and more than
    MIN_MANTISSA_BITS binary digits (a bool mask)."""
    x = flat.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # zeros and non-finite values are left out
        scaled = x / 10.0 ** (np.floor(np.log10(np.abs(x))) - (MIN_DIGITS - 2))  # MIN_DIGITS - 1 digits before the point
        short_binary = np.ldexp(np.frexp(x)[0], MIN_MANTISSA_BITS) % 1 == 0
        return np.isfinite(x) & (x != 0) & (np.abs(scaled - np.rint(scaled)) > 1e-9 * np.abs(scaled)) & ~short_binary


def _raw_patterns(flat, keep):
    """The 8-byte patterns of the distinctive values of `flat` (as float64, and as pairs of neighbouring float32)."""
    patterns = [flat[keep].astype(np.float64).view(np.uint64)]
    if flat.dtype == np.float32 and flat.size >= 2:
        pairs = np.lib.stride_tricks.sliding_window_view(flat, 2)[keep[:-1] & keep[1:]]
        patterns.append(np.ascontiguousarray(pairs).view(np.uint64).ravel())
    return np.concatenate(patterns)


def _values(cases, public_raw=np.array([], dtype=np.uint64)):
    """(raw patterns but those of `public_raw`, float32 values) of the distinctive values of every float
    array of `cases`, each a sorted numpy array without repeats. A float32 value is also written as the
    float64 it converts to. Each case's patterns are reduced as they come (memory: 14 M of them)."""
    raw, as32 = [np.array([], dtype=np.uint64)], [np.array([], dtype=np.float32)]
    for case in cases:
        patterns = [np.array([], dtype=np.uint64)]
        for arr in _arrays(case):
            flat = np.ascontiguousarray(arr.ravel())
            keep = _distinctive(flat)
            patterns.append(_raw_patterns(flat, keep))
            if flat.dtype == np.float32:
                as32.append(flat[keep])
        raw.append(_without(_sorted_set(patterns), public_raw))
    return _sorted_set(raw), _sorted_set(as32)


def _sorted_set(arrays):
    """The values of the list `arrays` sorted, without repeats; empties the list as it goes (memory).
    Not np.unique: its hash table takes minutes on 14 M floats."""
    values = np.empty(sum(a.size for a in arrays), dtype=arrays[0].dtype)
    end = values.size
    while arrays:
        part = arrays.pop()
        values[end - part.size:end] = part
        end -= part.size
    values.sort()
    first = np.ones(values.size, dtype=bool)
    first[1:] = values[1:] != values[:-1]
    return values[first]


def _without(values, sorted_other, chunk=1 << 20):
    """The values of `values` that `sorted_other` does not hold, a chunk at a time (memory)."""
    keep = np.concatenate([~_found_in(sorted_other, values[i:i + chunk]) for i in range(0, values.size, chunk)] or
                          [np.zeros(0, dtype=bool)])
    return values[keep]


def secrets(solutions_dir=SOLUTIONS_DIR):
    """What must never reach a student, from the hidden cases and the solution blocks."""
    hidden = cases_for(visibility="hidden")
    if not hidden:
        raise ValueError("no hidden case to look for: this kit holds none (run the check from the kit's "
                         "checkout, where the hidden cases are)")
    public_raw, public_float32 = _values(cases_for(visibility="public"))
    raw, float32 = _values(hidden, public_raw)
    lines = set()
    for step in manifest.steps():
        source = (Path(solutions_dir) / step.filename).read_text(encoding="utf-8")
        stub = strip_solutions(source, step)  # a line the stub also holds (a docstring's formula) is taught
        lines |= {line for line in solution_lines(source)
                  if len(line) >= MIN_LINE and not line.startswith("#") and line not in stub}
    return Secrets(frozenset(c.name.encode() for c in hidden), Spellings(raw, float32),
                   Spellings(public_raw, public_float32), frozenset(lines))


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
        hits |= set(words[_found_in(raw, words)].tolist())
    return sorted(hits)


def scan_bytes(path, data, found):
    """Add a Finding to `found` for each secret in `data` (the bytes of the file or member `path`)."""
    for name in sorted(found.secrets.names):
        if name in data:
            found.add(path, "hidden case name", name.decode())
    numbers = [text for text in sorted({m.group() for m in _NUMBER.finditer(data)}) if found.secrets.hidden_number(text)]
    for number in numbers[:5]:
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
