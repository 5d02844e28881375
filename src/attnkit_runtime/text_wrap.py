"""Wrapping a message to terminal columns, Chinese included.

textwrap breaks at spaces and counts characters: a Chinese line has spaces inside its phrases (`第 2 步`,
`方阵 [3, 3]`) and takes two columns a character. Chinese text is cut only where a line may end (after a
Chinese punctuation mark, or at a space between two words that are not Chinese, outside brackets) and
measured in columns. Standard library only: part of the learner runtime.
"""
import textwrap
import unicodedata

BREAK_AFTER = "，。；：、）"
OPENING, CLOSING = "([{（", ")]}）"


def columns(text):
    """Terminal columns of `text`: a CJK character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _wide(ch):
    return bool(ch) and unicodedata.east_asian_width(ch) in "WF"


def pieces(text):
    """`text` cut where a Chinese line may end; a space cut at is dropped."""
    found, start, depth = [], 0, 0
    for k, ch in enumerate(text):
        depth = max(depth + (ch in OPENING) - (ch in CLOSING), 0)
        if ch in BREAK_AFTER and depth == 0:
            found.append(text[start:k + 1])
            start = k + 1
        elif ch == " " and depth == 0 and not _wide(text[k - 1:k]) and not _wide(text[k + 1:k + 2]):
            found.append(text[start:k])
            start = k + 1
    return [piece for piece in found + [text[start:]] if piece]


def wrap(text, width, initial_indent="", subsequent_indent=""):
    """Lines of at most `width` columns (a piece longer than a line stays whole), as textwrap.wrap gives them."""
    if not any(_wide(ch) for ch in text):
        return textwrap.wrap(text, width=width, initial_indent=initial_indent, subsequent_indent=subsequent_indent)
    lines, line = [], initial_indent
    for piece in pieces(text):
        glue = " " if line.strip() and not _wide(line[-1:]) and not line.endswith(tuple(BREAK_AFTER)) else ""
        if line.strip() and columns(line + glue + piece) > width:
            lines.append(line)
            line, glue = subsequent_indent, ""
        line += glue + piece
    return lines + [line] if line.strip() else lines
