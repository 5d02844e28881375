"""GPT-2's byte-level BPE, small: enough to turn a prompt into token ids with a GGUF's own vocabulary.

A GGUF file of GPT-2 carries the tokenizer as `tokenizer.ggml.tokens` (each token's text, bytes
spelled with GPT-2's printable byte alphabet: a space is "Ġ") and `tokenizer.ggml.merges`
("Ġ a" pairs, best first). The text is split into words as GPT-2 does (a word keeps the space in
front of it), each word's bytes are spelled in that alphabet, and adjacent pieces are merged by
rank until no listed pair is left. GPT-2's own split pattern uses Unicode classes (\\p{L}); `re`'s
\\w-based classes below agree on the letters, digits and punctuation of ordinary English text.
"""
import re
from functools import lru_cache

_WORDS = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[^\W\d_]+| ?\d+| ?[^\s\w]+|\s+(?!\S)|\s+""")


@lru_cache(maxsize=None)
def byte_alphabet():
    """{byte: printable character}: GPT-2's spelling of every byte (printable bytes stand for themselves)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = [b for b in range(256) if b not in keep]
    return {**{b: chr(b) for b in keep}, **{b: chr(256 + k) for k, b in enumerate(shifted)}}


def _merge_word(pieces, ranks):
    """Merge the best-ranked adjacent pair of `pieces` until no ranked pair is left."""
    while len(pieces) > 1:
        pairs = {(a, b): ranks[(a, b)] for a, b in zip(pieces, pieces[1:]) if (a, b) in ranks}
        if not pairs:
            break
        first, second = min(pairs, key=pairs.get)
        merged, k = [], 0
        while k < len(pieces):
            if k + 1 < len(pieces) and (pieces[k], pieces[k + 1]) == (first, second):
                merged.append(first + second)
                k += 2
            else:
                merged.append(pieces[k])
                k += 1
        pieces = merged
    return pieces


def encode(text, tokens, merges):
    """Token ids of `text` with vocabulary `tokens` (list of token texts) and `merges` ("a b" strings).

    Raises ValueError naming the piece when a piece is not in the vocabulary.
    """
    ids = {token: k for k, token in enumerate(tokens)}
    ranks = {tuple(pair.split(" ", 1)): k for k, pair in enumerate(merges)}
    alphabet = byte_alphabet()
    result = []
    for word in _WORDS.findall(text):
        for piece in _merge_word([alphabet[b] for b in word.encode("utf-8")], ranks):
            if piece not in ids:
                raise ValueError(f"the piece {piece!r} of {word!r} is not in the GGUF's vocabulary; "
                                 "give the token ids with --tokens instead")
            result.append(ids[piece])
    return result
