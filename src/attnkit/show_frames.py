"""The frames `attnkit show` draws: a T_q × T_k window, maybe padding, token labels and scores.

The tables come from the reference solutions (solutions/): visible = causal & padding, M =
additive_mask(visible), P = softmax(scores + M). The presets are the lessons' frames.
"""
import math
from dataclasses import dataclass

import numpy as np

from attnkit_runtime.i18n import LANGUAGES, pick, speaking
from attnkit_runtime.messages import say
from . import lessons
from .paths import SOLUTIONS_DIR
from attnkit_runtime.show import beside, grid


class NoReference(Exception):
    """solutions/ is not in this copy of the kit, so the expected tables cannot be computed."""


@dataclass(frozen=True)
class Source:
    """Where a frame comes from: its lessons (references such as "ref_kv_cache#frame-past3-new2") and what
    it shows of them, {lang: text} or None."""
    lessons: tuple
    note: dict = None

    def render(self):
        """"(read: lessons/en/ref_kv_cache.md#frame-past3-new2: past = 3, new = 2)", in the learner's language."""
        links = say("list.separator").join(lessons.link(reference) for reference in self.lessons)
        if self.note:
            return say("show.source_note", links=links, note=pick(self.note))
        return say("show.source", links=links)


@dataclass(frozen=True)
class Frame:
    n_query: int
    n_key: int
    tokens: tuple = ()  # one label per key position (T_k of them), or none
    padding: tuple = ()  # Hugging Face attention_mask [T_k] (1 = real token), or none
    scores: tuple = ()  # rows of scaled scores [T_q][T_k], or none (all equal)
    source: Source = None  # where the frame comes from, shown in the title

    @property
    def past(self):
        return self.n_key - self.n_query

    def row_labels(self):
        if self.tokens:
            return [f'{i} "{self.tokens[self.past + i]}"' for i in range(self.n_query)]
        return [say("show.position", index=i, position=self.past + i) if self.past else str(i)
                for i in range(self.n_query)]

    def col_labels(self):
        return [f'"{t}"' for t in self.tokens] if self.tokens else None


def _titled(head, source):
    """A frame's first line: `head`, then where the frame comes from (a lesson) if it says."""
    return head + (f"  {source.render()}" if source else "")


@dataclass(frozen=True)
class TiledFrame:
    """Step 10's frame: scaled scores [T_q][T_k], causal (bottom-right), walked in blocks of `block` keys."""

    n_query: int
    n_key: int
    block: int
    scores: tuple
    source: Source = None

    def blocks(self):
        """(start, stop) of each block of keys."""
        return [(start, min(start + self.block, self.n_key)) for start in range(0, self.n_key, self.block)]

    def render(self):
        """The scores, then each row's running maximum m after each block (rows queries, columns blocks)."""
        S, m = running_maximum(self)
        rows = [say("show.position", index=i, position=self.n_key - self.n_query + i) for i in range(self.n_query)]
        blocks = [say("show.block_keys", first=start, last=stop - 1) if stop - start > 1 else
                  say("show.block_key", first=start) for start, stop in self.blocks()]
        head = _titled(f"T_q = {self.n_query}, T_k = {self.n_key}, past = {self.n_key - self.n_query}, "
                       f"block = {self.block}", self.source)
        return "\n\n".join([head, grid(S, rows, None, say("show.tiled_scores")),
                             grid(m, rows, blocks, say("show.tiled_maximum"), corner=say("show.corner_query_block"))])


def running_maximum(frame):
    """(S, m) of a TiledFrame: its scores with the hidden keys at -inf [T_q, T_k], and each row's running maximum
    after each block [T_q, n_blocks], from the reference's online_softmax_update."""
    visible = reference("step3_masks", "causal_visible")(frame.n_query, frame.n_key)
    S = np.where(visible, np.array(frame.scores, dtype=np.float64), -np.inf)
    update = reference("step10_tiled", "online_softmax_update")
    m, l, acc = np.full(frame.n_query, -np.inf), np.zeros(frame.n_query), np.zeros((frame.n_query, 1))
    after = []
    for start, stop in frame.blocks():
        m, l, acc = update(m, l, acc, S[:, start:stop], np.zeros((stop - start, 1)))
        after.append(m)
    return S, np.stack(after, axis=1)


