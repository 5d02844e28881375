"""Hidden values as printers write them: `repr`, numpy's print (8 digits), `%.6g`, any rounding.

A number text with k significant digits (as written: "0.012340" has 5, "1.2346e-05" has 5) stands
for every value that rounds to it at that precision: its *cell*, the values within half a unit of
its last digit. k < MIN_PRINTED_DIGITS says nothing (too many values round to "0.1235"). Whether a text
whose cell holds a hidden value is a leak depends on how likely a number printed at that precision
falls on a hidden value by chance, near it, where hidden values are dense or sparse:

- `c`, the hidden values a cell holds by chance there: the hidden values within NEIGHBOURHOOD
  cells either side of the text, divided by the 2 * NEIGHBOURHOOD + 1 cells counted.
- A *run* is a sequence of consecutive number texts of a file whose cells hold consecutive values
  of one hidden array (as numpy, a list or a loop of `%.6g` prints an array), each text with
  MIN_PRINTED_DIGITS digits or more. Its chance is c of its first text times, for each further text, c / N
  (the chance that a number falls on the one value that continues the run; N hidden values).
- A run is a leak when its chance is at most CHANCE and the public values (every public case's)
  do not hold the same run (for one text: no public value is in its cell).

So a lone number is a leak where hidden values are sparse at its precision (a 17-digit repr
anywhere, a 5-digit one among the few values above 10); where they are dense (the softmax
probabilities between 0.001 and 0.1) it takes several printed neighbours: there even numpy's own
8-digit spelling of a float32 is hit by numbers drawn at random, one in a few hundred.
"""
from dataclasses import dataclass

import numpy as np

MIN_PRINTED_DIGITS = 5
NEIGHBOURHOOD = 10_000
CHANCE = 1e-4
_INDEX = np.uint32  # places and ranks: fewer than 2**32 - 1 values
NO_RANK = np.iinfo(_INDEX).max


def found_in(sorted_values, values):
    """Which of `values` (a bool array of their shape) the sorted numpy array `sorted_values` holds."""
    if not sorted_values.size:
        return np.zeros(np.shape(values), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_values, values), sorted_values.size - 1)
    return sorted_values[at] == values


@dataclass(frozen=True)
class Values:
    """The distinctive values of some arrays. Laid end to end as `flat` (float64, float32 values converted),
    each array followed by a NaN, with NaN for a value that is not distinctive, so that a value at place w
    is followed in its array by the one at w + 1, they are kept as `sorted` (the values sorted, NaNs left
    out), `places` (aligned with `sorted`: each value's place in `flat`) and `ranks` (aligned with `flat`:
    each value's index in `sorted`, NO_RANK for a NaN), so that a scan reads only the values it looks at
    (`at`). `float32_starts`, `float32_ends`: the places where each float32 array starts and ends (int64,
    increasing)."""

    sorted: np.ndarray
    places: np.ndarray
    ranks: np.ndarray
    float32_starts: np.ndarray
    float32_ends: np.ndarray

    @classmethod
    def of(cls, parts):
        """`parts`: the arrays as `Values.part` gives them (the list is emptied: memory)."""
        lengths = np.array([values.size for values, _ in parts], dtype=np.int64)
        ends = np.cumsum(lengths)
        float32 = np.array([is_float32 for _, is_float32 in parts], dtype=bool)
        flat = np.concatenate([values for values, _ in parts] or [np.zeros(0)])
        parts.clear()
        places = np.argsort(flat)[:np.count_nonzero(~np.isnan(flat))].astype(_INDEX)  # NaNs last
        ranks = np.full(flat.size, NO_RANK, dtype=_INDEX)
        ranks[places] = np.arange(places.size, dtype=_INDEX)
        return cls(flat[places], places, ranks, (ends - lengths)[float32], ends[float32])

    @staticmethod
    def part(flat, keep):
        """(the 1-D array `flat` as float64 with NaN where `keep` is False and the NaN that ends it, whether it
        is float32)."""
        return np.append(np.where(keep, flat.astype(np.float64), np.nan), np.nan), flat.dtype == np.float32

    def at(self, places):
        """float64: the values of `flat` at `places` (an int array)."""
        ranks = self.ranks[places]
        held = ranks != NO_RANK
        return np.where(held, self.sorted[np.where(held, ranks, 0)] if self.sorted.size else np.nan, np.nan)

    def pairs(self, words):
        """Which of the uint64 array `words` are the bytes of two neighbouring values of one float32 array
        (a bool mask)."""
        with np.errstate(invalid="ignore"):  # a signalling NaN's bytes: it holds no value either way
            halves = words.view(np.float32).reshape(-1, 2).astype(np.float64)
        maybe = np.flatnonzero(found_in(self.sorted, halves[:, 0]))
        maybe = maybe[found_in(self.sorted, halves[maybe, 1])]
        held = np.zeros(words.size, dtype=bool)
        for i in maybe.tolist():
            first, end = _span(self.sorted, halves[i, 0], halves[i, 0])
            at = self.places[first:end].astype(np.int64)
            array = np.searchsorted(self.float32_starts, at, side="right") - 1
            in_float32 = (array >= 0) & (at + 1 < self.float32_ends[np.maximum(array, 0)])
            held[i] = bool((self.at(at[in_float32] + 1) == halves[i, 1]).any())
        return held

    def patterns(self, words):
        """Which of the uint64 array `words` are 8-byte patterns of these values: one value as float64, or two
        neighbouring values of one float32 array (a bool mask)."""
        held = found_in(self.sorted, words.view(np.float64))
        held[~held] = self.pairs(words[~held])
        return held


