"""Text for the instructor's terminal, where learner-controlled text (output, messages, folder
names) must not act: control and format characters are written as visible escapes."""
import re
import sys
import unicodedata

_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}


def _hidden_characters():
    """A regex class of every character that moves the cursor, rings, switches direction or starts an
    escape sequence: Unicode categories Cc, Cf, Zl, Zp (ESC, CR, BEL, C1 CSI, bidi overrides, …)."""
    codes = [c for c in [*range(0x10000), *range(0xE0000, 0xE0080)]
             if unicodedata.category(chr(c)) in ("Cc", "Cf", "Zl", "Zp")]
    return re.compile("[" + "".join(re.escape(chr(c)) for c in codes) + "\ud800-\udfff]")  # + lone surrogates


_HIDDEN = _hidden_characters()


def _escape(ch):
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text, keep="\n\t"):
    """`text` with each hidden character but those in `keep` (layout) written as an escape (\\x1b, \\r, \\u202e)."""
    return _HIDDEN.sub(lambda m: m.group() if m.group() in keep else _escape(m.group()), text)


def say(text, stream=None):
    """Print one line of the grader's own message holding learner-controlled text, escaped, to stderr."""
    print(printable(text, keep=""), file=stream or sys.stderr)
