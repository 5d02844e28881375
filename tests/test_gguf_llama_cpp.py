"""`attnkit gguf` and step 9's readers against tensors llama.cpp itself computed.

tests/data/llama_cpp/ (made by tools/llama_cpp_golden.py; its README says from which llama.cpp
commit) holds a tiny random GPT-2 converted by llama.cpp's own converter and every attention tensor
llama.cpp computed for a few prompts, Flash Attention off, with its default f16 KV cache and with
an f32 one, one prompt also decoded in three calls. No llama.cpp build is needed here.
"""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gguf", reason="the gguf extra is not installed (pip install -e \".[gguf]\")")
pytest.importorskip("tokenizers", reason="the gguf extra is not installed (pip install -e \".[gguf]\")")

from attnkit.cmd_gguf import llama_tensors  # noqa: E402
from attnkit.gpt2_bpe import encode  # noqa: E402
from attnkit.gpt2_gguf import open_gpt2, run_layer  # noqa: E402

DATA = Path(__file__).parent / "data" / "llama_cpp"
MODEL = DATA / "tiny-gpt2.gguf"
META = json.loads((DATA / "golden.json").read_text(encoding="utf-8"))
WHOLE = [run for run in META["runs"] if run["chunks"] == "all"]
CHUNKED = [run for run in META["runs"] if run["chunks"] != "all"]

# Tolerance per (KV cache, block) and tensor, relative to the tensor's largest value:
# |kit - llama.cpp| <= tol * max|llama.cpp|. Measured worst cases over the golden runs in brackets.
# - FLOAT32: the kit is float64, llama.cpp float32 (6e-8 per rounding, sums of 32 terms) [5.5e-7].
# - F16_CACHE: llama.cpp's default KV cache rounds K and V to half precision (4.9e-4 relative) when it
#   stores them, so kq and everything after it moves; Q, K, V themselves are taken before the cache [6.9e-4].
# - GELU_TABLE: llama.cpp's CPU GELU reads an fp16 table (input and output rounded to half
#   precision), so block 0's MLP hands block 1 an input off by about that much: every tensor of
#   block 1 [8.3e-4 with the f32 cache, 1.6e-3 with the f16 one].
FLOAT32, F16_CACHE, GELU_TABLE = 2e-6, 2e-3, 2e-3
ATTENTION = ["Qcur", "Kcur", "Vcur", "kq", "kq_soft_max", "kqv", "kqv_out", "out"]
TOLERANCE = {
    ("f32", 0): dict.fromkeys(ATTENTION, FLOAT32),
    ("f16", 0): {**dict.fromkeys(ATTENTION[:3], FLOAT32), **dict.fromkeys(ATTENTION[3:], F16_CACHE)},
    ("f32", 1): dict.fromkeys(ATTENTION, GELU_TABLE),
    ("f16", 1): dict.fromkeys(ATTENTION, GELU_TABLE + F16_CACHE),
}


@pytest.fixture(scope="module")
def model():
    return open_gpt2(MODEL)


def golden(run, name, call=0):
    """(record, values [ne reversed]) of the tensor `name` computed in decode call `call` of `run`."""
    (record,) = [t for t in run["tensors"] if t["name"] == name and t["call"] == call]
    with np.load(DATA / "golden.npz") as arrays:
        return record, arrays[record["key"]]


def run_id(run):
    return f"{run['cache']}-{run['prompt'][:12]}"


def close(kit, llama, tol, what):
    scale = float(np.abs(llama).max())
    np.testing.assert_allclose(kit, llama, rtol=0, atol=tol * scale, err_msg=what)


