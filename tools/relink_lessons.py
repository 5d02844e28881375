"""Rewrite the old "read:" references of the case files and the manifest to lesson references.

Run once from the kit's root: `python tools/relink_lessons.py [YAML…]` (default: the manifest and
every case file under src/attnkit/data/cases/ and autograder/). Each `lesson: "<old>"` line whose
old text is in MAPPING becomes `lesson: "<new>"`; the same old text may map differently per step
(the 2×4 example is a softmax example in step 4 and a whole-head example in step 6), so a key is
(step module, old text), with the module None for "any step". A line that already holds a
reference is left alone, so the script can run again after a merge. An old text not in the table is
reported and left as it is; tests/test_lesson_references.py then fails on it.
"""
import re
import sys
from pathlib import Path

from attnkit.lessons import REFERENCE

ROOT = Path(__file__).resolve().parents[1]

MAPPING = {
    # manifest.yaml: one lesson per step
    (None, "000 · Q、K、V"): "step1_projection",
    (None, "000 · 原始匹配分数; 从分数到 Attention 权重 (缩放)"): "step2_scores",
    (None, "002 · Mask是可见性表; 000 · 加入 Causal Mask"): "step3_masks",
    (None, "000 · 第三步：Softmax; 002 · 手算一次组合, 加上因果掩码会怎样"): "step4_softmax",
    (None, "000 · 用 Attention 权重读取 Value; 002 · 从两段内容到一个混合向量"): "step5_values",
    (None, "000 · 整个 Head 的矩阵形式; llama.cpp 实战"): "step6_head",
    # step 1
    (None, "000 · Q、K、V (Q_h = Z_l W_Q^(h) + b_Q^(h))"): "step1_projection#q-k-v",
    # step 2
    (None, "000 · 最小数值例子 (Q Kᵀ = [[3, 2], [2, 3]])"): "step2_scores#worked-examples",
    (None, "000 · 最小数值例子 (Q Kᵀ / sqrt(4) = [[1.5, 1.0], [1.0, 1.5]])"): "step2_scores#worked-examples",
    (None, "000 · Self-Attention 与单个 Head (12 heads, D_h = 64)"): "step2_scores#batched-heads",
    (None, "000 · llama.cpp 实战 ([-1.3936 / 8, -25.5417 / 8] ≈ [-0.1742, -3.1927])"): "ref_gpt2_head0#scores",
    (None, "002 · 从两段内容到一个混合向量 (scores [1, 0] -> [0.707107, 0])"): "step2_scores#worked-examples",
    # step 3
    (None, "000 · 加入 Causal Mask (the 'How are' table)"): "step3_masks#visibility-table",
    (None, "002 · Mask是可见性表, frame 5 (past = 3, new = 2)"): "ref_kv_cache#frame-past3-new2",
    (None, "002 · Mask是可见性表 (PAD限制)"): "ref_padding#pad-hides-keys",
    (None, "002 · 因果限制、PAD限制可以同时存在"): "step3_masks#combine",
    (None, "000 · 加入 Causal Mask (M = [[0, -∞], [0, 0]])"): "step3_masks#additive-mask",
    (None, "002 · 不同API的True可能表示允许或禁止"): "ref_polarity#api-table",
    # step 4
    (None, "002 · 手算一次组合 (scores [0, 1, 2] -> [0.0900, 0.2447, 0.6652])"): "step4_softmax#worked-examples",
    (None, "002 · 加上因果掩码会怎样 (-> [0.269, 0.731])"): "step4_softmax#masked-keys",
    ("step4_softmax", "000 · 最小数值例子 (P = [[1, 0], [0.378, 0.622]])"): "step4_softmax#worked-examples",
    (None, "002 · 从两段内容到一个混合向量 (scaled [0.707107, 0] -> [0.669762, 0.330238])"): "step4_softmax#worked-examples",
    (None, "000 · llama.cpp 实战 (kq [-1.3936, -25.5417] / 8)"): "ref_gpt2_head0#scores",
    (None, "000 · 第三步：Softmax"): "step4_softmax#stability",
    (None, "002 · 全行无可见Key还需明确策略"): "ref_fully_masked#kit-policy",
    # step 5
    ("step5_values", "000 · 最小数值例子 (O ≈ [[1, 0, 1, 0], [0.378, 0.622, 0.378, 0.622]])"): "step5_values#worked-examples",
    (None, "002 · 手算一次组合 (weights [0.0900, 0.2447, 0.6652] on values [10, 20, 30] -> 25.75)"): "step5_values#worked-examples",
    (None, "002 · 从两段内容到一个混合向量 (-> [6.697615, 6.604769])"): "step5_values#worked-examples",
    (None, "000 · llama.cpp 实战 (kqv of ' are' starts [-0.1080, 0.0509, 0.0538])"): "ref_gpt2_head0#values",
    # step 6
    ("step6_head", "000 · 最小数值例子 (P = [[1, 0], [0.378, 0.622]])"): "step6_head#minimal-example",
    ("step6_head", "000 · 最小数值例子 (O ≈ [[1, 0, 1, 0], [0.378, 0.622, 0.378, 0.622]])"): "step6_head#minimal-example",
    (None, "000 · llama.cpp 实战 (kq [3.7358, -13.7144] and [-1.3936, -25.5417], kq_scale = 1/8)"): "ref_gpt2_head0#scores",
    (None, "000 · llama.cpp 实战 (Value 加权; kqv of ' are')"): "ref_gpt2_head0#values",
    (None, "002 · 从两段内容到一个混合向量 (q = [1, 0], k0 = [1, 0], k1 = [0, 1], v0 = [10, 0], v1 = [0, 20])"): "step5_values#worked-examples",
    (None, "002 · 从两段内容到一个混合向量 (步骤 2–3)"): "step4_softmax#worked-examples",
    (None, "002 · 加上因果掩码会怎样 (改变未来Value，当前因果输出应保持不变)"): "step6_head#future-values",
    (None, "000 · llama.cpp 实战 (Qcur, Kcur, Vcur, kq, kq_soft_max, kqv)"): "step6_head#trace",
    (None, "000 · llama.cpp 实战 (改变输入: How are you)"): "ref_gpt2_head0#how-are-you",
}

