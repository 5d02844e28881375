"""The message format between the grader and its sandboxed child: JSON plus raw array bytes.

A message is a 4-byte big-endian header length, the header (UTF-8 JSON object), then the raw bytes
of the arrays that header["arrays"] lists ([{"name", "dtype", "shape", "scalar"}], C order, back to
back). Nothing is ever pickled. `read_message` validates everything it is given (size caps, nesting
depth, types of the array entries, dtype allowlist, shapes), so garbage from the child becomes a WireError, never a crash or a huge
allocation.

This module also runs inside the sandbox (as `sandbox.sandbox_wire`, see sandbox_zygote): it may
import only the standard library and numpy.
"""
import json
import math
import struct
import time

import numpy as np

from attnkit_runtime.inputs import fingerprint

# numeric and bool dtypes, little-endian or byte-free: the only ones that cross the pipe
_DTYPES = {text: np.dtype(text) for text in ("|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8",
                                              "<f2", "<f4", "<f8", "<c8", "<c16")}
ALLOWED_DTYPES = frozenset(_DTYPES)
MAX_NDIM = 32
MAX_DEPTH = 16  # lists and objects in a header (a request's arguments nest 4 deep)
_LENGTH = struct.Struct(">I")


class WireError(Exception):
    """A message that breaks the format: garbage, wrong sizes, a forbidden dtype or shape."""


def plain_array(value):
    """`value` (ndarray or subclass, numpy scalar, Python number) as a base ndarray, same shape
    (0-d stays 0-d; `tobytes()` gives C order whatever the layout).

    Raises WireError when its dtype is not one of ALLOWED_DTYPES (object, str, datetime, structured,
    longdouble …), saying which are.
    """
    arr = np.asarray(value)  # drops any ndarray subclass
    if arr.dtype.str not in ALLOWED_DTYPES and arr.dtype.kind in "biufc" and arr.dtype.fields is None:
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    if arr.dtype.str not in ALLOWED_DTYPES:
        raise WireError(_refused_dtype(arr.dtype))
    if arr.ndim > MAX_NDIM:
        raise WireError(f"{arr.ndim} axes is more than {MAX_NDIM}")
    return arr


def _refused_dtype(dtype):
    if dtype.kind in "fc":  # numeric, but wider than any dtype a right answer has
        return (f"dtype {dtype} (numpy.longdouble) is not accepted: return float64, float32 or float16 "
                "(complex128 or complex64)")
    return (f"dtype {dtype} is not accepted: return a numpy array of numbers (float64, float32, float16, "
            "complex, int, uint) or of bool")


def encode_arrays(arrays):
    """(specs, payload) for `arrays`, a list of (name, value, scalar); `scalar` marks a numpy
    scalar the receiver should turn back into one (arr[()])."""
    specs, chunks = [], []
    for name, value, scalar in arrays:
        arr = plain_array(value)
        specs.append({"name": name, "dtype": arr.dtype.str, "shape": list(arr.shape), "scalar": bool(scalar)})
        chunks.append(arr.tobytes())
    return specs, b"".join(chunks)


def frame(header, specs=(), payload=b""):
    """Bytes of one message from a header and encoded arrays."""
    return _framed(json.dumps({**header, "arrays": list(specs)}).encode("utf-8"), payload)


def _framed(head, payload):
    return b"".join([_LENGTH.pack(len(head)), head, payload])


def encode(header, arrays=()):
    """Bytes of one message: `header` (a JSON-able dict) plus `arrays` (see encode_arrays)."""
    return frame(header, *encode_arrays(arrays))


FINGERPRINTED_BYTES = 1 << 16  # a call's input arrays at least this large are fingerprinted (see pack)


def packed_call(job):
    """(the arguments of `job`, a sandbox_types.Job, as `pack` writes them, [(name, array, scalar)] of its arrays)."""
    arrays = []
    return {name: pack(value, arrays) for name, value in job.kwargs.items()}, arrays


def large_inputs(arrays):
    """{name: array} of the arrays of `packed_call` that the child refers to by name ({"$input"}) when its
    code passes them on, unchanged, to an earlier step, instead of sending them back."""
    return {name: value for name, value, scalar in arrays if not scalar and value.nbytes >= FINGERPRINTED_BYTES}