@dataclass(frozen=True)
class HeadGroups:
    """Grouped-query attention's frame: which KV head each of n_head query heads reads (step 11)."""
    n_head: int
    n_kv_head: int
    source: Source = None

    def render(self):
        """The grid query head × KV head, True where the query head reads that KV head."""
        kv_of = reference("step11_gqa", "kv_head_for")(self.n_head, self.n_kv_head)  # [n_head]
        reads = kv_of[:, None] == np.arange(self.n_kv_head)[None, :]  # [n_head, n_kv_head]
        head = _titled(say("show.groups_head", n_head=self.n_head, n_kv_head=self.n_kv_head,
                           group=self.n_head // self.n_kv_head), self.source)
        return "\n\n".join([head, grid(reads, [f"q{h}" for h in range(self.n_head)],
                                       [f"kv{g}" for g in range(self.n_kv_head)], say("show.reads_title"),
                                       corner=say("show.corner_query_kv_head"))])


def _log(weights):
    return tuple(math.log(w) if w > 0 else 0.0 for w in weights)


HOW_ARE_YOU = ("How", " are", " you")
PRESETS = {
    # ln of the weights printed for GPT-2 Block 0 / Head 0 on "How are you": softmax gives them back
    "how-are-you": Frame(3, 3, tokens=HOW_ARE_YOU,
                         scores=(_log([1.0, 1.0, 1.0]), _log([0.9534, 0.0466, 1.0]), _log([0.8849, 0.0563, 0.0588])),
                         source=Source(("ref_gpt2_head0#how-are-you",))),
    "kv-cache": Frame(2, 5, source=Source(("ref_kv_cache#frame-past3-new2",),
                                     {"en": "past = 3, new = 2", "zh": "past = 3，new = 2"})),
    "padding": Frame(4, 4, tokens=("<pad>",) + HOW_ARE_YOU, padding=(0, 1, 1, 1),
                     source=Source(("ref_padding", "ref_fully_masked"),
                                    {"en": "a left-padded batch row", "zh": "批量中一行左侧填充的序列"})),
    "tiled": TiledFrame(2, 5, 2, scores=((0.5, 1.0, 2.0, 0.3, 0.0), (1.0, -0.5, 0.2, 1.5, 3.0)),
                        source=Source(("step10_tiled#tiles",),
                                       {"en": "past = 3, new = 2, blocks of 2", "zh": "past = 3，new = 2，每块 2 个 Key"})),
    "gqa": HeadGroups(4, 2, source=Source(("step11_gqa#groups",))),
    "gqa-llama": HeadGroups(32, 8, source=Source(("step11_gqa#groups",), {"en": "Llama 3 8B", "zh": "Llama 3 8B"})),
}


def reference(module, function):
    """The reference function, or NoReference when this copy of the kit has no solutions/."""
    if not SOLUTIONS_DIR.is_dir():
        raise NoReference(say("show.no_reference", folder=SOLUTIONS_DIR))
    from .reference import reference_function

    return reference_function(module, function)


def tables(frame):
    """(visible, M, P) of `frame`, from the reference solutions."""
    visible = reference("step3_masks", "causal_visible")(frame.n_query, frame.n_key)
    if frame.padding:
        padding = reference("step3_masks", "padding_visible")(np.array(frame.padding, dtype=np.int64), frame.n_query)
        visible = reference("step3_masks", "combine_visible")(visible, padding)
    M = reference("step3_masks", "additive_mask")(visible)
    scores = np.array(frame.scores, dtype=np.float64) if frame.scores else np.zeros(visible.shape)
    P = reference("step4_softmax", "softmax")(scores + M)
    return visible, M, P


def render(frame):
    """The three labelled grids of `frame`, visibility and M side by side, then P (a frame of another kind
    renders itself)."""
    if not isinstance(frame, Frame):
        return frame.render()
    visible, M, P = tables(frame)
    rows, cols = frame.row_labels(), frame.col_labels()
    head = _titled(f"T_q = {frame.n_query}, T_k = {frame.n_key}, past = T_k - T_q = {frame.past}"
                   + (f", attention_mask = {list(frame.padding)}" if frame.padding else ""), frame.source)
    weights = "P = softmax(S + M)" + ("" if frame.scores else say("show.equal_scores"))
    return "\n\n".join([head,
                        beside(grid(visible, rows, cols, say("show.visible_title")),
                               grid(M, rows, cols, "M = additive_mask(visible)")),
                        grid(P, rows, cols, weights)])


def stored_presets():
    """{preset: {lang: its text}}: what the release's attnkit-show prints for a preset (it cannot compute them)."""
    presets = {}
    for name, frame in PRESETS.items():
        presets[name] = {}
        for lang in LANGUAGES:
            with speaking(lang):
                presets[name][lang] = render(frame)
    return presets
