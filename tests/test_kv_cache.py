"""Step 8's property: decoding in any chunking gives the rows of step 7's full causal pass.

Float64 to 1e-12, float32 within atol 5e-5, rtol 1e-5 (lessons/en/step8_kv_cache.md#same-rows). The
graded decode_in_chunks cases compare the learner with the reference's decode_in_chunks; this file
checks that the reference itself is the full pass, for every such case and for more chunkings.
"""
import numpy as np
import pytest

from attnkit.cases import cases_for

CHUNKINGS = [[1, 1, 1, 1, 1], [3, 2], [2, 1, 2], [4, 1], [1, 4], [5]]
TOLERANCE = {np.float64: dict(atol=1e-12, rtol=0), np.float32: dict(atol=5e-5, rtol=1e-5)}


def gpt2_small_layer(dtype, T=5, seed=0):
    rng = np.random.default_rng(seed)
    D = 768
    arrays = (rng.standard_normal((T, D)), rng.standard_normal((D, 3 * D)) * 0.02, rng.standard_normal(3 * D) * 0.1,
              rng.standard_normal((D, D)) * 0.02, rng.standard_normal(D) * 0.1)
    return [a.astype(dtype) for a in arrays]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("chunks", CHUNKINGS, ids=lambda c: "+".join(map(str, c)))
def test_chunked_decoding_gives_the_full_pass_rows(ref, chunks, dtype):
    layer = gpt2_small_layer(dtype)
    full = ref.step7_layer.gpt2_attention(*layer, 12).out
    chunked = ref.step8_kv_cache.decode_in_chunks(*layer, 12, chunks)
    assert chunked.dtype == dtype and chunked.shape == full.shape
    np.testing.assert_allclose(chunked, full, **TOLERANCE[dtype])


def test_every_graded_chunking_is_the_full_pass_within_its_case_tolerance(ref):
    checked = set()
    for case in cases_for("step8_kv_cache", function="decode_in_chunks"):
        for kwargs in case.build_calls():
            layer = {k: v for k, v in kwargs.items() if k != "chunks"}
            full = ref.step7_layer.gpt2_attention(**layer).out
            chunked = ref.step8_kv_cache.decode_in_chunks(**kwargs)
            np.testing.assert_allclose(chunked, full, atol=case.tolerance["atol"], rtol=case.tolerance["rtol"])
            if full.dtype == np.float64:
                assert case.tolerance["atol"] <= 1e-12, case.name
            checked.add(tuple(np.asarray(kwargs["chunks"]).tolist()))
    assert {(1, 1, 1, 1, 1), (3, 2), (2, 1, 2)} <= checked  # token by token, past = 3 new = 2, uneven


def test_the_cache_grows_by_the_new_tokens_and_keeps_the_past(ref):
    layer = gpt2_small_layer(np.float64, T=3)
    K = V = np.zeros((12, 0, 64))
    for start in range(3):
        step = ref.step8_kv_cache.decode_step(layer[0][start:start + 1], K, V, *layer[1:], 12)
        assert step.K.shape == step.V.shape == (12, start + 1, 64)
        np.testing.assert_array_equal(step.K[:, :start], K)
        K, V = step.K, step.V
    trace = ref.step7_layer.gpt2_attention(*layer, 12)
    np.testing.assert_allclose(K, trace.K, atol=1e-13)
    np.testing.assert_allclose(V, trace.V, atol=1e-13)
