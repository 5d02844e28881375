"""The names of the files written for each student (`--feedback`, `--gradescope` with several PATHs).

A name is `<slug>-<digest>`: the slug is the student id made readable and safe (letters, digits, `.`,
`-`, `_`; the rest `_`; no leading `.`, `-` or `_`; at most SLUG_BYTES bytes of UTF-8), the digest the
first DIGEST_HEX hex digits of the SHA-256 of the exact id. So a name depends on its student's id
only (never on the other students, their order or which finished first), two ids never share one
(`_bob` and `bob`, or `Bob` and `bob` on a case-insensitive file system, differ in their digest), and
with its suffix and the atomic writer's temporary name it stays far below the 255 bytes a file name
may take. A student with several submissions in one run gets the digest of id and path for each.
"""
import hashlib
import re
from collections import Counter

from .students import assign

SLUG_BYTES = 48
DIGEST_HEX = 12
_UNSAFE = re.compile(r"[^\w.-]+")


def slug(student_id):
    """The readable part of a file name for `student_id`, e.g. 'O_Brien' for "O'Brien"."""
    text = _UNSAFE.sub("_", student_id).lstrip("._-")
    return text.encode("utf-8")[:SLUG_BYTES].decode("utf-8", "ignore") or "student"


def digest(text):
    """DIGEST_HEX hex digits of the SHA-256 of `text` (lone surrogates, from undecodable file names, as their bytes)."""
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:DIGEST_HEX]


def stems(paths, roster=None):
    """{submission path: file name without suffix} for the submissions at `paths` (see the module's docstring).

    ValueError if two would still share a name (their digests would have to collide).
    """
    ids = {path: who.id for path, who in assign(list(dict.fromkeys(paths)), roster).items()}
    count = Counter(ids.values())

    def stem_of(path, sid):
        exact = sid if count[sid] == 1 else f"{sid}\0{path}"
        return f"{slug(sid)}-{digest(exact)}"
    names = {path: stem_of(path, sid) for path, sid in ids.items()}
    owner = {}
    for path, name in names.items():
        other = owner.setdefault(name.casefold(), path)
        if other != path:
            raise ValueError(f"{other!r} and {path!r} would both write files named {name}: grade them in separate runs")
    return names