def stock_message(job, index):
    """The bytes of the "stock" message that gives a zygote the call `job` as number `index` (see
    sandbox_child.Zygote.take_stock): its function, its arguments and the fingerprints of the large ones."""
    kwargs, arrays = packed_call(job)
    return encode({"op": "stock", "index": index, "module": job.step, "function": job.function,
                   "returns": list(job.returns), "kwargs": kwargs, "measure_peak": job.measure_peak,
                   "inputs": {name: fingerprint(value) for name, value in large_inputs(arrays).items()}}, arrays)


def pack(value, arrays, inputs=None):
    """A JSON-able stand-in for an argument or a result; its arrays go to `arrays` (unpack reverses it).

    An array that is one of `inputs` ({id: (name, array, fingerprint)}: the arguments of the call
    running, as they came) and still has its fingerprint becomes {"$input": name}, not sent again.
    Arrays and numpy scalars become {"$array": name}, tuples/lists/dicts nest, numpy dtypes (and
    numpy scalar types, as `dtype=np.float32`) become {"$dtype": "<f4"}, an instance of a dataclass
    {"$object": [its class name, {field: value}]}. Anything else, or an array of a dtype that may
    not cross, becomes {"$refused": what it is}: the receiver decides what that means.
    """
    known = inputs.get(id(value)) if inputs else None
    if known is not None and known[1] is value and fingerprint(value) == known[2]:
        return {"$input": known[0]}
    if isinstance(value, (np.ndarray, np.generic)):
        try:
            arrays.append((f"a{len(arrays)}", plain_array(value), isinstance(value, np.generic)))
        except WireError:
            return {"$refused": f"an array of dtype {value.dtype}"}
        return {"$array": arrays[-1][0]}
    if isinstance(value, (list, tuple)):
        return {"$list" if isinstance(value, list) else "$tuple": [pack(v, arrays, inputs) for v in value]}
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"$dict": {k: pack(v, arrays, inputs) for k, v in value.items()}}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        dtype = np.dtype(value)
        return {"$dtype": dtype.str} if dtype.str in ALLOWED_DTYPES else {"$refused": f"the dtype {dtype}"}
    fields = getattr(type(value), "__dataclass_fields__", None)
    if isinstance(fields, dict) and not isinstance(value, type):
        return {"$object": [type(value).__name__, {name: pack(getattr(value, name), arrays) for name in fields}]}
    return {"$refused": f"a value of type {type(value).__name__}"}


def unpack(value, arrays, classes=None, inputs=None):
    """Reverse of `pack`: `classes` maps the class names an {"$object"} may name to the class to build
    (without it, or for another name, WireError), `inputs` the names an {"$input"} may name to their
    value; {"$refused"} raises Refused."""
    if isinstance(value, dict):
        if "$input" in value:
            if inputs is None or not isinstance(value["$input"], str) or value["$input"] not in inputs:
                raise WireError(f"an input that the call does not have: {str(value['$input'])[:40]!r}")
            return inputs[value["$input"]]
        if "$array" in value:
            if not isinstance(value["$array"], str) or value["$array"] not in arrays:
                raise WireError(f"an array that was not sent: {str(value['$array'])[:40]!r}")
            arr, scalar = arrays[value["$array"]]
            return arr[()] if scalar else arr
        if "$dict" in value and isinstance(value["$dict"], dict):
            return {k: unpack(v, arrays, classes, inputs) for k, v in value["$dict"].items()}
        if "$dtype" in value:
            if value["$dtype"] not in ALLOWED_DTYPES:
                raise WireError(f"a forbidden dtype {str(value['$dtype'])[:40]!r}")
            return _DTYPES[value["$dtype"]]
        if "$refused" in value:
            raise Refused(str(value["$refused"])[:100])
        if "$object" in value and classes is not None:
            name, fields = value["$object"]
            if name not in classes or not isinstance(fields, dict):
                raise WireError(f"an object of an unknown class {str(name)[:40]!r}")
            return classes[name](**{k: unpack(v, arrays, classes, inputs) for k, v in fields.items()})
        items = value.get("$list", value.get("$tuple"))
        if not isinstance(items, list):
            raise WireError(f"a value of unknown kind {sorted(value)[:3]}")
        items = [unpack(v, arrays, classes, inputs) for v in items]
        return items if "$list" in value else tuple(items)
    return value


class Refused(Exception):
    """A value `pack` could not send; str() says what it was ("a value of type set", "an array of dtype object")."""


def _check_depth(header):
    """WireError when `header` nests lists and objects deeper than MAX_DEPTH (walked level by level)."""
    level = [header]
    for _ in range(MAX_DEPTH):
        level = [child for value in level for child in (value.values() if type(value) is dict else value)
                 if type(child) is dict or type(child) is list]
        if not level:
            return
    raise WireError(f"the header nests deeper than {MAX_DEPTH} levels")


