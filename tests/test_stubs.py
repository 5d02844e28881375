"""The learner's stubs in exercises/: generated from solutions/, same signatures and docstrings,
no solution code, and each function raises NotImplementedError naming its step and function."""
import inspect

import numpy as np
import pytest

from attnkit import manifest, stubs
from attnkit.reference import load_step
from attnkit.paths import EXERCISES_DIR, SOLUTIONS_DIR

STEPS = manifest.steps()
FUNCTIONS = [(s, fn.name) for s in STEPS for fn in s.functions]
IDS = [f"{s.module}.{name}" for s, name in FUNCTIONS]


def layer(D=4):
    """GPT-2 layer weights (Conv1D layout) of width D."""
    return dict(c_attn_weight=np.ones((D, 3 * D)), c_attn_bias=np.zeros(3 * D), c_proj_weight=np.ones((D, D)),
                c_proj_bias=np.zeros(D))


def weights(D=3, D_h=2):
    return dict(W_Q=np.ones((D, D_h)), b_Q=np.zeros(D_h), W_K=np.ones((D, D_h)), b_K=np.zeros(D_h),
                W_V=np.ones((D, D_h)), b_V=np.zeros(D_h))


# The smallest valid arguments of each function: the provided input checks must let them through.
VALID = {
    "project": dict(Z=np.ones((1, 3)), W=np.ones((3, 2)), b=np.zeros(2)),
    "project_qkv": dict(Z=np.ones((1, 3)), **weights()),
    "raw_scores": dict(Q=np.ones((1, 2)), K=np.ones((2, 2))),
    "scale_scores": dict(kq=np.ones((1, 2)), d_h=2),
    "causal_visible": dict(n_query=1, n_key=2),
    "padding_visible": dict(attention_mask=np.array([1, 0]), n_query=1),
    "combine_visible": dict(),  # called with one table, below
    "additive_mask": dict(visible=np.array([[True, False]])),
    "to_torch_sdpa_mask": dict(visible=np.array([[True, False]])),
    "to_torch_mha_mask": dict(visible=np.array([[True, False]])),
    "to_torch_key_padding_mask": dict(attention_mask=np.array([1, 0])),
    "softmax": dict(S=np.zeros((1, 2))),
    "weighted_sum": dict(P=np.ones((1, 2)), V=np.ones((2, 2))),
    "attention": dict(Q=np.ones((1, 2)), K=np.ones((2, 2)), V=np.ones((2, 2))),
    "attention_head": dict(Z=np.ones((1, 3)), **weights()),
    "split_qkv": dict(X=np.ones((1, 2)), c_attn_weight=np.ones((2, 6)), c_attn_bias=np.zeros(6)),
    "split_heads": dict(X=np.ones((1, 4)), n_head=2),
    "merge_heads": dict(O=np.ones((2, 1, 2))),
    "gpt2_attention": dict(Z=np.ones((1, 4)), **layer(), n_head=2),
    "append_kv": dict(K_past=np.ones((2, 1, 2)), V_past=np.ones((2, 1, 2)), K_new=np.ones((2, 1, 2)),
                      V_new=np.ones((2, 1, 2))),
    "chunk_positions": dict(n_past=1, n_new=1),
    "chunk_visible": dict(positions=np.array([1]), n_key=2),
    "decode_step": dict(Z_new=np.ones((1, 4)), K_past=np.ones((2, 1, 2)), V_past=np.ones((2, 1, 2)), **layer(),
                        n_head=2),
    "decode_in_chunks": dict(Z=np.ones((2, 4)), **layer(), n_head=2, chunks=[1, 1]),
    "from_ggml": dict(buffer=np.zeros(6), ne=(3, 2)),
    "to_ggml": dict(array=np.zeros((2, 3))),
    "read_qkv_dump": dict(buffer=np.zeros(12), ne=(2, 3, 2, 1)),
    "read_kq_dump": dict(buffer=np.zeros(8), ne=(4, 2, 1, 1), n_keys=2),
    "online_softmax_update": dict(m=np.full(1, -np.inf), l=np.zeros(1), acc=np.zeros((1, 2)), S_block=np.zeros((1, 2)),
                                  V_block=np.ones((2, 2))),
    "attention_tiled": dict(Q=np.ones((1, 2)), K=np.ones((2, 2)), V=np.ones((2, 2)), block=1),
    "kv_head_for": dict(n_head=2, n_kv_head=1),
    "attention_gqa": dict(Q=np.ones((2, 1, 2)), K=np.ones((1, 2, 2)), V=np.ones((1, 2, 2))),
    "kv_cache_bytes": dict(n_layer=1, n_head=2, n_kv_head=1, d_head=2, n_ctx=3),
    "rope_frequencies": dict(d_head=2),
    "apply_rope": dict(X=np.ones((1, 2)), positions=np.array([0])),
    "rope_attention": dict(Q=np.ones((1, 2)), K=np.ones((2, 2)), V=np.ones((2, 2)), past=1),
    "softmax_backward": dict(P=np.ones((1, 2)) / 2, dP=np.ones((1, 2))),
    "attention_backward": dict(Q=np.ones((1, 2)), K=np.ones((2, 2)), V=np.ones((2, 2)), dO=np.ones((1, 2))),
}
# Provided functions (no solution block) of the manifest, and the learner's function they call first:
# their stub raises that function's message.
PROVIDED_CALLS = {"decode_in_chunks": "decode_step"}


