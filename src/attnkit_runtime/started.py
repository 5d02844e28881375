"""Whether the learner has started an optional step (any step after the core: the extension, the modern track).

A step is *not started* while its file holds the code of the stub as it was handed out: the same text, or
the same Python syntax tree (comments, blank lines and layout do not count; any change of code, a
docstring included, does). Its every function then still raises the stub's NotImplementedError, so a
file without that word is started (a finished one: not parsed). The file is read and parsed, never run.
A missing file or one that does not parse counts as started: its tests say what is wrong.

Standard library only: the student release ships this file as it is.
"""
import ast
import hashlib
from dataclasses import dataclass
from typing import Callable


def text_print(source):
    """The SHA-256 (hex) of `source`, a step file's text, as it is."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()


def code_print(source):
    """The SHA-256 (hex) of the syntax tree of `source` (some milliseconds: parsed and written out)."""
    return hashlib.sha256(_tree_text(ast.parse(source)).encode("utf-8")).hexdigest()


def _tree_text(node):
    """`node` as text, leaving out empty and None fields: the release stores the stub's print made by the
    kit's Python, and a learner's newer Python adds fields (type_params=[] in 3.12) that ast.dump shows."""
    if isinstance(node, ast.AST):
        fields = (f"{name}={_tree_text(value)}" for name, value in ast.iter_fields(node)
                  if value is not None and not (isinstance(value, list) and not value))
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return f"[{', '.join(map(_tree_text, node))}]"
    return repr(node)


@dataclass(frozen=True)
class Stub:
    """A handed-out stub: its `text_print`, and `code()` giving its `code_print`, asked for only when a
    learner's file has another text."""

    text: str
    code: Callable[[], str]

    @classmethod
    def of_source(cls, source):
        return cls(text_print(source), lambda: code_print(source))

    @classmethod
    def of_prints(cls, prints):
        """From {"text": text_print, "code": code_print}, as `prints` stores them."""
        return cls(prints["text"], lambda: prints["code"])


def prints(source):
    """{"text": text_print, "code": code_print} of a stub's `source`, to store."""
    return {"text": text_print(source), "code": code_print(source)}


def not_started(path, stub):
    """True while the file at `path` (a pathlib.Path) holds the code of `stub` (a Stub)."""
    try:
        source = path.read_text(encoding="utf-8")
        return text_print(source) == stub.text or ("NotImplementedError" in source and code_print(source) == stub.code())
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):  # ValueError: a NUL byte in the source
        return False
