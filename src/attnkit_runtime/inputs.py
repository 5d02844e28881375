"""Whether a call left its arguments as it found them: the kit's functions never modify their inputs.

A caller keeps using what it passed (step 6 passes its `kq` on to the mask, its `S` to softmax), so a
function that writes into an argument (`kq /= s`, `np.exp(S, out=S)`, `out = tables[0]; out &= t`)
fails its case even when its own result is right. Small arrays are kept as their bytes, large ones
as the caller's untouched original or, in the grader's sandbox, a quick checksum, so watching a
call costs little.
"""
import numpy as np

BYTES_UP_TO = 1 << 16  # values; up to this an argument is kept as its bytes (comparing them is fastest)


def _kept(value, original):
    """What `_same` compares `value` with after the call: its bytes when small; else an untouched array
    equal to it (`original`) when the caller holds one, or its `fingerprint` (the grader's sandbox,
    where copying the 19 MB of a GPT-2-sized call would cost more than the call)."""
    if value.size <= BYTES_UP_TO:
        return value.shape, value.dtype, value.tobytes()
    return value.shape, value.dtype, original if original is not None else fingerprint(value)


def _same(value, kept):
    if not isinstance(value, np.ndarray) or (value.shape, value.dtype) != kept[:2]:
        return False
    shape, dtype, data = kept
    if isinstance(data, np.ndarray):  # equal_nan's masks cost 5 times one comparison: only when that fails
        return np.array_equal(value, data) or np.array_equal(value, data, equal_nan=dtype.kind in "fc")
    if isinstance(data, int):
        return fingerprint(value) == data
    if value.tobytes() == data:  # comparing bytes is ~20 times as fast as comparing values
        return True
    # the same numbers in other bytes (-0.0 for 0.0, another NaN) are no change
    return dtype.kind in "fc" and np.array_equal(value, np.frombuffer(data, dtype).reshape(shape), equal_nan=True)


def fingerprint(arr):
    """A quick checksum of an array's bytes: the sum of every 61st 8-byte word and of the first and last
    4 kB. It tells an input array the learner's code left as it came from one it rewrote in place
    (a change to only a few words between the samples may pass unseen: that array is then taken as it came)."""
    data = np.ascontiguousarray(arr).reshape(-1).view(np.uint8)
    words = data[:data.size // 8 * 8].view(np.uint64)
    return int(words[::61].sum(dtype=np.uint64)) ^ int(words[:512].sum(dtype=np.uint64)) << 1 \
        ^ int(words[-512:].sum(dtype=np.uint64)) << 2 ^ int(data[words.size * 8:].sum()) << 3


def _arrays(kwargs):
    """(argument name as the learner's signature spells it, array) for every array argument of one call;
    a "*name" key (positional arguments) gives name[0], name[1], …"""
    for name, value in kwargs.items():
        if name.startswith("*"):
            yield from ((f"{name[1:]}[{k}]", v) for k, v in enumerate(value) if isinstance(v, np.ndarray))
        elif isinstance(value, np.ndarray):
            yield name, value


def watch(kwargs, originals=None):
    """What `changed` compares with after the call: the call's array arguments as they are now.

    `originals`: the arguments `kwargs` were copied from, which the call never sees (then nothing large
    is copied again)."""
    before = dict(_arrays(originals)) if originals is not None else {}
    return [(name, value, _kept(value, before.get(name))) for name, value in _arrays(kwargs)]


def changed(watched):
    """The names of the arguments (from `watch`) that are no longer what they were, in order."""
    return [name for name, value, kept in watched if not _same(value, kept)]
