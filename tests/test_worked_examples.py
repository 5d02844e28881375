"""Every worked example of docs/CONTRACT.md, asserted directly on the reference solutions.

Numbers are compared to the precision the lessons print (000 = "从零学大模型：Self-Attention",
002 = "注意力机制，逐步算清"); the peer check uses Stanford CS336's own tolerances.
"""
import numpy as np
import pytest


def assert_as_printed(got, decimals, printed):
    """`got` rounds to what the lesson prints with `decimals` decimals (half a unit of the last place)."""
    np.testing.assert_allclose(got, printed, rtol=0, atol=0.5 * 10.0 ** -decimals + 1e-9)


# --- lesson 000, "最小数值例子": T = 2, D_h = 4, Q = K -----------------------------------------
Q_000 = np.array([[1, 0, 1, 1], [1, 1, 0, 1]], dtype=float)
V_000 = np.array([[1, 0, 1, 0], [0, 1, 0, 1]], dtype=float)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lesson000_minimal_example_step_by_step(ref, dtype):
    Q, K, V = Q_000.astype(dtype), Q_000.astype(dtype), V_000.astype(dtype)
    kq = ref.step2_scores.raw_scores(Q, K)
    np.testing.assert_array_equal(kq, [[3, 2], [2, 3]])
    scaled = ref.step2_scores.scale_scores(kq, 4)
    np.testing.assert_array_equal(scaled, [[1.5, 1.0], [1.0, 1.5]])
    M = ref.step3_masks.additive_mask(ref.step3_masks.causal_visible(2))
    np.testing.assert_array_equal(M, [[0, -np.inf], [0, 0]])
    P = ref.step4_softmax.softmax(scaled + M.astype(dtype))
    assert_as_printed(P, decimals=3, printed=[[1.0, 0.0], [0.378, 0.622]])
    O = ref.step5_values.weighted_sum(P, V)
    assert_as_printed(O, decimals=3, printed=[[1, 0, 1, 0], [0.378, 0.622, 0.378, 0.622]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lesson000_minimal_example_in_one_call(ref, dtype):
    O, P = ref.step6_head.attention(Q_000.astype(dtype), Q_000.astype(dtype), V_000.astype(dtype))
    assert_as_printed(P, decimals=3, printed=[[1.0, 0.0], [0.378, 0.622]])
    assert_as_printed(O, decimals=3, printed=[[1, 0, 1, 0], [0.378, 0.622, 0.378, 0.622]])
    assert P[0, 1] == 0.0  # the future key gets weight exactly 0, not a small number


# --- lesson 000, "llama.cpp 实战": GPT-2 Small Block 0 / Head 0 on "How are" ----------------------
KQ_HOW_ARE = np.array([[3.7358, -13.7144],  # query "How": kq over keys "How", " are"
                       [-1.3936, -25.5417]])  # query " are"
P_HOW_ARE = np.array([[1.0000, 0.0000], [0.9534, 0.0466]])
V0_PREFIX = np.array([-0.1252, 0.0577, 0.0428])  # v_0^(0), "How", first 3 of 64
V1_PREFIX = np.array([0.2463, -0.0901, 0.2779])  # v_1^(0), " are"
O1_PREFIX = np.array([-0.1080, 0.0509, 0.0538])  # kqv-0, query 1, first 3 of 64
D, D_H = 768, 64


def test_head0_kq_to_kq_soft_max(ref):
    scaled = ref.step2_scores.scale_scores(KQ_HOW_ARE, D_H)  # kq_scale = 1/8
    np.testing.assert_allclose(scaled[1], [-0.1742, -3.1927], atol=5e-5)
    S = scaled + ref.step3_masks.additive_mask(ref.step3_masks.causal_visible(2))
    P = ref.step4_softmax.softmax(S)
    assert_as_printed(P, decimals=4, printed=P_HOW_ARE)


def head0_weights(kq_rows, v_rows):
    """Z = one-hot rows, so Q = rows of W_Q, K = I and V = rows of W_V: Q Kᵀ = kq exactly."""
    T = len(kq_rows)
    Z = np.eye(T, D)  # [T, 768]
    W_Q, W_K, W_V = np.zeros((D, D_H)), np.eye(D, D_H), np.zeros((D, D_H))
    W_Q[:T, :T] = kq_rows
    W_V[:T, :3] = v_rows
    zero = np.zeros(D_H)
    return Z, W_Q, zero, W_K, zero, W_V, zero


def test_head0_trace_on_how_are(ref):
    trace = ref.step6_head.attention_head(*head0_weights(KQ_HOW_ARE, [V0_PREFIX, V1_PREFIX]))
    np.testing.assert_allclose(trace.kq, KQ_HOW_ARE, atol=1e-12)  # kq is the unscaled Q Kᵀ
    assert_as_printed(trace.kq_soft_max, decimals=4, printed=P_HOW_ARE)
    # 4-decimal inputs: the lesson's own hand sum gives [-0.1079, 0.0508, 0.0538]; agreement ~2e-4
    np.testing.assert_allclose(trace.kqv[1, :3], O1_PREFIX, atol=2e-4)
    np.testing.assert_allclose(trace.kqv[0, :3], V0_PREFIX, atol=1e-12)  # "How" reads only itself


@pytest.mark.parametrize("future_score", [-50.0, 0.0, 25.0, 1000.0])
def test_how_are_you_rows_0_and_1_equal_how_are(ref, future_score):
    """Only rows 0-1 of "How are you" are known; whatever " you" scores, they cannot change."""
    kq = np.full((3, 3), future_score)
    kq[:2, :2] = KQ_HOW_ARE
    trace = ref.step6_head.attention_head(*head0_weights(kq, [V0_PREFIX, V1_PREFIX, [9.0, 9.0, 9.0]]))
    assert_as_printed(trace.kq_soft_max[:2], decimals=4, printed=[[1, 0, 0], [0.9534, 0.0466, 0]])
    np.testing.assert_allclose(trace.kqv[1, :3], O1_PREFIX, atol=2e-4)


# --- lesson 002, "手算一次组合" and "加上因果掩码会怎样" ---------------------------------------------
def test_lesson002_softmax_of_0_1_2_and_value_column(ref):
    P = ref.step4_softmax.softmax(np.array([[0.0, 1.0, 2.0]]))
    assert_as_printed(P, decimals=4, printed=[[0.0900, 0.2447, 0.6652]])
    O = ref.step5_values.weighted_sum(P, np.array([[10.0], [20.0], [30.0]]))
    assert_as_printed(O[0, 0], decimals=2, printed=25.75)


def test_lesson002_third_key_masked(ref):
    M = ref.step3_masks.additive_mask(np.array([[True, True, False]]))
    P = ref.step4_softmax.softmax(np.array([[0.0, 1.0, 2.0]]) + M)
    assert_as_printed(P, decimals=3, printed=[[0.269, 0.731, 0.0]])
    assert P[0, 2] == 0.0
    # "改变未来Value，当前因果输出应保持不变": the masked third value never reaches the output
    O = [ref.step5_values.weighted_sum(P, np.array([[10.0], [20.0], [v3]])) for v3 in (30.0, -1e6)]
    np.testing.assert_array_equal(O[0], O[1])


# --- lesson 002, "从两段内容到一个混合向量": width 2 --------------------------------------------------
q_002 = np.array([[1.0, 0.0]])
K_002 = np.array([[1.0, 0.0], [0.0, 1.0]])  # k0, k1
V_002 = np.array([[10.0, 0.0], [0.0, 20.0]])  # v0, v1


def test_lesson002_width2_step_by_step(ref):
    kq = ref.step2_scores.raw_scores(q_002, K_002)
    np.testing.assert_array_equal(kq, [[1.0, 0.0]])
    scaled = ref.step2_scores.scale_scores(kq, 2)
    assert_as_printed(scaled, decimals=6, printed=[[0.707107, 0.0]])
    P = ref.step4_softmax.softmax(scaled)
    assert_as_printed(P, decimals=6, printed=[[0.669762, 0.330238]])
    O = ref.step5_values.weighted_sum(P, V_002)
    assert_as_printed(O, decimals=6, printed=[[6.697615, 6.604769]])


@pytest.mark.parametrize("visible", [None, np.array([[True, True]])], ids=["causal-kv-cache", "explicit"])
def test_lesson002_width2_in_one_call(ref, visible):
    """One new query, two keys: past = 1, so the default causal table lets it read both."""
    O, P = ref.step6_head.attention(q_002, K_002, V_002, visible)
    assert_as_printed(P, decimals=6, printed=[[0.669762, 0.330238]])
    assert_as_printed(O, decimals=6, printed=[[6.697615, 6.604769]])


# --- lesson 002, "Mask是可见性表": frames 1-3 (3 positions) and frame 5 (past = 3, new = 2) -------
def test_lesson002_three_positions_lower_triangle(ref):
    expected = [[True, False, False], [True, True, False], [True, True, True]]
    np.testing.assert_array_equal(ref.step3_masks.causal_visible(3), expected)
    np.testing.assert_array_equal(ref.step3_masks.causal_visible(3, 3), expected)


def test_lesson002_kv_cache_past3_new2(ref):
    visible = ref.step3_masks.causal_visible(2, 5)
    assert visible.shape == (2, 5) and visible.dtype == bool
    np.testing.assert_array_equal(visible, [[True, True, True, True, False],  # position 3 reads 0..3
                                            [True, True, True, True, True]])  # position 4 reads 0..4


def test_kv_cache_step_equals_rows_of_the_full_run(ref):
    """The 2 new queries of past = 3, new = 2 give rows 3-4 of the 5-token causal run."""
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(5, 4)), rng.normal(size=(5, 4)), rng.normal(size=(5, 3))
    O_full, P_full = ref.step6_head.attention(Q, K, V)
    O_new, P_new = ref.step6_head.attention(Q[3:], K, V)
    np.testing.assert_allclose(P_new, P_full[3:], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(O_new, O_full[3:], rtol=1e-12, atol=1e-15)


# --- peer data: Stanford CS336 assignment 1, scaled dot-product attention snapshots -------------
@pytest.mark.parametrize("snapshot, batch", [("test_scaled_dot_product_attention.npz", (4,)),
                                             ("test_4d_scaled_dot_product_attention.npz", (2, 2))])
def test_cs336_snapshot(ref, shared_dir, snapshot, batch):
    peer = shared_dir / "peer" / "cs336"
    if not (peer / snapshot).is_file():
        pytest.skip(f"{peer / snapshot} is absent")
    data = np.load(peer / "inputs.npz")
    Q, K, V = (data[name].reshape(batch + data[name].shape[1:]) for name in ("q", "k", "v"))
    visible = data["mask"].reshape(batch + data["mask"].shape[1:])  # True = attend, as in this kit
    expected = np.load(peer / snapshot)["array"]
    O, P = ref.step6_head.attention(Q, K, V, visible=visible)
    assert O.dtype == np.float32 and O.shape == expected.shape == batch + (12, 64)
    np.testing.assert_allclose(O, expected, atol=1e-6, rtol=1e-4)
    O_flipped, _ = ref.step6_head.attention(Q, K, V, visible=~visible)
    assert not np.allclose(O_flipped, expected, atol=1e-3)  # the polarity matters for this data
