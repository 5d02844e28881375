"""The leak check of a student release: no hidden case and no solution code anywhere in it.

Every file is scanned as bytes, and so is every member of an archive or compressed file inside it
(wheels, zips, `.npz`, tarballs, `.gz`, `.bz2`, `.xz`, nested too: see members.py, which also says
why symbolic links are refused), for: a hidden case's name; a hidden case's inputs or expected
values, as raw float bytes or as the text of a number at any precision a printer writes (see
printed.py for when a printed number counts); a line of a `### BEGIN/END SOLUTION` block. Names
and solution lines are also looked for in the text that HTML markup shows (a syntax-highlighted
export wraps every token in a `<span>` and writes `"` as `&quot;`). The hidden cases come from the
kit's API (`cases_for(visibility="hidden")`), wherever the kit keeps them. A hidden value that a
public case also holds (the same lesson numbers in float32, say) is public. The values of a float `.npy`
(each array of an `.npz`) are looked for as float bytes only, at each value's start (_float_npy); the files
are scanned in batches, each search one go over many of them (_scan).
"""
import enum
import html
import io
import math
import os
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np

from ..fingerprint import made_of
from ..paths import SOLUTIONS_DIR
from .members import MARGIN, NUMBER_BYTES, Unreadable, files, members
from .printed import Texts, Values, found_in, leaked
from .stored import kept

MIN_LINE = 12  # shorter solution lines ("return P", "else:") are everyday code, not a solution
MIN_DIGITS = 6  # a value with fewer significant digits (0.5, 0.378) says nothing about its case
MIN_MANTISSA_BITS = 16  # nor does a short binary fraction (-9/512): arithmetic on other data hits those too
_NUMBER = re.compile(rb"-?\d+\.\d+(?:[eE][-+]?\d+)?")
_NUMBER_BYTES = np.zeros(256, dtype=bool)  # the bytes a match of _NUMBER is made of: it never reads past another
_NUMBER_BYTES[np.frombuffer(NUMBER_BYTES, dtype=np.uint8)] = True
_STRETCHES = bytes(byte if byte in NUMBER_BYTES else ord(" ") for byte in range(256))  # bytes.translate: stretches
# of number bytes, split at spaces (a match of _NUMBER holds only number bytes, so it is one stretch's)
_DIGITS = np.zeros(256, dtype=bool)
_DIGITS[np.frombuffer(b"0123456789", dtype=np.uint8)] = True
RAW_FILTER_BITS = 27  # a bitmap of 2**27 bits (16 MB) of hashed `raw` patterns: 1 in 10 other words pass it
_HASH = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing: the top bits of word * this spread even close words
_TAG = re.compile(r"<[^<>]*>")
MAX_SHOWN = 5  # findings of one kind shown for one file
LINKS_REFUSED = "symbolic links are refused, not followed"
_STORED = "leak-secrets-3"  # the stored secrets' name (a new number when their layout changes)
_SIDES = ("hidden", "public")
_VALUES_FIELDS = ("sorted", "places", "ranks", "float32_starts", "float32_ends")


class Kind(str, enum.Enum):
    NAME = "hidden case name"
    VALUE = "hidden value"
    BYTES = "hidden value bytes"
    LINE = "solution line"
    LINK = "symbolic link"
    NOT_READ = "not read"


@dataclass(frozen=True)
class Finding:
    path: str  # the file, and "!member" for a member of an archive in it
    kind: Kind
    what: str

    def __str__(self):
        return f"{self.path}: {self.kind.value}: {self.what}"


@dataclass(frozen=True)
class Secrets:
    names: frozenset  # of bytes
    hidden: Values  # the hidden values
    public: Values  # public values: what they print as is no secret, whatever hidden value it prints too
    lines: frozenset  # of str
    raw_filter: np.ndarray  # uint8, 2**RAW_FILTER_BITS bits (little-endian): raw_filter_bits(raw), see there
    raw_prefixes: np.ndarray  # bool, 2**16: raw_prefixes(raw), see there

    def raw(self, words):
        """Which of the uint64 array `words` are hidden 8-byte patterns (a bool mask): the bytes of a hidden
        float64 value, or of two neighbouring float32 values, that no public case holds as well."""
        raw = self.hidden.patterns(words)
        raw[raw] = ~self.public.patterns(words[raw])
        return raw

    @cached_property
    def line_bytes(self):
        """`lines` as UTF-8 bytes."""
        return frozenset(line.encode() for line in self.lines)

    def hidden_number(self, text):
        """Whether the number `text` (bytes), alone, prints a hidden value (see printed.py)."""
        return bool(leaked(self.hidden, self.public, Texts.of([text])))