def _array_specs(header, max_payload):
    """([(name, dtype, shape, bytes, scalar)] of header["arrays"], checked, the payload's total bytes)."""
    specs = header.get("arrays", [])
    if not isinstance(specs, list):
        raise WireError("header 'arrays' is not a list")
    total, seen, checked = 0, set(), []
    for spec in specs:
        if not isinstance(spec, dict) or not isinstance(spec.get("name"), str) or spec["name"] in seen:
            raise WireError("an array entry has no name, or a name used twice")
        dtype, shape = spec.get("dtype"), spec.get("shape")
        dtype = _DTYPES.get(dtype) if isinstance(dtype, str) else None
        if dtype is None:
            raise WireError(f"array {spec['name']!r} has a forbidden dtype {str(spec.get('dtype'))[:40]!r}")
        if (not isinstance(shape, list) or len(shape) > MAX_NDIM
                or not all(type(d) is int and d >= 0 for d in shape)):
            raise WireError(f"array {spec['name']!r} has a malformed shape {shape!r}")
        nbytes = math.prod(shape) * dtype.itemsize
        total += nbytes
        if total > max_payload:
            raise WireError(f"arrays of more than {max_payload} bytes")
        if not isinstance(spec.get("scalar", False), bool):
            raise WireError(f"array {spec['name']!r} has a malformed scalar flag")
        seen.add(spec["name"])
        checked.append((spec["name"], dtype, tuple(shape), nbytes, spec.get("scalar") is True))
    return checked, total


class Reader:
    """Exact-size reads from a socket with few system calls: whatever arrives is buffered."""

    def __init__(self, sock):
        self.sock, self.buf = sock, bytearray()

    def exact(self, n, deadline=None):
        """n bytes; before `deadline` (time.monotonic) if given, else TimeoutError. EOFError at EOF."""
        if n - len(self.buf) > 1 << 16:  # a large payload: receive the rest in place, without copies
            data, got = bytearray(n), len(self.buf)
            data[:got] = self.buf
            self.buf = bytearray()
            view = memoryview(data)
            while got < n:
                self._wait(deadline)
                k = self.sock.recv_into(view[got:], n - got)
                if k == 0:
                    raise EOFError("the other side closed the socket")
                got += k
            return data
        while len(self.buf) < n:
            self._wait(deadline)
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise EOFError("the other side closed the socket")
            self.buf += chunk
        data = self.buf[:n]
        del self.buf[:n]
        return data

    def _wait(self, deadline):
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("no answer in time")
            self.sock.settimeout(remaining)


def read_kept(recv_exact, max_header, max_payload):
    """read_message, and the bytes it read as they came: (header, arrays, [chunks])."""
    chunks = []

    def kept(n):
        chunks.append(recv_exact(n))
        return chunks[-1]
    return (*read_message(kept, max_header, max_payload), chunks)


def read_message(recv_exact, max_header, max_payload):
    """Read one message with `recv_exact(n) -> bytes-like of length n`; return (header, arrays).

    `arrays` maps name -> (writable ndarray, scalar flag). Raises WireError on anything malformed
    and lets recv_exact's own errors (EOF, timeout) through.
    """
    (length,) = _LENGTH.unpack(bytes(recv_exact(_LENGTH.size)))
    if length > max_header:
        raise WireError(f"a header of {length} bytes (at most {max_header})")
    text = bytes(recv_exact(length))
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:  # the C decoder stops deep nesting
        raise WireError(f"the header is not JSON: {str(err)[:200]}") from None
    if not isinstance(header, dict):
        raise WireError("the header is not a JSON object")
    if text.count(b"[") + text.count(b"{") > MAX_DEPTH:  # fewer brackets than that cannot nest deeper
        _check_depth(header)
    specs, total = _array_specs(header, max_payload)
    payload = recv_exact(total) if total else bytearray()
    if not isinstance(payload, bytearray):
        payload = bytearray(payload)  # writable arrays: a learner's function may write to its inputs
    arrays, offset = {}, 0
    for name, dtype, shape, nbytes, scalar in specs:  # a view of the payload (np.ndarray: 4 times as quick as frombuffer)
        arrays[name] = (np.ndarray(shape, dtype, payload, offset), scalar)
        offset += nbytes
    return header, arrays