@dataclass(frozen=True)
class Texts:
    """Number texts in the order a file holds them: `text` (bytes each), their cells [`low`, `high`]
    and `cell` (the width of one step of the last digit), float64 arrays."""

    text: list
    low: np.ndarray
    high: np.ndarray
    cell: np.ndarray

    @classmethod
    def of(cls, texts):
        """The texts of the list `texts` (bytes) that have MIN_PRINTED_DIGITS significant digits or more."""
        if not texts:
            return cls([], np.zeros(0), np.zeros(0), np.zeros(0))
        strings = np.array(texts, dtype=np.bytes_)
        mantissa, _, exponent = np.strings.partition(np.strings.lower(strings), b"e")
        whole, _, fraction = np.strings.partition(np.strings.lstrip(mantissa, b"-"), b".")
        kept = np.flatnonzero(np.strings.str_len(np.strings.lstrip(np.strings.add(whole, fraction), b"0"))
                              >= MIN_PRINTED_DIGITS)
        with np.errstate(over="ignore", invalid="ignore"):  # "1.23456e999": an infinite cell, which holds no value
            last = np.where(exponent == b"", b"0", exponent)[kept].astype(np.float64) - np.strings.str_len(fraction)[kept]
            value, cell = strings[kept].astype(np.float64), 10.0 ** last  # the exponent of the last digit, its cell
            half = cell * (0.5 + 1e-9)  # the edges too: a printer rounds a tie either way
            return cls([texts[i] for i in kept.tolist()], value - half, value + half, cell)


def _span(values, low, high):
    """(first, end) indices of the values of the sorted array `values` within [low, high], arrays."""
    return np.searchsorted(values, low, side="left"), np.searchsorted(values, high, side="right")


def _runs(values, texts):
    """[(first, last)] text indices of the runs of `texts` whose cells hold consecutive values of `values` (a
    Values), each as long as it goes from its first text on; a lone text whose cell holds a value is a run of one."""
    first, end = _span(values.sorted, texts.low, texts.high)
    hit = end > first
    runs, last = [], -1
    for start in np.flatnonzero(hit).tolist():
        if start <= last:
            continue
        last = start
        if last + 1 < hit.size and hit[last + 1]:
            ends = values.places[first[start]:end[start]]
            while last + 1 < hit.size and hit[last + 1]:
                ends = ends + 1
                following = values.at(ends)
                ends = ends[(following >= texts.low[last + 1]) & (following <= texts.high[last + 1])]
                if not ends.size:
                    break
                last += 1
        runs.append((start, last))
    return runs


def _chance(values, texts, first, last):
    """The chance that numbers printed as the texts first..last fall on a run of `values` by accident."""
    low = texts.low[first:last + 1] - NEIGHBOURHOOD * texts.cell[first:last + 1]
    high = texts.high[first:last + 1] + NEIGHBOURHOOD * texts.cell[first:last + 1]
    start, end = _span(values.sorted, low, high)
    by_chance = (end - start) / (2 * NEIGHBOURHOOD + 1)
    return by_chance[0] * np.prod(by_chance[1:] / values.sorted.size)


def leaked(hidden, public, texts):
    """The texts (bytes) of `texts` (a Texts) that print hidden values: every text of a run that is a
    leak by the rule in this module's docstring (`hidden`, `public`: Values)."""
    out = []
    for first, last in _runs(hidden, texts):
        if _chance(hidden, texts, first, last) > CHANCE:
            continue
        run = Texts(*(field[first:last + 1] for field in (texts.text, texts.low, texts.high, texts.cell)))
        if (0, last - first) not in _runs(public, run):
            out += run.text
    return out
