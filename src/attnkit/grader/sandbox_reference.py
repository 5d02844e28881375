"""The reference of earlier steps, for a graded step, computed here and answered over the wire.

A step that imports earlier steps (step 6 imports steps 1–5) is graded with their reference
versions, so that a mistake costs only the step that made it. The reference never enters the
sandbox: there, each earlier step is the kit's provided code of that step with its graded functions
replaced by proxies (sandbox_child.Submission.ask) that send their arguments here; `answer` has
the reference's result computed in a worker process under a memory limit (reference_worker: never
in the grader, whose memory a learner's arguments must not take) and sends it back as plain arrays. Only the steps
the graded step imports (directly or through another) may be asked for, with the same caps on array
sizes and dtypes as a call's result; what the reference raises is sent back as the same (built-in)
exception type with its message. Every submission sends the same arguments for a right answer, so
answers are remembered by the bytes of the request.
"""
import ast
import builtins
import hashlib
import marshal
import threading
import time
from collections import OrderedDict
from functools import lru_cache

import numpy as np

from .. import manifest, stubs
from attnkit_runtime.messages import say
from ..paths import SOLUTIONS_DIR
from ..reference import reference_function
from .reference_worker import WORKERS, WorkerFailed
from .sandbox_types import Limits
from .sandbox_wire import Refused, WireError, encode_arrays, frame, pack, unpack

_MEMO_BYTES = 64 << 20  # answers remembered, oldest dropped first
_MAX_TEXT = 4000
_WORKER_SECONDS = 10.0  # a request made with no deadline of its own


@lru_cache(maxsize=None)
def imported_steps(step):
    """The steps `step` imports, directly or through another, each after its own: ("step1_projection", …)."""
    order = []

    def visit(module):
        for dep in manifest.step(module).depends_on:
            if dep not in order:
                visit(dep)
                order.append(dep)

    visit(step)
    return tuple(order)


@lru_cache(maxsize=None)
def provided_source(module):
    """The kit's provided code of `module`: a provided module whole, a step without its solved functions."""
    source = (SOLUTIONS_DIR / f"{module}.py").read_text(encoding="utf-8")
    return source if module in manifest.provided_modules() else stubs.provided_code(source)


@lru_cache(maxsize=None)
def provided_code(module, part=None):
    """`provided_source(module)` compiled here, once, as `<kit module>` (marshal bytes: the child runs it).

    `part` "definitions": only its classes and functions; "names": only the rest (imports…)."""
    tree = ast.parse(provided_source(module))
    if part is not None:
        tree.body = [node for node in tree.body if isinstance(node, _DEFINITIONS) == (part == "definitions")]
    return marshal.dumps(compile(tree, f"<kit {module}>", "exec", dont_inherit=True))


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


@lru_cache(maxsize=None)
def kit_modules(step):
    """((module, proxies), …): the modules the child builds, with `provided_code`, before importing
    `step` — the provided modules, then each step it imports with that step's functions as proxies."""
    return tuple([(name, ()) for name in manifest.provided_modules()]
                 + [(dep, tuple(fn.name for fn in manifest.step(dep).functions)) for dep in imported_steps(step)])


class _Memo:
    """Answers by request bytes, up to _MEMO_BYTES; safe from many threads."""

    def __init__(self):
        self._answers, self._bytes, self._lock = OrderedDict(), 0, threading.Lock()

    def get(self, key):
        with self._lock:
            return self._answers.get(key)

    def put(self, key, answer):
        with self._lock:
            if key in self._answers or len(answer) > _MEMO_BYTES // 8:
                return
            self._answers[key] = answer
            self._bytes += len(answer)
            while self._bytes > _MEMO_BYTES:
                self._bytes -= len(self._answers.popitem(last=False)[1])


_MEMO = _Memo()


@lru_cache(maxsize=None)
def _askable(step):
    """{(module, function)} the child may ask for while `step` runs: the functions of the steps it imports."""
    return frozenset((dep, fn.name) for dep in imported_steps(step) for fn in manifest.step(dep).functions)


def _key(raw, job):
    """The request's bytes (a digest of them when large), and the call `job` whose inputs it names, if any."""
    data = b"".join(raw)
    return job if b'"$input"' in data else None, hashlib.blake2b(data, digest_size=20).digest() \
        if len(data) > 4096 else data


def answer(step, request, max_bytes, job=None, inputs=None, memory_mb=Limits.memory_mb, deadline=None):
    """The bytes of the "ref_answer" to a child's "ref" request (header, arrays, raw: the bytes read)
    made while `step` is graded (None: no step, e.g. while the child is checked), during call `job`
    whose large arguments are `inputs` ({name: array}). The reference runs in a worker process
    (reference_worker: `memory_mb` of address space, answering by `deadline`, time.monotonic, else
    TimeoutError). Raises WireError for a request that breaks the format."""
    header, arrays, raw = request
    module, function = header.get("module"), header.get("function")
    if step is None or not isinstance(module, str) or not isinstance(function, str) \
            or (module, function) not in _askable(step):
        return _raised("PermissionError", say("sandbox.ref_not_allowed", step=step or "-",
                                               function=f"{str(module)[:60]}.{str(function)[:60]}"))
    key = _key(raw, job)
    known = _MEMO.get(key)
    if known is not None:
        return known
    try:
        args, kwargs = (unpack(header.get(part), arrays, inputs=inputs or {}) for part in ("args", "kwargs"))
    except Refused as err:
        return _raised("TypeError", say("sandbox.ref_argument", function=function, kind=str(err)))
    if not isinstance(args, list) or not isinstance(kwargs, dict):
        raise WireError("a reference request without its arguments")
    parts = []
    tree = {"module": module, "function": function, "max_bytes": max_bytes, "args": pack(args, parts),
            "kwargs": pack(kwargs, parts)}
    try:
        with WORKERS.worker(memory_mb) as worker:
            reply = worker.ask(frame(tree, *encode_arrays(parts)), deadline or time.monotonic() + _WORKER_SECONDS)
    except WorkerFailed:
        return _raised("MemoryError", say("sandbox.ref_failed", function=function))  # not remembered: no verdict
    _MEMO.put(key, reply)
    return reply


def compute(header, arrays):
    """In a reference worker: the bytes of the "ref_answer" to a request that `answer` checked and
    forwarded ({"module", "function", "max_bytes", "args", "kwargs"} and its arrays)."""
    function = header["function"]
    try:
        args, kwargs = (unpack(header[part], arrays) for part in ("args", "kwargs"))
        with np.errstate(all="ignore"):
            result = reference_function(header["module"], function)(*args, **kwargs)
        parts = []
        tree = pack(result, parts)
        specs, payload = encode_arrays(parts)
    except Exception as err:  # noqa: BLE001 - the learner's arguments made the reference raise (MemoryError too)
        return _raised(_builtin_type(err), str(err))
    if len(payload) > header["max_bytes"]:
        return _raised("MemoryError", say("sandbox.ref_too_large", function=function, limit=header["max_bytes"]))
    return frame({"op": "ref_answer", "status": "ok", "result": tree}, specs, payload)


def _builtin_type(err):
    """The name of the nearest built-in exception class of `err` (numpy's AxisError -> "ValueError")."""
    return next(c.__name__ for c in type(err).__mro__ if getattr(builtins, c.__name__, None) is c)


def _raised(exc_type, error):
    return frame({"op": "ref_answer", "status": "raised", "exc_type": exc_type, "error": error[:_MAX_TEXT]})
