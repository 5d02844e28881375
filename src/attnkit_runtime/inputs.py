"""Whether a call left its arguments as it found them: the kit's functions never modify their inputs.

A caller keeps using what it passed (step 6 passes its `kq` on to the mask, its `S` to softmax), so a
function that writes into an argument (`kq /= s`, `np.exp(S, out=S)`, `out = tables[0]; out &= t`)
fails its case even when its own result is right. Small arrays are kept as copies of their bytes,
large ones as a checksum of them, so watching a call costs little.
"""
import hashlib

import numpy as np

COPY_UP_TO = 1 << 16  # values; above this an argument is kept as its shape, dtype and a checksum


def _kept(value):
    if not isinstance(value, np.ndarray):
        return None
    if value.size <= COPY_UP_TO:
        return value.shape, value.dtype, value.tobytes()
    return value.shape, value.dtype, hashlib.blake2b(np.ascontiguousarray(value).data, digest_size=16).digest()


def _same(value, kept):
    if not isinstance(value, np.ndarray) or (value.shape, value.dtype) != kept[:2]:
        return False
    if value.size > COPY_UP_TO:
        return _kept(value) == kept
    if value.tobytes() == kept[2]:  # comparing bytes is ~20 times as fast as comparing values
        return True
    shape, dtype, data = kept  # the same numbers in other bytes (-0.0 for 0.0, another NaN) are no change
    return dtype.kind in "fc" and np.array_equal(value, np.frombuffer(data, dtype).reshape(shape), equal_nan=True)


def _arrays(kwargs):
    """(argument name as the learner's signature spells it, array) for every array argument of one call;
    a "*name" key (positional arguments) gives name[0], name[1], …"""
    for name, value in kwargs.items():
        if name.startswith("*"):
            yield from ((f"{name[1:]}[{k}]", v) for k, v in enumerate(value) if isinstance(v, np.ndarray))
        elif isinstance(value, np.ndarray):
            yield name, value


def watch(kwargs):
    """What `changed` compares with after the call: the call's array arguments as they are now."""
    return [(name, value, _kept(value)) for name, value in _arrays(kwargs)]


def changed(watched):
    """The names of the arguments (from `watch`) that are no longer what they were, in order."""
    return [name for name, value, kept in watched if not _same(value, kept)]