def stub(module):
    """The stub of `module` with reference neighbours, as the grader loads a learner's step (so a
    stub of step 6 is not stopped first by the stub of causal_visible that its checks call)."""
    return load_step(module, EXERCISES_DIR, deps_folder=SOLUTIONS_DIR)


def solution(module):
    return load_step(module, SOLUTIONS_DIR)


def test_committed_stubs_are_what_the_generator_makes():
    stale = stubs.drift()
    assert not stale, (f"exercises/{', exercises/'.join(stale)} differ from solutions/: "
                       "run `attnkit stubs` and commit exercises/ with solutions/")


def test_every_manifest_function_has_valid_arguments_here():
    assert {name for _, name in FUNCTIONS} == set(VALID)


@pytest.mark.parametrize("step, name", FUNCTIONS, ids=IDS)
def test_stub_raises_not_implemented_naming_step_and_function(step, name):
    fn = getattr(stub(step.module), name)
    with pytest.raises(NotImplementedError) as info:
        fn(np.array([[True]])) if name == "combine_visible" else fn(**VALID[name])
    message, written = str(info.value), PROVIDED_CALLS.get(name, name)
    assert f"Step {step.number}" in message and f"{step.module}.{written}" in message, message
    assert message == stubs.not_written_message(step, written)


@pytest.mark.parametrize("step, name", FUNCTIONS, ids=IDS)
def test_valid_arguments_pass_the_solutions(step, name):
    """The arguments above are valid: the reference accepts them (so the stub's raise is reached)."""
    fn = getattr(solution(step.module), name)
    fn(np.array([[True]])) if name == "combine_visible" else fn(**VALID[name])


@pytest.mark.parametrize("step, name", FUNCTIONS, ids=IDS)
def test_stub_keeps_signature_and_docstring(step, name):
    got, want = getattr(stub(step.module), name), getattr(solution(step.module), name)
    assert inspect.signature(got) == inspect.signature(want)
    assert got.__doc__ and got.__doc__ == want.__doc__


def test_stubs_contain_no_solution_code():
    modules = [*manifest.provided_modules(), *(s.module for s in STEPS)]
    exercise_lines = {line.strip() for m in modules
                      for line in (EXERCISES_DIR / f"{m}.py").read_text(encoding="utf-8").splitlines()}
    found = 0
    for step in STEPS:
        body = stubs.solution_lines((SOLUTIONS_DIR / step.filename).read_text(encoding="utf-8"))
        found += len(body)
        leaked = [line for line in body if line in exercise_lines]
        assert not leaked, f"exercises/ holds solution lines of {step.filename}: {leaked}"
    assert found >= len(FUNCTIONS)  # every function has a solution block to hide
    assert not {stubs.BEGIN, stubs.END} & exercise_lines


def test_head_trace_is_provided_in_the_stub():
    HeadTrace = stub("step6_head").HeadTrace
    fields = ("Q", "K", "V", "kq", "kq_soft_max", "kqv")
    assert tuple(HeadTrace.__dataclass_fields__) == fields
    trace = HeadTrace(*(np.zeros((1, 1)) for _ in fields))
    assert trace.kq_soft_max.shape == (1, 1)
