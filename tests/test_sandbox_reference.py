"""Issue 15 point 2: no reference code beside learner code, and the kit's own provided code.

A graded step that imports earlier steps gets, in the sandbox, modules whose functions ask the
grader for the reference's result over the wire: learner code that prints, disassembles or walks
gc, sys.modules, frames and linecache finds no reference function, code object or source line, in
any step of either track. Provided definitions (decode_in_chunks, HeadTrace, head_count…) are the
kit's, whatever the learner's file holds, so replacing them earns nothing.
"""
import ast
import textwrap
import time
from functools import lru_cache

import numpy as np
import pytest

from attnkit import manifest, stubs
from attnkit.grader.plan import Plan
from attnkit.grader.sandbox import Limits, run_submission
from attnkit.grader.sandbox_reference import answer
from attnkit.grader.sandbox_wire import encode_arrays, frame, pack, read_message
from attnkit.paths import SOLUTIONS_DIR
from test_sandbox import no_barrier, reference_sources  # noqa: F401 - a fixture

SLOW = Limits(call_seconds=20.0, submission_seconds=60.0, call_cpu_seconds=20.0, submission_cpu_seconds=60.0,
              call_idle_seconds=20.0, submission_idle_seconds=60.0)


@lru_cache(maxsize=None)
def _jobs(track):
    return Plan(track).jobs


def _first_job(step):
    return next(job for job in _jobs(step.track) if job.step == step.module)


def _stub_sources():
    return {name: text for name, text in stubs.generated_files().items() if not name.startswith(("test_", "conftest"))}


def _reference_fingerprints(graded):
    """(source lines, bytecodes) of the reference of every step but `graded`, each written backwards (so
    that the spy's own code does not hold them): its solution lines found in no stub and not in the graded
    step's own file, and its solved functions' names + bytecode."""
    own = reference_sources()[f"{graded}.py"]
    provided = "\n".join(_stub_sources().values())
    lines, codes = set(), set()
    for step in manifest.steps():
        if step.module == graded:
            continue
        source = (SOLUTIONS_DIR / step.filename).read_text(encoding="utf-8")
        lines |= {line[::-1] for line in stubs.solution_lines(source) if line not in own and line not in provided}
        solved = {node.name for node in ast.walk(ast.parse(source)) if isinstance(node, ast.FunctionDef)
                  and stubs.BEGIN in ast.get_source_segment(source, node)}
        module = compile(source, step.filename, "exec")
        codes |= {(c.co_name + c.co_code.hex())[::-1] for c in module.co_consts
                  if hasattr(c, "co_code") and c.co_name in solved}
    return lines, codes


SPY = '''
def _spy_for_reference():
    import gc, linecache, sys, types  # loaded already: without the barrier, nobody may not import more
    lines, codes = {line[::-1] for line in %(lines)r}, {code[::-1] for code in %(codes)r}
    found, seen, mine = set(), set(), {id(lines), id(codes)}

    def code(c):
        if id(c) in seen:
            return
        seen.add(id(c))
        if "reference" in c.co_filename or "solutions" in c.co_filename:
            found.add("code from " + c.co_filename)
        if c.co_name + c.co_code.hex() in codes:
            found.add("reference bytecode of " + c.co_name)
        for k in c.co_consts:
            if isinstance(k, types.CodeType):
                code(k)
            elif isinstance(k, str):
                text(k, "a constant of " + c.co_name)

    def text(s, where):
        for line in s.splitlines():
            if line.strip() in lines:
                found.add("reference source in " + where + ": " + line.strip()[:60])

    def value(v, where):
        if isinstance(v, types.FunctionType):
            code(v.__code__)
        elif isinstance(v, types.CodeType):
            code(v)
        elif isinstance(v, (str, bytes, bytearray)):
            text(v if isinstance(v, str) else bytes(v).decode("latin-1"), where)
        elif isinstance(v, types.ModuleType) and "reference" in str(getattr(v, "__file__", "")):
            found.add("module " + v.__name__)

    for obj in gc.get_objects():
        if id(obj) in mine:
            continue
        value(obj, "gc")
        if isinstance(obj, dict):
            for v in list(obj.values()):
                value(v, "a dict")
        elif isinstance(obj, (list, tuple, set, frozenset)):
            for v in list(obj):
                value(v, "a container")
    for module in list(sys.modules.values()):
        for v in list(vars(module).values()):
            value(v, "module " + module.__name__)
    frame = sys._getframe()
    while frame is not None:
        code(frame.f_code)
        for v in list(frame.f_locals.values()):
            if id(v) not in mine:
                value(v, "a frame")
        frame = frame.f_back
    for name, entry in list(linecache.cache.items()):
        if len(entry) > 2 and entry[2]:
            text("".join(entry[2]), "linecache " + name)
    print("LEAKS", sorted(found))
'''


