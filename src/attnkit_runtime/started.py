"""Whether the learner has started an optional step (the extension's steps 7-9).

A step is *not started* while its file holds the code of the stub as it was handed out: the same Python
syntax tree (comments, blank lines and layout do not count; any change of code, a docstring included,
does). Its every function then still raises the stub's NotImplementedError. The file is parsed, never
run. A missing file or one that does not parse counts as started: its tests say what is wrong.

Standard library only: the student release ships this file as it is.
"""
import ast
import hashlib


def fingerprint(source):
    """The SHA-256 (hex) of the syntax tree of `source`, a step file's text."""
    return hashlib.sha256(ast.dump(ast.parse(source)).encode("utf-8")).hexdigest()


def not_started(path, stub_fingerprint):
    """True while the file at `path` (a pathlib.Path) holds the code whose fingerprint is `stub_fingerprint`."""
    try:
        return fingerprint(path.read_text(encoding="utf-8")) == stub_fingerprint
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):  # ValueError: a NUL byte in the source
        return False
