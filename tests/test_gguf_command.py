"""`attnkit gguf`: a GPT-2 GGUF written with llama.cpp's own `gguf` writer, read by the command, run
through step 7's layer (the reference, and a learner's folder), checked end to end against NumPy
computed here from the arrays written."""
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from attnkit.reference import load_step
from attnkit.paths import EXERCISES_DIR, SOLUTIONS_DIR

pytest.importorskip("gguf", reason="the gguf extra is not installed (pip install -e \".[gguf]\")")

from gguf_support import D, HOW_ARE_YOU, N_HEAD, expected_trace, write_gpt2_gguf  # noqa: E402

D_H = D // N_HEAD


def attnkit(*args):
    return subprocess.run([sys.executable, "-m", "attnkit.cli", "gguf", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    path = tmp_path_factory.mktemp("gguf") / "tiny-gpt2.gguf"
    return path, write_gpt2_gguf(path)


def reference_layer():
    return load_step("step7_layer", SOLUTIONS_DIR).gpt2_attention


def traced(path, *args):
    done = attnkit(path, "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("layer", [0, 1])
@pytest.mark.parametrize("head", [0, N_HEAD - 1])
def test_the_trace_is_the_layer_run_on_the_files_weights(model, layer, head):
    path, weights = model
    got = traced(path, "--solutions", "--tokens", ",".join(map(str, HOW_ARE_YOU)), "--layer", layer, "--head", head)
    want = expected_trace(weights, HOW_ARE_YOU, layer, reference_layer())
    T = len(HOW_ARE_YOU)
    parts = {"Qcur": (want.Q, (D_H, N_HEAD, T, 1)), "Kcur": (want.K, (D_H, N_HEAD, T, 1)),
             "Vcur": (want.V, (D_H, N_HEAD, T, 1)), "kq": (want.kq, (T, T, N_HEAD, 1)),
             "kq_soft_max": (want.kq_soft_max, (T, T, N_HEAD, 1)), "kqv": (want.kqv, (D_H, T, N_HEAD, 1))}
    for name, (per_head, ne) in parts.items():
        tensor = got["tensors"][f"{name}-{layer}"]
        assert tensor["ne"] == list(ne), name
        np.testing.assert_allclose(tensor["head"], per_head[head], rtol=1e-9, atol=1e-9, err_msg=name)
    merged = got["tensors"][f"kqv_out-{layer}"]  # llama.cpp's kqv_out: the heads merged, not yet projected
    assert merged["ne"] == [D, T, 1, 1] and merged["llama_cpp"]
    np.testing.assert_allclose(merged["head"], np.concatenate(list(want.kqv), axis=-1), rtol=1e-9, atol=1e-9)
    out = got["tensors"][f"out-{layer}"]  # after c_proj: the kit's own, labelled as not llama.cpp's
    assert out["ne"] == [D, T, 1, 1] and not out["llama_cpp"]
    np.testing.assert_allclose(out["head"], want.out, rtol=1e-9, atol=1e-9)


def test_text_is_tokenised_with_the_files_vocabulary(model):
    path, _ = model
    by_text = traced(path, "--solutions", "--text", "How are you")
    assert by_text["tokens"] == HOW_ARE_YOU and by_text["pieces"] == ["How", "Ġare", "Ġyou"]
    by_ids = traced(path, "--solutions", "--tokens", ",".join(map(str, HOW_ARE_YOU)))
    assert by_text["tensors"] == by_ids["tensors"]


def test_the_learners_folder_is_run(model, tmp_path):
    """A learner's step7_layer.py (here a copy of the reference with a visible change) is what runs."""
    path, _ = model
    source = (SOLUTIONS_DIR / "step7_layer.py").read_text(encoding="utf-8")
    (tmp_path / "step7_layer.py").write_text(source.replace("kq=raw_scores(Q, K)", "kq=2 * raw_scores(Q, K)"),
                                             encoding="utf-8")
    shutil.copy(SOLUTIONS_DIR / "shape_checks.py", tmp_path)
    mine = traced(path, "--folder", tmp_path, "--text", "How are")["tensors"]["kq-0"]["head"]
    reference = traced(path, "--solutions", "--text", "How are")["tensors"]["kq-0"]["head"]
    np.testing.assert_allclose(mine, 2 * np.asarray(reference), rtol=1e-12)


def test_the_text_output_uses_llama_cpp_names_and_ggml_shapes(model):
    path, _ = model
    done = attnkit(path, "--solutions", "--text", "How are")
    assert done.returncode == 0, done.stderr
    for line in (f"Qcur-0 = {{{D_H}, {N_HEAD}, 2, 1}}   head 0: [2, {D_H}]", f"kq-0 = {{2, 2, {N_HEAD}, 1}}   head 0: [2, 2]",
                 f"kq_soft_max-0 = {{2, 2, {N_HEAD}, 1}}", f"kqv-0 = {{{D_H}, 2, {N_HEAD}, 1}}"):
        assert line in done.stdout, done.stdout
    assert "'How', 'Ġare'" in done.stdout


def test_untouched_stubs_say_the_layer_is_not_written(model):
    path, _ = model
    done = attnkit(path, "--folder", EXERCISES_DIR, "--text", "How are")
    assert done.returncode == 1 and "not written yet" in done.stderr and "step7_layer" in done.stderr, done.stderr


@pytest.mark.parametrize("args, message", [
    (["--text", "How", "--layer", "2"], "the file has blocks 0 … 1"),
    (["--text", "How", "--head", str(N_HEAD)], f"the model has heads 0 … {N_HEAD - 1}"),
    (["--tokens", "2,x"], "--tokens must be ids separated by commas"),
    (["--tokens", "99999"], "token ids must be"),
])
def test_bad_requests_are_refused_plainly(model, args, message):
    path, _ = model
    done = attnkit(path, "--solutions", *args)
    assert done.returncode != 0 and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_another_architecture_is_refused(tmp_path):
    path = tmp_path / "llama.gguf"
    write_gpt2_gguf(path, arch="llama")
    done = attnkit(path, "--solutions", "--text", "How")
    assert done.returncode == 2 and "runs GPT-2 ('gpt2') only" in done.stderr, done.stderr


def test_a_file_that_is_not_gguf_is_refused(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"not a gguf file at all")
    done = attnkit(path, "--solutions", "--text", "How")
    assert done.returncode == 2 and "cannot be read as GGUF" in done.stderr, done.stderr


def test_bpe_merges_by_rank_and_refuses_a_vocabulary_without_every_byte():
    from attnkit.gpt2_bpe import byte_alphabet, encode

    pieces = list(byte_alphabet().values())
    tokens, merges = [*pieces, "Ho", "How", "Ġw"], ["H o", "Ho w", "Ġ w"]
    assert encode("How w", tokens, merges) == [257, 258]
    with pytest.raises(ValueError, match="lacks the byte piece 'i'"):
        encode("Hi", [p for p in tokens if p != "i"], merges)
