"""`attnkit show`: print the visibility table, the mask M and the weights P of a frame as labelled grids,
or (`--mine FUNCTION ARG…`) the learner's own result beside the expected one."""
import argparse
import sys
from pathlib import Path

from .cli import add_lang_option
from attnkit_runtime.messages import say
from .paths import EXERCISES_DIR
from .show_frames import PRESETS, Frame, NoReference, render
from .show_mine import LearnerError, UsageError, show_mine

EXAMPLES = """examples:
  attnkit show                          the lessons' "How are you" (GPT-2 Head 0 weights)
  attnkit show kv-cache                 past = 3, new = 2
  attnkit show tiled                    step 10: the running maximum of each row after each block of keys
  attnkit show gqa                      which KV head each of 4 query heads reads (2 KV heads)
  attnkit show --tq 2 --tk 4 --pad 0,1,1,1 --tokens "<pad>" How are you
  attnkit show --mine causal_visible 2 5
  attnkit show --mine padding_visible 1,1,0 2
  attnkit show --mine additive_mask "T,F;T,T" float32
  attnkit show --mine softmax "0,1,-inf;-inf,-inf,-inf"
"""


def register(sub):
    p = sub.add_parser("show", help="print visibility tables, masks and weights as labelled grids",
                       description=__doc__, epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("preset", nargs="?", choices=sorted(PRESETS),
                   help="a frame from the lessons (default: how-are-you unless --tq/--tk/--tokens are given)")
    p.add_argument("--tq", type=int, help="number of queries T_q (default: T_k)")
    p.add_argument("--tk", type=int, help="number of keys T_k (default: the number of tokens, else T_q)")
    p.add_argument("--pad", metavar="1,1,0", help="Hugging Face attention_mask over the keys: 1 = real token, 0 = padding")
    p.add_argument("--tokens", nargs="+", metavar="TOKEN", help="one label per key position")
    p.add_argument("--mine", nargs=argparse.REMAINDER, metavar="FUNCTION ARG",
                   help="call your FUNCTION from exercises/ with these arguments and show it beside the expected result")
    p.add_argument("--folder", default=str(EXERCISES_DIR), help="where your step files are (default: exercises/)")
    add_lang_option(p, "the labels and notes")
    p.set_defaults(func=run, usage=p.error)


def _frame_given(args):
    return args.tq is not None or args.tk is not None or bool(args.pad or args.tokens)


def custom_frame(args):
    """The Frame the options describe; UsageError when they do not fit together."""
    tokens = tuple(args.tokens or ())
    n_key = args.tk if args.tk is not None else len(tokens) or args.tq
    n_query = args.tq if args.tq is not None else n_key
    if n_key is None or n_key < 1 or n_query < 1:
        raise UsageError(say("show.frame_needed"))
    if n_query > n_key:
        raise UsageError(say("show.too_many_queries", queries=n_query, keys=n_key))
    if tokens and len(tokens) != n_key:
        raise UsageError(say("show.token_count", count=len(tokens), keys=n_key))
    padding = tuple(v.strip() for v in args.pad.split(",")) if args.pad else ()
    if padding:
        if len(padding) != n_key or not set(padding) <= {"0", "1"}:
            raise UsageError(say("show.pad_values", keys=n_key, got=repr(args.pad)))
    return Frame(n_query, n_key, tokens, tuple(int(v) for v in padding))


def run(args):
    try:
        if args.mine is not None:
            if args.preset or _frame_given(args):
                raise UsageError(say("show.mine_alone"))
            if not args.mine:
                raise UsageError(say("show.mine_needs_function"))
            misplaced = [option for option in ("--folder", "--lang") if option in args.mine]
            if misplaced:
                raise UsageError(say("show.options_first", option=" ".join(misplaced)))
            shown = show_mine(args.mine[0], args.mine[1:], Path(args.folder).resolve())
            print(shown.text)
            return 1 if shown.differs else 0
        custom = _frame_given(args)
        if custom and args.preset:
            raise UsageError(say("show.preset_or_frame"))
        print(render(custom_frame(args) if custom else PRESETS[args.preset or "how-are-you"]))
        return 0
    except UsageError as err:
        args.usage(str(err))  # prints the usage line and the message, exits 2
    except (LearnerError, NoReference) as err:
        print(f"attnkit show: {err}", file=sys.stderr)
        return 1
