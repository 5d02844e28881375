"""Public tests of step 12: Rotary position embeddings: Q and K turned by their positions · 旋转位置编码（RoPE）：Q 和 K 按位置旋转

Run: pytest exercises/test_step12_rope.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step12_rope.yaml.

第 12 步的公开测试。运行：pytest exercises/test_step12_rope.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step12_rope.yaml 里。
"""
from attnkit.public import case_test

test_rope_frequencies = case_test("step12_rope", "rope_frequencies")
test_apply_rope = case_test("step12_rope", "apply_rope")
test_rope_attention = case_test("step12_rope", "rope_attention")
