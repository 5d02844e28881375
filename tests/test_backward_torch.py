"""Step 13's backward pass against PyTorch's autograd (optional: skipped without torch).

The same forward pass written in torch — softmax(Q Kᵀ / sqrt(D_h) + M) V with the kit's 0 / -inf mask,
and torch's own scaled_dot_product_attention with the kit's table as its boolean mask (True = may
attend, as here) — differentiated by autograd must give the reference's dQ, dK, dV.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

T_Q, T_K, D_H, D_V = 3, 5, 4, 2


def t(x, grad=False):
    return torch.from_numpy(np.ascontiguousarray(x)).requires_grad_(grad)


@pytest.fixture
def frame():
    rng = np.random.default_rng(21)
    return (rng.normal(size=(T_Q, D_H)), rng.normal(size=(T_K, D_H)), rng.normal(size=(T_K, D_V)),
            rng.normal(size=(T_Q, D_V)))


@pytest.fixture
def visible(ref):
    """Causal KV-cache table (past = 2) with key 1 hidden as padding: every row keeps a key."""
    m = ref.step3_masks
    return m.combine_visible(m.causal_visible(T_Q, T_K), m.padding_visible(np.array([1, 0, 1, 1, 1]), T_Q))


def autograd(forward, Q, K, V, dO):
    """(dQ, dK, dV) of forward(Q, K, V) by torch's autograd, dO as the output's gradient."""
    leaves = [t(x, grad=True) for x in (Q, K, V)]
    forward(*leaves).backward(t(dO))
    return [leaf.grad.numpy() for leaf in leaves]


def written_out(M):
    """The kit's forward pass in torch, with the kit's additive mask M (0 / -inf)."""
    return lambda Q, K, V: torch.softmax(Q @ K.T / Q.shape[-1] ** 0.5 + t(M), dim=-1) @ V


@pytest.mark.parametrize("causal", [True, False], ids=["causal", "padded"])
def test_backward_matches_autograd_of_the_forward_pass(ref, frame, visible, causal):
    table = ref.step3_masks.causal_visible(T_Q, T_K) if causal else visible
    M = ref.step3_masks.additive_mask(table)
    want = autograd(written_out(M), *frame)
    got = ref.step13_backward.attention_backward(*frame, None if causal else visible)
    for name, g, w in zip(("dQ", "dK", "dV"), got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=name)


def test_backward_matches_autograd_of_sdpa(ref, frame, visible):
    mask = t(ref.step3_masks.to_torch_sdpa_mask(visible))
    want = autograd(lambda Q, K, V: F.scaled_dot_product_attention(Q, K, V, attn_mask=mask), *frame)
    got = ref.step13_backward.attention_backward(*frame, visible)
    for name, g, w in zip(("dQ", "dK", "dV"), got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=name)


def test_torch_agrees_on_the_hidden_key(ref, frame, visible):
    """Key 1 is hidden from every query: autograd gives it no gradient either (so the check has teeth)."""
    dQ, dK, dV = autograd(written_out(ref.step3_masks.additive_mask(visible)), *frame)
    assert (dK[1] == 0).all() and (dV[1] == 0).all()
    wrong = autograd(written_out(np.zeros((T_Q, T_K))), *frame)  # the mask left out
    assert not np.allclose(wrong[1][1], 0)


def test_torch_softmax_backward_matches(ref):
    rng = np.random.default_rng(22)
    S, dP = t(rng.normal(size=(2, T_Q, T_K)), grad=True), rng.normal(size=(2, T_Q, T_K))
    P = torch.softmax(S, dim=-1)
    P.backward(t(dP))
    got = ref.step13_backward.softmax_backward(P.detach().numpy(), dP)
    np.testing.assert_allclose(got, S.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_a_query_with_no_visible_key_matches_sdpa(ref, frame, visible):
    """SDPA too gives a query with no visible key a zero row (torch's safe softmax), and zero gradients."""
    table = visible.copy()
    table[1] = False
    mask = t(ref.step3_masks.to_torch_sdpa_mask(table))
    want = autograd(lambda Q, K, V: F.scaled_dot_product_attention(Q, K, V, attn_mask=mask), *frame)
    got = ref.step13_backward.attention_backward(*frame, table)
    assert (got[0][1] == 0).all()
    for name, g, w in zip(("dQ", "dK", "dV"), got, want):
        np.testing.assert_allclose(g, w, rtol=1e-10, atol=1e-12, err_msg=name)