def _spying(step):
    """The stubs, but step `step` is the reference whose first graded function first runs the spy."""
    function = step.functions[0].name
    sources = _stub_sources()
    lines, codes = _reference_fingerprints(step.module)
    source = reference_sources()[step.filename].replace(f"def {function}(", f"def _graded_{function}(", 1)
    source += SPY % {"lines": lines, "codes": codes}
    source += (f"\n\ndef {function}(*args, **kwargs):\n    _spy_for_reference()\n"
               f"    return _graded_{function}(*args, **kwargs)\n")
    sources[step.filename] = source
    return sources


def _printed(run, tag):
    line = next((line for line in run.stdout.splitlines() if line.startswith(tag + " ")), None)
    assert line is not None, (run.results, run.stdout[-2000:], run.stderr[-2000:])
    return ast.literal_eval(line[len(tag) + 1:])


@pytest.mark.parametrize("step", manifest.steps(), ids=lambda s: s.module)
def test_learner_code_finds_no_reference_in_any_step(step):
    job = _first_job(step)
    run = run_submission(_spying(step), [job], SLOW)
    assert _printed(run, "LEAKS") == []
    # the earlier steps are stubs, yet the graded one gets the reference's results from them
    assert run.results[job.key].ending == "returned", run.results[job.key]


@pytest.mark.parametrize("module", ["step6_head", "step8_kv_cache"])
def test_without_the_barrier_too_learner_code_finds_no_reference(no_barrier, module):
    step = manifest.step(module)
    job = _first_job(step)
    run = run_submission(_spying(step), [job], SLOW, allow_no_barrier=True)
    assert run.isolation.startswith("none:")
    assert _printed(run, "LEAKS") == [] and run.results[job.key].ending == "returned", run.results[job.key]


def _raised_within(step, function, signature, code, sources=None):
    """(type name, message) of what `code` raised (it calls earlier steps) when run first in the
    learner's `function(signature)` of `step`, whose own result is then the reference's."""
    sources = sources or reference_sources()
    body = textwrap.indent(code.strip(), " " * 8)
    sources[f"{step}.py"] += (f"\n\n_graded = {function}\ndef {function}({signature}):\n"
                              f"    try:\n{body}\n    except Exception as err:\n"
                              f"        print('RAISED', repr((type(err).__name__, str(err))))\n"
                              f"    return _graded({signature.replace('=None', '')})\n")
    job = next(job for job in _jobs(manifest.step(step).track) if job.function == function)
    run = run_submission(sources, [job], SLOW)
    assert run.results[job.key].ending == "returned", run.results[job.key]
    return _printed(run, "RAISED")


def _ref_error(code):
    """What step 6's attention raised running `code` (which calls the earlier steps) on its Q, K, V."""
    return _raised_within("step6_head", "attention", "Q, K, V, visible=None", code)


def test_a_wrong_call_to_an_earlier_step_raises_the_references_own_error():
    from attnkit.reference import reference_function
    S = np.array([[np.nan, 1.0]])
    with pytest.raises(ValueError) as expected:
        reference_function("step4_softmax", "softmax")(S)
    assert _ref_error("softmax(np.array([[np.nan, 1.0]]))") == ("ValueError", str(expected.value))
    kind, text = _ref_error("weighted_sum(Q, K, V)")
    assert kind == "TypeError" and "weighted_sum" in text and "argument" in text
    kind, text = _ref_error("project_qkv(object(), *[Q] * 6)")
    assert kind == "TypeError" and "project_qkv() cannot be given a value of type object" in text


def test_an_earlier_steps_result_comes_back_as_the_reference_gives_it():
    code = """
Q = K = V = np.ones((2, 3, 4))
trace = attention_head(np.ones((3, 4)), *[np.ones((4, 2)), np.zeros(2)] * 3)
pair = attention(Q, K, V)
raise RuntimeError(repr((type(trace).__name__, type(trace).__module__, type(pair).__name__, len(pair),
                         type(pair[0]).__name__, trace.kq.shape)))
"""
    sources = reference_sources()
    sources["step7_layer.py"] = sources["step7_layer.py"].replace(
        "from step6_head import attention", "from step6_head import attention, attention_head")
    kind, text = _raised_within("step7_layer", "split_heads", "X, n_head", code, sources)
    assert kind == "RuntimeError"
    assert ast.literal_eval(text) == ("HeadTrace", "step6_head", "tuple", 2, "ndarray", (3, 3))


SWAP = '''
from step7_layer import gpt2_attention

def decode_step(Z_new, K_past, V_past, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    raise NotImplementedError("no KV cache here")

def decode_in_chunks(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, chunks):
    return gpt2_attention(Z, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head).out

def head_count(n_head, width):
    return 1

class LayerTrace:
    pass
'''


