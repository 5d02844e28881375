"""`attnkit gguf FILE.gguf`: run the learner's GPT-2 attention layer (step 7) on a GGUF file's weights
and print the trace under llama.cpp's names and GGML shapes (docs/GGUF.md)."""
import json
import sys
from typing import NamedTuple

import numpy as np

LAYER_FUNCTION = ("step7_layer", "gpt2_attention")
WHICH = {"kqv_out": "all heads merged (before attn_output)", "out": "all heads merged and projected"}


def register(sub):
    p = sub.add_parser("gguf", help="run your step-7 layer on a GPT-2 GGUF file; trace in llama.cpp's names")
    p.add_argument("file", help="a GPT-2 model in GGUF (e.g. gpt2.Q8_0.gguf)")
    p.add_argument("--layer", type=int, default=0, help="block to trace (earlier blocks run in full); default 0")
    p.add_argument("--head", type=int, default=0, help="head whose numbers are shown; default 0")
    prompt = p.add_mutually_exclusive_group(required=True)
    prompt.add_argument("--text", help="the prompt, tokenised with the file's own vocabulary and merges")
    prompt.add_argument("--tokens", help="the prompt as token ids, e.g. 2437,389 (\"How are\")")
    code = p.add_mutually_exclusive_group()
    code.add_argument("--solutions", action="store_true", help="run the reference solutions/ instead of your code")
    code.add_argument("--folder", help="the folder holding your step7_layer.py (default: exercises/)")
    p.add_argument("--json", action="store_true", help="print the trace as one JSON object")
    p.set_defaults(func=run)


def _token_ids(model, args):
    from .gpt2_bpe import encode

    if args.tokens is not None:
        try:
            return [int(t) for t in args.tokens.split(",")]
        except ValueError:
            raise SystemExit(f"attnkit gguf: --tokens must be ids separated by commas, got {args.tokens!r}") from None
    from .gpt2_gguf import GgufError

    try:
        return encode(args.text, model.tokens, model.merges)
    except ImportError:
        raise SystemExit("attnkit gguf --text needs the tokenizers package: pip install -e \".[gguf]\"") from None
    except ValueError as err:
        raise GgufError(str(err)) from None


def _layer_function(args):
    from attnkit_runtime.loader import StepLoadError
    from .reference import load_step
    from .paths import EXERCISES_DIR, SOLUTIONS_DIR

    folder = SOLUTIONS_DIR if args.solutions else (args.folder or EXERCISES_DIR)
    module, function = LAYER_FUNCTION
    try:
        loaded = load_step(module, folder, deps_folder=SOLUTIONS_DIR if SOLUTIONS_DIR.is_dir() else None)
    except StepLoadError as err:
        raise SystemExit(f"attnkit gguf: {err}") from None
    if not callable(getattr(loaded, function, None)):
        raise SystemExit(f"attnkit gguf: {folder}/{module}.py has no function {function}()")
    return getattr(loaded, function)


class Printed(NamedTuple):
    """One tensor of the trace: its name, GGML `ne`, the array in llama.cpp's memory order, and
    whether llama.cpp has a node of that name (`out` is the kit's own, after the output projection)."""
    name: str
    ne: tuple
    memory: np.ndarray
    llama_cpp: bool


OUT_LABEL = "(attnkit: after c_proj, not a llama.cpp tensor; llama.cpp's ffn_inp-{layer} minus the block's input)"


def llama_tensors(trace, layer):
    """[Printed] of a layer trace, llama.cpp's nodes first, then the kit's projected `out`.

    Per-head arrays are [n_head, T, …]; llama.cpp keeps Q, K, V token-major ({D_h, n_head, T, 1}),
    the scores and outputs head-major ({T_k, T_q, n_head, 1}, {D_h, T_q, n_head, 1}), and
    `kqv_out` is the heads merged *before* the output projection ({D, T, 1, 1}: `kqv` permuted).
    """
    def token_major(per_head):  # [n_head, T, D_h] -> [1, T, n_head, D_h]
        return np.swapaxes(np.asarray(per_head), 0, 1)[None]

    merged = token_major(trace.kqv)  # [1, T, n_head, D_h]: the heads of a token side by side
    named = [("Qcur", token_major(trace.Q)), ("Kcur", token_major(trace.K)), ("Vcur", token_major(trace.V)),
             ("kq", np.asarray(trace.kq)[None]), ("kq_soft_max", np.asarray(trace.kq_soft_max)[None]),
             ("kqv", np.asarray(trace.kqv)[None]), ("kqv_out", merged.reshape(1, 1, merged.shape[1], -1))]
    printed = [Printed(f"{name}-{layer}", tuple(reversed(a.shape)), a, True) for name, a in named]
    out = np.asarray(trace.out)[None, None]
    return [*printed, Printed(f"out-{layer}", tuple(reversed(out.shape)), out, False)]


def head_view(name, memory, head):
    """The head's [T, …] slice of a tensor in llama.cpp's memory order (kqv_out and out: the whole [T, D])."""
    if name.startswith(("Qcur", "Kcur", "Vcur")):
        return memory[0, :, head]
    if name.startswith(("kqv_out", "out")):
        return memory[0, 0]
    return memory[0, head]


def _rows_text(rows, width=4):
    shown = [", ".join(f"{v:8.4f}" for v in row[:width]) + (", …" if len(row) > width else "") for row in rows]
    return "\n".join(f"    [{line}]" for line in shown)


def run(args):
    from .gpt2_gguf import GgufError, open_gpt2, run_layer

    try:
        model = open_gpt2(args.file)
        if not 0 <= args.head < model.n_head:
            raise GgufError(f"--head {args.head}: the model has heads 0 … {model.n_head - 1}")
        ids = _token_ids(model, args)
        trace = run_layer(model, ids, args.layer, _layer_function(args))
    except GgufError as err:
        print(f"attnkit gguf: {err}", file=sys.stderr)
        return 2
    except NotImplementedError as err:
        print(f"attnkit gguf: your layer is not written yet: {err}", file=sys.stderr)
        return 1
    tensors = llama_tensors(trace, args.layer)
    pieces = [model.tokens[i] if 0 <= i < len(model.tokens) else "?" for i in ids]
    if args.json:
        print(json.dumps({"tokens": ids, "pieces": pieces, "layer": args.layer, "head": args.head,
                          "tensors": {t.name: {"ne": list(t.ne), "head": head_view(t.name, t.memory, args.head).tolist(),
                                               "llama_cpp": t.llama_cpp} for t in tensors}}))
        return 0
    print(f"tokens {ids} = {pieces} (Ġ is a space); block {args.layer}, head {args.head}")
    for t in tensors:
        view = head_view(t.name, t.memory, args.head)
        which = WHICH.get(t.name.split("-")[0], f"head {args.head}")
        print(f"{t.name} = {{{', '.join(map(str, t.ne))}}}   {which}: {list(view.shape)}")
        if not t.llama_cpp:
            print(f"    {OUT_LABEL.format(layer=args.layer)}")
        print(_rows_text(view))
    return 0