def attnkit(*args):
    return subprocess.run([sys.executable, "-m", "attnkit.cli", "gguf", str(MODEL), *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_the_data_says_where_it_came_from():
    readme = (DATA / "README.md").read_text(encoding="utf-8")
    assert META["llama_cpp_commit"][:9] in readme and "tools/llama_cpp_golden.py" in readme


def llama_cpp_tokenizer_test():
    """[(text, ids)] of llama.cpp's own GPT-2 tokenizer test (tests/test-tokenizer-0 reads it the same way)."""
    texts = (DATA / "ggml-vocab-gpt-2.inp").read_text(encoding="utf-8").split("\n__ggml_vocab_test__\n")
    ids = (DATA / "ggml-vocab-gpt-2.out").read_text(encoding="utf-8").split("\n")
    return [(text, [int(i) for i in line.split()]) for text, line in zip(texts, ids, strict=False)]


def test_bpe_gives_llama_cpps_ids_on_its_own_tokenizer_test(model):
    cases = llama_cpp_tokenizer_test()
    assert len(cases) >= 40
    wrong = [(text, encode(text, model.tokens, model.merges), ids) for text, ids in cases
             if encode(text, model.tokens, model.merges) != ids]
    assert not wrong, wrong[:3]


@pytest.mark.parametrize("run", WHOLE[::2], ids=run_id)
def test_text_is_tokenised_exactly_as_llama_cpp_did(model, run):
    assert encode(run["prompt"], model.tokens, model.merges) == run["tokens"]


@pytest.mark.parametrize("layer", [0, 1])
@pytest.mark.parametrize("run", WHOLE, ids=run_id)
def test_every_tensor_agrees_with_llama_cpp(ref, model, run, layer):
    T = len(run["tokens"])
    trace = run_layer(model, run["tokens"], layer, ref.step7_layer.gpt2_attention)
    for printed in llama_tensors(trace, layer):
        kind = printed.name.rsplit("-", 1)[0]
        tol = TOLERANCE[(run["cache"], layer)][kind]
        if not printed.llama_cpp:  # the projected output: llama.cpp's residual sum minus the block's input
            _, ffn_inp = golden(run, f"ffn_inp-{layer}")
            _, block_input = golden(run, "inpL" if layer == 0 else f"l_out-{layer - 1}")
            kept = len(ffn_inp[0, 0])  # the last block keeps only the rows whose logits are asked for: the last token
            close(printed.memory[0, 0, -kept:], ffn_inp[0, 0] - block_input[0, 0, -kept:], tol, printed.name)
            continue
        record, values = golden(run, printed.name)
        if kind in ("kq", "kq_soft_max"):
            assert record["ne"] == [256, T, model.n_head, 1], printed.name
            assert not values[..., T:].any(), f"{printed.name}: the padding slots hold zeros"
            values = values[..., :T]
        else:
            assert record["ne"] == list(printed.ne), printed.name
        close(printed.memory, values, tol, f"{printed.name} ({run['cache']} cache)")


@pytest.mark.parametrize("run", WHOLE[-2:], ids=run_id)
def test_qkv_are_strided_views_of_the_fused_buffer(model, run):
    """Qcur/Kcur/Vcur are VIEWs of wqkv_b: its raw floats, read through their strides, are their values;
    its first D·T floats are not Qcur."""
    T, D = len(run["tokens"]), model.n_embd
    _, fused = golden(run, "wqkv_b-0")
    raw = np.ascontiguousarray(fused).reshape(-1)
    for part, name in enumerate(["Qcur-0", "Kcur-0", "Vcur-0"]):
        record, values = golden(run, name)
        assert record["op"] == "VIEW" and record["view_src"] == "wqkv_b-0", record
        assert record["nb"] == [4, 4 * (D // model.n_head), 4 * 3 * D, 4 * 3 * D * T], record
        assert record["view_offs"] == 4 * D * part
        strided = np.lib.stride_tricks.as_strided(raw[part * D:], shape=values.shape,
                                                  strides=tuple(reversed(record["nb"])))
        np.testing.assert_array_equal(strided, values)
    _, q = golden(run, "Qcur-0")
    assert not np.allclose(raw[: D * T].reshape(q.shape), q)


@pytest.mark.parametrize("run", WHOLE[-2:], ids=run_id)
def test_step9_readers_read_llama_cpp_dumps(ref, model, run):
    step9 = ref.step9_ggml_layout
    T = len(run["tokens"])
    trace = run_layer(model, run["tokens"], 0, ref.step7_layer.gpt2_attention)
    tol = TOLERANCE[(run["cache"], 0)]
    for name, want in [("Qcur", trace.Q), ("Kcur", trace.K), ("Vcur", trace.V)]:
        record, values = golden(run, f"{name}-0")
        close(step9.read_qkv_dump(values.reshape(-1), record["ne"]), want, tol[name], name)
    for name, want in [("kq", trace.kq), ("kq_soft_max", trace.kq_soft_max)]:
        record, values = golden(run, f"{name}-0")
        close(step9.read_kq_dump(values.reshape(-1), record["ne"], T), want, tol[name], name)
    record, values = golden(run, "kqv-0")
    close(step9.from_ggml(values.reshape(-1), record["ne"])[0], trace.kqv, tol["kqv"], "kqv")


@pytest.mark.parametrize("run", CHUNKED, ids=run_id)
def test_a_chunked_decode_reads_the_cache_as_one_call_would(ref, model, run):
    """Decoded 2 + 1 + 2 tokens: call k's kq holds its queries against every key so far, padded to 256
    slots; read with n_keys = keys so far, its rows are the whole prompt's rows for those queries."""
    step9 = ref.step9_ggml_layout
    sizes = [int(n) for n in run["chunks"].split(",")]
    trace = run_layer(model, run["tokens"], 0, ref.step7_layer.gpt2_attention)
    tol = TOLERANCE[(run["cache"], 0)]
    start = 0
    for call, size in enumerate(sizes):
        for name, whole in [("kq", trace.kq), ("kq_soft_max", trace.kq_soft_max)]:
            record, values = golden(run, f"{name}-0", call)
            assert record["ne"] == [256, size, model.n_head, 1]
            got = step9.read_kq_dump(values.reshape(-1), record["ne"], start + size)
            close(got, whole[:, start:start + size, :start + size], tol[name], f"{name} call {call}")
        start += size


def test_the_command_prints_llama_cpps_tokens_and_names_and_labels_the_rest():
    """One run of the command itself (opening a GGUF with GPT-2's 50257-token vocabulary takes gguf's
    reader several seconds): the underscore prompt, whose tokens the old hand-written BPE got wrong."""
    (run,) = [run for run in WHOLE if "_" in run["prompt"] and run["cache"] == "f32"]
    T = len(run["tokens"])
    done = attnkit("--solutions", "--text", run["prompt"])
    assert done.returncode == 0, done.stderr
    assert f"tokens {run['tokens']} = " in done.stdout
    assert f"kqv_out-0 = {{32, {T}, 1, 1}}   all heads merged (before attn_output): [{T}, 32]" in done.stdout
    assert f"out-0 = {{32, {T}, 1, 1}}   all heads merged and projected" in done.stdout
    assert "(attnkit: after c_proj, not a llama.cpp tensor" in done.stdout
