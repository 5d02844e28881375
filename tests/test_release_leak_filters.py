"""The leak check's pre-filters (release/leaks.py) leave out only what cannot be a secret: the number texts
are those the regular expression finds in the whole of the data, the bitmap of the hidden byte patterns
lets every pattern through, and a pattern is found at any offset and in either of two searches."""
import numpy as np
import pytest

from attnkit.release import leaks

RNG = np.random.default_rng(19)
NUMBER_SOUP = np.frombuffer(b"0123456789.eE+- x\n", dtype=np.uint8)
EDGES = b"1.5 -2.25e-3 3.4.5 1e5 7.e3 -.5 12.3456789e+12 1.2E-3e4 --1.0 1..2 .1.2. 0.1234567"
PADDING = bytes(4096)  # so few numbers among so many bytes that the stretches are searched alone


@pytest.mark.parametrize("data", [
    b"", b"1", b"1.2", b".5", b"5.",
    EDGES, PADDING + EDGES + PADDING, b"1.2" + PADDING + b"3.4", PADDING + b"1.2\x001.2e-5\x00-7.25" + PADDING,
    RNG.bytes(100_000),  # binary: a few short stretches
    bytes(RNG.choice(NUMBER_SOUP, 100_000)),  # long stretches of number bytes
    " ".join(f"{x:.6g}" for x in RNG.standard_normal(5_000)).encode(),  # a text full of numbers
    RNG.standard_normal(10_000).tobytes() + b"x = 0.123456789\n" + RNG.bytes(999),
])
def test_the_number_texts_are_the_regular_expressions_own(data):
    assert leaks._number_texts(data) == leaks._NUMBER.findall(data)


def test_the_raw_filter_lets_every_pattern_through_and_few_others():
    raw = np.sort(RNG.standard_normal(200_000).view(np.uint64))
    bits = leaks.raw_filter_bits(raw)
    assert leaks._may_be_raw(raw, bits).all()
    assert leaks._may_be_raw(RNG.standard_normal(200_000).view(np.uint64), bits).mean() < 0.01


def test_a_pattern_is_held_at_any_offset_short_or_long():
    patterns = frozenset({b"abc", b"attention_twelve_heads", b"return P @ V"})
    for offset in range(9):
        hay = RNG.bytes(offset) + b"xx attention_twelve_heads yy return P @ V"
        assert leaks._held(patterns, [hay]) == [{b"attention_twelve_heads", b"return P @ V"}]
    assert leaks._held(patterns, [b"zz abc"]) == [{b"abc"}]
    assert leaks._held(patterns, [b"attention_twelve_head"]) == [set()]


def _patterns_secrets(monkeypatch, hidden_arrays, public_arrays):
    """(the Secrets of hidden and public cases that are the arrays given, their raw patterns as built: a sorted
    uint64 array)."""
    monkeypatch.setattr(leaks, "_arrays", lambda case: case)
    public_raw, public = leaks._values([public_arrays])
    raw, hidden = leaks._values([hidden_arrays], public_raw)
    made = leaks.Secrets(frozenset(), hidden, public, frozenset(), leaks.raw_filter_bits(raw), leaks.raw_prefixes(raw))
    return made, raw


def test_the_hidden_byte_patterns_are_read_from_the_values_as_built(monkeypatch):
    """The store keeps no byte patterns: a word is one when the values hold it as a float64 value or as two
    neighbouring values of one float32 array, and no public value does."""
    float32 = RNG.standard_normal(400).astype(np.float32)
    float32_in_float64 = RNG.standard_normal(400).astype(np.float32).astype(np.float64)  # pairs here are no pattern
    shared = RNG.standard_normal(100).astype(np.float32)
    hidden_arrays = [float32, float32_in_float64, RNG.standard_normal(300), shared, float32[::-1].copy()]
    made, raw = _patterns_secrets(monkeypatch, hidden_arrays, [shared, RNG.standard_normal(50)])
    pairs = [np.ascontiguousarray(np.lib.stride_tricks.sliding_window_view(a.astype(np.float32), 2)).view(np.uint64).ravel()
             for a in hidden_arrays]
    values = [a.astype(np.float64).view(np.uint64) for a in hidden_arrays]
    words = np.concatenate([*pairs, *values, RNG.integers(0, 2**63, 1000, dtype=np.uint64)])
    assert np.array_equal(made.raw(words), leaks.found_in(raw, words))
    assert made.raw(words).sum() > 1000 and not made.raw(np.concatenate(pairs[1:2] + values[3:4])).any()
