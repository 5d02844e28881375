"""GPT-2's byte-level BPE built from a GGUF file's own vocabulary and merges, by Hugging Face `tokenizers`.

A GGUF file of GPT-2 carries the tokenizer as `tokenizer.ggml.tokens` (each token's text, bytes
spelled with GPT-2's printable byte alphabet: a space is "Ġ") and `tokenizer.ggml.merges`
("Ġ a" pairs, best first). `tokenizers`' ByteLevel pre-tokenizer splits the text with GPT-2's own
pattern (Unicode classes: letters, numbers, `'s`/`'t`/… contractions, punctuation runs with `_`,
whitespace runs) and spells each piece in that alphabet; its BPE model merges by the file's ranks.
This is how Hugging Face's GPT-2 tokenizer is built, and llama.cpp's "gpt-2" pre-tokenizer uses the
same pattern (tests/test_gguf_llama_cpp.py checks the ids against llama.cpp's own).
"""
from functools import lru_cache


@lru_cache(maxsize=None)
def byte_alphabet():
    """{byte: printable character}: GPT-2's spelling of every byte (printable bytes stand for themselves)."""
    keep = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    shifted = [b for b in range(256) if b not in keep]
    return {**{b: chr(b) for b in keep}, **{b: chr(256 + k) for k, b in enumerate(shifted)}}


def gpt2_tokenizer(tokens, merges):
    """A `tokenizers.Tokenizer` for vocabulary `tokens` (token texts by id) and `merges` ("a b", best first).

    Raises ValueError when the vocabulary lacks one of the 256 byte pieces (then some text could not
    be spelled at all) or a merge names a piece outside it.
    """
    from tokenizers import Tokenizer, models, pre_tokenizers

    ids = {token: k for k, token in enumerate(tokens)}
    missing = [piece for piece in byte_alphabet().values() if piece not in ids]
    if missing:
        raise ValueError(f"the GGUF's vocabulary lacks the byte piece {missing[0]!r} "
                         f"({len(missing)} of 256 missing); give the token ids with --tokens instead")
    try:
        bpe = models.BPE(vocab=ids, merges=[tuple(pair.split(" ", 1)) for pair in merges])
    except Exception as err:  # tokenizers raises a plain Exception for a merge outside the vocabulary
        raise ValueError(f"the GGUF's merges do not fit its vocabulary: {err}") from None
    tokenizer = Tokenizer(bpe)
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    return tokenizer


def encode(text, tokens, merges):
    """Token ids [n] of `text` with vocabulary `tokens` and `merges`, as GPT-2's tokenizer gives them."""
    return gpt2_tokenizer(tokens, merges).encode(text, add_special_tokens=False).ids
