"""Wrapping a message to terminal columns, Chinese included.

textwrap breaks at spaces and counts characters: a Chinese line has spaces inside its phrases (`第 2 步`,
`方阵 [3, 3]`, `KV Cache 的一步`) and takes two columns a character. Text is cut only where a line may end,
outside brackets (a shape `[T_q, T_k]` stays whole in English too): in Chinese after a Chinese punctuation
mark, or after a Latin one that ends an item of Latin words (`Q, K, V`), at a space; in English at a space.
It is measured in columns. Standard library only: part of the learner runtime.
"""
import unicodedata

BREAK_AFTER = "，。；：、）"
LATIN_ITEM_END = (",", ";", ":", ".")  # in a Chinese line, a space after one of these may end the line
OPENING, CLOSING = "([{（", ")]}）"


def columns(text):
    """Terminal columns of `text`: a CJK character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _wide(ch):
    return bool(ch) and unicodedata.east_asian_width(ch) in "WF"


def _ends_a_line(text, k, chinese):
    """Whether the space text[k] may end a line: between two words that are not Chinese, and in a Chinese
    text only after an item of them."""
    before, after = text[k - 1:k], text[k + 1:k + 2]
    return not _wide(before) and not _wide(after) and (not chinese or before in LATIN_ITEM_END)


def pieces(text):
    """`text` cut where a line may end; a space cut at is dropped."""
    chinese = any(_wide(ch) for ch in text)
    found, start, depth = [], 0, 0
    for k, ch in enumerate(text):
        depth = max(depth + (ch in OPENING) - (ch in CLOSING), 0)
        if ch in BREAK_AFTER and depth == 0:
            found.append(text[start:k + 1])
            start = k + 1
        elif ch == " " and depth == 0 and _ends_a_line(text, k, chinese):
            found.append(text[start:k])
            start = k + 1
    return [piece for piece in found + [text[start:]] if piece]


def wrap(text, width, initial_indent="", subsequent_indent=""):
    """Lines of at most `width` columns (a piece longer than a line stays whole), as textwrap.wrap gives them."""
    lines, line = [], initial_indent
    for piece in pieces(text):
        glue = " " if line.strip() and not _wide(line[-1:]) and not line.endswith(tuple(BREAK_AFTER)) else ""
        if line.strip() and columns(line + glue + piece) > width:
            lines.append(line)
            line, glue = subsequent_indent, ""
        line += glue + piece
    return lines + [line] if line.strip() else lines