def _arrays(case):
    """Every float array a case's calls take or give."""
    from .. import checks  # here, as the kit's cases and solutions below: a check whose secrets are stored needs none

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


def raw_prefixes(raw):
    """A bool array of 2**16: which top 16 bits (sign, exponent, 4 bits of mantissa) a pattern of the sorted
    uint64 array `raw` has: a table that stays in the processor's cache, looked up first (raw_filter, 16 MB,
    only for the words it lets through)."""
    starts = np.searchsorted(raw, np.arange(1 << 16, dtype=np.uint64) << np.uint64(48))
    return np.append(starts[1:], raw.size) > starts


def _raw_hash(words):
    """The RAW_FILTER_BITS-bit hashes (int64) of the uint64 array `words`."""
    return ((words * _HASH) >> np.uint64(64 - RAW_FILTER_BITS)).astype(np.int64)


def raw_filter_bits(raw):
    """The bitmap (uint8, little-endian bits) of the hashes of the patterns `raw`: a word whose bit is
    clear is no pattern, so that a scan looks up in `raw` only the few words that may be one."""
    bits = np.zeros(1 << RAW_FILTER_BITS, dtype=bool)
    bits[_raw_hash(raw)] = True
    return np.packbits(bits, bitorder="little")


def _may_be_raw(words, raw_filter):
    """Which of the uint64 array `words` have their bit set in `raw_filter` (a bool mask)."""
    at = _raw_hash(words)
    return (np.asarray(raw_filter)[at >> 3] >> (at & 7).astype(np.uint8)) & 1 == 1


def _values(cases, public_raw=np.array([], dtype=np.uint64)):
    """(raw patterns but those of `public_raw`, a sorted numpy array without repeats; Values) of the
    distinctive values of every float array of `cases`. Each case's patterns are reduced as they come
    (memory: 14 M of them)."""
    raw, parts = [np.array([], dtype=np.uint64)], []
    for case in cases:
        patterns = [np.array([], dtype=np.uint64)]
        for arr in _arrays(case):
            flat = np.ascontiguousarray(arr.ravel())
            keep = _distinctive(flat)
            patterns.append(_raw_patterns(flat, keep))
            parts.append(Values.part(flat, keep))
        raw.append(_without(_sorted_set(patterns), public_raw))
    return _sorted_set(raw), Values.of(parts)


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
    keep = np.concatenate([~found_in(sorted_other, values[i:i + chunk]) for i in range(0, values.size, chunk)] or
                          [np.zeros(0, dtype=bool)])
    return values[keep]


def secrets(solutions_dir=SOLUTIONS_DIR):
    """What must never reach a student, from the hidden cases and the solution blocks: built once for what
    they are made of (the cases, the solutions, numpy's version and the code this module runs:
    fingerprint.made_of) and read back on later runs (stored.py)."""
    arrays, texts = kept(_STORED, secrets_key(solutions_dir), lambda: _stored(_built(solutions_dir)))
    values = {side: Values(*(arrays[f"{side}_{field}"] for field in _VALUES_FIELDS)) for side in _SIDES}
    return Secrets(frozenset(name.encode() for name in texts["names"]), values["hidden"], values["public"],
                   frozenset(texts["lines"]), arrays["raw_filter"], arrays["raw_prefixes"])


def secrets_key(solutions_dir=SOLUTIONS_DIR):
    """The stored secrets' key: what they are made of (see secrets)."""
    return made_of(_STORED, __name__, solutions_dir)