def test_the_provided_decode_in_chunks_is_the_kits_whatever_the_learners_file_holds():
    sources = reference_sources()
    sources["step8_kv_cache.py"] += "\n\n" + SWAP
    jobs = [job for job in _jobs("extension") if job.function in ("decode_in_chunks", "chunk_positions")]
    run = run_submission(sources, jobs, SLOW)
    for job in jobs:
        status = run.results[job.key].ending
        assert status == ("returned" if job.function == "chunk_positions" else "not_written"), (job.key, run.results[job.key])


def test_a_step_cannot_ask_the_grader_for_its_own_reference_nor_a_step_it_does_not_import():
    code = """
submission = next(c.cell_contents for c in softmax.__closure__ if hasattr(c.cell_contents, "ask"))
for module, function in (("step6_head", "attention"), ("step8_kv_cache", "chunk_positions")):
    try:
        print("ASKED", submission.ask(module, function, (Q, K, V) if function == "attention" else (0, 2), {}))
    except PermissionError as err:
        print("REFUSED", repr(str(err)))
"""
    job = next(job for job in _jobs("core") if job.function == "attention")
    sources = reference_sources()
    sources["step6_head.py"] += (f"\n\n_graded_attention = attention\ndef attention(Q, K, V, visible=None):\n"
                                 f"{textwrap.indent(code.strip(), '    ')}\n    return _graded_attention(Q, K, V, visible)\n")
    run = run_submission(sources, [job], SLOW)
    assert run.results[job.key].ending == "returned", run.results[job.key]
    assert "ASKED" not in run.stdout
    refused = [line for line in run.stdout.splitlines() if line.startswith("REFUSED")]
    assert len(refused) == 2 and all("step6_head" in line for line in refused), run.stdout


def _reading(data):
    """recv_exact over the bytes `data`, in order."""
    at = [0]

    def exact(n):
        at[0] += n
        return data[at[0] - n:at[0]]
    return exact


def _request(module, function, *args, **kwargs):
    """A child's "ref" request as the grader reads it: (header, arrays, the bytes read)."""
    arrays = []
    header = {"op": "ref", "module": module, "function": function, "args": pack(list(args), arrays),
              "kwargs": pack(kwargs, arrays)}
    data = frame(header, *encode_arrays(arrays))
    return (*read_message(_reading(data), 1 << 20, 1 << 30), [data])


def _answered(request, max_bytes=16_000_000):
    return read_message(_reading(answer("step6_head", request, max_bytes)), 1 << 20, 1 << 30)


def test_the_grader_caps_what_a_reference_call_gives_and_refuses_what_cannot_be_sent():
    header, parts = _answered(_request("step3_masks", "causal_visible", 3, 4))
    assert header["status"] == "ok" and parts["a0"][0].shape == (3, 4)
    header, _ = _answered(_request("step3_masks", "causal_visible", 300, 400), max_bytes=1000)
    assert (header["status"], header["exc_type"]) == ("raised", "MemoryError") and "1000 bytes" in header["error"]
    header, _ = _answered(_request("step4_softmax", "softmax", {1, 2}))
    assert header["exc_type"] == "TypeError" and "a value of type set" in header["error"]
    header, _ = _answered(_request("step7_layer", "split_heads", np.ones((2, 4)), 2))
    assert header["exc_type"] == "PermissionError" and "step6_head" in header["error"]


def test_the_kits_provided_definitions_leave_the_learners_own_names_alone():
    sources = reference_sources()
    sources["step7_layer.py"] += ("\n\ndef project(X, W, b):  # the learner's own, in place of step 1's\n"
                                  "    print('MINE')\n    return X @ W + b\n")
    jobs = [job for job in _jobs("extension") if job.function == "split_qkv"][:1]
    run = run_submission(sources, jobs, SLOW)
    assert run.results[jobs[0].key].ending == "returned" and "MINE" in run.stdout, run.results


def _peak_rss_growth(action):
    """(what `action()` gave, how many bytes this process's peak resident memory grew while it ran)."""
    def peak():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) << 10 for line in f if line.startswith("VmHWM:"))
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # the peak starts again from what is resident now
    before = peak()
    return action(), peak() - before


def test_a_reference_call_whose_result_outgrows_its_inputs_takes_no_memory_of_the_grader():
    big = np.ones((12_000, 1))  # 96 kB each; raw_scores of two of them is 1.15 GB
    (header, _), grew = _peak_rss_growth(lambda: _answered(_request("step2_scores", "raw_scores", big, big)))
    assert (header["status"], header["exc_type"]) == ("raised", "MemoryError")
    assert grew < 200 << 20, f"the grader's peak memory grew by {grew >> 20} MB"


def test_a_reference_call_past_its_deadline_is_stopped_and_the_next_one_is_answered():
    Z = np.ones((1500, 1500))
    with pytest.raises(TimeoutError):
        answer("step6_head", _request("step1_projection", "project", Z, Z, np.zeros(1500)), 16_000_000,
               deadline=time.monotonic() + 0.05)
    header, parts = _answered(_request("step3_masks", "causal_visible", 2, 3))
    assert header["status"] == "ok" and parts["a0"][0].shape == (2, 3)
