"""Step 7's reference against Hugging Face's GPT2Model (optional: skipped without torch and transformers,
installed by the `hf` extra).

One layer, eager attention, float64, random weights AND random biases (GPT-2's default initialisation
zeroes the biases, which would hide a bias-slicing slip). GPT2Attention alone is not causal — the model
builds the causal mask — so the whole model runs and a hook reads its first layer's attention: the
input there is ln_1's output, our Z.
"""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def gpt2_layer_zero(n_embd, n_head, T, seed):
    """(Z [T, D], the four attention weights as numpy, HF's attention output [T, D], HF's weights [n_head, T, T])."""
    torch.manual_seed(seed)
    config = transformers.GPT2Config(n_embd=n_embd, n_head=n_head, n_layer=1, n_positions=max(T, 8), vocab_size=50,
                                     attn_implementation="eager")
    model = transformers.GPT2Model(config).double().eval()
    attn = model.h[0].attn
    with torch.no_grad():
        for p in (attn.c_attn.weight, attn.c_proj.weight):
            p.normal_(0.0, 0.05)
        for p in (attn.c_attn.bias, attn.c_proj.bias):
            p.normal_(0.0, 0.5)
    seen = {}

    def keep(module, args, kwargs, output):
        seen["Z"] = (args[0] if args else kwargs["hidden_states"]).detach()[0].numpy()
        seen["out"], seen["P"] = output[0].detach()[0].numpy(), output[1].detach()[0].numpy()

    handle = attn.register_forward_hook(keep, with_kwargs=True)
    ids = torch.randint(0, config.vocab_size, (1, T), generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        model(input_ids=ids, output_attentions=True)
    handle.remove()
    weights = [p.detach().numpy() for p in (attn.c_attn.weight, attn.c_attn.bias, attn.c_proj.weight, attn.c_proj.bias)]
    return seen["Z"], weights, seen["out"], seen["P"]


@pytest.mark.parametrize("n_embd, n_head, T", [(768, 12, 5), (12, 3, 4)], ids=["gpt2-small", "small"])
def test_reference_layer_matches_hugging_face(ref, n_embd, n_head, T):
    Z, weights, hf_out, hf_P = gpt2_layer_zero(n_embd, n_head, T, seed=11)
    assert np.abs(weights[1]).min() > 0 and np.abs(weights[3]).min() > 0  # the biases really are random
    trace = ref.step7_layer.gpt2_attention(Z, *weights, n_head)
    assert trace.out.shape == (T, n_embd) and trace.kq_soft_max.shape == (n_head, T, T)
    np.testing.assert_allclose(trace.kq_soft_max, hf_P, atol=1e-13, rtol=0)
    np.testing.assert_allclose(trace.out, hf_out, atol=1e-12, rtol=0)


def test_a_known_mistake_does_not_match_hugging_face(ref):
    """The comparison can fail: the layer without c_proj_bias is off from HF by exactly that bias."""
    from attnkit import mistakes

    Z, weights, hf_out, _ = gpt2_layer_zero(12, 3, 4, seed=12)
    wrong = mistakes.mistaken_function("proj_bias_missing", "step7_layer", "gpt2_attention")
    assert not np.allclose(wrong(Z, *weights, 3).out, hf_out, atol=1e-6)