def _stored(made):
    """The arrays and texts of the Secrets `made`, as stored.kept keeps them."""
    arrays = {f"{side}_{field}": getattr(getattr(made, side), field) for side in _SIDES for field in _VALUES_FIELDS}
    texts = {"names": sorted(name.decode() for name in made.names), "lines": sorted(made.lines)}
    return {**arrays, "raw_filter": made.raw_filter, "raw_prefixes": made.raw_prefixes}, texts


def _built(solutions_dir):
    """The Secrets, computed from the kit's cases and solutions (only when none are stored for them: the cases
    are parsed here, not on a later run); raises ValueError when the kit holds no hidden case."""
    from .. import manifest
    from ..cases import cases_for
    from ..stubs import solution_lines, strip_solutions

    hidden = cases_for(visibility="hidden")
    if not hidden:
        raise ValueError("no hidden case to look for: this kit holds none (run the check from the kit's "
                         "checkout, where the hidden cases are)")
    public_raw, public = _values(cases_for(visibility="public"))
    raw, hidden_values = _values(hidden, public_raw)
    lines = set()
    for step in manifest.steps():
        source = (Path(solutions_dir) / step.filename).read_text(encoding="utf-8")
        stub = strip_solutions(source, step)  # a line the stub also holds (a docstring's formula) is taught
        lines |= {line for line in solution_lines(source)
                  if len(line) >= MIN_LINE and not line.startswith("#") and line not in stub}
    return Secrets(frozenset(c.name.encode() for c in hidden), hidden_values, public, frozenset(lines),
                   raw_filter_bits(raw), raw_prefixes(raw))


