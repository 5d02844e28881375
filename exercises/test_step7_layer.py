"""Public tests of step 7: GPT-2's attention layer: fused weights, twelve heads at once, merged and projected · GPT-2 的 Attention 层：融合的权重，12 个 Head 一起算，合并后再投影

Run: pytest exercises/test_step7_layer.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step7_layer.yaml.

第 7 步的公开测试。运行：pytest exercises/test_step7_layer.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step7_layer.yaml 里。
"""
from attnkit.public import case_test

test_split_qkv = case_test("step7_layer", "split_qkv")
test_split_heads = case_test("step7_layer", "split_heads")
test_merge_heads = case_test("step7_layer", "merge_heads")
test_gpt2_attention = case_test("step7_layer", "gpt2_attention")