_LESSON_LINE = re.compile(r'^(?P<head>\s*lesson:\s*)"(?P<old>[^"]*)"\s*$')
_STEP = re.compile(r"step\d+_[a-z]+")


def new_reference(step, old):
    """The lesson reference for `old` in `step` (a module name or None), or None when unmapped."""
    return MAPPING.get((step, old)) or MAPPING.get((None, old))


def relink(path):
    """Rewrite `path` in place; return the old texts it could not map."""
    found = _STEP.search(str(path))
    step = found[0] if found else None
    lines, unmapped = path.read_text(encoding="utf-8").splitlines(keepends=True), []
    for k, line in enumerate(lines):
        match = _LESSON_LINE.match(line)
        if match is None or REFERENCE.fullmatch(match["old"]):  # not a lesson line, or already relinked
            continue
        new = new_reference(step, match["old"])
        if new is None:
            unmapped.append(match["old"])
        else:
            lines[k] = f'{match["head"]}"{new}"\n'
    path.write_text("".join(lines), encoding="utf-8")
    return unmapped


def main(paths):
    data = ROOT / "src" / "attnkit" / "data"
    targets = [Path(p) for p in paths] or [data / "manifest.yaml", *sorted((data / "cases").glob("*.yaml")),
                                           *sorted((ROOT / "autograder").rglob("*.yaml"))]
    missing = {(str(path), old) for path in targets for old in relink(path)}
    for where, old in sorted(missing):
        print(f"{where}: no mapping for lesson {old!r}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