def _raw_hits(datas, steps, secrets_):
    """[the hidden 8-byte patterns (sorted uint64 values) found in each of `datas` (bytes), at every
    steps[i]-th byte offset from its first], looked up for all of them in one go."""
    words, owners = [np.zeros(0, dtype=np.uint64)], [np.zeros(0, dtype=np.int64)]
    for offset in range(8):
        chosen = [i for i, (data, step) in enumerate(zip(datas, steps)) if offset % step == 0 and len(data) >= offset + 8]
        if not chosen or not secrets_.hidden.sorted.size:
            continue
        views = [np.frombuffer(datas[i], dtype=np.uint64, count=(len(datas[i]) - offset) // 8, offset=offset)
                 for i in chosen]
        owner = np.repeat(np.array(chosen), [view.size for view in views])
        offset_words = np.concatenate(views)
        keep = np.flatnonzero(secrets_.raw_prefixes[offset_words >> np.uint64(48)])
        keep = keep[_may_be_raw(offset_words[keep], secrets_.raw_filter)]
        words.append(offset_words[keep])
        owners.append(owner[keep])
    words, owners = np.concatenate(words), np.concatenate(owners)
    distinct, inverse = np.unique(words, return_inverse=True)  # sorted (faster lookups), each once
    hit = secrets_.raw(distinct)[inverse.ravel()] if distinct.size else np.zeros(0, dtype=bool)
    found = [[] for _ in datas]
    for i in np.unique(owners[hit]).tolist():
        found[i] = np.unique(words[hit & (owners == i)]).tolist()
    return found


@dataclass(frozen=True)
class _Heads:
    """Patterns (bytes) set out for _held: `short` ones (under 8 bytes), the others by their first 8 bytes
    (`heads`: {8 bytes: [patterns]}; `keys`: those 8 bytes as sorted uint64; `maybe`: a bool array of
    2**16, which 16-bit hashes (_head_hash) a key has)."""
    short: frozenset
    heads: dict
    keys: np.ndarray
    maybe: np.ndarray


@lru_cache(maxsize=8)
def _heads(patterns):
    """The _Heads of the frozenset `patterns` (bytes), built once per set."""
    heads = {}
    for pattern in patterns:
        if len(pattern) >= 8:
            heads.setdefault(pattern[:8], []).append(pattern)
    keys = np.sort(np.frombuffer(b"".join(heads), dtype=np.uint64))
    maybe = np.zeros(1 << 16, dtype=bool)
    maybe[_head_hash(keys)] = True
    return _Heads(frozenset(p for p in patterns if len(p) < 8), heads, keys, maybe)


def _head_hash(words):
    """16-bit hashes (int64) of the uint64 array `words`."""
    return ((words * _HASH) >> np.uint64(48)).astype(np.int64)


def _held(patterns, hays):
    """[the `patterns` (a frozenset of bytes) that each of `hays` (bytes) holds]. A text's substrings are its
    UTF-8 bytes' (so text decoded and encoded again is searched as bytes): the first 8 bytes of every pattern
    are looked up at once at each offset of every hay, and only where one is found is the rest compared."""
    set_out = _heads(patterns)
    found = [{p for p in set_out.short if p in hay} for hay in hays]
    for offset in range(8):
        chosen = [i for i, hay in enumerate(hays) if len(hay) > offset]
        if not chosen:
            continue
        views = [np.frombuffer(hays[i], dtype=np.uint64, count=(len(hays[i]) - offset) // 8, offset=offset)
                 for i in chosen]
        sizes = np.array([view.size for view in views], dtype=np.int64)
        words = np.concatenate(views)
        maybe = np.flatnonzero(set_out.maybe[_head_hash(words)])
        maybe = maybe[found_in(set_out.keys, words[maybe])]
        owner = np.searchsorted(np.cumsum(sizes), maybe, side="right")
        local = maybe - (np.cumsum(sizes) - sizes)[owner]
        for i, at in zip(np.array(chosen)[owner].tolist(), (offset + 8 * local).tolist()):
            hay = hays[i]
            found[i] |= {p for p in set_out.heads[hay[at:at + 8]] if hay.startswith(p, at)}
    return found


def _markup_free(text):
    """`text` as HTML shows it: tags dropped, entities (`&quot;`, `&#39;`, `&nbsp;`) replaced by their characters."""
    return html.unescape(_TAG.sub("", text)).replace("\xa0", " ")


def _number_texts(data):
    """_NUMBER.findall(data), the regular expression run only on the stretches of number bytes
    (_NUMBER_BYTES) that hold a digit, a point and a digit: in binary data, a few short ones."""
    bytes_ = np.frombuffer(data, dtype=np.uint8)
    digit = _DIGITS[bytes_]
    points = 1 + np.flatnonzero((bytes_[1:-1] == ord(".")) & digit[:-2] & digit[2:])
    if not points.size:
        return []
    if points.size * 64 > bytes_.size:  # a text full of numbers: each stretch of number bytes on its own
        return [text for stretch in data.translate(_STRETCHES).split() if b"." in stretch
                for text in _NUMBER.findall(stretch)]
    ends = np.concatenate([[-1], np.flatnonzero(~_NUMBER_BYTES[bytes_]), [bytes_.size]])
    at = np.unique(np.searchsorted(ends, points))  # the stretch ends[i - 1] + 1 .. ends[i] of each point
    return [text for i in at.tolist() for text in _NUMBER.findall(data, ends[i - 1] + 1, ends[i])]


def _hidden_numbers(data, secrets_):
    """The number texts (bytes, sorted) in `data` that print hidden values (see printed.py)."""
    texts = Texts.of(_number_texts(data))
    return sorted(set(leaked(secrets_.hidden, secrets_.public, texts)))


@dataclass(frozen=True)
class _Piece:
    """What is scanned of the file or member `path`: `data` for hidden bytes at every `step`-th offset and,
    when `text`, for names and solution lines (as bytes, in its decoded text and in the text its HTML markup
    shows) and printed numbers."""
    path: str
    data: bytes
    text: bool = True
    step: int = 1


def _pieces(path, data):
    """The _Pieces of the file or member `path`, whose bytes are `data`."""
    floats = _float_npy(data)
    if floats is None:
        return [_Piece(path, data)]
    start, itemsize = floats
    return [_Piece(path, data[:start + MARGIN]), _Piece(path, data[start:], False, math.gcd(itemsize, 8))]


def _float_npy(data):
    """(where its values start, their size in bytes) when `data` is an .npy file of floats and nothing else,
    else None. Its values are looked for only as what they are, hidden bytes at each value's first byte (a
    value or two neighbouring float32 ones), not as text (a name or a number's text in float bytes is
    there by chance, or by reading text's bytes as floats on purpose); its header, as text, with the first
    MARGIN bytes after it."""
    if not data.startswith(b"\x93NUMPY"):
        return None
    stream = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(stream)
        read = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}[version]
        shape, _, dtype = read(stream)
    except (ValueError, KeyError, SyntaxError, TypeError):
        return None
    start = stream.tell()
    if dtype.kind not in "fc" or dtype.fields or dtype.subdtype or \
            len(data) - start != math.prod(shape) * dtype.itemsize:
        return None
    return start, dtype.itemsize


def _scan(pieces, found):
    """[[Finding] of each of `pieces`] (_Piece), each secret searched for in all of them in one go."""
    secrets_ = found.secrets
    hays, owners = [], []
    for i, piece in enumerate(pieces):
        if not piece.text:
            continue
        text = piece.data.decode("utf-8", errors="ignore")
        texts = [piece.data, text.encode()]  # the second is `data` itself when it is UTF-8
        if b"</" in piece.data:  # closing tags: markup
            texts.append(_markup_free(text).encode())
        for hay in dict.fromkeys(texts):
            hays.append(hay)
            owners.append(i)
    held = [set() for _ in pieces]
    for i, found_there in zip(owners, _held(secrets_.names | secrets_.line_bytes, hays)):
        held[i] |= found_there
    raw = _raw_hits([piece.data for piece in pieces], [piece.step for piece in pieces], secrets_)
    return [[*(Finding(piece.path, Kind.NAME, name.decode()) for name in sorted(there & secrets_.names)),
             *(Finding(piece.path, Kind.VALUE, number.decode())
               for number in (_hidden_numbers(piece.data, secrets_) if piece.text else [])[:MAX_SHOWN]),
             *(Finding(piece.path, Kind.BYTES, _bytes_shown(word)) for word in words[:MAX_SHOWN]),
             *(Finding(piece.path, Kind.LINE, line) for line in sorted(line.decode() for line in there - secrets_.names))]
            for piece, there, words in zip(pieces, held, raw)]


def _bytes_shown(word):
    """A hidden pattern (a uint64 value) as a finding shows it: its bytes and the float64 they make."""
    as_array = np.array([word], dtype=np.uint64)
    return f"{as_array.tobytes().hex()} (as float64 {as_array.view(np.float64)[0]!r})"


class _Found(list):
    def __init__(self, secrets):
        super().__init__()
        self.secrets = secrets

    def add(self, finding):
        """Add `finding`, once (a file scanned in pieces may show one in two of them)."""
        if finding not in self:
            self.append(finding)


BATCH_BYTES = 32 << 20  # files are scanned together up to this many bytes (one search of many small ones)


def scan(folder, secrets_=None):
    """[Finding] for every leak in the files below `folder` (an empty list: the release is clean)."""
    found = _Found(secrets_ or secrets())
    batch, size = [], 0  # (the _Pieces of a file, the Finding that says where it could not be read, or None), their bytes
    for name, path in files(Path(folder)):
        if path.is_symlink():
            batch.append(([], Finding(name, Kind.LINK, f"-> {os.readlink(path)} ({LINKS_REFUSED}: an archive or a "
                                                       f"copy of the release would hold what it points at; put the "
                                                       f"file itself there)")))
            continue
        pieces, not_read = [], None
        try:
            for member, data in members(name, path.read_bytes()):
                pieces += _pieces(member, data)
        except Unreadable as err:
            not_read = Finding(err.path, Kind.NOT_READ, err.why)
        batch.append((pieces, not_read))
        size += sum(len(piece.data) for piece in pieces)
        if size >= BATCH_BYTES:
            _flush(batch, found)
            size = 0
    _flush(batch, found)
    return list(found)


def _flush(batch, found):
    """Scan the files of `batch` (emptied) and add their Findings to `found`, file by file."""
    per_piece = iter(_scan([piece for pieces, _ in batch for piece in pieces], found))
    for pieces, last in batch:
        for finding in [finding for _ in pieces for finding in next(per_piece)] + ([last] if last else []):
            found.add(finding)
    batch.clear()
