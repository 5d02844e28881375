"""Public tests of step 3: Masks: the visibility table, padding, KV cache and API polarity · 掩码：可见性表、填充、KV Cache 与各 API 的布尔含义

Run: pytest exercises/test_step3_masks.py   (all steps: pytest exercises)
The cases are in the kit's catalogue, src/attnkit/data/cases/step3_masks.yaml.

第 3 步的公开测试。运行：pytest exercises/test_step3_masks.py（所有步骤：pytest exercises）。
用例在本套工具的用例目录 src/attnkit/data/cases/step3_masks.yaml 里。
"""
from attnkit.public import case_test

test_causal_visible = case_test("step3_masks", "causal_visible")
test_padding_visible = case_test("step3_masks", "padding_visible")
test_combine_visible = case_test("step3_masks", "combine_visible")
test_additive_mask = case_test("step3_masks", "additive_mask")
test_to_torch_sdpa_mask = case_test("step3_masks", "to_torch_sdpa_mask")
test_to_torch_mha_mask = case_test("step3_masks", "to_torch_mha_mask")
test_to_torch_key_padding_mask = case_test("step3_masks", "to_torch_key_padding_mask")
