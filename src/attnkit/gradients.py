"""What a backward pass must give, found from its forward pass: the `finite_differences` expectation.

A case of a backward function (step 13's `attention_backward`) names the reference forward function it
differentiates, the part of that function's result, the argument holding the gradient of that part
(the cotangent, `dO`) and, for each part of the backward's result, the argument it is the gradient of:

    expect: {finite_differences: {of: step6_head.attention, output: O, cotangent: dO,
                                  wrt: {dQ: Q, dK: K, dV: V}}}

The loss is L = Σ output ⊙ cotangent (so dL/d output is the cotangent), and each cell of each gradient
is the central difference (L(x + h) - L(x - h)) / 2h in float64. It runs where `reference: true` runs,
in the judging process on the reference forward function, never on learner code (docs/CASES.md).
"""
import numpy as np

from attnkit_runtime.judge import call_named

from . import manifest
from .reference import reference_function

STEP = 1e-5  # h: the truncation error ~h² and the rounding ~1e-16 / h are both ~1e-11, far below 1e-7
_KEYS = ("of", "output", "cotangent", "wrt")


def check(spec, returns, where):
    """Raise ValueError unless `spec` is a finite_differences mapping whose `wrt` names every part of
    `returns` (the backward function's) and whose `of` and `output` name a step function and a part of its result."""
    if not isinstance(spec, dict) or set(spec) != set(_KEYS) or not isinstance(spec["wrt"], dict):
        raise ValueError(f"{where}: finite_differences needs exactly the keys {', '.join(_KEYS)}, wrt a mapping")
    if set(spec["wrt"]) != set(returns):
        raise ValueError(f"{where}: finite_differences wrt names {sorted(spec['wrt'])}, the result has {list(returns)}")
    module, _, function = spec["of"].partition(".")
    if spec["output"] not in manifest.step(module).function(function).returns:
        raise ValueError(f"{where}: {spec['of']} has no part {spec['output']!r}")


def finite_differences(spec, kwargs):
    """{part of the backward's result: its gradient by central differences} for one call's arguments.

    `spec` is the case's `finite_differences` mapping (above); `kwargs` the call's arguments, passed to the
    forward function without the cotangent. Every argument differentiated must be float64.
    """
    module, _, function = spec["of"].partition(".")
    forward = reference_function(module, function)
    returns = manifest.step(module).function(function).returns
    cotangent = np.asarray(kwargs[spec["cotangent"]], dtype=np.float64)
    inputs = {name: value for name, value in kwargs.items() if name != spec["cotangent"]}

    def loss(name, value):
        return float(np.sum(call_named(forward, returns, {**inputs, name: value})[spec["output"]] * cotangent))

    gradients = {}
    for part, name in spec["wrt"].items():
        x = np.asarray(inputs[name])
        if x.dtype != np.float64:
            raise ValueError(f"finite differences need float64 arguments: {name} is {x.dtype}")
        gradient = np.zeros_like(x)
        for index in np.ndindex(x.shape):
            up, down = x.copy(), x.copy()
            up[index] += STEP
            down[index] -= STEP
            gradient[index] = (loss(name, up) - loss(name, down)) / (2 * STEP)
        gradients[part] = gradient
    return gradients
